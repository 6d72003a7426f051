package io.ata.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.kafka.clients.admin.Admin;

/**
 * The ATA project's Kafka topics, each named {@code prefix + base name}:
 * <ul>
 *   <li>{@code workers}: the fleet's workers, compacted (latest record per worker), 1 partition;</li>
 *   <li>{@code rounds}: round announcements, {@link #roundsPartitions()} partitions (default 1): a
 *       job lives on one partition, so this bounds the broker instances that share the jobs;</li>
 *   <li>{@code tasks}: the tasks allocated to workers, {@link #taskPartitions()} partitions;</li>
 *   <li>{@code timings}: the measured task times, 1 partition;</li>
 *   <li>{@code gradients}: the workers' results, 1 partition;</li>
 *   <li>{@code model}: the current model, compacted, 1 partition;</li>
 *   <li>{@code dead-letters}: records that could not be processed, 1 partition.</li>
 * </ul>
 * With the defaults ({@link #defaults()}) the names are {@code ata.workers}, {@code ata.rounds},
 * {@code ata.tasks} (32 partitions), and so on.
 *
 * @param prefix         put before every base name, e.g. {@code "ata."} or {@code "test-42.ata."};
 *                       may be empty
 * @param taskPartitions the number of partitions of the tasks topic, at least 1
 * @param roundsPartitions the number of partitions of the rounds topic, at least 1
 */
public record TopicLayout(String prefix, int taskPartitions, int roundsPartitions) {
    /** The prefix of the project's topics unless told otherwise. */
    public static final String DEFAULT_PREFIX = "ata.";
    /** The tasks topic's partitions unless told otherwise: an upper bound on parallel task consumers. */
    public static final int DEFAULT_TASK_PARTITIONS = 32;
    /** The rounds topic's partitions unless told otherwise: one broker instance hosts every job. */
    public static final int DEFAULT_ROUNDS_PARTITIONS = 1;

    /** Base names, without the prefix. */
    public static final String WORKERS = "workers";

    public static final String ROUNDS = "rounds";
    public static final String TASKS = "tasks";
    public static final String TIMINGS = "timings";
    public static final String GRADIENTS = "gradients";
    public static final String MODEL = "model";
    public static final String DEAD_LETTERS = "dead-letters";
    /** Heartbeats the broker validated; backs its global membership store. */
    public static final String MEMBERSHIP = "membership";

    /** Leaves room for the longest base name within Kafka's 249 characters. */
    private static final int MAX_PREFIX_LENGTH = 200;

    public TopicLayout {
        Objects.requireNonNull(prefix, "prefix");
        if (!prefix.matches("[a-zA-Z0-9._-]*") || prefix.length() > MAX_PREFIX_LENGTH) {
            throw new IllegalArgumentException("illegal topic prefix '" + prefix + "': use at most " + MAX_PREFIX_LENGTH
                    + " letters, digits, '.', '_' or '-'");
        }
        if (taskPartitions < 1) {
            throw new IllegalArgumentException("task partitions must be at least 1, not " + taskPartitions);
        }
        if (roundsPartitions < 1) {
            throw new IllegalArgumentException("rounds partitions must be at least 1, not " + roundsPartitions);
        }
    }

    /** {@code prefix}, {@code taskPartitions} task partitions and one rounds partition. */
    public TopicLayout(String prefix, int taskPartitions) {
        this(prefix, taskPartitions, DEFAULT_ROUNDS_PARTITIONS);
    }

    /** Prefix {@code ata.}, 32 task partitions, 1 rounds partition. */
    public static TopicLayout defaults() {
        return new TopicLayout(DEFAULT_PREFIX, DEFAULT_TASK_PARTITIONS, DEFAULT_ROUNDS_PARTITIONS);
    }

    /** This layout with another prefix. */
    public TopicLayout withPrefix(String newPrefix) {
        return new TopicLayout(newPrefix, taskPartitions, roundsPartitions);
    }

    /** This layout with another number of task partitions. */
    public TopicLayout withTaskPartitions(int partitions) {
        return new TopicLayout(prefix, partitions, roundsPartitions);
    }

    /** This layout with another number of rounds partitions. */
    public TopicLayout withRoundsPartitions(int partitions) {
        return new TopicLayout(prefix, taskPartitions, partitions);
    }

    /** The full name of the topic with the given base name, e.g. {@code name("tasks")} is {@code ata.tasks}. */
    public String name(String baseName) {
        return prefix + baseName;
    }

    public String membership() {
        return name(MEMBERSHIP);
    }

    public String workers() {
        return name(WORKERS);
    }

    public String rounds() {
        return name(ROUNDS);
    }

    public String tasks() {
        return name(TASKS);
    }

    public String timings() {
        return name(TIMINGS);
    }

    public String gradients() {
        return name(GRADIENTS);
    }

    public String model() {
        return name(MODEL);
    }

    public String deadLetters() {
        return name(DEAD_LETTERS);
    }

    /** Every topic of the layout, in the order of the class comment. */
    public List<TopicSpec> topics() {
        return List.of(
                TopicSpec.compacted(workers(), 1),
                TopicSpec.of(rounds(), roundsPartitions),
                TopicSpec.of(tasks(), taskPartitions),
                TopicSpec.of(timings(), 1),
                TopicSpec.of(gradients(), 1),
                TopicSpec.compacted(model(), 1),
                TopicSpec.of(deadLetters(), 1),
                TopicSpec.compacted(membership(), 1));
    }

    /** The full names of every topic of the layout, in the order of {@link #topics()}. */
    public List<String> names() {
        return topics().stream().map(TopicSpec::name).toList();
    }

    /**
     * Creates the layout's topics that do not exist yet on the cluster {@code admin} talks to and
     * waits until they are ready; existing topics are left unchanged.
     *
     * @return the names of the topics created by this call
     */
    public List<String> create(Admin admin) {
        return TopicAdmin.createTopics(admin, topics());
    }

    /** {@link #create(Admin)}, waiting at most {@code timeout}. */
    public List<String> create(Admin admin, Duration timeout) {
        return TopicAdmin.createTopics(admin, topics(), timeout);
    }
}
