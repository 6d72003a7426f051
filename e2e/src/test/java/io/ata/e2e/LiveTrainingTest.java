package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.allocation.AllocationSolver;
import io.ata.allocation.policy.ConstantConvention;
import io.ata.broker.BrokerCounter;
import io.ata.broker.BrokerMetrics;
import io.ata.broker.BrokerSettings;
import io.ata.lab.replay.LiveRunReplay;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.local.LocalDeployment;
import io.ata.schemas.JobState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerMetrics;
import io.ata.workeragent.AgentMetrics;
import io.ata.workloads.time.TaskTimeDistribution;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Full training runs on the embedded Kafka broker: the real broker topology (exactly-once Kafka
 * Streams), real worker agents in a consumer group, real trainers, real Avro bytes.
 */
@EndToEnd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LiveTrainingTest {
    static final int AGENTS = 4;
    static final int BATCH = 6;
    /** Agent j's task takes 2j + Exp(mean 2j) ms: means 4, 8, 12, 16 ms. */
    static final Map<String, Double> MEANS = new LinkedHashMap<>();

    private LocalDeployment local;

    @BeforeAll
    void start() throws Exception {
        for (int j = 1; j <= AGENTS; j++) {
            MEANS.put("agent-" + j, 4.0 * j);
        }
        BrokerSettings settings = BrokerSettings.builder()
                .topicPrefix("")
                .knownMeans(MEANS)
                .alpha(12.0)
                .eta(0.8)
                .liveness(Duration.ofSeconds(10), Duration.ofMillis(500))
                .pipelinedAllocation(false)
                .build();
        local = LocalDeployment.embedded(new Topics("live.").withTaskPartitions(8), settings);
        local.startBroker();
        for (int j = 1; j <= AGENTS; j++) {
            local.startAgent(
                    "agent-" + j,
                    new TaskTimeDistribution.Shifted(2.0 * j, new TaskTimeDistribution.Exponential(2.0 * j)));
        }
        local.awaitFleet(Duration.ofSeconds(60));
    }

    @AfterAll
    void stop() {
        if (local != null) {
            local.close();
        }
    }

    private Trainer train(String job, String policy, long rounds) throws InterruptedException {
        Trainer trainer = local.startTrainer(job, policy, BATCH, rounds, RoundListener.NONE);
        assertTrue(
                trainer.awaitRounds(rounds, Duration.ofSeconds(120)),
                job + " closed only " + trainer.metrics().roundsClosed() + " rounds; " + trainer.failure());
        return trainer;
    }

    /** The broker folds a CLOSED event shortly after the trainer commits it. */
    private JobState awaitFolded(String job, long round) {
        return await("the broker to fold round " + round + " of " + job)
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> local.broker().jobs().get(job),
                        state -> state != null && state.getLastClosedRound() >= round);
    }

    private List<RoundEvent> events(String job) {
        List<RoundEvent> out = new ArrayList<>();
        for (ConsumerRecord<String, RoundEvent> r :
                TopicContents.read(local, local.topics().rounds())) {
            if (r.value().getJob().equals(job)) {
                out.add(r.value());
            }
        }
        return out;
    }

    /** Every round of the job closed once, with exactly B distinct accepted tasks of that round. */
    private void assertEveryRoundAggregatedExactlyB(String job, long rounds) {
        Map<Long, Integer> closes = new HashMap<>();
        for (RoundEvent e : events(job)) {
            if (e.getType() != RoundEventType.CLOSED) {
                continue;
            }
            closes.merge(e.getRound(), 1, Integer::sum);
            Set<String> accepted = new HashSet<>();
            for (RoundTiming t : e.getTimings()) {
                if (t.getStatus() == TimingStatus.COMPLETED) {
                    assertTrue(t.getTaskId().startsWith(job + "/" + e.getRound() + "/"), t.getTaskId());
                    assertTrue(accepted.add(t.getTaskId()), "task accepted twice: " + t.getTaskId());
                }
            }
            assertEquals(BATCH, accepted.size(), job + " round " + e.getRound());
        }
        for (long k = 1; k <= rounds; k++) {
            assertEquals(1, closes.getOrDefault(k, 0), job + ": round " + k + " closed once");
        }
        long lastModel = TopicContents.read(local, local.topics().model()).stream()
                .filter(r -> r.value().getJob().equals(job))
                .mapToLong(r -> r.value().getVersion())
                .max()
                .orElse(-1);
        assertEquals(rounds, lastModel, "the model advanced once per round");
    }

    @Test
    void everyPolicyTrainsAndEveryRoundAggregatesExactlyBDistinctTasks() throws Exception {
        List<String> policies = List.of(
                "ata-auto",
                "ata",
                "ata-empirical",
                "fta",
                "uta",
                "gta",
                "proportional",
                "adaptive-proportional",
                "ata-hedge:1",
                "ata-ert");
        long rounds = 12;
        for (String policy : policies) {
            String job = "job-" + policy.replace(':', '-');
            Trainer trainer = train(job, policy, rounds);
            assertEveryRoundAggregatedExactlyB(job, rounds);
            assertTrue(
                    trainer.metrics().lastObjective() < 30,
                    "objective " + trainer.metrics().lastObjective());
        }
        // GTA gives every live worker B tasks; the trainer keeps the first B results of each round.
        for (RoundEvent e : events("job-gta")) {
            if (e.getType() == RoundEventType.OPENED) {
                continue;
            }
            assertTrue(e.getTimings().stream()
                            .map(RoundTiming::getWorkerId)
                            .distinct()
                            .count()
                    >= 1);
        }
        List<TaskAssignment> gtaRound = TopicContents.values(
                local, local.topics().tasks(), a -> a.getJob().equals("job-gta") && a.getRound() == 1);
        assertEquals(AGENTS, gtaRound.size(), "GTA asks every worker");
        assertTrue(gtaRound.stream().allMatch(a -> a.getTaskIds().size() == BATCH));
        assertGtaCancelsTheWorkInFlightAndTheBrokerLearnsIt(rounds);
        // FTA live is the proxy-optimal allocation of the configured means, as offline.
        JobState fta = awaitFolded("job-fta", rounds);
        int[] expected = new int[AGENTS];
        new AllocationSolver()
                .solve(MEANS.values().stream().mapToDouble(Double::doubleValue).toArray(), AGENTS, BATCH, expected);
        Map<String, Integer> expectedByWorker = new TreeMap<>();
        for (int j = 0; j < AGENTS; j++) {
            if (expected[j] > 0) {
                expectedByWorker.put("agent-" + (j + 1), expected[j]);
            }
        }
        Map<String, Integer> actual = new TreeMap<>();
        fta.getLastAllocation()
                .forEach(a -> actual.put(a.getWorkerId(), a.getTaskIds().size()));
        assertEquals(expectedByWorker, actual);
    }

    /**
     * At the end of a GTA round the work in flight is discarded (spec 5): the agents stop the tasks
     * they are running, publish CANCELLED timings with the time worked, and the trainer passes them
     * on in a later CLOSED event, which the broker folds as censored time.
     */
    private void assertGtaCancelsTheWorkInFlightAndTheBrokerLearnsIt(long rounds) throws InterruptedException {
        List<TaskTiming> cancelled = TopicContents.values(
                local,
                local.topics().timings(),
                t -> t.getJob().equals("job-gta") && t.getStatus() == TimingStatus.CANCELLED);
        assertFalse(cancelled.isEmpty(), "agents stopped tasks in flight when GTA rounds closed");
        Map<String, RoundTiming> passedOn = new HashMap<>();
        for (RoundEvent e : events("job-gta")) {
            for (RoundTiming t : e.getTimings()) {
                if (t.getStatus() == TimingStatus.CANCELLED) {
                    long taskRound = Long.parseLong(t.getTaskId().split("/")[1]);
                    assertTrue(taskRound < e.getRound(), "a cancellation is of a round closed before: " + t);
                    assertTrue(passedOn.put(t.getTaskId(), t) == null, "passed on once: " + t.getTaskId());
                }
            }
        }
        // (a cancellation reaches the CLOSED event of whichever round is open when it arrives; those
        // of the job's last rounds may come after its last CLOSED event)
        assertFalse(passedOn.isEmpty(), "cancellations reached the broker through CLOSED events");
        Map<String, TaskTiming> published = new HashMap<>();
        cancelled.forEach(t -> published.put(t.getTaskId(), t));
        double censoredMs = 0;
        for (RoundTiming closed : passedOn.values()) {
            TaskTiming t = published.get(closed.getTaskId());
            assertTrue(t != null, "a CLOSED event passes on only what an agent published: " + closed);
            assertEquals(t.getWorkerId(), closed.getWorkerId());
            assertEquals(t.getComputeMs(), closed.getComputeMs());
            censoredMs += closed.getComputeMs();
        }
        JobState gta = awaitFolded("job-gta", rounds);
        double brokerCensored =
                gta.getCensored().stream().mapToDouble(Double::doubleValue).sum();
        assertEquals(
                censoredMs,
                brokerCensored,
                1e-6 * Math.max(1, censoredMs),
                "the broker's statistics hold exactly the censored time passed on");
    }

    /** The demo's setting: one registry for the broker, the trainer and every agent, each part's numbers apart. */
    @Test
    void thePartsOfADeploymentShareOneRegistryAndKeepTheirOwnNumbers() throws Exception {
        MeterRegistry meters = local.meters();
        Trainer trainer = train("job-meters", "uta", 5);

        for (int j = 1; j <= AGENTS; j++) {
            String worker = "agent-" + j;
            assertEquals(
                    local.agent(worker).metrics().tasksRun(),
                    (long) meters.get(AgentMetrics.TASKS)
                            .tags(AgentMetrics.WORKER, worker, AgentMetrics.OUTCOME, "completed")
                            .counter()
                            .count(),
                    worker);
        }
        assertEquals(
                AGENTS,
                counters(meters, AgentMetrics.TASKS, AgentMetrics.OUTCOME, "completed"),
                "one series per agent");
        assertEquals(
                1,
                counters(meters, BrokerCounter.ROUNDS_DEFERRED.meterName(), BrokerMetrics.APPLICATION, "live.broker"),
                "the broker's counters, tagged with its application id");
        assertEquals(5, trainer.metrics().roundsClosed());
        await("the finished trainer to stop").atMost(Duration.ofSeconds(30)).until(() -> !trainer.isRunning());
        assertEquals(
                0,
                counters(meters, TrainerMetrics.ROUNDS_CLOSED, TrainerMetrics.JOB, "job-meters"),
                "a stopped trainer's meters leave the registry");
    }

    /** How many counters named {@code name} carry the tag {@code key=value}. */
    private static int counters(MeterRegistry meters, String name, String key, String value) {
        return meters.find(name).tag(key, value).counters().size();
    }

    @Test
    void replayingTheClosedRoundsThroughTheSimulatorsPolicyReproducesTheLiveAllocations() throws Exception {
        String job = "job-replayed";
        long rounds = 30;
        train(job, "ata-auto", rounds);
        JobState state = awaitFolded(job, rounds);
        // live allocations, per round and worker, from the tasks topic
        Map<Long, Map<String, Integer>> live = new TreeMap<>();
        for (ConsumerRecord<String, TaskAssignment> r :
                TopicContents.read(local, local.topics().tasks())) {
            TaskAssignment a = r.value();
            // the policy's plan: not the backup copies the broker adds for overdue tasks (a slow
            // round on a loaded machine gets some), which would overwrite a worker's planned count
            if (a.getJob().equals(job) && a.getBackupOf().isEmpty()) {
                live.computeIfAbsent(a.getRound(), k -> new TreeMap<>())
                        .put(a.getWorkerId(), a.getTaskIds().size());
            }
        }
        // each round's timings as the broker folded them: its first CLOSED event's, in the trainer's
        // order, with when each result reached the trainer (ata-auto learns the overheads from those)
        Map<Long, List<RoundTiming>> closed = new TreeMap<>();
        for (ConsumerRecord<String, RoundEvent> r :
                TopicContents.read(local, local.topics().rounds())) {
            RoundEvent e = r.value();
            if (e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED) {
                closed.putIfAbsent(e.getRound(), e.getTimings());
            }
        }
        // the job's seed as the broker holds it (it came in OPENED): replay breaks ties the same way
        LiveRunReplay replay = new LiveRunReplay(
                "ata-auto", BATCH, state.getSeed(), state.getWorkerIds(), ConstantConvention.PAPER, 12.0, 0.8, MEANS);
        for (long k = 1; k <= rounds; k++) {
            assertEquals(new TreeMap<>(replay.plan(k)), live.get(k), "round " + k);
            List<RoundTiming> timings = closed.getOrDefault(k, List.of());
            List<TimingRecord> records = new ArrayList<>();
            double[] arrivals = new double[timings.size()];
            for (int j = 0; j < timings.size(); j++) {
                RoundTiming t = timings.get(j);
                records.add(new TimingRecord(
                        t.getWorkerId(), t.getComputeMs(), k, t.getTaskId(), null, status(t.getStatus())));
                arrivals[j] = t.getArrivalMs() >= 0 ? t.getArrivalMs() : Double.NaN;
            }
            assertTrue(
                    timings.stream().allMatch(t -> t.getStatus() == TimingStatus.CANCELLED || t.getArrivalMs() >= 0),
                    "the trainer says when each result arrived");
            replay.observe(k, records, arrivals);
        }
        for (int i = 0; i < state.getWorkerIds().size(); i++) {
            assertEquals(
                    replay.stats().count(i),
                    state.getCount().get(i),
                    "statistics of " + state.getWorkerIds().get(i));
        }
    }

    private static TimingRecord.Status status(TimingStatus status) {
        return switch (status) {
            case COMPLETED -> TimingRecord.Status.COMPLETED;
            case LATE -> TimingRecord.Status.LATE;
            case CANCELLED -> TimingRecord.Status.CANCELLED;
        };
    }
}
