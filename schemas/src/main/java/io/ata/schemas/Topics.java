package io.ata.schemas;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Every topic of ATA, declared once: name, key, value record class. Parts never spell a topic name
 * themselves; they ask {@code topics.timings()}, so a prefix change or a typo cannot split them.
 *
 * <p>All names share a prefix (default {@value #DEFAULT_PREFIX}) so that several deployments, or
 * test runs, can share one Kafka cluster. Keys are Strings on every topic:
 * <table>
 *   <caption>Topics</caption>
 *   <tr><th>topic</th><th>key</th><th>value</th></tr>
 *   <tr><td>{@code workers}</td><td>worker_id</td><td>{@link WorkerHeartbeat} (compacted)</td></tr>
 *   <tr><td>{@code rounds}</td><td>job</td><td>{@link RoundEvent}</td></tr>
 *   <tr><td>{@code tasks}</td><td>worker_id</td><td>{@link TaskAssignment}</td></tr>
 *   <tr><td>{@code timings}</td><td>worker_id</td><td>{@link TaskTiming}</td></tr>
 *   <tr><td>{@code gradients}</td><td>job</td><td>{@link TaskResult}</td></tr>
 *   <tr><td>{@code model}</td><td>job</td><td>{@link ModelVersion} (compacted)</td></tr>
 *   <tr><td>{@code dead-letters}</td><td>source_topic</td><td>{@link DeadLetter}</td></tr>
 * </table>
 * ({@link JobState} is the broker's state-store value, not a topic of its own.)
 */
public final class Topics {

    /** The prefix unless configured otherwise. */
    public static final String DEFAULT_PREFIX = "ata.";

    /** Characters Kafka allows in topic names. */
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]*");

    private final String prefix;
    private final TopicDef<WorkerHeartbeat> workers;
    private final TopicDef<RoundEvent> rounds;
    private final TopicDef<TaskAssignment> tasks;
    private final TopicDef<TaskTiming> timings;
    private final TopicDef<TaskResult> gradients;
    private final TopicDef<ModelVersion> model;
    private final TopicDef<DeadLetter> deadLetters;

    /** The topics with the {@link #DEFAULT_PREFIX}. */
    public Topics() {
        this(DEFAULT_PREFIX);
    }

    /**
     * The topics with {@code prefix} in front of every name (may be empty).
     *
     * @throws IllegalArgumentException if the prefix has characters Kafka refuses in topic names
     */
    public Topics(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (!LEGAL.matcher(prefix).matches() || prefix.length() > 200) {
            throw new IllegalArgumentException(
                    "topic prefix '" + prefix + "' must be at most 200 characters of a-z A-Z 0-9 . _ -");
        }
        this.prefix = prefix;
        this.workers = new TopicDef<>(prefix + "workers", "worker_id", WorkerHeartbeat.class, true);
        this.rounds = new TopicDef<>(prefix + "rounds", "job", RoundEvent.class, false);
        this.tasks = new TopicDef<>(prefix + "tasks", "worker_id", TaskAssignment.class, false);
        this.timings = new TopicDef<>(prefix + "timings", "worker_id", TaskTiming.class, false);
        this.gradients = new TopicDef<>(prefix + "gradients", "job", TaskResult.class, false);
        this.model = new TopicDef<>(prefix + "model", "job", ModelVersion.class, true);
        this.deadLetters = new TopicDef<>(prefix + "dead-letters", "source_topic", DeadLetter.class, false);
    }

    public String prefix() {
        return prefix;
    }

    /** Worker membership and liveness; key worker_id; compacted. */
    public TopicDef<WorkerHeartbeat> workers() {
        return workers;
    }

    /** Round opened/closed events; key job, so a job's rounds stay in order. */
    public TopicDef<RoundEvent> rounds() {
        return rounds;
    }

    /** Task assignments; key worker_id, written to a partition the worker owns. */
    public TopicDef<TaskAssignment> tasks() {
        return tasks;
    }

    /** Per-task timings measured on workers; key worker_id. */
    public TopicDef<TaskTiming> timings() {
        return timings;
    }

    /** Task results (stochastic gradients); key job. */
    public TopicDef<TaskResult> gradients() {
        return gradients;
    }

    /** Model versions; key job; compacted, so workers read the latest. */
    public TopicDef<ModelVersion> model() {
        return model;
    }

    /** Records that could not be processed, with the reason; key source_topic. */
    public TopicDef<DeadLetter> deadLetters() {
        return deadLetters;
    }

    /** Every topic, e.g. to create them all. */
    public List<TopicDef<?>> all() {
        return List.of(workers, rounds, tasks, timings, gradients, model, deadLetters);
    }
}
