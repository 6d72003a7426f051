package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.ata.broker.JobRuntime;
import io.ata.local.LocalDeployment;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups and the stall bound with a real freeze: the fastest agent runs as a process of its own
 * ({@code ata worker}), and after round {@value #FREEZE_AFTER} it gets SIGSTOP for longer than its
 * session and transaction timeouts (10 s), then SIGCONT. A frozen process keeps its group
 * membership until its session expires, and its open transaction until Kafka aborts it. While it
 * is frozen, and when it wakes, no round may wait beyond the broker's deadline bound: the trainer backs up its
 * quiet assignment, the others run it, and the woken agent rejoins without holding up the group.
 * Skipped where {@code kill} cannot stop a process.
 */
@EndToEnd
class FrozenAgentProcessTest {
    private static final String PREFIX = "frozen.";
    private static final String JOB = "frozen";
    private static final String FROZEN = "agent-1";
    private static final int BATCH = 6;
    private static final long FREEZE_AFTER = 60;
    private static final Duration FREEZE = Duration.ofSeconds(12);
    /** The frozen agent's time model: linear worker 1 at scale 0.1, 2.9 + Exp(2.9) ms. */
    private static final double FROZEN_MEAN_MS = 5.8;

    private LocalDeployment local;
    private Process agent;

    /** The agent process's log; kept when the test fails, to read why. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(signal("-0", ProcessHandle.current().pid()), "no kill command to stop and continue a process");
        local = LocalDeployment.embedded(new Topics(PREFIX).withTaskPartitions(4), LocalDeployment.QUICK_LIVENESS);
        local.startBroker();
        agent = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        "io.ata.cli.AtaCommand",
                        "worker",
                        "--bootstrap-servers=" + local.bootstrapServers(),
                        "--schema-registry-url=" + local.registryUrl(),
                        "--topic-prefix=" + PREFIX,
                        "--group-id=" + PREFIX + "workers", // the group of the deployment's own agents
                        "--worker-id=" + FROZEN,
                        "--time-model=linear",
                        "--worker-index=1",
                        "--time-scale=0.1",
                        "--heartbeat-interval=250ms",
                        "--log-level=warn")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("agent-1.log").toFile())
                .start();
        TaskTimeDistribution middle = new TaskTimeDistribution.Shifted(12, new TaskTimeDistribution.Exponential(3));
        local.startAgent("agent-2", middle);
        local.startAgent("agent-3", middle);
        local.awaitFleet(Duration.ofSeconds(60));
        awaitMember(FROZEN, Duration.ofSeconds(60));
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            signal("-CONT", agent.pid());
            agent.destroyForcibly();
        }
        if (local != null) {
            local.close();
        }
    }

    @Test
    void aFrozenAgentProcessHoldsUpNoRoundBeyondTheBound() throws Exception {
        AtomicLong frozenAt = new AtomicLong();
        AtomicLong thawedAt = new AtomicLong();
        CountDownLatch thawed = new CountDownLatch(1);
        Trainer trainer = local.startTrainer(JOB, "ata-auto", BATCH, 1_000_000, summary -> {
            if (summary.round() == FREEZE_AFTER) {
                Thread freezer = new Thread(() -> freezeAndThaw(frozenAt, thawedAt, thawed), "freezer");
                freezer.setDaemon(true);
                freezer.start();
            }
        });
        assertTrue(thawed.await(2, TimeUnit.MINUTES), "the agent was frozen and let go: " + trainer.failure());
        long roundAtThaw = trainer.metrics().lastClosedRound();
        assertTrue(
                trainer.awaitRounds(roundAtThaw + 100, Duration.ofSeconds(60)),
                "the job goes on after the agent woke: " + trainer.failure());
        long last = trainer.metrics().lastClosedRound();
        double margin = trainer.metrics().deadlineMarginMs();
        trainer.close();

        List<RoundEvent> closed = TopicContents.values(
                local, local.topics().rounds(), e -> e.getJob().equals(JOB) && e.getType() == RoundEventType.CLOSED);
        RoundEvent[] byRound = new RoundEvent[(int) last + 1];
        for (RoundEvent e : closed) {
            if (e.getRound() <= last && byRound[(int) e.getRound()] == null) {
                byRound[(int) e.getRound()] = e;
            }
        }
        for (long k = 1; k <= last; k++) {
            List<String> accepted = byRound[(int) k].getTimings().stream()
                    .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                    .map(RoundTiming::getTaskId)
                    .toList();
            assertEquals(BATCH, new HashSet<>(accepted).size(), "round " + k + " keeps B distinct results");
        }

        double[] before = new double[20];
        for (int i = 0; i < 20; i++) {
            before[i] = byRound[(int) FREEZE_AFTER - 19 + i].getRoundTimeMs();
        }
        Arrays.sort(before);
        double usual = before[18]; // the 95th percentile of the 20 rounds before the freeze
        List<TaskAssignment> assignments = Allocations.of(local, JOB);
        long firstCopy = assignments.stream()
                .filter(a -> a.getRound() > FREEZE_AFTER && a.getBackupOf().equals(FROZEN))
                .mapToLong(TaskAssignment::getRound)
                .min()
                .orElse(-1);
        assertTrue(
                firstCopy > FREEZE_AFTER && firstCopy <= FREEZE_AFTER + 5,
                "the frozen agent's tasks were backed up in one of the first rounds of the freeze: " + firstCopy
                        + "; its tasks per round: " + Allocations.profile(assignments, FROZEN, FREEZE_AFTER + 10, 5));
        // its share: the most tasks it had in a round of the 20 before the freeze
        int share = assignments.stream()
                .filter(a -> a.getRound() > FREEZE_AFTER - 20
                        && a.getRound() <= FREEZE_AFTER
                        && a.getWorkerId().equals(FROZEN)
                        && a.getBackupOf().isEmpty())
                .mapToInt(a -> a.getTaskIds().size())
                .max()
                .orElse(1);
        double bound = usual + 3 * FROZEN_MEAN_MS * share + 2 * (JobRuntime.DEADLINE_FLOOR_MS + margin);
        List<Double> frozenRounds = new ArrayList<>();
        List<Double> wakeRounds = new ArrayList<>();
        for (long k = FREEZE_AFTER + 1; k <= last; k++) {
            long closedAt = byRound[(int) k].getTimestampMs();
            if (closedAt >= frozenAt.get() && closedAt <= thawedAt.get()) {
                frozenRounds.add(byRound[(int) k].getRoundTimeMs());
            } else if (closedAt > thawedAt.get() && closedAt <= thawedAt.get() + 5_000) {
                wakeRounds.add(byRound[(int) k].getRoundTimeMs());
            }
        }
        double frozenMax = frozenRounds.stream().mapToDouble(d -> d).max().orElseThrow();
        double wakeMax = wakeRounds.stream().mapToDouble(d -> d).max().orElseThrow();
        System.out.printf( // the figures the comment below quotes
                "first copy in round %d, share %d, usual %.1f ms, margin %.1f ms, bound %.1f ms; frozen %d rounds, max %.1f ms; first 5 s"
                        + " awake %d rounds, max %.1f ms%n",
                firstCopy, share, usual, margin, bound, frozenRounds.size(), frozenMax, wakeRounds.size(), wakeMax);
        assertTrue(frozenRounds.size() >= 10, "rounds went on while it was frozen: " + frozenRounds.size());
        assertTrue(frozenMax <= bound, "while frozen, a round took " + frozenMax + " ms; bound " + bound + " ms");
        assertTrue(wakeMax <= bound, "after it woke, a round took " + wakeMax + " ms; bound " + bound + " ms");
        assertTrue(
                agent.isAlive(),
                () -> "the woken agent runs on; it exited with " + agent.exitValue() + ", its log: "
                        + dir.resolve("agent-1.log"));
    }

    private void freezeAndThaw(AtomicLong frozenAt, AtomicLong thawedAt, CountDownLatch thawed) {
        try {
            frozenAt.set(System.currentTimeMillis());
            assertTrue(signal("-STOP", agent.pid()));
            Thread.sleep(FREEZE.toMillis());
            thawedAt.set(System.currentTimeMillis());
            assertTrue(signal("-CONT", agent.pid()));
            thawed.countDown();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sends {@code signal} to process {@code pid} with the system's {@code kill}; whether it did. */
    private static boolean signal(String signal, long pid) {
        try {
            return new ProcessBuilder("kill", signal, Long.toString(pid))
                            .redirectErrorStream(true)
                            .start()
                            .waitFor()
                    == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits until the broker sees {@code worker} as a member owning task partitions. */
    private void awaitMember(String worker, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            WorkerHeartbeat h = local.broker().membership().get(worker);
            if (h != null && !h.getPartitions().isEmpty()) {
                return;
            }
            assertTrue(agent.isAlive(), "the agent process stopped; see its log in " + dir);
            assertTrue(System.nanoTime() < deadline, worker + " did not join within " + timeout);
            Thread.sleep(50);
        }
    }
}
