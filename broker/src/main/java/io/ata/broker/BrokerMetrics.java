package io.ata.broker;

import io.ata.schemas.RoundEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

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
 *   <tr><td>{@value #DUPLICATES_IGNORED}</td><td>{@code duplicate-closes}</td><td>CLOSED events
 *       of a round already folded, ignored</td></tr>
 *   <tr><td>{@value #STALE_OPENS_IGNORED}</td><td>{@code stale-opens}</td><td>OPENED events of a
 *       round older than the job's last opened one, ignored</td></tr>
 *   <tr><td>{@value #ROUNDS_REOPENED}</td><td>{@code re-opened-rounds}</td><td>OPENED events of
 *       the round already open, allocated again</td></tr>
 *   <tr><td>{@value #ROUNDS_DEFERRED}</td><td>{@code deferred-rounds}</td><td>rounds opened while
 *       no worker was live, allocated once one is</td></tr>
 *   <tr><td>{@value #TIMINGS_LEFT_OUT}</td><td>{@code timings-left-out}</td><td>timings of CLOSED
 *       events left out alone (named in the event's one dead letter) while the others were
 *       folded</td></tr>
 *   <tr><td>{@value #BACKUP_TASKS}</td><td>{@code backup-tasks}</td><td>backup copies of overdue
 *       tasks sent to other workers</td></tr>
 *   <tr><td>{@value #HEARTBEATS_UNCHANGED}</td><td>{@code heartbeats-unchanged}</td><td>heartbeats
 *       that told nothing new, not forwarded to the membership</td></tr>
 *   <tr><td>{@value #ASSIGNMENTS_MISSING_PARTITION}</td><td>{@code assignments-to-missing-partition}</td>
 *       <td>assignments for a task partition that does not exist, sent to another</td></tr>
 *   <tr><td>{@value #LEARNED_STATES_DISCARDED}</td><td>{@code learned-states-discarded}</td>
 *       <td>stored learned states a job's policy refused (corrupt, or a version this build cannot
 *       read): the job continues over its statistics, learning afresh</td></tr>
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
    public static final String DUPLICATES_IGNORED = "ata.broker.duplicates.ignored";
    public static final String STALE_OPENS_IGNORED = "ata.broker.stale.opens.ignored";
    public static final String ROUNDS_REOPENED = "ata.broker.rounds.reopened";
    public static final String ROUNDS_DEFERRED = "ata.broker.rounds.deferred";
    public static final String BACKUP_TASKS = "ata.broker.backup.tasks";
    public static final String TIMINGS_LEFT_OUT = "ata.broker.timings.left.out";
    public static final String HEARTBEATS_UNCHANGED = "ata.broker.heartbeats.unchanged";
    public static final String ASSIGNMENTS_MISSING_PARTITION = "ata.broker.assignments.missing.partition";
    public static final String MEMBERSHIP_REFUSED = "ata.broker.membership.refused";
    public static final String LEARNED_STATES_DISCARDED = "ata.broker.learned.states.discarded";

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<List<String>, Counter> deadLetters = new ConcurrentHashMap<>();
    private final Map<Refusal.Kind, Counter> membershipRefused = new ConcurrentHashMap<>();
    private final Counter duplicateCloses;
    private final Counter staleOpens;
    private final Counter reopenedRounds;
    private final Counter deferredRounds;
    private final Counter backupTasks;
    private final Counter timingsLeftOut;
    private final Counter unchangedHeartbeats;
    private final Counter missingPartitions;
    private final Counter discardedLearnedStates;
    private final WorkerGauges workerGauges;
    private final RoundMeters roundMeters;
    private final RoundHistory recentRounds = new RoundHistory(RoundHistory.DEFAULT_CAPACITY);

    /** Registers the counters of broker application {@code applicationId} in {@code registry}. */
    public BrokerMetrics(MeterRegistry registry, String applicationId) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(APPLICATION, Objects.requireNonNull(applicationId, "applicationId"));
        duplicateCloses = counter(DUPLICATES_IGNORED, "CLOSED events of a round already folded, ignored");
        staleOpens = counter(STALE_OPENS_IGNORED, "OPENED events older than the job's last opened round, ignored");
        reopenedRounds = counter(ROUNDS_REOPENED, "OPENED events of the open round, allocated again");
        deferredRounds = counter(ROUNDS_DEFERRED, "rounds opened while no worker was live, allocated later");
        backupTasks = counter(BACKUP_TASKS, "backup copies of overdue tasks sent to other workers");
        timingsLeftOut = counter(TIMINGS_LEFT_OUT, "timings of CLOSED events left out alone, the others folded");
        unchangedHeartbeats = counter(HEARTBEATS_UNCHANGED, "heartbeats that told nothing new");
        missingPartitions = counter(ASSIGNMENTS_MISSING_PARTITION, "assignments to a task partition that is missing");
        discardedLearnedStates =
                counter(LEARNED_STATES_DISCARDED, "stored learned states a job's policy refused: it learns afresh");
        workerGauges = new WorkerGauges(registry, tags);
        roundMeters = new RoundMeters(registry, tags);
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name).description(description).tags(tags).register(registry);
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

    void duplicateCloseIgnored() {
        duplicateCloses.increment();
    }

    void staleOpenIgnored() {
        staleOpens.increment();
    }

    void roundReopened() {
        reopenedRounds.increment();
    }

    void roundDeferred() {
        deferredRounds.increment();
    }

    void backupsSent(int tasks) {
        backupTasks.increment(tasks);
    }

    /** {@code timings} bad timings of one CLOSED event were left out, the rest folded. */
    void timingsLeftOut(int timings) {
        timingsLeftOut.increment(timings);
    }

    void heartbeatUnchanged() {
        unchangedHeartbeats.increment();
    }

    void assignmentToMissingPartition() {
        missingPartitions.increment();
    }

    void learnedStateDiscarded() {
        discardedLearnedStates.increment();
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
        putIfCounted(out, "duplicate-closes", duplicateCloses);
        putIfCounted(out, "stale-opens", staleOpens);
        putIfCounted(out, "re-opened-rounds", reopenedRounds);
        putIfCounted(out, "deferred-rounds", deferredRounds);
        putIfCounted(out, "backup-tasks", backupTasks);
        putIfCounted(out, "timings-left-out", timingsLeftOut);
        putIfCounted(out, "heartbeats-unchanged", unchangedHeartbeats);
        putIfCounted(out, "assignments-to-missing-partition", missingPartitions);
        putIfCounted(out, "learned-states-discarded", discardedLearnedStates);
        return out;
    }

    private static void putIfCounted(Map<String, Long> out, String key, Counter counter) {
        long count = (long) counter.count();
        if (count > 0) {
            out.put(key, count);
        }
    }

    /** Removes the counters from the registry: the instance stopped. {@link #snapshot()} still reads them. */
    void unregister() {
        List.of(
                        duplicateCloses,
                        staleOpens,
                        reopenedRounds,
                        deferredRounds,
                        backupTasks,
                        timingsLeftOut,
                        unchangedHeartbeats,
                        missingPartitions,
                        discardedLearnedStates)
                .forEach(registry::remove);
        deadLetters.values().forEach(registry::remove);
        membershipRefused.values().forEach(registry::remove);
        workerGauges.removeAll();
        roundMeters.removeAll();
    }
}
