package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import io.ata.workeragent.AssignmentRunner.Outcome;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.time.TaskTimeDistribution;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The assignment logic against an in-memory model source and output: no Kafka. */
class AssignmentRunnerTest {

    private static final String ME = "worker-me";
    private static final long NOW_MS = 1_700_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final Duration STALLED_JOB_WAIT = AgentConfig.DEFAULT_STALLED_JOB_WAIT;

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final FakeModels models = new FakeModels();
    private final RecordingOutput out = new RecordingOutput();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final AgentMetrics metrics = new AgentMetrics(meters, ME);
    private final List<String> computed = new ArrayList<>();
    private boolean stop;
    private long nanoNow;

    // ---- fakes ---------------------------------------------------------------------------

    /**
     * Models in a map; {@code onAwait} lets a test deliver a model "while the runner waits". A wait
     * that finds nothing takes its whole timeout on the fake monotonic clock.
     */
    private final class FakeModels implements ModelSource {
        final Map<String, ModelVersion> latest = new HashMap<>();
        Runnable onAwait = () -> {};
        /** The version whose slices are "arriving"; -1: none. */
        long arrivingVersion = -1;
        /** How long every job's model has been quiet: read just now unless a test says otherwise. */
        Duration quiet = Duration.ZERO;
        /** The jobs whose models are being read again (forgotten, then asked for). */
        final Set<String> recalling = new HashSet<>();
        /** The jobs forgotten and not read again (a read that found nothing cooling down, say). */
        final Set<String> forgotten = new HashSet<>();

        /** Where each committed version was read, by job and version. */
        final Map<String, Map<Long, ModelPosition>> placed = new HashMap<>();

        void publish(ModelVersion model) {
            latest.put(model.getJob(), model);
        }

        /** Commits {@code model}, read at {@code position}. */
        void commit(ModelVersion model, ModelPosition position) {
            publish(model);
            placed.computeIfAbsent(model.getJob(), j -> new HashMap<>()).put(model.getVersion(), position);
        }

        @Override
        public Optional<ModelPosition> committedAt(String job, long version) {
            return Optional.ofNullable(placed.getOrDefault(job, Map.of()).get(version));
        }

        @Override
        public Optional<ModelVersion> latest(String job) {
            return Optional.ofNullable(latest.get(job));
        }

        @Override
        public Optional<ModelVersion> await(String job, long version, Duration timeout) {
            onAwait.run();
            Optional<ModelVersion> found = latest(job).filter(m -> m.getVersion() >= version);
            if (found.isEmpty()) {
                nanoNow += timeout.toNanos();
            }
            return found;
        }

        @Override
        public boolean arriving(String job, long version) {
            return arrivingVersion >= version;
        }

        @Override
        public Duration quietFor(String job) {
            return quiet;
        }

        @Override
        public boolean recall(String job) {
            return recalling.contains(job);
        }

        @Override
        public boolean readingAgain(String job) {
            return recalling.contains(job);
        }

        @Override
        public boolean forgot(String job) {
            return forgotten.contains(job);
        }

        /** Runs before the source has caught up with the topic; then it has. */
        Runnable onCatchUp = () -> {};

        @Override
        public boolean awaitCaughtUp(Duration timeout) {
            onCatchUp.run();
            return true;
        }
    }

    /** Versions read before their commit, one per job, as {@link EarlyModels} keeps them. */
    private static final class FakeEarly implements EarlyStart {
        final Map<String, EarlyModel> early = new HashMap<>();
        final List<EarlyModel> distrusted = new ArrayList<>();

        @Override
        public Optional<EarlyModel> early(String job, long version) {
            return Optional.ofNullable(early.get(job)).filter(e -> e.model().getVersion() == version);
        }

        @Override
        public void distrust(String job, EarlyModel model) {
            distrusted.add(model);
            early.remove(job, model);
        }
    }

    private final FakeEarly early = new FakeEarly();

    private record Published(TaskResult result, TaskTiming timing, boolean completesAssignment) {}

    private record MarkedDone() {}

    private record DeadLettered(DeadLetter letter) {}

    private record Parked(TaskAssignment assignment) {}

    /** Every effect, in order. */
    private static final class RecordingOutput implements AssignmentOutput {
        final List<Object> effects = new ArrayList<>();
        RuntimeException failOnPublish;

        @Override
        public void publishTask(TaskResult result, TaskTiming timing, boolean completesAssignment) {
            if (failOnPublish != null) {
                throw failOnPublish;
            }
            effects.add(new Published(result, timing, completesAssignment));
        }

        @Override
        public void markDone() {
            effects.add(new MarkedDone());
        }

        @Override
        public void deadLetter(DeadLetter letter) {
            effects.add(new DeadLettered(letter));
        }

        @Override
        public void park(TaskAssignment assignment) {
            effects.add(new Parked(assignment));
        }

        List<Published> published() {
            return effects.stream()
                    .filter(Published.class::isInstance)
                    .map(Published.class::cast)
                    .toList();
        }
    }

    /** The quadratic workload, also noting which tasks ran; {@code during} runs inside task i. */
    private Workload workload(Map<Integer, Runnable> during) {
        QuadraticWorkload real = new QuadraticWorkload();
        return (model, taskId, seed, stop) -> {
            during.getOrDefault(computed.size(), () -> {}).run();
            computed.add(taskId);
            return real.compute(model, taskId, seed, stop);
        };
    }

    private AssignmentRunner runner(Workload workload, Duration modelWait) {
        // every task takes exactly 30 ms on the fake monotonic clock
        return runner(workload, modelWait, new TaskTimeDistribution.Constant(30));
    }

    /** {@code taskTime == null}: tasks at natural speed (they take no time on the fake clock). */
    private AssignmentRunner runner(Workload workload, Duration modelWait, TaskTimeDistribution taskTime) {
        TaskPacer pacer =
                new TaskPacer(taskTime, 1.0, new SplittableRandom(0), () -> nanoNow, nanos -> nanoNow += nanos);
        return new AssignmentRunner(
                ME,
                workload,
                pacer,
                models,
                Fixtures.TOPICS.tasks().valueSerde(registry).deserializer(),
                metrics,
                Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC),
                0,
                modelWait,
                STALLED_JOB_WAIT,
                () -> stop);
    }

    private AssignmentRunner runner() {
        return runner(workload(Map.of()), Duration.ofSeconds(1));
    }

    private ConsumerRecord<byte[], byte[]> record(TaskAssignment assignment) {
        return MockClients.consumerRecord(
                Fixtures.TASKS, 3, 17, assignment.getWorkerId(), Fixtures.bytes(registry, assignment));
    }

    // ---- starting before the commit ------------------------------------------------------

    private static final ModelPosition EARLY_AT = new ModelPosition(0, 41);

    /** The quadratic problem's start with {@code by} added to its first parameter: a model of its own. */
    private static double[] shifted(double by) {
        double[] p = QuadraticProblem.paper().start();
        p[0] += by;
        return p;
    }

    /** The quadratic gradient of {@code taskId} at {@code model}. */
    private static ByteBuffer gradientAt(ModelVersion model, String taskId) {
        return ByteBuffer.wrap(new QuadraticWorkload()
                .compute(model, taskId, 0, () -> false)
                .orElseThrow()
                .gradient());
    }

    /** Round 2's model (version 1) read before its commit, version 0 committed; the runner starting early. */
    private AssignmentRunner earlyRunner(ModelVersion earlyVersion) {
        models.commit(Fixtures.model("job", 0), new ModelPosition(0, 40));
        early.early.put("job", new EarlyModel(earlyVersion, EARLY_AT));
        AssignmentRunner runner = runner();
        runner.setEarlyStart(early);
        return runner;
    }

    @Test
    void tasksStartOnTheirVersionBeforeItsCommitAndPublishOnceTheSameRecordCommitted() throws Exception {
        ModelVersion v1 = Fixtures.model("job", 1, shifted(0.5));
        AssignmentRunner runner = earlyRunner(v1);
        TaskAssignment assignment = Fixtures.assignment("job", 2, ME, 2);
        assertTrue(runner.modelCame(assignment), "the version came, not yet committed");
        List<Integer> computedAtCommit = new ArrayList<>();
        List<Integer> effectsAtCommit = new ArrayList<>();
        models.onAwait = () -> { // the commit completes while the first task computes
            if (models.latest("job").orElseThrow().getVersion() == 0) {
                computedAtCommit.add(computed.size());
                effectsAtCommit.add(out.effects.size());
                models.commit(v1, EARLY_AT);
            }
        };

        assertEquals(Outcome.COMPLETED, runner.handle(record(assignment), out));

        assertEquals(List.of(1), computedAtCommit, "the first task computed before the commit");
        assertEquals(List.of(0), effectsAtCommit, "nothing published before it");
        assertEquals(List.of("job/2/0", "job/2/1"), computed, "each task once");
        List<Published> published = out.published();
        assertEquals(2, out.effects.size());
        for (Published p : published) {
            assertEquals(1, p.result().getModelVersion());
            assertEquals(gradientAt(v1, p.result().getTaskId()), p.result().getGradient());
        }
        assertEquals(1, metrics.assignmentsEarlyConfirmed());
        assertEquals(0, metrics.assignmentsEarlyDiscarded());
    }

    @Test
    void aTaskStartedOnAVersionWhoseCloseAbortedRunsAgainOnTheVersionThatCommitted() throws Exception {
        ModelVersion aborted = Fixtures.model("job", 1, shifted(0.5));
        ModelVersion committed = Fixtures.model("job", 1, shifted(-1.5));
        AssignmentRunner runner = earlyRunner(aborted);
        // the trainer's close aborted; its successor closed the round again, in another record
        models.onAwait = () -> models.commit(committed, new ModelPosition(0, 45));

        assertEquals(Outcome.COMPLETED, runner.handle(record(Fixtures.assignment("job", 2, ME, 2)), out));

        assertEquals(List.of("job/2/0", "job/2/0", "job/2/1"), computed, "the first task again, at the commit");
        List<Published> published = out.published();
        assertEquals(2, out.effects.size(), "nothing computed on the aborted version went out");
        for (Published p : published) {
            assertEquals(
                    gradientAt(committed, p.result().getTaskId()), p.result().getGradient());
            assertNotEquals(
                    gradientAt(aborted, p.result().getTaskId()), p.result().getGradient());
        }
        assertTrue(published.get(1).completesAssignment());
        assertEquals(0, metrics.assignmentsEarlyConfirmed());
        assertEquals(1, metrics.assignmentsEarlyDiscarded());
    }

    @Test
    void aVersionThatDoesNotCommitInTimeIsNotTrustedAgainAndItsAssignmentWaitsParked() throws Exception {
        ModelVersion v1 = Fixtures.model("job", 1, shifted(0.5));
        AssignmentRunner runner = earlyRunner(v1);
        TaskAssignment assignment = Fixtures.assignment("job", 2, ME, 2);

        assertEquals(Outcome.PARKED, runner.handle(record(assignment), out));

        assertEquals(List.of(new Parked(assignment)), out.effects, "nothing published, nothing done");
        assertEquals(List.of(new EarlyModel(v1, EARLY_AT)), early.distrusted);
        assertFalse(runner.modelCame(assignment), "it waits for the committed version now");
        models.commit(Fixtures.model("job", 1), new ModelPosition(0, 50));
        assertEquals(Outcome.COMPLETED, runner.runParked(record(assignment), assignment, out));
        assertEquals(2, out.published().size());
        assertEquals(1, metrics.assignmentsEarlyDiscarded());
    }

    @Test
    void aRoundThatClosedPastAVersionNeverSeenCommittedPublishesNothingOfIt() throws Exception {
        ModelVersion v1 = Fixtures.model("job", 1, shifted(0.5));
        AssignmentRunner runner = earlyRunner(v1);
        // while the task computes, version 2 commits; version 1 was never seen committed here
        models.onAwait = () -> models.commit(Fixtures.model("job", 2), new ModelPosition(0, 60));

        assertEquals(Outcome.STOPPED_ROUND_CLOSED, runner.handle(record(Fixtures.assignment("job", 2, ME, 2)), out));

        assertEquals(
                List.of(new MarkedDone()), out.effects, "no cancellation notice of work on an unconfirmed version");
        assertEquals(1, metrics.assignmentsEarlyDiscarded());
    }

    @Test
    void aShutdownWhileATaskWaitsForItsVersionsCommitLeavesTheAssignmentForTheNextOwner() throws Exception {
        ModelVersion v1 = Fixtures.model("job", 1, shifted(0.5));
        AssignmentRunner runner = earlyRunner(v1);
        TaskAssignment assignment = Fixtures.assignment("job", 2, ME, 2);
        List<Long> awaitedAt = new ArrayList<>();
        models.onAwait = () -> { // the agent is told to stop while the commit is awaited
            awaitedAt.add(nanoNow);
            stop = awaitedAt.size() >= 2;
        };

        assertEquals(Outcome.STOPPED_SHUTDOWN, runner.handle(record(assignment), out));

        assertEquals(List.of(), out.effects, "nothing published, done, parked or dead-lettered");
        assertEquals(List.of(), early.distrusted, "the version may still commit: nothing against it");
        assertTrue(
                awaitedAt.get(awaitedAt.size() - 1) - awaitedAt.get(0) < AssignmentRunner.CONFIRM_WAIT.toNanos(),
                "it did not wait out the confirmation");
    }

    @Test
    void withoutEarlyStartAVersionBeforeItsCommitIsNotRunOn() throws Exception {
        models.commit(Fixtures.model("job", 0), new ModelPosition(0, 40));
        early.early.put("job", new EarlyModel(Fixtures.model("job", 1), EARLY_AT));
        TaskAssignment assignment = Fixtures.assignment("job", 2, ME, 1);

        assertEquals(Outcome.PARKED, runner().handle(record(assignment), out));
        assertEquals(List.of(), computed);
    }

    // ---- running -------------------------------------------------------------------------

    @Test
    void runsEveryTaskInOrderAndMarksTheAssignmentDoneWithTheLast() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        TaskAssignment assignment = Fixtures.assignment("job", 1, ME, 3);

        assertEquals(Outcome.COMPLETED, runner().handle(record(assignment), out));

        List<Published> published = out.published();
        assertEquals(3, out.effects.size());
        assertEquals(List.of("job/1/0", "job/1/1", "job/1/2"), computed);
        for (int i = 0; i < 3; i++) {
            Published p = published.get(i);
            assertEquals(i == 2, p.completesAssignment(), "only the last task commits the assignment");
            TaskResult r = p.result();
            assertEquals("job", r.getJob());
            assertEquals(1, r.getRound());
            assertEquals("job/1/" + i, r.getTaskId());
            assertEquals(ME, r.getWorkerId());
            assertEquals(ME, r.getAssignedWorkerId());
            assertEquals(0, r.getModelVersion());
            assertEquals(30.0, r.getComputeMs(), 0);
            assertEquals(TensorEncoding.FLOAT64_LE, r.getEncoding());
            byte[] expected = new QuadraticWorkload()
                    .compute(Fixtures.model("job", 0), r.getTaskId(), 0, () -> false)
                    .orElseThrow()
                    .gradient();
            assertEquals(ByteBuffer.wrap(expected), r.getGradient());

            TaskTiming t = p.timing();
            assertEquals(r.getTaskId(), t.getTaskId());
            assertEquals(ME, t.getWorkerId());
            assertEquals(TimingStatus.COMPLETED, t.getStatus());
            assertEquals(30.0, t.getComputeMs(), 0);
            assertEquals(NOW_MS, t.getStartMs());
            assertEquals(NOW_MS, t.getEndMs());
            assertEquals(1, t.getRound());
            assertEquals(0, t.getModelVersion());
        }
        assertEquals(3, metrics.tasksRun());
        assertEquals(1, metrics.assignmentsCompleted());
        Timer computeTime = meters.get(AgentMetrics.COMPUTE_TIME)
                .tag(AgentMetrics.WORKER, ME)
                .timer();
        assertEquals(3, computeTime.count());
        assertEquals(90.0, computeTime.totalTime(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(30.0, computeTime.max(TimeUnit.MILLISECONDS), 1e-9);
        assertEquals(
                3,
                meters.get(AgentMetrics.TASKS)
                        .tags(AgentMetrics.WORKER, ME, AgentMetrics.OUTCOME, "completed")
                        .counter()
                        .count());
    }

    @Test
    void resultsCarryThisAgentsIdWhenTheAssignmentWasForAnotherAndNameThatOne() throws InterruptedException {
        models.publish(Fixtures.model("job", 4));
        TaskAssignment forAnother = Fixtures.assignment("job", 5, "worker-gone", 2);

        assertEquals(Outcome.COMPLETED, runner().handle(record(forAnother), out));

        assertEquals(2, out.published().size());
        for (Published p : out.published()) {
            assertEquals(ME, p.result().getWorkerId());
            assertEquals("worker-gone", p.result().getAssignedWorkerId(), "the trainer checks whose task it was");
            assertEquals(ME, p.timing().getWorkerId());
        }
    }

    // ---- closed rounds -------------------------------------------------------------------

    @Test
    void skipsAnAssignmentWhoseRoundAlreadyClosed() throws InterruptedException {
        models.publish(Fixtures.model("job", 2)); // round 1 computed at version 0: long over

        assertEquals(Outcome.SKIPPED_STALE, runner().handle(record(Fixtures.assignment("job", 1, ME, 3)), out));

        assertEquals(List.of(new MarkedDone()), out.effects);
        assertTrue(computed.isEmpty());
        assertEquals(1, metrics.assignmentsSkippedStale());
        assertEquals(3, metrics.tasksNotRun());
        assertEquals(0, metrics.tasksRun());
    }

    @Test
    void stopsBetweenTasksOnceTheModelAdvances() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        // during the second task the trainer closes the round: version 1 appears
        Workload closesDuringSecond = workload(Map.of(1, () -> models.publish(Fixtures.model("job", 1))));

        // at natural speed a computation is not interrupted: the second task completes
        Outcome outcome = runner(closesDuringSecond, Duration.ofSeconds(1), null)
                .handle(record(Fixtures.assignment("job", 1, ME, 4)), out);

        assertEquals(Outcome.STOPPED_ROUND_CLOSED, outcome);
        assertEquals(List.of("job/1/0", "job/1/1"), computed, "the running task finishes, no later one starts");
        List<Published> published = out.published();
        assertEquals(2, published.size());
        assertFalse(published.get(0).completesAssignment());
        assertFalse(published.get(1).completesAssignment());
        assertEquals(new MarkedDone(), out.effects.get(2));
        assertEquals(3, out.effects.size());
        assertEquals(1, metrics.assignmentsStoppedRoundClosed());
        assertEquals(2, metrics.tasksNotRun());
        assertEquals(2, metrics.tasksRun());
        assertEquals(0, metrics.assignmentsCompleted());
        assertEquals(0, metrics.tasksCancelled());
    }

    @Test
    void cancelsTheTaskInFlightWhenTheRoundClosesDuringItsStretch() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        // the second task's computation is done; while it is stretched to 30 ms, the round closes
        Workload closesDuringSecond = workload(Map.of(
                1,
                () -> models.onAwait = () -> {
                    nanoNow += 12_000_000L; // 12 ms into the stretch
                    models.publish(Fixtures.model("job", 1));
                }));

        Outcome outcome = runner(closesDuringSecond, Duration.ofSeconds(1))
                .handle(record(Fixtures.assignment("job", 1, ME, 4)), out);

        assertEquals(Outcome.STOPPED_ROUND_CLOSED, outcome);
        assertEquals(List.of("job/1/0", "job/1/1"), computed);
        List<Published> published = out.published();
        assertEquals(2, out.effects.size(), "two transactions: the first task, the cancellation (no markDone)");
        assertEquals(TimingStatus.COMPLETED, published.get(0).timing().getStatus());
        assertFalse(published.get(0).completesAssignment());

        Published cancelled = published.get(1);
        assertTrue(cancelled.completesAssignment(), "the cancellation marks the assignment done");
        assertEquals("job/1/1", cancelled.result().getTaskId());
        assertEquals(TimingStatus.CANCELLED, cancelled.result().getStatus());
        assertEquals(0, cancelled.result().getGradient().remaining(), "no gradient");
        assertEquals(TimingStatus.CANCELLED, cancelled.timing().getStatus());
        assertEquals(12.0, cancelled.timing().getComputeMs(), 1e-9, "the time worked, on the monotonic clock");
        assertEquals(12.0, cancelled.result().getComputeMs(), 1e-9);
        assertEquals(1, metrics.tasksCancelled());
        assertEquals(1, metrics.tasksRun());
        assertEquals(2, metrics.tasksNotRun());
        assertEquals(1, metrics.assignmentsStoppedRoundClosed());
    }

    /**
     * A computation in four steps of 5 ms on the fake clock that asks {@code stop} before each, as
     * a network's does between micro-batches; {@code closeAfter} steps into task 1 the round closes.
     */
    private Workload inSteps(int closeAfter) {
        QuadraticWorkload real = new QuadraticWorkload();
        return (model, taskId, seed, stop) -> {
            for (int step = 0; step < 4; step++) {
                if (stop.getAsBoolean()) {
                    computed.add(taskId + " stopped after " + step);
                    return Optional.empty();
                }
                nanoNow += 5 * MS;
                if (computed.size() == 1 && step + 1 == closeAfter) {
                    models.publish(Fixtures.model("job", 1));
                }
            }
            computed.add(taskId);
            return real.compute(model, taskId, seed, stop);
        };
    }

    @Test
    void aComputationThatCanStopIsCancelledPartWayWhenTheRoundCloses() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));

        // natural speed: nothing is stretched, the computation itself stops
        Outcome outcome = runner(inSteps(2), Duration.ofSeconds(1), null)
                .handle(record(Fixtures.assignment("job", 1, ME, 3)), out);

        assertEquals(Outcome.STOPPED_ROUND_CLOSED, outcome);
        assertEquals(List.of("job/1/0", "job/1/1 stopped after 2"), computed);
        List<Published> published = out.published();
        assertEquals(2, out.effects.size());
        assertEquals(TimingStatus.COMPLETED, published.get(0).result().getStatus());
        assertEquals(20.0, published.get(0).result().getComputeMs(), 1e-9);
        Published cancelled = published.get(1);
        assertTrue(cancelled.completesAssignment());
        assertEquals(TimingStatus.CANCELLED, cancelled.result().getStatus());
        assertEquals(0, cancelled.result().getGradient().remaining());
        assertEquals(TimingStatus.CANCELLED, cancelled.timing().getStatus());
        assertEquals(10.0, cancelled.timing().getComputeMs(), 1e-9, "two steps worked");
        assertEquals(10.0, cancelled.result().getComputeMs(), 1e-9);
        assertEquals(1, metrics.tasksCancelled());
        assertEquals(1, metrics.tasksNotRun());
    }

    @Test
    void anEmulatedTaskIsStretchedFromItsMeasuredComputation() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));

        // every step takes 5 ms, four steps 20 ms; the drawn duration is 30 ms
        runner(inSteps(-1), Duration.ofSeconds(1)).handle(record(Fixtures.assignment("job", 1, ME, 2)), out);

        for (Published p : out.published()) {
            assertEquals(TimingStatus.COMPLETED, p.result().getStatus());
            assertEquals(30.0, p.result().getComputeMs(), 1e-9);
        }
        assertEquals(2, out.published().size());
    }

    // ---- parking: a version or two ahead (pipelined allocation) -----------------------------

    /** Round {@code round} of "job", at version {@code round - 1}, as its record at offset 17. */
    private ConsumerRecord<byte[], byte[]> roundOfJob(long round, int tasks) {
        return record(Fixtures.assignment("job", round, ME, tasks));
    }

    private void noWaiting() {
        models.onAwait = () -> {
            throw new AssertionError("must not wait for a version one or two ahead");
        };
    }

    /** Round 5 of "job" (2 tasks), parked by {@code runner} while the job's newest model is version 3. */
    private ConsumerRecord<byte[], byte[]> parkRound5(AssignmentRunner runner) throws InterruptedException {
        models.publish(Fixtures.model("job", 3)); // round 4 is open; round 5 was planned ahead
        noWaiting();
        ConsumerRecord<byte[], byte[]> round5 = roundOfJob(5, 2);
        assertEquals(Outcome.PARKED, runner.handle(round5, out));
        return round5;
    }

    /** Round 5 (one task, model version 4) parked while its job's model is at version 3: planned ahead. */
    private ConsumerRecord<byte[], byte[]> parkRound5OfOneTask(AssignmentRunner runner) throws InterruptedException {
        models.publish(Fixtures.model("job", 3));
        ConsumerRecord<byte[], byte[]> round5 = roundOfJob(5, 1);
        assertEquals(Outcome.PARKED, runner.handle(round5, out));
        return round5;
    }

    @Test
    void parksAnAssignmentOneVersionAheadWithoutWaiting() throws InterruptedException {
        ConsumerRecord<byte[], byte[]> round5 = parkRound5(runner());

        assertEquals(List.of(new Parked(Fixtures.assignment("job", 5, ME, 2))), out.effects, "held, not done");
        assertTrue(computed.isEmpty());
        assertEquals(1, metrics.assignmentsParked());
        assertEquals(0, metrics.assignmentsSkippedStale() + metrics.assignmentsCompleted() + metrics.deadLetters());
        assertFalse(runner().modelCame(Fixtures.assignment("job", 5, ME, 2)));
        assertThrows(
                IllegalStateException.class,
                () -> runner().runParked(round5, Fixtures.assignment("job", 5, ME, 2), out),
                "not before its version");
    }

    @Test
    void aParkedAssignmentRunsWhenItsVersionComes() throws InterruptedException {
        AssignmentRunner runner = runner();
        ConsumerRecord<byte[], byte[]> round5 = parkRound5(runner);
        TaskAssignment parked = ((Parked) out.effects.get(0)).assignment();

        models.onAwait = () -> {}; // a running task waits on the model for its round's close
        models.publish(Fixtures.model("job", 4)); // round 4 closed
        assertTrue(runner.modelCame(parked));
        assertEquals(Outcome.COMPLETED, runner.runParked(round5, parked, out));

        assertEquals(List.of("job/5/0", "job/5/1"), computed);
        List<Published> published = out.published();
        assertEquals(2, published.size());
        assertEquals(4, published.get(0).result().getModelVersion());
        assertEquals(5, published.get(1).result().getRound());
        assertTrue(published.get(1).completesAssignment(), "the last task marks it done, as any assignment");
        assertEquals(1, metrics.assignmentsCompleted());
        assertEquals(1, metrics.assignmentsParked());
    }

    @Test
    void aParkedAssignmentIsCancelledLikeAnyOtherWhenItsRoundCloses() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        noWaiting();
        Workload closesDuringSecond = workload(Map.of(1, () -> models.publish(Fixtures.model("job", 2))));
        AssignmentRunner runner = runner(closesDuringSecond, Duration.ofSeconds(1), null);
        ConsumerRecord<byte[], byte[]> round2 = roundOfJob(2, 3);
        assertEquals(Outcome.PARKED, runner.handle(round2, out));

        models.onAwait = () -> {};
        models.publish(Fixtures.model("job", 1));
        assertEquals(Outcome.STOPPED_ROUND_CLOSED, runner.runParked(round2, Fixtures.assignment("job", 2, ME, 3), out));
        assertEquals(List.of("job/2/0", "job/2/1"), computed);
        assertEquals(new MarkedDone(), out.effects.get(out.effects.size() - 1));
    }

    @Test
    void aParkedAssignmentIsSkippedWhenTheModelPassesIt() throws InterruptedException {
        AssignmentRunner runner = runner();
        ConsumerRecord<byte[], byte[]> round5 = parkRound5(runner);

        models.publish(Fixtures.model("job", 5)); // versions 4 and 5 came (round 5 closed without us)
        assertTrue(runner.modelCame(Fixtures.assignment("job", 5, ME, 2)));
        assertEquals(Outcome.SKIPPED_STALE, runner.runParked(round5, Fixtures.assignment("job", 5, ME, 2), out));

        assertEquals(List.of(new Parked(Fixtures.assignment("job", 5, ME, 2)), new MarkedDone()), out.effects);
        assertTrue(computed.isEmpty());
        assertEquals(1, metrics.assignmentsSkippedStale());
        assertEquals(2, metrics.tasksNotRun());
    }

    @Test
    void aParkedAssignmentIsNotRunOnceShutdownIsRequested() throws InterruptedException {
        models.publish(Fixtures.model("job", 3));
        ConsumerRecord<byte[], byte[]> round5 = roundOfJob(5, 1);
        AssignmentRunner runner = runner();
        assertEquals(Outcome.PARKED, runner.handle(round5, out));
        models.publish(Fixtures.model("job", 4));
        stop = true;

        assertEquals(Outcome.STOPPED_SHUTDOWN, runner.runParked(round5, Fixtures.assignment("job", 5, ME, 1), out));
        assertEquals(1, out.effects.size(), "only the parking: not done, delivered again to the next owner");
        assertTrue(computed.isEmpty());
    }

    @Test
    void anAssignmentTwoVersionsAheadIsParkedTooSoTheOpenRoundsParkedOneCanRun() throws InterruptedException {
        // As an agent met it: round 5 (version 4) parked while the cache had version 3; the trainer
        // closed round 4, and the broker's plan for round 6 (version 5) reached the agent before
        // version 4 reached its cache. Waiting for version 5 on the task thread would hold back
        // round 5's parked tasks, without which version 5 never comes.
        AssignmentRunner runner = runner();
        parkRound5(runner);

        assertEquals(Outcome.PARKED, runner.handle(roundOfJob(6, 1), out));
        assertEquals(2, metrics.assignmentsParked());
        assertTrue(computed.isEmpty());
        models.onAwait = () -> {}; // a running task waits on the model for its round's close
        models.publish(Fixtures.model("job", 4));
        assertTrue(runner.modelCame(Fixtures.assignment("job", 5, ME, 2)));
        assertFalse(runner.modelCame(Fixtures.assignment("job", 6, ME, 1)), "round 6 waits for round 5's close");
    }

    @Test
    void anAssignmentThreeVersionsAheadIsParkedTooButOnlyForTheModelWait() throws InterruptedException {
        models.publish(Fixtures.model("job", 3));
        models.onAwait = () -> {
            throw new AssertionError("the task thread must not wait for a model version");
        };
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ofSeconds(5));
        ConsumerRecord<byte[], byte[]> round7 = roundOfJob(7, 1);
        TaskAssignment assignment = Fixtures.assignment("job", 7, ME, 1);

        assertEquals(Outcome.PARKED, runner.handle(round7, out));
        assertEquals(1, metrics.assignmentsParked());
        assertFalse(runner.overdue(assignment, Duration.ofMillis(4_999)));
        assertTrue(runner.overdue(assignment, Duration.ofSeconds(5)), "version 6 is three ahead of 3: bounded");

        assertEquals(Outcome.DEAD_LETTERED, runner.giveUp(round7, assignment, Duration.ofSeconds(5), out));
        DeadLetter letter =
                assertInstanceOf(DeadLettered.class, out.effects.get(1)).letter();
        assertEquals(round7.offset(), letter.getOffset());
        assertTrue(
                letter.getReason().contains("model version 6 did not arrive within PT5S (the newest is 3)"),
                letter.getReason());
        assertTrue(computed.isEmpty());
    }

    @Test
    void aFarParkedAssignmentWaitsWithoutLimitOnceItsVersionIsTwoAheadAndRunsWhenItComes() throws InterruptedException {
        models.publish(Fixtures.model("job", 3));
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ZERO);
        ConsumerRecord<byte[], byte[]> round7 = roundOfJob(7, 1);
        TaskAssignment assignment = Fixtures.assignment("job", 7, ME, 1);
        assertEquals(Outcome.PARKED, runner.handle(round7, out));

        models.publish(Fixtures.model("job", 4)); // version 6 is two ahead now: a round planned ahead
        assertFalse(runner.overdue(assignment, Duration.ofHours(1)));
        models.publish(Fixtures.model("job", 6));
        assertFalse(runner.overdue(assignment, Duration.ofHours(1)), "its version came");
        assertTrue(runner.modelCame(assignment));
        models.onAwait = () -> {}; // a running task waits on the model for its round's close
        assertEquals(Outcome.COMPLETED, runner.runParked(round7, assignment, out));
        assertEquals(List.of("job/7/0"), computed);
    }

    @Test
    void anAssignmentPlannedAheadOfAJobWhoseModelStaysQuietIsDeadLetteredAsTheWorkOfAStoppedJob()
            throws InterruptedException {
        models.publish(Fixtures.model("job", 3));
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ZERO);
        ConsumerRecord<byte[], byte[]> round5 = roundOfJob(5, 1);
        TaskAssignment assignment = Fixtures.assignment("job", 5, ME, 1); // version 4: planned ahead
        assertEquals(Outcome.PARKED, runner.handle(round5, out));

        assertFalse(runner.overdue(assignment, Duration.ofHours(1)), "its job's model moves: a slow round");
        models.quiet = STALLED_JOB_WAIT.minusMillis(1);
        assertFalse(runner.overdue(assignment, Duration.ofHours(1)), "its job's model moved a moment ago");
        models.quiet = STALLED_JOB_WAIT;
        assertFalse(runner.overdue(assignment, STALLED_JOB_WAIT.minusMillis(1)), "parked a moment ago");
        assertTrue(runner.overdue(assignment, STALLED_JOB_WAIT), "both quiet and waited as long: a stopped job");

        Duration waited = STALLED_JOB_WAIT.plusSeconds(83).plusMillis(400); // found overdue late
        assertEquals(Outcome.DEAD_LETTERED, runner.giveUp(round5, assignment, waited, out));
        DeadLetter letter =
                assertInstanceOf(DeadLettered.class, out.effects.get(1)).letter();
        assertEquals(round5.offset(), letter.getOffset());
        assertEquals(
                "job job round 5: model version 4 waited PT11M23S while the job's model stayed at version 3"
                        + " (nothing of it read for PT10M): its job looks stopped",
                letter.getReason(),
                "the time it waited, not the limit");
        assertTrue(computed.isEmpty());
        assertEquals(1, metrics.deadLetters());
    }

    @Test
    void anAssignmentFoundOverdueRunsAfterAllIfItsVersionComesBeforeItIsGivenUp() throws InterruptedException {
        // the model cache's thread stores the version between the task thread's two looks
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ZERO);
        ConsumerRecord<byte[], byte[]> round5 = parkRound5OfOneTask(runner);
        TaskAssignment assignment = Fixtures.assignment("job", 5, ME, 1);
        models.quiet = STALLED_JOB_WAIT;
        assertTrue(runner.overdue(assignment, STALLED_JOB_WAIT));

        models.publish(Fixtures.model("job", 4));
        models.onAwait = () -> {}; // a running task waits on the model for its round's close
        assertEquals(Outcome.COMPLETED, runner.giveUp(round5, assignment, STALLED_JOB_WAIT, out));
        assertEquals(List.of("job/5/0"), computed, "run, not dead-lettered");
        assertEquals(0, metrics.deadLetters());
    }

    @Test
    void anAgentThatJustStartedParksOnlyOnceItHasReadTheModelTopic() throws InterruptedException {
        // before catching up the cache knows version 2 only: version 9 would look far from "one ahead"
        models.publish(Fixtures.model("job", 2));
        models.onCatchUp = () -> models.publish(Fixtures.model("job", 8));
        noWaiting();

        assertEquals(Outcome.PARKED, runner().handle(roundOfJob(10, 1), out));
    }

    // ---- dead letters --------------------------------------------------------------------

    private DeadLetter onlyDeadLetter() {
        assertEquals(1, out.effects.size());
        return assertInstanceOf(DeadLettered.class, out.effects.get(0)).letter();
    }

    private void assertDeadLettered(ConsumerRecord<byte[], byte[]> record, String reasonPart)
            throws InterruptedException {
        assertEquals(Outcome.DEAD_LETTERED, runner().handle(record, out));
        DeadLetter letter = onlyDeadLetter();
        assertEquals(Fixtures.TASKS, letter.getSourceTopic());
        assertEquals(record.partition(), letter.getPartition());
        assertEquals(record.offset(), letter.getOffset());
        assertEquals(record.key() == null ? null : ByteBuffer.wrap(record.key()), letter.getKey());
        assertEquals(record.value() == null ? null : ByteBuffer.wrap(record.value()), letter.getValue());
        assertEquals("worker-agent", letter.getComponent());
        assertEquals(NOW_MS, letter.getTimestampMs());
        assertTrue(letter.getReason().contains(reasonPart), letter.getReason());
        assertTrue(computed.isEmpty());
        assertEquals(1, metrics.deadLetters());
    }

    @Test
    void deadLettersAnAssignmentWithoutTasks() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        assertDeadLettered(record(Fixtures.assignment("job", 1, ME, 0)), "without tasks");
    }

    @Test
    void deadLettersAJobNamedLikeAnotherJobsModelSlice() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        assertDeadLettered(record(Fixtures.assignment("job#1", 1, ME, 2)), "contains '#'");
    }

    @Test
    void deadLettersANegativeRound() throws InterruptedException {
        TaskAssignment negative = TaskAssignment.newBuilder(Fixtures.assignment("job", 1, ME, 2))
                .setRound(-3)
                .build();
        assertDeadLettered(record(negative), "round -3 is out of range");
    }

    @Test
    void deadLettersRoundZeroAndANegativeModelVersion() throws InterruptedException {
        TaskAssignment zero = TaskAssignment.newBuilder(Fixtures.assignment("job", 1, ME, 2))
                .setRound(0)
                .build();
        assertDeadLettered(record(zero), "rounds start at 1");

        out.effects.clear();
        TaskAssignment badVersion = TaskAssignment.newBuilder(Fixtures.assignment("job", 1, ME, 2))
                .setModelVersion(-1)
                .build();
        assertEquals(Outcome.DEAD_LETTERED, runner().handle(record(badVersion), out));
        assertTrue(onlyDeadLetter().getReason().contains("model version -1"));
    }

    @Test
    void deadLettersBytesThatDoNotDecode() throws InterruptedException {
        byte[] json = Fixtures.utf8("{\"job\":\"x\"}");
        assertDeadLettered(MockClients.consumerRecord(Fixtures.TASKS, 1, 9, "w", json), "cannot decode");
        assertEquals(
                "io.ata.schemas.serde.SerializationFormatException",
                onlyDeadLetter().getErrorClass());
    }

    @Test
    void deadLettersATombstone() throws InterruptedException {
        assertDeadLettered(MockClients.consumerRecord(Fixtures.TASKS, 0, 2, "w", null), "tombstone");
    }

    @Test
    void deadLettersAtOnceAVersionFarAheadOfTheNewest() throws InterruptedException {
        models.publish(Fixtures.model("job", 3));
        models.onAwait = () -> {
            throw new AssertionError("must not wait for a version that can never come");
        };
        long version = 4 + AssignmentRunner.MAX_VERSIONS_AHEAD;
        TaskAssignment farAhead = TaskAssignment.newBuilder(Fixtures.assignment("job", 1, ME, 2))
                .setRound(version + 1)
                .setModelVersion(version)
                .build();
        Outcome outcome = runner(workload(Map.of()), Duration.ofHours(1)).handle(record(farAhead), out);

        assertEquals(Outcome.DEAD_LETTERED, outcome);
        assertTrue(
                onlyDeadLetter().getReason().contains("can never come"),
                onlyDeadLetter().getReason());
        assertTrue(computed.isEmpty());
    }

    @Test
    void anAgentThatJustStartedReadsTheModelTopicBeforeCallingAVersionFarAhead() throws InterruptedException {
        // round 1,500 of a job whose model the cache has not read yet: only once it has does the
        // version look like what it is, the job's next
        models.onCatchUp = () -> models.publish(Fixtures.model("late", 1_499));
        TaskAssignment assignment = Fixtures.assignment("late", 1_500, ME, 1);
        assertEquals(Outcome.COMPLETED, runner().handle(record(assignment), out));
        assertEquals(List.of("late/1500/0"), computed);
    }

    @Test
    void deadLettersAtOnceAJobWithoutModelAtAFarVersion() throws InterruptedException {
        models.onAwait = () -> {
            throw new AssertionError("must not wait");
        };
        TaskAssignment noModel = TaskAssignment.newBuilder(Fixtures.assignment("ghost", 1, ME, 2))
                .setRound(1_000_001)
                .setModelVersion(1_000_000)
                .build();
        assertEquals(Outcome.DEAD_LETTERED, runner().handle(record(noModel), out));
        assertTrue(
                onlyDeadLetter().getReason().contains("a job without a model"),
                onlyDeadLetter().getReason());
    }

    @Test
    void aVersionBeyondTheRoundBoundIsOutOfRange() throws InterruptedException {
        TaskAssignment huge = TaskAssignment.newBuilder(Fixtures.assignment("job", 1, ME, 2))
                .setModelVersion(1L << 60)
                .build();
        assertDeadLettered(record(huge), "out of range");
    }

    @Test
    void anAssignmentOfAJobWithoutModelIsParkedForTheModelWaitOnly() throws InterruptedException {
        models.onAwait = () -> {
            throw new AssertionError("the task thread must not wait for a model version");
        };
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ofSeconds(2));
        TaskAssignment ghost = Fixtures.assignment("ghost", 1, ME, 1);
        ConsumerRecord<byte[], byte[]> record = record(ghost);

        assertEquals(Outcome.PARKED, runner.handle(record, out));
        assertFalse(runner.overdue(ghost, Duration.ofMillis(1_999)));
        assertTrue(runner.overdue(ghost, Duration.ofSeconds(2)));
        assertEquals(Outcome.DEAD_LETTERED, runner.giveUp(record, ghost, Duration.ofSeconds(2), out));
        DeadLetter letter =
                assertInstanceOf(DeadLettered.class, out.effects.get(1)).letter();
        assertTrue(letter.getReason().contains("the job has no model"), letter.getReason());
    }

    @Test
    void anAssignmentOfAJobWhoseModelIsReadAgainIsParkedHoweverFarAheadItLooks() throws InterruptedException {
        // a job back after its model was forgotten: until it is read again, the cache knows nothing
        // of it, and version 1500 would look like one that can never come
        models.recalling.add("back");
        models.onAwait = () -> {
            throw new AssertionError("the task thread must not wait for a model version");
        };
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ofSeconds(2));
        TaskAssignment far = Fixtures.assignment("back", 1501, ME, 1);

        assertEquals(Outcome.PARKED, runner.handle(record(far), out));
        assertFalse(runner.overdue(far, Duration.ofHours(1)), "the read again has a limit of its own");
        models.recalling.clear();
        assertTrue(runner.overdue(far, Duration.ofSeconds(2)), "read without finding it: the usual wait");
        assertEquals(
                Outcome.DEAD_LETTERED,
                runner.handle(record(Fixtures.assignment("gone", 1501, ME, 1)), out),
                "a job without a model that is not being read again: the version can never come");
    }

    @Test
    void anAssignmentOfAForgottenJobWhoseReadCoolsDownWaitsAsOfAJobWithoutModel() throws InterruptedException {
        // its last read found nothing (or failed): no read now, and version 1500 may still come live
        models.forgotten.add("back");
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ofSeconds(2));
        TaskAssignment far = Fixtures.assignment("back", 1501, ME, 1);

        assertEquals(Outcome.PARKED, runner.handle(record(far), out), "not dead-lettered as never coming");
        assertFalse(runner.overdue(far, Duration.ofSeconds(1)));
        assertTrue(runner.overdue(far, Duration.ofSeconds(2)), "the usual wait of a job without a model");
    }

    @Test
    void aParkedAssignmentWhoseJobsModelIsForgottenMeanwhileIsGivenUpAsOfAJobWithoutModel()
            throws InterruptedException {
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ZERO);
        ConsumerRecord<byte[], byte[]> round5 = parkRound5OfOneTask(runner);
        TaskAssignment assignment = Fixtures.assignment("job", 5, ME, 1);
        models.quiet = STALLED_JOB_WAIT;
        assertTrue(runner.overdue(assignment, STALLED_JOB_WAIT));

        models.latest.remove("job"); // the model cache forgets the quiet job between the two looks
        assertEquals(Outcome.DEAD_LETTERED, runner.giveUp(round5, assignment, STALLED_JOB_WAIT, out));
        DeadLetter letter =
                assertInstanceOf(DeadLettered.class, out.effects.get(1)).letter();
        assertTrue(letter.getReason().contains("(the job has no model)"), letter.getReason());
    }

    @Test
    void aParkedAssignmentMayWaitLongerThanTheModelWaitWhileTheVersionsSlicesArrive() throws InterruptedException {
        // three versions ahead (one or two ahead wait while the job's model moves)
        models.publish(Fixtures.model("job", 0));
        AssignmentRunner runner = runner(workload(Map.of()), Duration.ZERO);
        TaskAssignment round4 = Fixtures.assignment("job", 4, ME, 1);
        assertEquals(Outcome.PARKED, runner.handle(record(round4), out));

        models.arrivingVersion = 3; // a large version 3 on its way
        assertFalse(runner.overdue(round4, Duration.ofSeconds(29)), "a model wait of 0, but the slices arrive");
        assertTrue(runner.overdue(round4, AssignmentRunner.MAX_MODEL_WAIT));
        models.arrivingVersion = -1; // nothing on its way: the wait of 0 is all
        assertTrue(runner.overdue(round4, Duration.ZERO));
    }

    @Test
    void deadLettersTheAssignmentWhenATaskFails() throws InterruptedException {
        models.publish(Fixtures.model("job", 0, new double[3])); // wrong dimension for d = 100

        assertEquals(Outcome.DEAD_LETTERED, runner().handle(record(Fixtures.assignment("job", 1, ME, 2)), out));
        DeadLetter letter = onlyDeadLetter();
        assertTrue(letter.getReason().contains("task job/1/0 failed"), letter.getReason());
        assertEquals(IllegalArgumentException.class.getName(), letter.getErrorClass());
    }

    // ---- shutdown and failures -----------------------------------------------------------

    @Test
    void shutdownStopsBetweenTasksWithoutMarkingTheAssignmentDone() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        Workload stopsDuringFirst = workload(Map.of(0, () -> stop = true));

        Outcome outcome = runner(stopsDuringFirst, Duration.ofSeconds(1))
                .handle(record(Fixtures.assignment("job", 1, ME, 3)), out);

        assertEquals(Outcome.STOPPED_SHUTDOWN, outcome);
        assertEquals(1, out.effects.size(), "the running task is published; nothing is marked done");
        assertFalse(out.published().get(0).completesAssignment());
    }

    @Test
    void aFailingOutputPropagatesAndLeavesTheAssignmentOpen() {
        models.publish(Fixtures.model("job", 0));
        out.failOnPublish = new org.apache.kafka.common.KafkaException("broker gone");

        assertThrows(
                org.apache.kafka.common.KafkaException.class,
                () -> runner().handle(record(Fixtures.assignment("job", 1, ME, 2)), out));
        assertTrue(out.effects.isEmpty());
        assertEquals(0, metrics.tasksRun());
    }

    @Test
    void theSameTaskGivesTheSameResultOnAnyAgent() throws InterruptedException {
        models.publish(Fixtures.model("job", 0));
        runner().handle(record(Fixtures.assignment("job", 1, "a", 2)), out);
        RecordingOutput again = new RecordingOutput();
        runner().handle(record(Fixtures.assignment("job", 1, "b", 2)), again);

        for (int i = 0; i < 2; i++) {
            assertArrayEquals(
                    out.published().get(i).result().getGradient().array(),
                    again.published().get(i).result().getGradient().array());
        }
    }
}
