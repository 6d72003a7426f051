package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks that a finished job's accounting is exact, from what is on the topics and in the broker's
 * store: every round closed exactly once with exactly {@code B} distinct tasks of that round, no
 * task id counted twice, and the broker's per-worker observed tasks exactly the COMPLETED and LATE
 * timings of the CLOSED events, a task's first one only (as it folds them). Whatever happened
 * during the job (kills, hostile records), nothing may have been lost, repeated or invented.
 */
final class JobAccounting {
    private JobAccounting() {}

    /** Asserts the accounting of {@code job}, which ran {@code rounds} rounds of {@code batch} tasks. */
    static void assertExact(LocalDeployment local, String job, int batch, long rounds) {
        assertExact(local, job, batch, rounds, Set.of());
    }

    /**
     * As {@link #assertExact(LocalDeployment, String, int, long)}, leaving out the records of the
     * rounds topic at {@code forged} (offsets, as {@code "partition@offset"}): records a test wrote
     * there itself, which the broker must have refused.
     */
    static void assertExact(LocalDeployment local, String job, int batch, long rounds, Set<String> forged) {
        List<RoundEvent> closes = TopicContents.read(local, local.topics().rounds()).stream()
                .filter(r -> !forged.contains(r.partition() + "@" + r.offset()))
                .map(r -> r.value())
                .filter(e -> e != null && e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED)
                .toList();
        Map<Long, Integer> closesPerRound = new TreeMap<>();
        Set<String> counted = new HashSet<>();
        Map<String, Long> countedPerWorker = new HashMap<>();
        List<String> countedTwice = new ArrayList<>();
        for (RoundEvent e : closes) {
            closesPerRound.merge(e.getRound(), 1, Integer::sum);
            Set<String> completed = new HashSet<>();
            Set<String> finishedInRound = new HashSet<>();
            for (RoundTiming t : e.getTimings()) {
                if (t.getStatus() == TimingStatus.COMPLETED) {
                    assertTrue(
                            completed.add(t.getTaskId()),
                            "round " + e.getRound() + " completes " + t.getTaskId() + " once");
                    assertTrue(
                            t.getTaskId().startsWith(job + "/" + e.getRound() + "/"),
                            "round " + e.getRound() + " completes its own task, not " + t.getTaskId());
                }
                // COMPLETED and LATE: what the broker counts, a task's first result only (a backup
                // copy or a run again after a rebalance may finish it a second time in its round)
                if (t.getStatus() != TimingStatus.CANCELLED && finishedInRound.add(t.getTaskId())) {
                    if (!counted.add(t.getTaskId())) {
                        countedTwice.add(t.getTaskId());
                    }
                    countedPerWorker.merge(t.getWorkerId(), 1L, Long::sum);
                }
            }
            assertEquals(batch, completed.size(), "round " + e.getRound() + " has exactly B distinct tasks");
        }
        for (long k = 1; k <= rounds; k++) {
            assertEquals(1, closesPerRound.getOrDefault(k, 0), "round " + k + " closed exactly once");
        }
        assertEquals(rounds, closesPerRound.size(), "no round beyond the job's: " + closesPerRound.keySet());
        assertEquals(List.of(), countedTwice, "no task id counted twice");

        JobState state = await("the broker to fold round " + rounds)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .ignoreExceptions()
                .until(() -> local.broker().jobs().get(job), s -> s != null && s.getLastClosedRound() >= rounds);
        assertEquals(rounds, state.getLastClosedRound(), "the broker's last closed round is the job's last");
        // observed, not count: drift handling may restart a worker's statistics, never this
        Map<String, Long> brokerCounts = new TreeMap<>();
        for (int i = 0; i < state.getWorkerIds().size(); i++) {
            if (state.getObserved().get(i) > 0) {
                brokerCounts.put(
                        state.getWorkerIds().get(i), state.getObserved().get(i));
            }
        }
        assertEquals(
                new TreeMap<>(countedPerWorker),
                brokerCounts,
                "the broker's per-worker task counts are the CLOSED events' COMPLETED and LATE timings");
    }
}
