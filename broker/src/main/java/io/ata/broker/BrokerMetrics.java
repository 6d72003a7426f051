package io.ata.broker;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The counters of one broker instance: Micrometer counters in the {@link MeterRegistry} it is
 * given, each tagged {@value #APPLICATION}{@code =<application id>}, so that the broker's meters
 * and those of other parts in the same process (or of another broker application) stay apart. The
 * names (Prometheus turns the dots into underscores and adds {@code _total}), with the key each has
 * in the JSON of {@code GET /metrics} ({@link #snapshot()}):
 *
 * <table>
 *   <caption>Meters of the broker</caption>
 *   <tr><th>name</th><th>JSON key</th><th>what</th></tr>
 *   <tr><td>{@value #DEAD_LETTERS}{@code {source, reason}}</td><td>{@code dead-letters.<source>}
 *       (all reasons)</td><td>input records sent to the dead-letter topic, by input topic and
 *       kind of refusal ({@link Refusal.Kind#tag()})</td></tr>
 *   <tr><td>{@value #MEMBERSHIP_REFUSED}{@code {reason}}</td><td>{@code membership-refused}</td>
 *       <td>records on the membership topic the global store refused (it cannot write dead
 *       letters: they are logged)</td></tr>
 *   <tr><td>every {@link BrokerCounter}</td><td>its {@link BrokerCounter#jsonKey()}</td><td>its
 *       {@link BrokerCounter#description()}</td></tr>
 *   <tr><td>{@value #ROUND_EVENT_LAG}{@code {type}}</td><td>-</td><td>timer (histogram, seconds):
 *       from a round event's record timestamp (its producer's send, the trainer's) to the broker's
 *       processing of it, by event type: how late the broker reads its input (the trainer's commit,
 *       the transaction markers a read_committed reader waits for, the stream thread's queue)</td></tr>
 *   <tr><td>{@value #MEMBERSHIP_DELAY}</td><td>-</td><td>gauge (seconds): how late heartbeats reach
 *       the membership store, the smallest delay of a window ({@link MembershipDelay}); the liveness
 *       timeout is lengthened by it</td></tr>
 *   <tr><td>{@value RoundsPartitionLoad#JOBS_PER_PARTITION}</td><td>-</td><td>gauge: the most
 *       running jobs on one partition of the rounds topic here ({@link RoundsPartitionLoad}: too
 *       many, and their round events wait on each other)</td></tr>
 * </table>
 *
 * <p>Next to the counters: the per job and worker gauges ({@link WorkerGauges}: mean task time, its
 * lower confidence bound, tasks and share of the last round), the per job meters of closed rounds
 * ({@link RoundMeters}: control overhead, busy and wasted worker time), and the last rounds of each job for
 * the live view ({@link #recentRounds()}).
 *
 * <p>The meters live as long as the broker instance: {@link BrokerApp#close()} removes them from
 * the registry. Thread-safe: the stream threads count, the HTTP queries read.
 */
public final class BrokerMetrics {
    /** The tag naming the broker's Kafka Streams application id, on every meter. */
    public static final String APPLICATION = "application";
    /** The tag of {@link #DEAD_LETTERS}: the input topic of the refused record. */
    public static final String SOURCE = "source";
    /** The tag of {@link #DEAD_LETTERS} and {@link #MEMBERSHIP_REFUSED}: the kind of refusal. */
    public static final String REASON = "reason";

    public static final String DEAD_LETTERS = "ata.broker.dead.letters";
    public static final String MEMBERSHIP_REFUSED = "ata.broker.membership.refused";
    public static final String ROUND_EVENT_LAG = "ata.broker.round.event.lag";
    public static final String MEMBERSHIP_DELAY = "ata.broker.membership.delay";
    /** The window of heartbeats whose smallest delay {@link #membershipDelay()} reports. */
    static final Duration MEMBERSHIP_DELAY_WINDOW = Duration.ofMillis(2500);
    /** The tag of {@link #ROUND_EVENT_LAG}: the round event's type. */
    public static final String TYPE = "type";

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<List<String>, Counter> deadLetters = new ConcurrentHashMap<>();
    private final Map<Refusal.Kind, Counter> membershipRefused = new ConcurrentHashMap<>();
    private final Map<RoundEventType, Timer> roundEventLag = new EnumMap<>(RoundEventType.class);
    private final Map<BrokerCounter, Counter> counters = new EnumMap<>(BrokerCounter.class);
    private final Gauge membershipDelayGauge;
    private final WorkerGauges workerGauges;
    private final RoundMeters roundMeters;
    private final RoundsPartitionLoad roundsPartitionLoad;
    private final RoundHistory recentRounds = new RoundHistory(RoundHistory.DEFAULT_CAPACITY);
    private final MembershipDelay membershipDelay = new MembershipDelay(MEMBERSHIP_DELAY_WINDOW.toMillis());

    /** Registers the counters of broker application {@code applicationId} in {@code registry}. */
    public BrokerMetrics(MeterRegistry registry, String applicationId) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(APPLICATION, Objects.requireNonNull(applicationId, "applicationId"));
        for (BrokerCounter c : BrokerCounter.values()) {
            counters.put(
                    c,
                    Counter.builder(c.meterName())
                            .description(c.description())
                            .tags(tags)
                            .register(registry));
        }
        for (RoundEventType type : RoundEventType.values()) {
            roundEventLag.put(
                    type,
                    Timer.builder(ROUND_EVENT_LAG)
                            .description("from a round event's record timestamp to the broker's processing of it")
                            .tags(tags)
                            .tag(TYPE, type.name())
                            .publishPercentileHistogram()
                            .minimumExpectedValue(Duration.ofMillis(1))
                            .maximumExpectedValue(Duration.ofSeconds(60))
                            .register(registry));
        }
        membershipDelayGauge = Gauge.builder(
                        MEMBERSHIP_DELAY, membershipDelay, d -> d.delayMs(System.currentTimeMillis()) / 1000.0)
                .description("how late heartbeats reach the membership store (smallest of a window)")
                .baseUnit("seconds")
                .tags(tags)
                .register(registry);
        workerGauges = new WorkerGauges(registry, tags);
        roundMeters = new RoundMeters(registry, tags);
        roundsPartitionLoad = new RoundsPartitionLoad(registry, tags);
    }

    /** How many running jobs share each rounds partition here. */
    RoundsPartitionLoad roundsPartitionLoad() {
        return roundsPartitionLoad;
    }

    /** The registry the counters are in. */
    public MeterRegistry registry() {
        return registry;
    }

    void deadLetter(String sourceTopic, Refusal.Kind kind) {
        deadLetters
                .computeIfAbsent(
                        List.of(sourceTopic, kind.tag()),
                        key -> Counter.builder(DEAD_LETTERS)
                                .description("input records sent to the dead-letter topic")
                                .tags(tags)
                                .tag(SOURCE, sourceTopic)
                                .tag(REASON, kind.tag())
                                .register(registry))
                .increment();
    }

    void membershipRefused(Refusal.Kind kind) {
        membershipRefused
                .computeIfAbsent(
                        kind,
                        k -> Counter.builder(MEMBERSHIP_REFUSED)
                                .description("records of the membership topic the global store refused")
                                .tags(tags)
                                .tag(REASON, k.tag())
                                .register(registry))
                .increment();
    }

    /** The last rounds of each job this instance hosts: allocation, round time, busy and wasted time. */
    public RoundHistory recentRounds() {
        return recentRounds;
    }

    /** How late heartbeats reach this instance's membership store: liveness allows for it. */
    MembershipDelay membershipDelay() {
        return membershipDelay;
    }

    /** The job's workers changed (a round allocated or folded, membership): their gauges follow. */
    void jobUpdated(JobRuntime job) {
        workerGauges.update(job.job(), job.workerSummaries());
    }

    /** Round {@code closed} of {@code job} was folded: its control overhead, busy and wasted time count. */
    void roundClosed(JobRuntime job, RoundEvent closed) {
        recentRounds.closed(closed);
        roundMeters.closed(closed, job.policyName());
        jobUpdated(job);
    }

    /** This instance no longer hosts {@code jobs} (their task moved or stopped): their gauges and rounds go. */
    void jobsLeft(Set<String> jobs) {
        workerGauges.remove(jobs);
        roundMeters.remove(jobs);
        recentRounds.forget(jobs);
    }

    /** A round event of {@code type} written at {@code recordTimestampMs} was processed at {@code nowMs}. */
    void roundEventRead(RoundEventType type, long recordTimestampMs, long nowMs) {
        // a producer's clock ahead of the broker's reads as no lag, not a negative one
        roundEventLag.get(type).record(Math.max(0, nowMs - recordTimestampMs), TimeUnit.MILLISECONDS);
    }

    /** One more of {@code counter}. */
    void count(BrokerCounter counter) {
        counters.get(counter).increment();
    }

    /** {@code n} more of {@code counter}. */
    void count(BrokerCounter counter, int n) {
        counters.get(counter).increment(n);
    }

    /**
     * The body of {@code GET /metrics}: every counter above zero, by its JSON key (see the table),
     * sorted. Read from the counters, so it stays as it was once the instance stopped.
     */
    public Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        deadLetters.forEach((sourceAndReason, counter) ->
                out.merge("dead-letters." + sourceAndReason.get(0), (long) counter.count(), Long::sum));
        long refused = membershipRefused.values().stream()
                .mapToLong(c -> (long) c.count())
                .sum();
        if (refused > 0) {
            out.put("membership-refused", refused);
        }
        counters.forEach((c, counter) -> {
            long count = (long) counter.count();
            if (count > 0) {
                out.put(c.jsonKey(), count);
            }
        });
        return out;
    }

    /** Removes the counters from the registry: the instance stopped. {@link #snapshot()} still reads them. */
    void unregister() {
        counters.values().forEach(registry::remove);
        deadLetters.values().forEach(registry::remove);
        membershipRefused.values().forEach(registry::remove);
        roundEventLag.values().forEach(registry::remove);
        registry.remove(membershipDelayGauge);
        workerGauges.removeAll();
        roundMeters.removeAll();
        roundsPartitionLoad.unregister();
    }
}
