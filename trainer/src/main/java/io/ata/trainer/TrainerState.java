package io.ata.trainer;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one job's training stands: the current model version, its parameters and the optimizer's
 * memory, and the open round. It is everything the trainer knows, built either {@link #fresh fresh} or {@link #recover
 * recovered} from the last published model version, and it turns a complete round into the records
 * to publish ({@link #closeRound()}). No Kafka here: the {@link Trainer} does the I/O.
 *
 * <p>Why recovery needs nothing but the last model version (and the optimizer state published
 * with it, for an optimizer with memory such as Adam): the trainer publishes model version
 * {@code v} and {@code OPENED v+1} in one transaction together with the consumer offsets of the
 * gradients that made round {@code v}. So after a restart the open round is {@code v+1}, and
 * reading the gradients topic from the committed offsets offers this state exactly the results the
 * crashed trainer had seen of round {@code v+1} (and later ones), never a result of round {@code v}
 * again. Anything older that does come by is stale for round {@code v+1}.
 *
 * <p>Not thread-safe: one trainer thread owns it.
 */
public final class TrainerState {
    private final TrainingJob job;
    private final Clock clock;
    private final FlatTensor parameters;
    private final OptimizerMemory memory;
    private Version current;
    /** The open round; null once the job's last round closed. */
    private RoundAccumulator open;

    /** The current model version: its number, its objective and when it was published. */
    private record Version(long number, double objective, long timestampMs) {}

    private TrainerState(TrainingJob job, Clock clock, Version current, FlatTensor parameters, OptimizerMemory memory) {
        this.job = job;
        this.clock = clock;
        this.current = current;
        this.parameters = parameters;
        this.memory = memory;
        this.open = current.number() < job.maxRounds()
                ? openRound(current.number() + 1, current.timestampMs(), Double.NaN)
                : null;
    }

    /** @param previousMedianNorm the closed round's median gradient norm, the new round's first scale */
    private RoundAccumulator openRound(long round, long openedAtMs, double previousMedianNorm) {
        return new RoundAccumulator(
                job.job(),
                round,
                job.batch(),
                parameters.length(),
                openedAtMs,
                clock,
                job.aggregator(),
                job.normBound(),
                previousMedianNorm);
    }

    /** A new job: model version 0 (the model's start), a fresh optimizer memory and round 1 open, as of now. */
    public static TrainerState fresh(TrainingJob job, Clock clock) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(clock, "clock");
        Model model = job.model();
        FlatTensor start = model.initialParameters();
        OptimizerMemory memory = OptimizerMemory.fresh(job.optimizer(), start.length(), model.precision());
        return new TrainerState(
                job, clock, new Version(0, model.objective(start, Double.NaN), clock.millis()), start, memory);
    }

    /**
     * The job as its last published model version left it, for an optimizer without memory (plain
     * SGD); see {@link #recover(ModelVersion, OptimizerState, TrainingJob, Clock)}.
     */
    public static TrainerState recover(ModelVersion latest, TrainingJob job, Clock clock) {
        return recover(latest, null, job, clock);
    }

    /**
     * Why model version {@code latest} does not fit the job this trainer is configured for (another
     * job, a version below 0, another precision, length or task description), or null if it fits.
     */
    public static String misfit(ModelVersion latest, TrainingJob job) {
        Model model = job.model();
        if (!job.job().equals(latest.getJob())) {
            return "model version of job '" + latest.getJob() + "', not '" + job.job() + "'";
        }
        if (latest.getVersion() < 0) {
            return "model version " + latest.getVersion() + " is out of range";
        }
        String which = "model version " + latest.getVersion() + " of job " + job.job();
        if (latest.getEncoding() != model.precision()) {
            return which + " is " + latest.getEncoding() + ", but " + model.describe() + " is kept as "
                    + model.precision() + ": a restart must continue from the very same values";
        }
        int length = TensorCodec.length(latest.getParameters(), latest.getEncoding());
        if (length != model.dimension()) {
            return which + " has " + (length < 0 ? "a partial value" : length + " parameters") + ", " + model.describe()
                    + " " + model.dimension();
        }
        TaskSpec configured = model.taskSpec().orElse(null);
        if (!Objects.equals(configured, latest.getTask())) {
            return which + " was trained on task " + latest.getTask() + ", but this trainer is configured for "
                    + configured + ": start it with the same model, data and sample settings, or start a new job";
        }
        return null;
    }

    /**
     * The job as its last published model version and the optimizer state published with it left
     * it: model {@code v}, the optimizer's memory after step {@code v}, round {@code v+1} open since
     * that version was published (so the round time includes the downtime), or nothing open if
     * {@code v} reached the job's last round. The parameters are taken bit for bit as published.
     *
     * @param latest         the job's latest model version, whole (chunks put together)
     * @param optimizerState the optimizer state of that version, whole; null if none was found
     *     (fine for an optimizer without memory)
     * @throws IllegalArgumentException if {@code latest} is of another job, or its parameters or
     *     task description do not fit the model
     * @throws IllegalStateException if the optimizer needs a state and {@code optimizerState} is
     *     missing or does not fit ({@link OptimizerMemory#restore})
     */
    public static TrainerState recover(
            ModelVersion latest, OptimizerState optimizerState, TrainingJob job, Clock clock) {
        Objects.requireNonNull(latest, "latest");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(clock, "clock");
        Model model = job.model();
        String misfit = misfit(latest, job);
        if (misfit != null) {
            throw new IllegalArgumentException(misfit);
        }
        FlatTensor parameters = FlatTensor.decode(latest.getParameters(), latest.getEncoding());
        OptimizerMemory memory = OptimizerMemory.restore(
                optimizerState,
                job.optimizer(),
                job.job(),
                latest.getVersion(),
                parameters.length(),
                model.precision());
        Version published = new Version(latest.getVersion(), latest.getObjective(), latest.getTimestampMs());
        return new TrainerState(job, clock, published, parameters, memory);
    }

    /**
     * As {@link #recover(ModelVersion, OptimizerState, TrainingJob, Clock)}, but with the optimizer's
     * memory started afresh: for a model version whose optimizer state is gone (refused as a bad
     * record, or compacted away under one). Adam's moments rebuild within a few dozen steps; a job
     * that cannot resume at all would not move again.
     */
    public static TrainerState recoverWithFreshOptimizer(ModelVersion latest, TrainingJob job, Clock clock) {
        String misfit = misfit(latest, job);
        if (misfit != null) {
            throw new IllegalArgumentException(misfit);
        }
        FlatTensor parameters = FlatTensor.decode(latest.getParameters(), latest.getEncoding());
        OptimizerMemory memory = OptimizerMemory.fresh(
                job.optimizer(), parameters.length(), job.model().precision());
        Version published = new Version(latest.getVersion(), latest.getObjective(), latest.getTimestampMs());
        return new TrainerState(job, clock, published, parameters, memory);
    }

    /**
     * The records that start a fresh job: model version 0, the optimizer's fresh state (if it has
     * one) and {@code OPENED 1}, which alone carries the policy and the seed.
     *
     * @throws IllegalStateException unless this is a fresh job's state
     */
    public Transition firstTransition() {
        if (current.number() != 0 || open == null || open.round() != 1) {
            throw new IllegalStateException(
                    "job " + job.job() + " is past its start (model version " + current.number() + ")");
        }
        return new Transition(
                currentModel(), currentOptimizerState().orElse(null), List.of(opened(1, current.timestampMs())), null);
    }

    /**
     * Offers a result to the open round ({@link RoundAccumulator#offer}); once the job's last round
     * closed, every result is {@link OfferOutcome#STALE}.
     */
    public OfferOutcome offer(TaskResult result) {
        return open == null ? OfferOutcome.STALE : open.offer(result);
    }

    /** Why {@link #offer} finds {@code result} INVALID; empty if it does not. */
    public Optional<String> invalidReason(TaskResult result) {
        return open == null ? Optional.empty() : open.invalidReason(result);
    }

    /** Why the result offered last was INVALID; empty if it was not. */
    public Optional<String> lastRefusal() {
        return open == null ? Optional.empty() : open.lastRefusal();
    }

    /** How the result offered last was clipped to the norm bound; empty if it was not. */
    public Optional<String> lastClip() {
        return open == null ? Optional.empty() : open.lastClip();
    }

    /** Whether the open round holds its B results and can close. */
    public boolean roundComplete() {
        return open != null && open.isComplete();
    }

    /**
     * Closes the complete round k: steps the optimizer with the round's aggregated gradient, and
     * returns model version k, the optimizer state after it, {@code CLOSED k} (with every timing
     * and the round time) and, unless k is the job's last round, {@code OPENED k+1}, which is then
     * the open round. Publish them in one transaction.
     *
     * @throws IllegalStateException if the open round is not complete
     */
    public Transition closeRound() {
        if (!roundComplete()) {
            throw new IllegalStateException("job " + job.job() + ": no complete round to close");
        }
        RoundAccumulator closing = open;
        long now = clock.millis();
        job.optimizer().step(parameters, closing.aggregatedGradient(), memory);
        current = new Version(closing.round(), job.model().objective(parameters, closing.meanReportedLoss()), now);

        List<RoundEvent> events = new ArrayList<>(2);
        events.add(RoundEvent.newBuilder()
                .setJob(job.job())
                .setRound(closing.round())
                .setType(RoundEventType.CLOSED)
                .setModelVersion(closing.modelVersion())
                .setBatch(job.batch())
                .setTimings(closing.timings())
                .setRoundTimeMs(closing.roundTimeMs())
                .setTimestampMs(now)
                .build());
        if (current.number() < job.maxRounds()) {
            open = openRound(current.number() + 1, now, closing.medianAcceptedNorm());
            events.add(opened(current.number() + 1, now));
        } else {
            open = null;
        }
        return new Transition(
                currentModel(),
                currentOptimizerState().orElse(null),
                events,
                RoundSummary.of(closing, current.objective()));
    }

    private RoundEvent opened(long round, long timestampMs) {
        RoundEvent.Builder opened = RoundEvent.newBuilder()
                .setJob(job.job())
                .setRound(round)
                .setType(RoundEventType.OPENED)
                .setModelVersion(ModelVersions.computedOnBy(round))
                .setBatch(job.batch())
                .setLastRound(lastRound())
                .setTimestampMs(timestampMs);
        if (round == 1) {
            opened.setPolicy(job.policy()).setSeed(job.seed());
        }
        return opened.build();
    }

    /**
     * The job's last round for its OPENED events, or 0 for a job without one: a broker that plans
     * rounds ahead would otherwise plan one past a stop nobody announced, for agents to hold. A
     * limit past the last round a job may have is none (the broker refuses such a last round, and
     * every round of the job with it).
     */
    private long lastRound() {
        return job.maxRounds() > ModelVersions.MAX_ROUND ? 0 : job.maxRounds();
    }

    /**
     * The current model version as one record, whole (chunk 0 of 1), with the model's task
     * description: exactly the parameters this state holds, in the model's precision.
     */
    public ModelVersion currentModel() {
        return ModelVersion.newBuilder()
                .setJob(job.job())
                .setVersion(current.number())
                .setParameters(ByteBuffer.wrap(parameters.encode()))
                .setEncoding(parameters.precision())
                .setChunk(0)
                .setChunks(1)
                .setTask(job.model().taskSpec().orElse(null))
                .setObjective(current.objective())
                .setTimestampMs(current.timestampMs())
                .build();
    }

    /** The optimizer's state after the current model version, whole; empty if it has none. */
    public Optional<OptimizerState> currentOptimizerState() {
        if (!job.optimizer().hasState()) {
            return Optional.empty();
        }
        return Optional.of(memory.toRecord(job.job(), current.number(), job.optimizer(), current.timestampMs()));
    }

    /** Whether the job's last round closed: nothing is open any more. */
    public boolean finished() {
        return open == null;
    }

    /** The current model version: the number of rounds closed so far. */
    public long modelVersion() {
        return current.number();
    }

    /** The objective of the current model version. */
    public double objective() {
        return current.objective();
    }

    /** When the current model version was published (or, for version 0, created), epoch ms. */
    public long modelTimestampMs() {
        return current.timestampMs();
    }

    /** A copy of the current parameters, widened to double. */
    public double[] parameters() {
        return parameters.toDoubles();
    }

    /** A copy of the current parameters, in the model's precision. */
    public FlatTensor parameterTensor() {
        return parameters.copy();
    }

    /** A copy of the optimizer's memory. */
    public OptimizerMemory optimizerMemory() {
        return memory.copy();
    }

    /** The open round, empty once the job finished. */
    public Optional<RoundAccumulator> openRound() {
        return Optional.ofNullable(open);
    }

    public TrainingJob job() {
        return job;
    }
}
