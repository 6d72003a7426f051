package io.ata.trainer;

import io.ata.schemas.Evaluation;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleSupplier;
import java.util.function.ToDoubleFunction;

/**
 * The meters of one trainer, in the {@link MeterRegistry} of its {@link TrainerConfig}. Every
 * meter carries the tag {@value #JOB}{@code =<job>}, so one registry holds the trainers of several
 * jobs apart. The names (Prometheus turns the dots into underscores and adds {@code _total} to
 * counters, {@code _seconds} to timers):
 *
 * <table>
 *   <caption>Meters of a trainer</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@value #RESULTS}{@code {outcome}}</td><td>counter</td><td>results offered to the open
 *       round, by {@link OfferOutcome} in lower case: {@code accepted}, {@code duplicate},
 *       {@code stale}, {@code late}, {@code cancelled}, {@code invalid}</td></tr>
 *   <tr><td>{@value #CLIPPED}</td><td>counter</td><td>accepted results whose gradient was clipped
 *       to the round's norm bound</td></tr>
 *   <tr><td>{@value #ROUNDS_CLOSED}</td><td>counter</td><td>rounds this trainer closed</td></tr>
 *   <tr><td>{@value #BACKUPS_REQUESTED}</td><td>counter</td><td>OVERDUE events sent: assignments
 *       without a result past their deadline, whose missing tasks the broker is asked to copy</td></tr>
 *   <tr><td>{@value #ROUNDS_STALLED}</td><td>counter</td><td>times the open round was found stalled
 *       (open longer than its stall bound) and re-driven, each with a dead letter saying so</td></tr>
 *   <tr><td>{@value #ROUNDS_REOPENED}</td><td>counter</td><td>OPENED events sent again for a stalled
 *       round</td></tr>
 *   <tr><td>{@value #RESULTS_HELD}</td><td>counter</td><td>results held until the watch of the
 *       {@code tasks} topic had read far enough to tell whether their task was assigned to their
 *       worker</td></tr>
 *   <tr><td>{@value #ROUND_TIME}</td><td>timer</td><td>each closed round's time, open to B-th
 *       accepted result</td></tr>
 *   <tr><td>{@value #DEAD_LETTERS}</td><td>counter</td><td>records sent to the dead-letter topic
 *       (undecodable, or invalid results)</td></tr>
 *   <tr><td>{@value #RECOVERIES}</td><td>counter</td><td>times the open round's work was dropped
 *       and read again (an error, or partitions lost in a rebalance)</td></tr>
 *   <tr><td>{@value #OTHER_JOB_RECORDS}</td><td>counter</td><td>records of other jobs on
 *       {@code gradients}, ignored</td></tr>
 *   <tr><td>{@value #MODEL_VERSION}</td><td>gauge</td><td>the job's current model version (its
 *       last closed round)</td></tr>
 *   <tr><td>{@value #OBJECTIVE}</td><td>gauge</td><td>the objective of that model version</td></tr>
 *   <tr><td>{@value #PUBLISH_TIME}</td><td>timer</td><td>each transaction of a close: from
 *       serializing the records (the model and optimizer state sliced) to the commit</td></tr>
 *   <tr><td>{@value #RESULT_SLICES}</td><td>counter</td><td>records of results that arrived in
 *       slices (chunks above 1)</td></tr>
 *   <tr><td>{@value #INCOMPLETE_RESULTS_DROPPED}</td><td>counter</td><td>results in slices still
 *       incomplete when their round closed, dropped</td></tr>
 *   <tr><td>{@value #EVALUATIONS}</td><td>counter</td><td>evaluations published (model versions
 *       scored on the test set)</td></tr>
 *   <tr><td>{@value #EVALUATION_TIME}</td><td>timer</td><td>scoring one model version</td></tr>
 *   <tr><td>{@value #EVALUATIONS_SKIPPED}</td><td>counter</td><td>versions due but not scored:
 *       scoring fell behind the rounds</td></tr>
 *   <tr><td>{@value #EVALUATIONS_FAILED}</td><td>counter</td><td>versions whose scoring
 *       failed</td></tr>
 *   <tr><td>{@value #TEST_LOSS}, {@value #TEST_ACCURACY}</td><td>gauges</td><td>of the last
 *       evaluation published (NaN before)</td></tr>
 * </table>
 *
 * <p>Counters count what the trainer saw, as it saw it: results of a round whose work was dropped
 * are read, and counted, again. The meters live as long as the trainer: they are removed from the
 * registry when it stops, so a new trainer of the job starts from zero (and its gauges follow it,
 * not its predecessor). {@link #snapshot()} still reads them after that.
 *
 * <p>The model version and objective are the trainer's state ({@link JobProgress}, which
 * {@link Trainer#awaitRounds} waits on); the gauges only show it.
 */
public final class TrainerMetrics {
    /** The tag naming the trainer's job, on every meter. */
    public static final String JOB = "job";
    /** The tag of {@link #RESULTS}: the {@link OfferOutcome}, lower case. */
    public static final String OUTCOME = "outcome";

    /** The start of every trainer meter's name. */
    private static final String PREFIX = "ata.trainer.";

    public static final String RESULTS = PREFIX + "results";
    public static final String CLIPPED = PREFIX + "results.clipped";
    public static final String ROUNDS_CLOSED = PREFIX + "rounds.closed";
    public static final String BACKUPS_REQUESTED = PREFIX + "backups.requested";
    public static final String ROUNDS_STALLED = PREFIX + "rounds.stalled";
    public static final String ROUNDS_REOPENED = PREFIX + "rounds.reopened";
    public static final String RESULTS_HELD = PREFIX + "results.held";
    public static final String ROUND_TIME = PREFIX + "round.time";
    public static final String DEAD_LETTERS = PREFIX + "dead.letters";
    public static final String RECOVERIES = PREFIX + "recoveries";
    public static final String OTHER_JOB_RECORDS = PREFIX + "records.other.job";
    public static final String MODEL_VERSION = PREFIX + "model.version";
    public static final String OBJECTIVE = PREFIX + "objective";
    public static final String PUBLISH_TIME = PREFIX + "publish.time";
    public static final String RESULT_SLICES = PREFIX + "result.slices";
    public static final String INCOMPLETE_RESULTS_DROPPED = PREFIX + "results.incomplete.dropped";
    public static final String EVALUATIONS = PREFIX + "evaluations";
    public static final String EVALUATION_TIME = PREFIX + "evaluation.time";
    public static final String EVALUATIONS_SKIPPED = PREFIX + "evaluations.skipped";
    public static final String EVALUATIONS_FAILED = PREFIX + "evaluations.failed";
    public static final String TEST_LOSS = PREFIX + "test.loss";
    public static final String TEST_ACCURACY = PREFIX + "test.accuracy";
    public static final String DEADLINE_MARGIN = PREFIX + "deadline.margin";

    private final MeterRegistry registry;
    private final Tags tags;
    private final JobProgress progress;
    private final List<Meter> meters = new ArrayList<>();
    private final Map<OfferOutcome, Counter> results = new EnumMap<>(OfferOutcome.class);
    private final Counter clipped;
    private final Counter roundsClosed;
    private final Counter backupsRequested;
    private final Counter roundsStalled;
    private final Counter roundsReopened;
    private final Counter resultsHeld;
    private final Timer roundTime;
    private final Counter deadLetters;
    private final Counter recoveries;
    private final Counter otherJobs;
    private final Timer publishTime;
    private final Counter resultSlices;
    private final Counter incompleteDropped;
    private final Counter evaluations;
    private final Timer evaluationTime;
    private final Counter evaluationsSkipped;
    private final Counter evaluationsFailed;
    private volatile double lastTestLoss = Double.NaN;
    private volatile double lastTestAccuracy = Double.NaN;
    private volatile DoubleSupplier deadlineMarginMs = () -> 0;

    /**
     * The counters at one instant.
     *
     * @param roundsClosed    rounds this trainer instance closed
     * @param lastClosedRound the job's last closed round, i.e. its current model version (also
     *                        what a restarted trainer found)
     * @param lastObjective   the objective of that model version (NaN before the trainer knows it)
     * @param accepted        results accepted into a batch
     * @param duplicates      results whose task id their round had already seen
     * @param stale           results of another round or model version
     * @param late            results of the open round after its batch was full
     * @param invalid         results that could not be used (each also went to dead letters)
     * @param deadLetters     records sent to the dead-letter topic (undecodable or invalid)
     * @param otherJobs       records of other jobs on the gradients topic, ignored
     * @param recoveries      times the trainer aborted its transaction and resumed from Kafka
     * @param cancelled       notices of tasks stopped part-way because their round had closed
     * @param evaluations     evaluations published
     * @param lastTestLoss    test loss of the last evaluation published (NaN before)
     * @param lastTestAccuracy test accuracy of the last evaluation published (NaN before, and for
     *                        the quadratic problem)
     * @param deadlineMarginMs what the trainer adds to each backup deadline now, in ms ({@link
     *                        DeliveryMargin})
     * @param clipped         accepted results whose gradient was clipped to the norm bound
     * @param roundsStalled   times the open round was found stalled and re-driven
     */
    public record Snapshot(
            long roundsClosed,
            long lastClosedRound,
            double lastObjective,
            long accepted,
            long duplicates,
            long stale,
            long late,
            long invalid,
            long deadLetters,
            long otherJobs,
            long recoveries,
            long cancelled,
            long evaluations,
            double lastTestLoss,
            double lastTestAccuracy,
            double deadlineMarginMs,
            long clipped,
            long roundsStalled) {}

    /** Registers the meters of the trainer of {@code job} in {@code registry}; the gauges show {@code progress}. */
    TrainerMetrics(MeterRegistry registry, String job, JobProgress progress) {
        this.registry = registry;
        this.progress = progress;
        this.tags = Tags.of(JOB, job);
        for (OfferOutcome outcome : OfferOutcome.values()) {
            results.put(
                    outcome,
                    add(Counter.builder(RESULTS)
                            .description("results offered to the open round, by outcome")
                            .tags(tags)
                            .tag(OUTCOME, outcome.name().toLowerCase(Locale.ROOT))
                            .register(registry)));
        }
        clipped = counter(CLIPPED, "accepted results whose gradient was clipped to the round's norm bound");
        roundsClosed = counter(ROUNDS_CLOSED, "rounds this trainer closed");
        backupsRequested = counter(BACKUPS_REQUESTED, "OVERDUE events sent: backup copies asked of the broker");
        roundsStalled = counter(ROUNDS_STALLED, "times the open round was found stalled and re-driven");
        roundsReopened = counter(ROUNDS_REOPENED, "OPENED events sent again for a stalled round");
        resultsHeld = counter(RESULTS_HELD, "results held until their assignment could be checked");
        roundTime = add(Timer.builder(ROUND_TIME)
                .description("round time, from its open to its B-th accepted result")
                .tags(tags)
                .register(registry));
        deadLetters = counter(DEAD_LETTERS, "records sent to the dead-letter topic");
        recoveries = counter(RECOVERIES, "times the open round's work was dropped and read again");
        otherJobs = counter(OTHER_JOB_RECORDS, "records of other jobs on the gradients topic, ignored");
        gauge(MODEL_VERSION, JobProgress::modelVersion, "the job's current model version, its last closed round");
        gauge(OBJECTIVE, JobProgress::objective, "the objective of the current model version");
        publishTime = timer(PUBLISH_TIME, "a close's transaction, from serializing its records to the commit");
        resultSlices = counter(RESULT_SLICES, "records of results that arrived in slices");
        incompleteDropped =
                counter(INCOMPLETE_RESULTS_DROPPED, "results in slices still incomplete when their round closed");
        evaluations = counter(EVALUATIONS, "evaluations published");
        evaluationTime = timer(EVALUATION_TIME, "scoring one model version on the test set");
        evaluationsSkipped = counter(EVALUATIONS_SKIPPED, "versions due but not scored: scoring fell behind");
        evaluationsFailed = counter(EVALUATIONS_FAILED, "versions whose scoring failed");
        add(Gauge.builder(TEST_LOSS, this, m -> m.lastTestLoss)
                .description("test loss of the last evaluation published")
                .tags(tags)
                .register(registry));
        add(Gauge.builder(TEST_ACCURACY, this, m -> m.lastTestAccuracy)
                .description("test accuracy of the last evaluation published")
                .tags(tags)
                .register(registry));
    }

    /** Shows the delivery margin the watch for overdue tasks adds to every backup deadline. */
    void showDeadlineMargin(RoundAssignments deadlines) {
        deadlineMarginMs = deadlines::marginMs;
        add(Gauge.builder(DEADLINE_MARGIN, deadlines, d -> d.marginMs() / 1000)
                .description("what the trainer adds to each backup deadline: recent results' delivery time, p99")
                .baseUnit("seconds")
                .tags(tags)
                .register(registry));
    }

    private Timer timer(String name, String description) {
        return add(Timer.builder(name).description(description).tags(tags).register(registry));
    }

    private Counter counter(String name, String description) {
        return add(Counter.builder(name).description(description).tags(tags).register(registry));
    }

    private void gauge(String name, ToDoubleFunction<JobProgress> value, String description) {
        add(Gauge.builder(name, progress, value)
                .description(description)
                .tags(tags)
                .register(registry));
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    /** The counters now, with the job's model version and objective; thread-safe. */
    public Snapshot snapshot() {
        return new Snapshot(
                count(roundsClosed),
                progress.modelVersion(),
                progress.objective(),
                count(results.get(OfferOutcome.ACCEPTED)),
                count(results.get(OfferOutcome.DUPLICATE)),
                count(results.get(OfferOutcome.STALE)),
                count(results.get(OfferOutcome.LATE)),
                count(results.get(OfferOutcome.INVALID)),
                count(deadLetters),
                count(otherJobs),
                count(recoveries),
                count(results.get(OfferOutcome.CANCELLED)),
                count(evaluations),
                lastTestLoss,
                lastTestAccuracy,
                deadlineMarginMs.getAsDouble(),
                count(clipped),
                count(roundsStalled));
    }

    private static long count(Counter counter) {
        return (long) counter.count();
    }

    void resultOffered(OfferOutcome outcome) {
        results.get(outcome).increment();
    }

    void backupsRequested() {
        backupsRequested.increment();
    }

    void roundStalled() {
        roundsStalled.increment();
    }

    void roundReopened() {
        roundsReopened.increment();
    }

    void resultHeld() {
        resultsHeld.increment();
    }

    void resultClipped() {
        clipped.increment();
    }

    void roundClosed(RoundSummary round) {
        roundsClosed.increment();
        roundTime.record(Duration.ofNanos(Math.round(round.roundTimeMs() * 1e6)));
    }

    void deadLettered() {
        deadLetters.increment();
    }

    void otherJobIgnored() {
        otherJobs.increment();
    }

    void recovered() {
        recoveries.increment();
    }

    void published(Duration transaction) {
        publishTime.record(transaction);
    }

    void resultSlice() {
        resultSlices.increment();
    }

    void incompleteResultsDropped(int count) {
        incompleteDropped.increment(count);
    }

    /** One version scored (on the background thread). */
    void evaluated(Duration scoring) {
        evaluationTime.record(scoring);
    }

    void evaluationPublished(Evaluation evaluation) {
        evaluations.increment();
        lastTestLoss = evaluation.getTestLoss();
        lastTestAccuracy = evaluation.getTestAccuracy();
    }

    void evaluationSkipped() {
        evaluationsSkipped.increment();
    }

    void evaluationFailed() {
        evaluationsFailed.increment();
    }

    /** Removes the meters from the registry: the trainer stopped. {@link #snapshot()} still reads them. */
    void unregister() {
        meters.forEach(registry::remove);
    }
}
