package io.ata.trainer;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where one job's training stands: the current model version and its parameters, and the open
 * round. It is everything the trainer knows, built either {@link #fresh fresh} or {@link #recover
 * recovered} from the last published model version, and it turns a complete round into the records
 * to publish ({@link #closeRound()}). No Kafka here: the {@link Trainer} does the I/O.
 *
 * <p>Why recovery needs nothing but the last model version: the trainer publishes model version
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
    private final double[] parameters;
    private long version;
    private double objective;
    private long versionTimestampMs;
    /** The open round; null once the job's last round closed. */
    private RoundAccumulator open;

    private TrainerState(TrainingJob job, Clock clock, long version, double[] parameters, long timestampMs) {
        this.job = job;
        this.clock = clock;
        this.version = version;
        this.parameters = parameters;
        this.objective = job.objective().evaluate(parameters);
        this.versionTimestampMs = timestampMs;
        this.open = version < job.maxRounds()
                ? new RoundAccumulator(job.job(), version + 1, job.batch(), parameters.length, timestampMs, clock)
                : null;
    }

    /** A new job: model version 0 (the objective's start) and round 1 open, as of now. */
    public static TrainerState fresh(TrainingJob job, Clock clock) {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(clock, "clock");
        return new TrainerState(job, clock, 0, job.objective().initialParameters(), clock.millis());
    }

    /**
     * The job as its last published model version left it: model {@code v}, round {@code v+1}
     * open since that version was published (so the round time includes the downtime), or nothing
     * open if {@code v} reached the job's last round.
     *
     * @throws IllegalArgumentException if {@code latest} is of another job or its parameters do not
     *     fit the objective
     */
    public static TrainerState recover(ModelVersion latest, TrainingJob job, Clock clock) {
        Objects.requireNonNull(latest, "latest");
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(clock, "clock");
        if (!job.job().equals(latest.getJob())) {
            throw new IllegalArgumentException(
                    "model version of job '" + latest.getJob() + "', not '" + job.job() + "'");
        }
        if (latest.getVersion() < 0) {
            throw new IllegalArgumentException("model version " + latest.getVersion() + " is out of range");
        }
        double[] parameters = TensorCodec.decode(latest.getParameters(), latest.getEncoding());
        if (parameters.length != job.objective().dimension()) {
            throw new IllegalArgumentException(
                    "model version " + latest.getVersion() + " of job " + job.job() + " has " + parameters.length
                            + " parameters, the objective " + job.objective().dimension());
        }
        return new TrainerState(job, clock, latest.getVersion(), parameters, latest.getTimestampMs());
    }

    /**
     * The records that start a fresh job: model version 0 and {@code OPENED 1}, which alone carries
     * the policy and the seed.
     *
     * @throws IllegalStateException unless this is a fresh job's state
     */
    public Transition firstTransition() {
        if (version != 0 || open == null || open.round() != 1) {
            throw new IllegalStateException("job " + job.job() + " is past its start (model version " + version + ")");
        }
        return new Transition(currentModel(), List.of(opened(1, versionTimestampMs)), null);
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

    /** Whether the open round holds its B results and can close. */
    public boolean roundComplete() {
        return open != null && open.isComplete();
    }

    /**
     * Closes the complete round k: steps the optimizer, and returns model version k,
     * {@code CLOSED k} (with every timing and the round time) and, unless k is the job's last
     * round, {@code OPENED k+1}, which is then the open round. Publish them in one transaction.
     *
     * @throws IllegalStateException if the open round is not complete
     */
    public Transition closeRound() {
        if (!roundComplete()) {
            throw new IllegalStateException("job " + job.job() + ": no complete round to close");
        }
        RoundAccumulator closing = open;
        long now = clock.millis();
        job.optimizer().step(parameters, closing.meanGradient());
        version = closing.round();
        objective = job.objective().evaluate(parameters);
        versionTimestampMs = now;

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
        if (version < job.maxRounds()) {
            open = new RoundAccumulator(job.job(), version + 1, job.batch(), parameters.length, now, clock);
            events.add(opened(version + 1, now));
        } else {
            open = null;
        }
        return new Transition(currentModel(), events, RoundSummary.of(closing, objective));
    }

    private RoundEvent opened(long round, long timestampMs) {
        RoundEvent.Builder opened = RoundEvent.newBuilder()
                .setJob(job.job())
                .setRound(round)
                .setType(RoundEventType.OPENED)
                .setModelVersion(round - 1)
                .setBatch(job.batch())
                .setTimestampMs(timestampMs);
        if (round == 1) {
            opened.setPolicy(job.policy()).setSeed(job.seed());
        }
        return opened.build();
    }

    /** The current model version as a record. */
    public ModelVersion currentModel() {
        return ModelVersion.newBuilder()
                .setJob(job.job())
                .setVersion(version)
                .setParameters(ByteBuffer.wrap(TensorCodec.encode(parameters, TensorEncoding.FLOAT64_LE)))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setObjective(objective)
                .setTimestampMs(versionTimestampMs)
                .build();
    }

    /** Whether the job's last round closed: nothing is open any more. */
    public boolean finished() {
        return open == null;
    }

    /** The current model version: the number of rounds closed so far. */
    public long modelVersion() {
        return version;
    }

    /** The objective of the current model version. */
    public double objective() {
        return objective;
    }

    /** A copy of the current parameters. */
    public double[] parameters() {
        return parameters.clone();
    }

    /** The open round, empty once the job finished. */
    public Optional<RoundAccumulator> openRound() {
        return Optional.ofNullable(open);
    }

    public TrainingJob job() {
        return job;
    }
}
