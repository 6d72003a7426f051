package io.ata.trainer;

import io.ata.schemas.ComputeTime;
import io.ata.schemas.ModelVersions;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.workloads.TaskIds;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The open round of one job: round {@code k}, computed at model version {@code k - 1}, needing
 * {@code B} results. It decides, result by result, what each one is worth ({@link OfferOutcome})
 * and keeps what the close needs: the first {@code B} distinct gradients (combined by an
 * {@link Aggregator}, their mean by default), every timing of the round, and the round time.
 *
 * <p>Why a class of its own, without Kafka: this is the rule that makes the trainer correct
 * (exactly {@code B} distinct task ids, nothing stale, nothing twice), so it is tested alone.
 *
 * <p>Rules, checked in this order:
 * <ol>
 *   <li>out-of-range fields (another job, round &lt; 1, negative model version, a compute time
 *       out of {@link ComputeTime}'s range, blank worker or task id): {@link OfferOutcome#INVALID};</li>
 *   <li>a CANCELLED notice (a task stopped part-way because its round closed): of an earlier
 *       round, {@link OfferOutcome#CANCELLED}, its time worked kept as a CANCELLED timing (once per
 *       task id); of this round or a later one, which cannot have closed yet,
 *       {@link OfferOutcome#INVALID};</li>
 *   <li>a later round or a model version later than the round's: {@link OfferOutcome#INVALID}
 *       (the trainer never published it, so no agent can have computed it);</li>
 *   <li>an earlier round or model version: {@link OfferOutcome#STALE}, unless a gradient value is
 *       NaN or infinite ({@link OfferOutcome#INVALID}); nothing else of it is checked;</li>
 *   <li>task id not {@code job/k/index}, gradient of the wrong length or with NaN/infinite values:
 *       {@link OfferOutcome#INVALID};</li>
 *   <li>task id already seen in this round: {@link OfferOutcome#DUPLICATE};</li>
 *   <li>the batch is already full: {@link OfferOutcome#LATE};</li>
 *   <li>otherwise {@link OfferOutcome#ACCEPTED}, its gradient clipped first if its L2 norm is
 *       above the round's {@link NormBound} (counted in {@link #clipped()}).</li>
 * </ol>
 *
 * <p>Not thread-safe: one trainer thread owns it.
 */
public final class RoundAccumulator {
    private final String job;
    private final long round;
    private final int batch;
    private final int dimension;
    private final long openedAtMs;
    private final Clock clock;

    private final Aggregator.Aggregate gradients;
    private final NormBound normBound;
    private final double previousMedianNorm;
    private final double[] acceptedNorms;
    /** Why the last offered result was INVALID; null if it was not. */
    private String lastRefusal;
    /** How the last offered result was clipped; null if it was not. */
    private String lastClip;

    private int clipped;

    private double lossSum;
    private final Set<String> seenTaskIds = new HashSet<>();
    private final Set<String> cancelledTaskIds = new HashSet<>();
    private final List<RoundTiming> timings = new ArrayList<>();
    private final Map<OfferOutcome, Integer> counts = new EnumMap<>(OfferOutcome.class);
    private long completedAtMs = -1;

    /**
     * Opens round {@code round} of {@code job}.
     *
     * @param batch      B, the results the round needs
     * @param dimension  the length every gradient must have (the model's)
     * @param openedAtMs wall-clock time the round opened, epoch ms (the round time counts from it)
     * @param clock      the wall clock read when the B-th result is accepted
     */
    public RoundAccumulator(String job, long round, int batch, int dimension, long openedAtMs, Clock clock) {
        this(job, round, batch, dimension, openedAtMs, clock, MeanAggregator.INSTANCE);
    }

    /**
     * Opens round {@code round} of {@code job}, whose accepted gradients {@code aggregator}
     * combines, with the default {@link NormBound} and no previous round to take a scale from.
     */
    public RoundAccumulator(
            String job, long round, int batch, int dimension, long openedAtMs, Clock clock, Aggregator aggregator) {
        this(job, round, batch, dimension, openedAtMs, clock, aggregator, NormBound.DEFAULT, Double.NaN);
    }

    /**
     * Opens round {@code round} of {@code job}, whose accepted gradients {@code aggregator}
     * combines once {@code normBound} has clipped them (the other parameters as above).
     *
     * @param previousMedianNorm the median gradient norm of the previous round's accepted results,
     *     the scale until this round has its own; NaN if unknown
     */
    public RoundAccumulator(
            String job,
            long round,
            int batch,
            int dimension,
            long openedAtMs,
            Clock clock,
            Aggregator aggregator,
            NormBound normBound,
            double previousMedianNorm) {
        this.job = Objects.requireNonNull(job, "job");
        this.round = Bounds.atLeast(round, 1, "round");
        this.batch = Bounds.atLeast(batch, 1, "batch");
        this.dimension = Bounds.atLeast(dimension, 1, "dimension");
        this.openedAtMs = openedAtMs;
        this.clock = Objects.requireNonNull(clock, "clock");
        this.gradients = aggregator.open(dimension);
        this.normBound = Objects.requireNonNull(normBound, "normBound");
        this.previousMedianNorm = previousMedianNorm;
        this.acceptedNorms = new double[batch];
        for (OfferOutcome outcome : OfferOutcome.values()) {
            counts.put(outcome, 0);
        }
    }

    /** Classifies {@code result}, keeps it if it is {@link OfferOutcome#ACCEPTED}, and counts it. */
    public OfferOutcome offer(TaskResult result) {
        Verdict verdict = check(result);
        OfferOutcome outcome = classify(result, verdict);
        lastRefusal = verdict.invalidReason();
        lastClip = null;
        double norm = Double.NaN;
        if (outcome == OfferOutcome.ACCEPTED) {
            norm = NormBound.l2(verdict.gradient());
            NormBound.Limit limit = normBound.limit(acceptedNorms, accepted(), previousMedianNorm);
            if (limit.exceededBy(norm)) {
                NormBound.clip(verdict.gradient(), norm, limit.norm());
                lastClip = "task " + result.getTaskId() + " of worker " + result.getWorkerId() + ": gradient L2 norm "
                        + norm + " clipped to " + limit.norm() + ", " + limit.reason();
                norm = limit.norm();
                clipped++;
            }
        }
        counts.merge(outcome, 1, Integer::sum);
        switch (outcome) {
            case ACCEPTED -> {
                insertNorm(norm, accepted() - 1);
                gradients.add(verdict.gradient());
                lossSum += result.getLoss();
                seenTaskIds.add(result.getTaskId());
                long now = clock.millis();
                timings.add(timing(result, TimingStatus.COMPLETED, now));
                if (accepted() == batch) {
                    completedAtMs = now;
                }
            }
            case LATE -> {
                seenTaskIds.add(result.getTaskId());
                timings.add(timing(result, TimingStatus.LATE, clock.millis()));
            }
            case DUPLICATE -> timings.add(timing(result, TimingStatus.LATE, clock.millis()));
            case CANCELLED -> {
                if (cancelledTaskIds.add(result.getTaskId())) {
                    timings.add(timing(result, TimingStatus.CANCELLED, -1));
                }
            }
            case STALE, INVALID -> {
                // not part of this round: nothing kept
            }
        }
        return outcome;
    }

    private OfferOutcome classify(TaskResult result, Verdict verdict) {
        if (verdict.invalidReason() != null) {
            return OfferOutcome.INVALID;
        }
        if (result.getStatus() == TimingStatus.CANCELLED) {
            return OfferOutcome.CANCELLED;
        }
        if (isStale(result)) {
            return OfferOutcome.STALE;
        }
        if (seenTaskIds.contains(result.getTaskId())) {
            return OfferOutcome.DUPLICATE;
        }
        return isComplete() ? OfferOutcome.LATE : OfferOutcome.ACCEPTED;
    }

    /**
     * Why the result {@link #offer} took last was {@link OfferOutcome#INVALID}, for the dead-letter
     * record; empty if it was not.
     */
    public Optional<String> lastRefusal() {
        return Optional.ofNullable(lastRefusal);
    }

    /**
     * How the result {@link #offer} took last was clipped to the round's {@link NormBound}, for the
     * log; empty if it was not.
     */
    public Optional<String> lastClip() {
        return Optional.ofNullable(lastClip);
    }

    /** How many accepted results had their gradient clipped to the {@link NormBound}. */
    public int clipped() {
        return clipped;
    }

    /** Puts {@code norm} among the {@code count} accepted norms before it, which stay ascending. */
    private void insertNorm(double norm, int count) {
        int at = Arrays.binarySearch(acceptedNorms, 0, count, norm);
        if (at < 0) {
            at = -at - 1;
        }
        System.arraycopy(acceptedNorms, at, acceptedNorms, at + 1, count - at);
        acceptedNorms[at] = norm;
    }

    /**
     * The median L2 norm of the gradients accepted so far (NaN if none): the scale the next
     * round's {@link NormBound} starts from.
     */
    public double medianAcceptedNorm() {
        return NormBound.medianOfSorted(acceptedNorms, accepted());
    }

    /**
     * Why {@link #offer} finds {@code result} {@link OfferOutcome#INVALID}, for the dead-letter
     * record; empty if it does not. Does not change the round.
     */
    public Optional<String> invalidReason(TaskResult result) {
        return Optional.ofNullable(check(result).invalidReason());
    }

    /**
     * What checking a result found: why it is INVALID (null if it is not) and, for a valid result
     * of this round, its gradient decoded to double (decoded once: it may be large).
     */
    private record Verdict(String invalidReason, double[] gradient) {
        static Verdict invalid(String reason) {
            return new Verdict(reason, null);
        }
    }

    private static final Verdict NOT_INVALID = new Verdict(null, null);

    private Verdict check(TaskResult r) {
        String reason = invalidity(r);
        if (reason != null) {
            return Verdict.invalid(reason);
        }
        if (r.getStatus() != TimingStatus.COMPLETED) {
            return NOT_INVALID; // a notice: it carries no gradient
        }
        if (isStale(r)) {
            // another round's result: not ours to use, but a non-finite gradient is a broken or
            // hostile worker, worth a dead letter however late (scanned without decoding a copy)
            int bad = TensorCodec.firstNonFinite(r.getGradient(), r.getEncoding());
            return bad < 0 ? NOT_INVALID : Verdict.invalid("gradient value " + bad + " is not finite");
        }
        double[] gradient = TensorCodec.decode(r.getGradient(), r.getEncoding());
        for (int i = 0; i < gradient.length; i++) {
            if (!Double.isFinite(gradient[i])) {
                return Verdict.invalid("gradient value " + i + " is " + gradient[i]);
            }
        }
        return new Verdict(null, gradient);
    }

    /** The reason {@code r} is INVALID, apart from its gradient's values; or null. */
    private String invalidity(TaskResult r) {
        if (!job.equals(r.getJob())) {
            return "result of job '" + r.getJob() + "', not '" + job + "'";
        }
        if (r.getRound() < 1) {
            return "round " + r.getRound() + " is out of range (rounds start at 1)";
        }
        if (r.getModelVersion() < 0) {
            return "model version " + r.getModelVersion() + " is out of range";
        }
        String computeMs = ComputeTime.problem("compute_ms", r.getComputeMs());
        if (computeMs != null) {
            return computeMs;
        }
        if (r.getWorkerId().isBlank()) {
            return "blank worker id";
        }
        if (r.getTaskId().isBlank()) {
            return "blank task id";
        }
        if (r.getStatus() == TimingStatus.CANCELLED) {
            return r.getRound() < round
                    ? null
                    : "task " + r.getTaskId() + " cancelled, but its round " + r.getRound() + " has not closed";
        }
        if (r.getStatus() != TimingStatus.COMPLETED) {
            return "result status " + r.getStatus() + " (an agent sends COMPLETED or CANCELLED)";
        }
        if (r.getRound() > round || r.getModelVersion() > modelVersion()) {
            return "round " + r.getRound() + " at model version " + r.getModelVersion() + " is ahead of the open round "
                    + round + " at version " + modelVersion() + ": the trainer never published it";
        }
        if (isStale(r)) {
            return null;
        }
        if (!isTaskIdOfThisRound(r.getTaskId())) {
            return "task id '" + r.getTaskId() + "' is not of the form "
                    + TaskIds.of(job, round, 0).replaceAll("0$", "") + "<index>";
        }
        int length = TensorCodec.length(r.getGradient(), r.getEncoding());
        if (length != dimension) {
            return "gradient has "
                    + (length < 0
                            ? "a partial value (" + r.getGradient().remaining() + " bytes of " + r.getEncoding() + ")"
                            : length + " values")
                    + ", the model has " + dimension;
        }
        return null;
    }

    private boolean isStale(TaskResult r) {
        return r.getRound() != round || r.getModelVersion() != modelVersion();
    }

    private boolean isTaskIdOfThisRound(String taskId) {
        return TaskIds.isOfRound(job, round, taskId);
    }

    /** The timing of {@code r}, read at {@code readAtMs} on the wall clock (-1: its arrival does not matter). */
    private RoundTiming timing(TaskResult r, TimingStatus status, long readAtMs) {
        return RoundTiming.newBuilder()
                .setWorkerId(r.getWorkerId())
                .setTaskId(r.getTaskId())
                .setComputeMs(r.getComputeMs())
                .setStatus(status)
                .setArrivalMs(readAtMs < 0 ? -1 : Math.max(0, readAtMs - openedAtMs))
                .build();
    }

    /** Whether the round holds B distinct accepted task ids, so it can close. */
    public boolean isComplete() {
        return accepted() == batch;
    }

    /**
     * The gradient to step with: the B accepted gradients combined by the round's
     * {@link Aggregator} (their mean by default), in double.
     *
     * @throws IllegalStateException if the round is not complete
     */
    public double[] aggregatedGradient() {
        requireComplete();
        return gradients.result();
    }

    /**
     * The mean of the losses the B accepted results reported (each measured at the round's model
     * version, on the task's samples).
     *
     * @throws IllegalStateException if the round is not complete
     */
    public double meanReportedLoss() {
        requireComplete();
        return lossSum / batch;
    }

    /**
     * Every result seen for this round, in arrival order: COMPLETED for the accepted ones, LATE
     * for the others (late and duplicates: work that was done but not used), and CANCELLED for the
     * notices of earlier rounds' tasks stopped part-way. Stale and invalid results do not appear.
     */
    public List<RoundTiming> timings() {
        return List.copyOf(timings);
    }

    /**
     * Wall time from the open to the B-th accepted result, in ms (0 if the clock went backwards).
     *
     * @throws IllegalStateException if the round is not complete
     */
    public double roundTimeMs() {
        requireComplete();
        return Math.max(0, completedAtMs - openedAtMs);
    }

    private void requireComplete() {
        if (!isComplete()) {
            throw new IllegalStateException(
                    "round " + round + " of job " + job + " holds " + accepted() + " of " + batch + " results");
        }
    }

    /** How many offered results got {@code outcome}. */
    public int count(OfferOutcome outcome) {
        return counts.get(outcome);
    }

    /** {@code count(ACCEPTED)}: the results the round holds. */
    public int accepted() {
        return count(OfferOutcome.ACCEPTED);
    }

    public String job() {
        return job;
    }

    /** k, 1-based. */
    public long round() {
        return round;
    }

    /** The model version the round's tasks compute at: {@code k - 1}. */
    public long modelVersion() {
        return ModelVersions.computedOnBy(round);
    }

    /** B. */
    public int batch() {
        return batch;
    }

    public int dimension() {
        return dimension;
    }

    /** When the round opened, epoch ms. */
    public long openedAtMs() {
        return openedAtMs;
    }
}
