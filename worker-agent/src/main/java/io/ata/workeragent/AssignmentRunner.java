package io.ata.workeragent;

import io.ata.schemas.JobNames;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.workloads.TaskSeed;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent does with one record of the {@code tasks} topic (step 4 of a round in
 * {@code docs/streaming.md}). Plain logic, no Kafka clients: the effects go to an
 * {@link AssignmentOutput}, the models come from a {@link ModelSource}.
 *
 * <ol>
 *   <li>A record that does not decode, or is out of range (no job, round &lt; 1, negative model
 *       version, no tasks, a blank task id), is dead-lettered.</li>
 *   <li>If the job's newest model is already past the assignment's {@code model_version}, the
 *       round is closed: the assignment is skipped (marked done, nothing run).</li>
 *   <li>An assignment whose version can never come is dead-lettered at once, without waiting:
 *       a version more than {@value #MAX_VERSIONS_AHEAD} ahead of the job's newest model (or, for
 *       a job without a model, above {@value #MAX_VERSIONS_AHEAD}). The trainer publishes one
 *       version per round, and a round needs the broker and the agents, so no live model reader
 *       lags that far; a forged version 2^60 would otherwise hold the agent.</li>
 *   <li>An assignment whose version has not come yet is <em>parked</em>
 *       ({@link AssignmentOutput#park}), never waited for on the task thread: a wait would hold back
 *       the records behind it, such as the backup copy the open round needs to close. The agent
 *       reads on and hands it to {@link #runParked} when the version comes; it is skipped as stale
 *       if the model passes it. A version at most {@value #PARK_AHEAD} past the job's newest (a
 *       round planned ahead, under pipelined allocation) stays parked while the job's model
 *       moves, however slow its rounds; once it has waited {@code stalledJobWait} and nothing of
 *       the job's model has been read for as long, the job looks stopped (its trainer gone) and
 *       it is dead-lettered, so that it no longer holds its partition's committed offset back.
 *       Further ahead, or of a job without a model, it may wait the short
 *       {@code modelWait}, or up to {@link #MAX_MODEL_WAIT} while slices of the version are
 *       arriving (a large model on its way); then {@link #overdue} says so and
 *       {@link #giveUp} dead-letters it.</li>
 *   <li>The tasks run in order. Before each, if the round has closed meanwhile (a newer model),
 *       the rest are not run and the assignment is marked done. Each finished task publishes its
 *       result and timing; the last one also marks the assignment done.</li>
 *   <li>If the round closes while a task computes (a workload that can stop part-way, such as a
 *       network's between micro-batches) or while it is stretched to its emulated duration, the
 *       task stops (the spec's GTA discards the work in flight at the end of a round): it publishes a
 *       CANCELLED result without gradient and a CANCELLED timing with the time worked, and the
 *       assignment is done. The trainer passes the cancellation on to the broker, whose
 *       statistics take it as a censored observation.</li>
 * </ol>
 *
 * <p>Results and timings carry <em>this</em> agent's worker id, even when the assignment was
 * computed for another worker: after a rebalance the partition's new owner runs it, and the
 * statistics must learn who really took that long. A result also names the worker its assignment
 * was computed for ({@code assigned_worker_id}): the trainer counts it only for a task assigned to
 * that worker.
 *
 * <p>If shutdown is requested, the runner stops between tasks <em>without</em> marking the
 * assignment done, so the partition's next owner re-runs it (results already published are
 * duplicates the trainer drops).
 */
public final class AssignmentRunner {

    /** How handling one record ended. */
    public enum Outcome {
        /** Every task ran; the assignment is done. */
        COMPLETED,
        /** The round had closed before the first task; nothing ran; the assignment is done. */
        SKIPPED_STALE,
        /** The round closed part-way; the remaining tasks did not run; the assignment is done. */
        STOPPED_ROUND_CLOSED,
        /** The record went to the dead-letter topic and is done. */
        DEAD_LETTERED,
        /** Shutdown was requested: the assignment is NOT done and will be delivered again. */
        STOPPED_SHUTDOWN,
        /**
         * Its model version has not come: held ({@link AssignmentOutput#park}), NOT done, for
         * {@link #runParked} once the version comes (or {@link #giveUp} once it is overdue).
         */
        PARKED
    }

    private static final Logger log = LoggerFactory.getLogger(AssignmentRunner.class);
    private static final DeadLetters DEAD_LETTERS = new DeadLetters(DeadLetters.WORKER_AGENT);

    /**
     * How far ahead of the job's newest model an assignment's version may be before it is
     * dead-lettered at once: far more than a live model reader can lag.
     */
    static final long MAX_VERSIONS_AHEAD = 1000;

    /**
     * How far ahead of its job's newest model a parked assignment waits for its version without a
     * limit: one version for a round planned ahead (pipelined allocation), and one more because
     * this agent's model cache reads the trainer's close on a path of its own, which the broker's
     * plan for the next round sometimes beats. Further ahead, the version may take
     * {@code modelWait} before the assignment is dead-lettered.
     */
    public static final long PARK_AHEAD = 2;

    /** The longest wait for a model version, while its slices are arriving. */
    static final Duration MAX_MODEL_WAIT = Duration.ofSeconds(30);

    /**
     * How long a task computed on a version before its commit waits for the commit ({@link
     * EarlyStart}): a trainer's close commits within milliseconds, so one that takes this long has
     * likely failed, and the task waits parked for the version that does commit.
     */
    static final Duration CONFIRM_WAIT = Duration.ofSeconds(5);

    /** How often a wait for a commit looks whether the agent is shutting down. */
    static final Duration CONFIRM_STEP = Duration.ofMillis(100);

    private final String workerId;
    private final Workload workload;
    private final TaskPacer pacer;
    private final ModelSource models;
    private final RecordDecoder<TaskAssignment> decoder;
    private AssignmentListener assignmentListener = AssignmentListener.NONE;
    private EarlyStart earlyStart = EarlyStart.NONE;
    private final AgentMetrics metrics;
    private final Clock wallClock;
    private final long seed;
    private final Duration modelWait;
    private final Duration stalledJobWait;
    private final BooleanSupplier stopRequested;

    /**
     * @param workerId this agent's id, written into every result and timing
     * @param workload what a task computes
     * @param pacer stretches tasks to emulated durations and measures them
     * @param models the newest model per job
     * @param decoder the {@code TaskAssignment} value deserializer
     * @param metrics counters to update
     * @param wallClock for the timings' wall-clock start and end and dead letters' timestamps
     * @param seed the deployment's base seed, passed to the workload
     * @param modelWait how long to wait for the model version an assignment names (longer, up to
     *     {@link #MAX_MODEL_WAIT}, while its slices are arriving)
     * @param stalledJobWait how long an assignment at most {@link #PARK_AHEAD} ahead waits while
     *     its job's model is quiet ({@link #stalled})
     * @param stopRequested true once the agent is shutting down
     */
    public AssignmentRunner(
            String workerId,
            Workload workload,
            TaskPacer pacer,
            ModelSource models,
            Deserializer<TaskAssignment> decoder,
            AgentMetrics metrics,
            Clock wallClock,
            long seed,
            Duration modelWait,
            Duration stalledJobWait,
            BooleanSupplier stopRequested) {
        this.workerId = Objects.requireNonNull(workerId, "workerId");
        this.workload = Objects.requireNonNull(workload, "workload");
        this.pacer = Objects.requireNonNull(pacer, "pacer");
        this.models = Objects.requireNonNull(models, "models");
        this.decoder = new RecordDecoder<>(decoder, "task assignment");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
        this.wallClock = Objects.requireNonNull(wallClock, "wallClock");
        this.seed = seed;
        this.modelWait = Objects.requireNonNull(modelWait, "modelWait");
        this.stalledJobWait = Objects.requireNonNull(stalledJobWait, "stalledJobWait");
        this.stopRequested = Objects.requireNonNull(stopRequested, "stopRequested");
    }

    /**
     * The runner of the worker {@code config} describes, as the agents build it: its emulated
     * schedule and time scale pace the tasks (seeded by its id), its waits and its assignment
     * listener are the configuration's.
     */
    static AssignmentRunner of(
            AgentConfig config,
            Workload workload,
            ModelSource models,
            Deserializer<TaskAssignment> decoder,
            AgentMetrics metrics,
            Clock wallClock,
            BooleanSupplier stopRequested) {
        TaskPacer pacer = TaskPacer.emulated(
                config.emulatedSchedule().orElse(null),
                config.timeScale(),
                TaskSeed.of(config.seed(), "pacer/" + config.workerId()));
        AssignmentRunner runner = new AssignmentRunner(
                config.workerId(),
                workload,
                pacer,
                models,
                decoder,
                metrics,
                wallClock,
                config.seed(),
                config.modelWait(),
                config.stalledJobWait(),
                stopRequested);
        runner.setAssignmentListener(config.assignmentListener());
        return runner;
    }

    /** Told of every valid assignment as it arrives (benchmarks measure delivery with it). */
    public void setAssignmentListener(AssignmentListener listener) {
        this.assignmentListener = listener;
    }

    /**
     * Where the versions not committed yet come from, that tasks may start on ({@link EarlyStart});
     * none unless set.
     */
    public void setEarlyStart(EarlyStart early) {
        this.earlyStart = Objects.requireNonNull(early, "early");
    }

    /**
     * Handles one record of the tasks topic, as read (raw bytes).
     *
     * @throws InterruptedException if interrupted while waiting for a model or stretching a task
     * @throws RuntimeException whatever {@code out} throws (e.g. a failed transaction); the
     *     assignment is then not done, and the caller decides whether to deliver it again
     */
    public Outcome handle(ConsumerRecord<byte[], byte[]> record, AssignmentOutput out) throws InterruptedException {
        Decoded<TaskAssignment> decoded = decoder.decode(record.topic(), record.value());
        if (decoded instanceof Decoded.Undecodable<TaskAssignment> bad) {
            return deadLetter(record, out, bad.reason(), bad.error());
        }
        TaskAssignment assignment = ((Decoded.Valid<TaskAssignment>) decoded).record();
        String problem = problem(assignment);
        if (problem != null) {
            return deadLetter(record, out, problem, null);
        }
        assignmentListener.received(assignment, System.nanoTime());
        String job = assignment.getJob();
        if (roundClosed(assignment)) {
            return skipStale(assignment, out);
        }

        // the newest model it knows of decides what can never come: an agent that has just started
        // must first have read the model topic, or every version would look far ahead
        if (!models.awaitCaughtUp(modelWait) && stopRequested.getAsBoolean()) {
            return Outcome.STOPPED_SHUTDOWN;
        }
        // a job back after its model was forgotten: it is read again, and what is known of it until
        // then says nothing of what can come (nor while a read that found nothing cools down)
        boolean recalled = models.recall(job);
        String never = recalled || models.forgot(job) ? null : neverComes(assignment);
        if (never != null) {
            return deadLetter(record, out, never, null);
        }
        Optional<ModelToRun> model = cameModel(assignment);
        if (model.isEmpty()) {
            out.park(assignment);
            metrics.assignmentParked();
            log.debug(
                    "parking job {} round {} at {}-{}@{} until model version {} comes",
                    job,
                    assignment.getRound(),
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    assignment.getModelVersion());
            return Outcome.PARKED;
        }
        return runAt(model.get(), record, assignment, out);
    }

    /**
     * Handles an assignment that {@link #handle} parked, once its model version has come: runs it
     * as any other (tasks, cancellation when its round closes, shutdown), or skips it as stale if
     * the model has already passed its version.
     *
     * @param record the record it came in
     * @param assignment what {@link AssignmentOutput#park} was given
     * @throws IllegalStateException if the version has not come yet (see {@link #modelCame})
     * @throws InterruptedException if interrupted while stretching a task
     */
    public Outcome runParked(ConsumerRecord<byte[], byte[]> record, TaskAssignment assignment, AssignmentOutput out)
            throws InterruptedException {
        ModelToRun model = cameModel(assignment)
                .orElseThrow(() -> new IllegalStateException("job " + assignment.getJob() + " round "
                        + assignment.getRound() + ": model version " + assignment.getModelVersion()
                        + " has not come yet"));
        if (stopRequested.getAsBoolean()) {
            return Outcome.STOPPED_SHUTDOWN;
        }
        return runAt(model, record, assignment, out);
    }

    /** Whether a parked assignment's model version has come (or been passed): it can run. */
    public boolean modelCame(TaskAssignment assignment) {
        return cameModel(assignment).isPresent();
    }

    /**
     * What to run the assignment at, if its version came: the job's newest committed model if it is
     * the assignment's version or past it, else the version itself if it was read before its
     * commit ({@link EarlyStart}).
     */
    private Optional<ModelToRun> cameModel(TaskAssignment assignment) {
        Optional<ModelToRun> committed = models.latest(assignment.getJob())
                .filter(m -> m.getVersion() >= assignment.getModelVersion())
                .map(m -> new ModelToRun(m, null));
        return committed.isPresent()
                ? committed
                : earlyStart
                        .early(assignment.getJob(), assignment.getModelVersion())
                        .map(e -> new ModelToRun(e.model(), e));
    }

    /** A model to run tasks at, and where it was read if its transaction had not committed then (else null). */
    private record ModelToRun(ModelVersion model, EarlyModel early) {}

    /**
     * Whether a parked assignment has waited for its model version as long as it may: never once
     * the version has come, nor while its job's model is read again; at most {@link #PARK_AHEAD} past its job's newest, until the job looks
     * stopped ({@link #stalled}); otherwise {@code modelWait}, or up to {@link #MAX_MODEL_WAIT}
     * while the version's slices are arriving.
     *
     * @param waited how long since it was parked
     */
    public boolean overdue(TaskAssignment assignment, Duration waited) {
        if (modelCame(assignment) || models.readingAgain(assignment.getJob())) {
            return false; // a read again has a time limit of its own; the wait goes on after it
        }
        if (parkable(assignment)) {
            return stalled(waited, models.quietFor(assignment.getJob()), stalledJobWait);
        }
        return waited.compareTo(longestWait(assignment)) >= 0;
    }

    /**
     * The rule for every agent (the virtual fleet's too) that gives up an assignment planned a
     * round or two ahead: it has waited {@code limit}, and its job's model has been quiet (no
     * version, no slice read) as long, so the job looks stopped. A live job's model moves every
     * round; given up wrongly (a round slower than the limit), the round's tasks reach the
     * trainer's overdue path and are backed up on other workers.
     */
    public static boolean stalled(Duration waited, Duration quiet, Duration limit) {
        return waited.compareTo(limit) >= 0 && quiet.compareTo(limit) >= 0;
    }

    /**
     * Dead-letters a parked assignment that is {@link #overdue}: its version did not come in time,
     * or its job looks stopped. Runs it instead if its version came after all (the model cache's
     * thread may store it between the {@link #overdue} check and this).
     *
     * @param waited how long since it was parked (named in the dead letter)
     * @throws InterruptedException if interrupted while stretching a task (the version came)
     */
    public Outcome giveUp(
            ConsumerRecord<byte[], byte[]> record, TaskAssignment assignment, Duration waited, AssignmentOutput out)
            throws InterruptedException {
        if (modelCame(assignment)) {
            return runParked(record, assignment, out);
        }
        String job = assignment.getJob();
        Optional<ModelVersion> newest = models.latest(job); // once: a quiet job's model may be forgotten
        if (newest.isPresent()
                && parkable(assignment.getModelVersion(), newest.get().getVersion())) {
            return deadLetter(
                    record,
                    out,
                    stalledReason(assignment, newest.get().getVersion(), waited, models.quietFor(job)),
                    null);
        }
        return deadLetter(
                record,
                out,
                "job " + job + " round " + assignment.getRound() + ": model version " + assignment.getModelVersion()
                        + " did not arrive within " + longestWait(assignment)
                        + newest.map(m -> " (the newest is " + m.getVersion() + ")")
                                .orElse(" (the job has no model)"),
                null);
    }

    /** Why an assignment {@link #stalled} is dead-lettered (the virtual fleet's words too). */
    public static String stalledReason(TaskAssignment a, long newest, Duration waited, Duration quiet) {
        return "job " + a.getJob() + " round " + a.getRound() + ": model version " + a.getModelVersion()
                + " waited " + waited.withNanos(0) + " while the job's model stayed at version " + newest
                + " (nothing of it read for " + quiet.withNanos(0) + "): its job looks stopped";
    }

    /** How long an assignment beyond {@link #PARK_AHEAD} may wait: longer while its version arrives in slices. */
    private Duration longestWait(TaskAssignment a) {
        return models.arriving(a.getJob(), a.getModelVersion()) && MAX_MODEL_WAIT.compareTo(modelWait) > 0
                ? MAX_MODEL_WAIT
                : modelWait;
    }

    /**
     * Runs the assignment's tasks at {@code run}'s model, the newest version (skips it if past its
     * own). On a version read before its commit ({@link EarlyStart}), the first task computes while
     * the commit completes, and nothing it did takes effect before {@link #confirm} says what
     * committed: the same record (go on), another version of the round (the task runs again on it),
     * a later version (the round is over: done), nothing in time (parked again, for the committed
     * version, and this one is not offered again), or a shutdown first (not done, as between tasks).
     */
    private Outcome runAt(
            ModelToRun run, ConsumerRecord<byte[], byte[]> record, TaskAssignment assignment, AssignmentOutput out)
            throws InterruptedException {
        String job = assignment.getJob();
        List<String> taskIds = assignment.getTaskIds();
        ModelVersion model = run.model();
        EarlyModel early = run.early();
        if (model.getVersion() > assignment.getModelVersion()) {
            return skipStale(assignment, out);
        }
        if (!assignment.getWorkerId().equals(workerId)) {
            log.info(
                    "running {} task(s) of job {} round {} computed for worker {} (its partition {} is ours now)",
                    taskIds.size(),
                    job,
                    assignment.getRound(),
                    assignment.getWorkerId(),
                    record.partition());
        }
        assignmentListener.started(assignment, System.nanoTime());

        for (int i = 0; i < taskIds.size(); i++) {
            if (stopRequested.getAsBoolean()) {
                log.info(
                        "shutting down: job {} round {} left after {} of {} task(s), for the next owner to re-run",
                        job,
                        assignment.getRound(),
                        i,
                        taskIds.size());
                return Outcome.STOPPED_SHUTDOWN;
            }
            if (roundClosed(assignment)) {
                int left = taskIds.size() - i;
                out.markDone();
                metrics.assignmentStoppedRoundClosed(left);
                log.info(
                        "job {} round {} closed: {} of {} task(s) not run",
                        job,
                        assignment.getRound(),
                        left,
                        taskIds.size());
                return Outcome.STOPPED_ROUND_CLOSED;
            }
            String taskId = taskIds.get(i);
            ModelVersion at = model;
            RuntimeException failure = null;
            TaskPacer.Paced<TaskOutput> paced = null;
            long startMs = wallClock.millis();
            try {
                workload.prepare(at); // one-time costs stay out of the task's time
                startMs = wallClock.millis();
                paced = pacer.run(
                        stop -> workload.compute(at, taskId, seed, stop),
                        roundClosing(assignment),
                        assignment.getRound());
            } catch (RuntimeException e) {
                failure = e;
            }
            long endMs = wallClock.millis();
            if (early != null) {
                Confirmation confirmed = confirm(job, assignment.getModelVersion(), early);
                if (confirmed.kind() != Confirmation.Kind.CONFIRMED) {
                    metrics.earlyDiscarded();
                    log.debug(
                            "job {} round {}: the early model version {}: {}",
                            job,
                            assignment.getRound(),
                            assignment.getModelVersion(),
                            confirmed.kind());
                }
                switch (confirmed.kind()) {
                    case CONFIRMED -> {
                        metrics.earlyConfirmed();
                        early = null;
                    }
                    case REPLACED -> {
                        model = confirmed.committed();
                        early = null;
                        i--; // this task again, at the version that committed
                        continue;
                    }
                    case CLOSED -> {
                        out.markDone();
                        metrics.assignmentStoppedRoundClosed(taskIds.size() - i);
                        return Outcome.STOPPED_ROUND_CLOSED;
                    }
                    case NOT_YET -> {
                        earlyStart.distrust(job, early);
                        out.park(assignment);
                        metrics.assignmentParked();
                        return Outcome.PARKED;
                    }
                    case SHUTDOWN -> {
                        log.info(
                                "shutting down: job {} round {} left unconfirmed, for the next owner to re-run",
                                job,
                                assignment.getRound());
                        return Outcome.STOPPED_SHUTDOWN;
                    }
                }
            }
            if (failure != null) {
                return deadLetter(
                        record, out, "task " + taskId + " failed in " + workload.describe() + ": " + failure, failure);
            }
            if (paced.cancelled()) {
                int left = taskIds.size() - i - 1;
                TaskResult cancelled = cancelledResult(assignment, taskId, paced);
                out.publishTask(cancelled, timingOf(cancelled, TimingStatus.CANCELLED, startMs, endMs), true);
                metrics.taskCancelled();
                metrics.assignmentStoppedRoundClosed(left);
                log.debug(
                        "job {} round {} closed: task {} cancelled after {} ms, {} task(s) not run",
                        job,
                        assignment.getRound(),
                        taskId,
                        paced.computeMs(),
                        left);
                return Outcome.STOPPED_ROUND_CLOSED;
            }
            boolean last = i == taskIds.size() - 1;
            TaskResult result = result(assignment, taskId, paced);
            out.publishTask(result, timingOf(result, TimingStatus.COMPLETED, startMs, endMs), last);
            metrics.taskRun(paced.computeMs());
            log.debug("task {} took {} ms", taskId, paced.computeMs());
        }
        metrics.assignmentCompleted();
        return Outcome.COMPLETED;
    }

    /**
     * What committed of {@code job}'s version {@code version}, which a task computed on {@code early}
     * before its commit: waits up to {@link #CONFIRM_WAIT} for a committed version at least
     * {@code version}, less if the agent is shutting down meanwhile.
     */
    private Confirmation confirm(String job, long version, EarlyModel early) throws InterruptedException {
        Optional<ModelVersion> committed = Optional.empty();
        for (long waited = 0;
                committed.isEmpty() && waited < CONFIRM_WAIT.toNanos();
                waited += CONFIRM_STEP.toNanos()) {
            if (stopRequested.getAsBoolean()) {
                return new Confirmation(Confirmation.Kind.SHUTDOWN, null);
            }
            committed = models.await(job, version, CONFIRM_STEP);
        }
        if (committed.isEmpty()) {
            return new Confirmation(Confirmation.Kind.NOT_YET, null);
        }
        if (models.committedAt(job, version).filter(early.position()::equals).isPresent()) {
            return new Confirmation(Confirmation.Kind.CONFIRMED, committed.get());
        }
        return committed.get().getVersion() == version
                ? new Confirmation(Confirmation.Kind.REPLACED, committed.get())
                : new Confirmation(Confirmation.Kind.CLOSED, committed.get());
    }

    /** What {@link #confirm} found, and the committed version it found. */
    private record Confirmation(Kind kind, ModelVersion committed) {
        enum Kind {
            /** The early version is the one that committed. */
            CONFIRMED,
            /** Another record of the same version committed (the early one's transaction aborted). */
            REPLACED,
            /** A later version committed, and the early one is not known to be the round's: it is over. */
            CLOSED,
            /** Nothing committed in time: the close may have failed. */
            NOT_YET,
            /** The agent began shutting down before anything committed: the next owner runs it again. */
            SHUTDOWN
        }
    }

    /**
     * Why the assignment cannot be run, or {@code null} if it can: the checks of a record's fields
     * every agent makes (the virtual fleet's too) before it looks at the job's model.
     */
    public static String problem(TaskAssignment a) {
        if (a.getJob().isBlank()) {
            return "task assignment without job";
        }
        String name = JobNames.problem(a.getJob());
        if (name != null) {
            return "task assignment: " + name;
        }
        if (a.getRound() < 1) {
            return "job " + a.getJob() + ": round " + a.getRound() + " is out of range (rounds start at 1)";
        }
        if (a.getModelVersion() < 0 || a.getModelVersion() > ModelRules.MAX_VERSION) {
            return "job " + a.getJob() + " round " + a.getRound() + ": model version " + a.getModelVersion()
                    + " is out of range (0 to " + ModelRules.MAX_VERSION + ")";
        }
        if (a.getTaskIds().isEmpty()) {
            return "job " + a.getJob() + " round " + a.getRound() + ": assignment without tasks";
        }
        for (String taskId : a.getTaskIds()) {
            if (taskId.isBlank()) {
                return "job " + a.getJob() + " round " + a.getRound() + ": blank task id";
            }
        }
        return null;
    }

    /**
     * Why the assignment's model version can never come (so waiting for it would only hold the
     * agent), or null if it may still come.
     */
    private String neverComes(TaskAssignment a) {
        long newest = models.latest(a.getJob()).map(ModelVersion::getVersion).orElse(-1L);
        if (a.getModelVersion() - newest <= MAX_VERSIONS_AHEAD) {
            return null;
        }
        return "job " + a.getJob() + " round " + a.getRound() + ": model version " + a.getModelVersion()
                + " can never come: it is more than " + MAX_VERSIONS_AHEAD + " versions ahead of "
                + (newest < 0 ? "a job without a model" : "the job's newest, " + newest);
    }

    /** Does the assignment wait for its version while its job's model moves ({@link #parkable(long, long)})? Not of a job without a model. */
    private boolean parkable(TaskAssignment a) {
        return models.latest(a.getJob())
                .map(m -> parkable(a.getModelVersion(), m.getVersion()))
                .orElse(false);
    }

    /**
     * The parking rule, for every agent (the virtual fleet's too): an assignment of model version
     * {@code version} waits for it while its job's model moves (until {@link #stalled}) if it is
     * ahead of its job's newest, {@code newest}, by at most {@link #PARK_AHEAD}.
     */
    public static boolean parkable(long version, long newest) {
        return version > newest && version - newest <= PARK_AHEAD;
    }

    /** Has the job's model moved past the assignment's version (its round is over)? */
    private boolean roundClosed(TaskAssignment a) {
        return models.latest(a.getJob())
                .map(m -> m.getVersion() > a.getModelVersion())
                .orElse(false);
    }

    /** Waits on the model source: a version past the assignment's means its round closed. */
    private TaskPacer.Cancellation roundClosing(TaskAssignment a) {
        return nanos -> models.await(
                        a.getJob(),
                        ModelVersions.publishedBy(ModelVersions.roundOn(a.getModelVersion())),
                        Duration.ofNanos(nanos))
                .isPresent();
    }

    private Outcome skipStale(TaskAssignment a, AssignmentOutput out) {
        out.markDone();
        metrics.assignmentSkippedStale(a.getTaskIds().size());
        log.info(
                "job {} round {} already closed: skipping {} task(s)",
                a.getJob(),
                a.getRound(),
                a.getTaskIds().size());
        return Outcome.SKIPPED_STALE;
    }

    private Outcome deadLetter(
            ConsumerRecord<byte[], byte[]> record, AssignmentOutput out, String reason, Throwable error) {
        log.warn("dead-lettering {}-{}@{}: {}", record.topic(), record.partition(), record.offset(), reason);
        out.deadLetter(DEAD_LETTERS.of(record, reason, error, wallClock.millis()));
        metrics.deadLetter();
        return Outcome.DEAD_LETTERED;
    }

    private TaskResult result(TaskAssignment a, String taskId, TaskPacer.Paced<TaskOutput> paced) {
        TaskOutput output = paced.value();
        return resultOf(a, taskId, paced)
                .setGradient(ByteBuffer.wrap(output.gradient()))
                .setEncoding(output.encoding())
                .setLoss(output.loss())
                .setSamples(output.samples())
                .build();
    }

    /** A cancelled task's notice to the trainer: no gradient, the time worked. */
    private TaskResult cancelledResult(TaskAssignment a, String taskId, TaskPacer.Paced<TaskOutput> paced) {
        return resultOf(a, taskId, paced)
                .setGradient(ByteBuffer.allocate(0))
                .setSamples(0)
                .setStatus(TimingStatus.CANCELLED)
                .build();
    }

    /** The fields every result of a task has: whose, which, and how long it took. */
    private TaskResult.Builder resultOf(TaskAssignment a, String taskId, TaskPacer.Paced<TaskOutput> paced) {
        return TaskResult.newBuilder()
                .setJob(a.getJob())
                .setRound(a.getRound())
                .setTaskId(taskId)
                .setWorkerId(workerId)
                .setAssignedWorkerId(a.getWorkerId())
                .setModelVersion(a.getModelVersion())
                .setComputeMs(paced.computeMs());
    }

    /**
     * The timing published with {@code result}: the same task and compute time, with its wall-clock
     * span. Public for agents of another shape (the virtual fleet), which publish the same records.
     */
    public static TaskTiming timingOf(TaskResult result, TimingStatus status, long startMs, long endMs) {
        return TaskTiming.newBuilder()
                .setJob(result.getJob())
                .setRound(result.getRound())
                .setTaskId(result.getTaskId())
                .setWorkerId(result.getWorkerId())
                .setModelVersion(result.getModelVersion())
                .setComputeMs(result.getComputeMs())
                .setStartMs(startMs)
                .setEndMs(endMs)
                .setStatus(status)
                .build();
    }
}
