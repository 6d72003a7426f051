package io.ata.workeragent;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * What an agent has done: Micrometer meters in the registry of its {@link AgentConfig}, each tagged
 * {@value #WORKER}{@code =<worker id>}, so that one registry holds the numbers of many agents
 * apart (the demo runs a dozen in one process). Counters only grow. Thread-safe: the task thread,
 * the commit thread and the model thread update it, anyone reads it. The names (Prometheus turns
 * the dots into underscores and adds {@code _total} to counters, {@code _seconds} to timers):
 *
 * <table>
 *   <caption>Meters of an agent</caption>
 *   <tr><th>name</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@value #TASKS}{@code {outcome}}</td><td>counter</td><td>tasks by outcome:
 *       {@code completed} (computed and published), {@code cancelled} (stopped part-way because
 *       their round closed), {@code not_run} (their round closed before they started)</td></tr>
 *   <tr><td>{@value #COMPUTE_TIME}</td><td>timer</td><td>compute time of each completed task,
 *       as paced (emulated durations included)</td></tr>
 *   <tr><td>{@value #ASSIGNMENTS}{@code {outcome}}</td><td>counter</td><td>assignments by
 *       outcome: {@code completed} (every task ran), {@code skipped_stale} (the round had closed
 *       before the first task), {@code stopped_round_closed} (it closed part-way)</td></tr>
 *   <tr><td>{@value #PARKED}</td><td>counter</td><td>assignments parked: their model version
 *       had not come (a round planned ahead), held while the agent reads on, and run (or skipped)
 *       when the version comes, or dead-lettered after the model wait; each is also counted by its
 *       outcome</td></tr>
 *   <tr><td>{@value #EARLY}{@code {outcome}}</td><td>counter</td><td>assignments whose tasks started on
 *       a model version not committed yet ({@link EarlyStart}), by what the commit said:
 *       {@code confirmed} (the same record committed: results published as computed),
 *       {@code discarded} (another version committed, the round closed, or no commit came in
 *       time: the work computed on it was dropped and the task run again on the committed one, if
 *       its round was still open)</td></tr>
 *   <tr><td>{@value #DEAD_LETTERS}</td><td>counter</td><td>records sent to the dead-letter topic,
 *       from the tasks and the model topic</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td><td>assignments given back to the topic after a
 *       transient failure, to run again</td></tr>
 *   <tr><td>{@value #TRANSACTIONS}{@code {outcome}}</td><td>counter</td><td>Kafka transactions
 *       {@code committed} or {@code aborted}</td></tr>
 *   <tr><td>{@value #REPUBLISHED}</td><td>counter</td><td>times a transaction was published
 *       again, as it was, after a rebalance refused its consumed offsets (a multi-device agent's
 *       workers; each attempt counts): work not computed again, unless the attempts ran out</td></tr>
 *   <tr><td>{@value #DEVICE}{@code {kind, name}}</td><td>gauge</td><td>1, tagged with what computes
 *       the tasks (as the heartbeats report it: {@code CPU}/{@code GPU} and the device's name), the
 *       Prometheus "info" pattern; one series per agent, replaced when the device changes</td></tr>
 *   <tr><td>{@value #DEVICE_MEMORY}{@code {kind, name}}</td><td>gauge</td><td>that device's memory,
 *       bytes (0 if unknown)</td></tr>
 *   <tr><td>{@value #MODELS}</td><td>gauge</td><td>jobs whose newest model the agent holds in
 *       memory (a job's is dropped once it has been quiet for the model retention)</td></tr>
 * </table>
 *
 * <p>The meters live as long as their owner: an agent's own are removed from the registry when it
 * stops, so an agent started again under the same worker id starts from zero. A
 * {@link SupervisedAgent} owns them instead and hands them to each agent it starts, so the numbers
 * of a worker that started over with new clients count on. The getters below still read them after
 * they are removed.
 */
public final class AgentMetrics {
    /** The tag naming the agent, on every meter. */
    public static final String WORKER = "worker";
    /** The tag of the counters by outcome. */
    public static final String OUTCOME = "outcome";

    /** The start of every agent meter's name. */
    private static final String PREFIX = "ata.agent.";

    public static final String TASKS = PREFIX + "tasks";
    public static final String COMPUTE_TIME = PREFIX + "task.compute.time";
    public static final String ASSIGNMENTS = PREFIX + "assignments";
    public static final String PARKED = PREFIX + "assignments.parked";
    public static final String EARLY = PREFIX + "assignments.early";
    public static final String DEAD_LETTERS = PREFIX + "dead.letters";
    public static final String RETRIES = PREFIX + "retries";
    public static final String TRANSACTIONS = PREFIX + "transactions";
    public static final String REPUBLISHED = PREFIX + "transactions.republished";
    public static final String DEVICE = PREFIX + "device";
    public static final String DEVICE_MEMORY = PREFIX + "device.memory";
    public static final String MODELS = PREFIX + "models";
    /** The tags of {@link #DEVICE}: the device's kind and name. */
    public static final String DEVICE_KIND = "kind";

    public static final String DEVICE_NAME = "name";

    private final MeterRegistry registry;
    private final Tags tags;
    private final List<Meter> meters = new ArrayList<>();
    private final Counter tasksRun;
    private final Counter tasksCancelled;
    private final Counter tasksNotRun;
    private final Timer computeTime;
    private final Counter assignmentsCompleted;
    private final Counter assignmentsSkippedStale;
    private final Counter assignmentsStoppedRoundClosed;
    private final Counter assignmentsParked;
    private final Counter earlyConfirmed;
    private final Counter earlyDiscarded;
    private final Counter deadLetters;
    private final Counter retries;
    private final Counter transactionsCommitted;
    private final Counter transactionsAborted;
    private final Counter transactionsRepublished;
    /** The device the {@link #DEVICE} gauges describe, and those gauges; replaced together. */
    private ComputeDevice device;

    private List<Meter> deviceMeters = List.of();
    /** What {@link #MODELS} reports: the running agent's model cache. */
    private IntSupplier modelsHeld;

    /** Registers the meters of agent {@code workerId} in {@code registry}. */
    public AgentMetrics(MeterRegistry registry, String workerId) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(WORKER, Objects.requireNonNull(workerId, "workerId"));
        tasksRun = counter(TASKS, "completed", "tasks by outcome");
        tasksCancelled = counter(TASKS, "cancelled", "tasks by outcome");
        tasksNotRun = counter(TASKS, "not_run", "tasks by outcome");
        computeTime = add(Timer.builder(COMPUTE_TIME)
                .description("compute time of each completed task")
                .tags(tags)
                .register(registry));
        assignmentsCompleted = counter(ASSIGNMENTS, "completed", "assignments by outcome");
        assignmentsSkippedStale = counter(ASSIGNMENTS, "skipped_stale", "assignments by outcome");
        assignmentsStoppedRoundClosed = counter(ASSIGNMENTS, "stopped_round_closed", "assignments by outcome");
        assignmentsParked = counter(PARKED, null, "assignments held until their model version came");
        earlyConfirmed = counter(EARLY, "confirmed", "assignments started on a model version before its commit");
        earlyDiscarded = counter(EARLY, "discarded", "assignments started on a model version before its commit");
        deadLetters = counter(DEAD_LETTERS, null, "records sent to the dead-letter topic");
        retries = counter(RETRIES, null, "assignments given back to run again after a transient failure");
        transactionsCommitted = counter(TRANSACTIONS, "committed", "Kafka transactions by outcome");
        transactionsAborted = counter(TRANSACTIONS, "aborted", "Kafka transactions by outcome");
        transactionsRepublished =
                counter(REPUBLISHED, null, "transactions published again after a rebalance refused their offsets");
    }

    private Counter counter(String name, String outcome, String description) {
        Counter.Builder b = Counter.builder(name).description(description).tags(tags);
        if (outcome != null) {
            b.tag(OUTCOME, outcome);
        }
        return add(b.register(registry));
    }

    private <M extends Meter> M add(M meter) {
        meters.add(meter);
        return meter;
    }

    /** Tasks computed and published (their transaction committed). */
    public long tasksRun() {
        return count(tasksRun);
    }

    /** Assignments whose tasks all ran. */
    public long assignmentsCompleted() {
        return count(assignmentsCompleted);
    }

    /** Assignments skipped without running a task: their round had already closed. */
    public long assignmentsSkippedStale() {
        return count(assignmentsSkippedStale);
    }

    /** Assignments stopped part-way because their round closed meanwhile. */
    public long assignmentsStoppedRoundClosed() {
        return count(assignmentsStoppedRoundClosed);
    }

    /** Assignments parked until their model version came (or dead-lettered after the model wait). */
    public long assignmentsParked() {
        return count(assignmentsParked);
    }

    /** Assignments started on a version before its commit whose commit confirmed it. */
    public long assignmentsEarlyConfirmed() {
        return count(earlyConfirmed);
    }

    /** Assignments started on a version before its commit whose work was dropped: another commit, or none in time. */
    public long assignmentsEarlyDiscarded() {
        return count(earlyDiscarded);
    }

    /** Tasks not run because their round closed (skipped or stopped assignments). */
    public long tasksNotRun() {
        return count(tasksNotRun);
    }

    /** Tasks stopped part-way because their round closed (GTA's discarded work in flight). */
    public long tasksCancelled() {
        return count(tasksCancelled);
    }

    /** Records sent to the dead-letter topic, from the tasks and the model topic. */
    public long deadLetters() {
        return count(deadLetters);
    }

    /** Assignments given back to the topic after a transient failure, to run again. */
    public long retries() {
        return count(retries);
    }

    /** Kafka transactions committed. */
    public long transactionsCommitted() {
        return count(transactionsCommitted);
    }

    /** Kafka transactions aborted. */
    public long transactionsAborted() {
        return count(transactionsAborted);
    }

    /** Transactions published again after a rebalance refused their offsets. */
    public long transactionsRepublished() {
        return count(transactionsRepublished);
    }

    private static long count(Counter counter) {
        return (long) counter.count();
    }

    /**
     * Reports {@code jobs}, the number of jobs whose models the agent holds, as {@link #MODELS}; a
     * later call (the agent started over, with a new model cache) replaces it.
     */
    synchronized void modelsHeld(IntSupplier jobs) {
        boolean first = modelsHeld == null;
        modelsHeld = Objects.requireNonNull(jobs, "jobs");
        if (first) {
            add(Gauge.builder(MODELS, this::modelsHeldNow)
                    .description("jobs whose newest model the agent holds in memory")
                    .tags(tags)
                    .register(registry));
        }
    }

    private int modelsHeldNow() {
        IntSupplier jobs;
        synchronized (this) {
            jobs = modelsHeld;
        }
        return jobs.getAsInt();
    }

    /** What computes the tasks; null before the first heartbeat. */
    public synchronized ComputeDevice device() {
        return device;
    }

    /** The agent computes on {@code now} (asked at every heartbeat): the device gauges follow a change. */
    synchronized void device(ComputeDevice now) {
        if (now.equals(device)) {
            return;
        }
        deviceMeters.forEach(registry::remove);
        Tags deviceTags = tags.and(DEVICE_KIND, now.kind().name(), DEVICE_NAME, now.name());
        deviceMeters = List.of(
                Gauge.builder(DEVICE, () -> 1)
                        .description("what computes the tasks, in its tags")
                        .tags(deviceTags)
                        .register(registry),
                Gauge.builder(DEVICE_MEMORY, now::memoryBytes)
                        .description("memory of the device computing the tasks, 0 if unknown")
                        .baseUnit("bytes")
                        .tags(deviceTags)
                        .register(registry));
        device = now;
    }

    void taskRun(double computeMs) {
        tasksRun.increment();
        computeTime.record(Duration.ofNanos(Math.round(computeMs * 1e6)));
    }

    void assignmentCompleted() {
        assignmentsCompleted.increment();
    }

    void assignmentSkippedStale(int tasks) {
        assignmentsSkippedStale.increment();
        tasksNotRun.increment(tasks);
    }

    void assignmentStoppedRoundClosed(int tasksLeft) {
        assignmentsStoppedRoundClosed.increment();
        tasksNotRun.increment(tasksLeft);
    }

    void assignmentParked() {
        assignmentsParked.increment();
    }

    void earlyConfirmed() {
        earlyConfirmed.increment();
    }

    void earlyDiscarded() {
        earlyDiscarded.increment();
    }

    void taskCancelled() {
        tasksCancelled.increment();
    }

    void deadLetter() {
        deadLetters.increment();
    }

    void retry() {
        retries.increment();
    }

    void transactionCommitted() {
        transactionsCommitted.increment();
    }

    void transactionAborted() {
        transactionsAborted.increment();
    }

    void transactionRepublished() {
        transactionsRepublished.increment();
    }

    /** Removes the meters from the registry: the agent stopped. The getters still read them. */
    synchronized void unregister() {
        meters.forEach(registry::remove);
        deviceMeters.forEach(registry::remove);
    }

    @Override
    public String toString() {
        return "tasks run " + tasksRun() + ", assignments completed " + assignmentsCompleted()
                + ", skipped (stale) " + assignmentsSkippedStale() + ", stopped (round closed) "
                + assignmentsStoppedRoundClosed() + ", parked " + assignmentsParked() + ", tasks cancelled "
                + tasksCancelled() + ", tasks not run "
                + tasksNotRun()
                + ", dead letters " + deadLetters() + ", retries " + retries() + ", transactions republished "
                + transactionsRepublished();
    }
}
