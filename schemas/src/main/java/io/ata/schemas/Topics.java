package io.ata.schemas;

import static io.ata.schemas.TopicConfigs.MIB;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.apache.kafka.common.utils.Utils;

/**
 * Every topic of ATA, declared once: name, key, value record class, partitions, compaction. Parts
 * never spell a topic name themselves; they ask {@code topics.timings()}, so a prefix change or a
 * typo cannot split them. The broker, the trainer, the agents, the CLI's topic creation and the
 * tests all read their topics from here.
 *
 * <p>All names share a prefix (default {@value #DEFAULT_PREFIX}) so that several deployments, or
 * test runs, can share one Kafka cluster. Keys are Strings on every topic:
 * <table>
 *   <caption>Topics</caption>
 *   <tr><th>topic</th><th>key</th><th>value</th><th>partitions</th></tr>
 *   <tr><td>{@code workers}</td><td>worker_id</td><td>{@link WorkerHeartbeat} (compacted)</td><td>1</td></tr>
 *   <tr><td>{@code rounds}</td><td>job</td><td>{@link RoundEvent}</td><td>{@link #roundsPartitions()}</td></tr>
 *   <tr><td>{@code tasks}</td><td>worker_id</td><td>{@link TaskAssignment}</td><td>{@link #taskPartitions()}</td></tr>
 *   <tr><td>{@code allocations}</td><td>job</td><td>{@link TaskAssignment}</td><td>{@link #roundsPartitions()}</td></tr>
 *   <tr><td>{@code timings}</td><td>worker_id</td><td>{@link TaskTiming}</td><td>1</td></tr>
 *   <tr><td>{@code gradients}</td><td>job</td><td>{@link TaskResult}</td><td>{@link #taskPartitions()}</td></tr>
 *   <tr><td>{@code model}</td><td>job</td><td>{@link ModelVersion} (compacted)</td><td>{@link #roundsPartitions()}</td></tr>
 *   <tr><td>{@code dead-letters}</td><td>source_topic</td><td>{@link DeadLetter}</td><td>1</td></tr>
 *   <tr><td>{@code membership}</td><td>worker_id</td><td>{@link WorkerHeartbeat} (compacted)</td><td>1</td></tr>
 *   <tr><td>{@code optimizer}</td><td>job</td><td>{@link OptimizerState} (compacted)</td><td>1</td></tr>
 *   <tr><td>{@code evaluations}</td><td>job</td><td>{@link Evaluation}</td><td>1</td></tr>
 * </table>
 * ({@code membership} holds the heartbeats the broker validated and backs its global membership
 * store; {@code allocations} holds every assignment of {@code tasks} again, keyed by job, for the
 * job's trainer; {@link JobState} is the broker's state-store value, not a topic of its own.)
 *
 * <p>One more topic is not in {@link #all()}, since it holds no Avro records: {@link #schemas()},
 * where the embedded Schema Registry keeps the schemas (JSON records, compacted, 1 partition; the
 * registry creates it itself, as Confluent's registry creates {@code _schemas}).
 *
 * <p>The partition counts are what the topics are <em>created</em> with: the tasks topic's bounds
 * the agents that get tasks, the rounds topic's the broker instances that share the jobs. The
 * model topic has as many as the rounds topic: every job's trainer writes its versions in
 * transactions, and a read_committed reader of a partition sees nothing past the first record of a
 * transaction still open there, so jobs sharing one partition wait on each other's commits (the
 * trainer writes a job's slices to {@link #partitionOfJob its partition},
 * the agents read them all). So are
 * the {@linkplain TopicDef#configs() topic configs} that bound how much of each topic Kafka keeps
 * (retention by time and bytes, segment sizes, see {@link TopicConfigs}); the schemas topic and
 * the broker's changelogs get {@link TopicConfigs#compacted()}.
 *
 * <p>The agents' consumer group and the broker's Kafka Streams application id are named here too,
 * after the prefix ({@link #workerGroup()}, {@link #brokerApplicationId()}): every agent of a
 * deployment must be in the one group, and every broker instance in the one application, whoever
 * starts it ({@code ata worker}, {@code ata broker}, the embedded deployment); an agent in another
 * group reads every tasks partition beside the fleet and its tasks run twice, a broker of another
 * application allocates every job a second time.
 *
 * <p>So are the names Kafka fences by, the transactional ids: the trainer's of a job
 * ({@link #trainerName(String)}, {@code <prefix>trainer-<job>}, also its consumer group) and an
 * agent's ({@link #agentTransactionalId(String)}, {@code <prefix>agent-<worker id>}). A producer
 * that starts with a transactional id fences the one that had it: two deployments on one cluster
 * whose ids did not carry their prefix stopped each other's trainer of a job of the same name, and
 * each other's agent of the same worker id.
 */
public final class Topics {

    /** The prefix unless configured otherwise. */
    public static final String DEFAULT_PREFIX = "ata.";
    /** The tasks topic's partitions unless told otherwise: an upper bound on parallel task consumers. */
    public static final int DEFAULT_TASK_PARTITIONS = 32;
    /** The rounds topic's partitions unless told otherwise: one broker instance hosts every job. */
    public static final int DEFAULT_ROUNDS_PARTITIONS = 1;

    /** Characters Kafka allows in topic names. */
    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]*");
    /** Leaves room for the longest base name within Kafka's 249 characters. */
    private static final int MAX_PREFIX_LENGTH = 200;

    private final String prefix;
    private final int taskPartitions;
    private final int roundsPartitions;
    private final TopicDef<WorkerHeartbeat> workers;
    private final TopicDef<RoundEvent> rounds;
    private final TopicDef<TaskAssignment> tasks;
    private final TopicDef<TaskAssignment> allocations;
    private final TopicDef<TaskTiming> timings;
    private final TopicDef<TaskResult> gradients;
    private final TopicDef<ModelVersion> model;
    private final TopicDef<DeadLetter> deadLetters;
    private final TopicDef<WorkerHeartbeat> membership;
    private final TopicDef<OptimizerState> optimizer;
    private final TopicDef<Evaluation> evaluations;
    private final String schemas;

    /** The topics with the {@link #DEFAULT_PREFIX} and the default partition counts. */
    public Topics() {
        this(DEFAULT_PREFIX);
    }

    /**
     * The topics with {@code prefix} in front of every name (may be empty) and the default
     * partition counts.
     *
     * @throws IllegalArgumentException if the prefix has characters Kafka refuses in topic names
     */
    public Topics(String prefix) {
        this(prefix, DEFAULT_TASK_PARTITIONS, DEFAULT_ROUNDS_PARTITIONS);
    }

    /**
     * The topics with {@code prefix} in front of every name (may be empty), created with
     * {@code taskPartitions} partitions of {@code tasks} and {@code roundsPartitions} of
     * {@code rounds} (the other topics have one).
     *
     * @throws IllegalArgumentException if the prefix has characters Kafka refuses in topic names,
     *     or a partition count is below 1
     */
    public Topics(String prefix, int taskPartitions, int roundsPartitions) {
        Objects.requireNonNull(prefix, "prefix");
        if (!LEGAL.matcher(prefix).matches() || prefix.length() > MAX_PREFIX_LENGTH) {
            throw new IllegalArgumentException("illegal topic prefix '" + prefix + "': use at most " + MAX_PREFIX_LENGTH
                    + " letters, digits, '.', '_' or '-'");
        }
        if (taskPartitions < 1) {
            throw new IllegalArgumentException("task partitions must be at least 1, not " + taskPartitions);
        }
        if (roundsPartitions < 1) {
            throw new IllegalArgumentException("rounds partitions must be at least 1, not " + roundsPartitions);
        }
        this.prefix = prefix;
        this.taskPartitions = taskPartitions;
        this.roundsPartitions = roundsPartitions;
        // How much of each topic Kafka keeps (TopicConfigs; docs/operations.md has the reasons).
        // Byte limits are per partition, as Kafka's retention.bytes is.
        Map<String, String> compacted = TopicConfigs.compacted();
        // read from committed offsets by the broker, after a restart too: hours of outage
        Map<String, String> rounds = TopicConfigs.deleted(Duration.ofDays(1), 64 * MIB, 8 * MIB);
        // read from committed offsets by the agents; an assignment is a few hundred bytes
        Map<String, String> tasks = TopicConfigs.deleted(Duration.ofDays(1), 8 * MIB, 2 * MIB);
        // the replay log users export (ata export-timings): a week, as Kafka's default, within 256 MiB
        Map<String, String> timings = TopicConfigs.deleted(Duration.ofDays(7), 256 * MIB, 16 * MIB);
        // Most of the bytes (a gradient of the demo's mlp is 0.9 MB, B of them a round: the demo's
        // job at 10 rounds/s writes 38 MB/s), read at once by the trainer and again only by a
        // restarted trainer, from its committed offsets: the open round's results. A day and
        // 32 MiB per partition (35 such gradients) keep them while the trainer is away, as its
        // agents stop after that round; only other jobs write on, 30 s of such a job would push
        // them out. At most about 40 MiB a partition, 1.25 GiB for the 32 by default.
        Map<String, String> gradients = TopicConfigs.deleted(Duration.ofDays(1), 32 * MIB, 8 * MIB);
        // for operators, to look into: a week (letters are at most about 64 KiB each)
        Map<String, String> deadLetters = TopicConfigs.deleted(Duration.ofDays(7), 64 * MIB, 8 * MIB);
        // a hundred bytes per scored version; a restarted trainer reads the last
        Map<String, String> evaluations = TopicConfigs.deleted(Duration.ofDays(7), 16 * MIB, 4 * MIB);
        this.workers = new TopicDef<>(prefix + "workers", "worker_id", WorkerHeartbeat.class, 1, true, compacted);
        this.rounds = new TopicDef<>(prefix + "rounds", "job", RoundEvent.class, roundsPartitions, false, rounds);
        this.tasks = new TopicDef<>(prefix + "tasks", "worker_id", TaskAssignment.class, taskPartitions, false, tasks);
        // a job's assignments in its own partition: its trainer reads one partition, not every
        // agent's (with J trainers and N task partitions, Kafka served J x N partition reads a round)
        this.allocations =
                new TopicDef<>(prefix + "allocations", "job", TaskAssignment.class, roundsPartitions, false, tasks);
        this.timings = new TopicDef<>(prefix + "timings", "worker_id", TaskTiming.class, 1, false, timings);
        // as many as tasks: each agent writes its results to its own tasks partition's (see the agent)
        this.gradients =
                new TopicDef<>(prefix + "gradients", "job", TaskResult.class, taskPartitions, false, gradients);
        this.model = new TopicDef<>(prefix + "model", "job", ModelVersion.class, roundsPartitions, true, compacted);
        this.deadLetters =
                new TopicDef<>(prefix + "dead-letters", "source_topic", DeadLetter.class, 1, false, deadLetters);
        // read from the beginning at every broker start (its global store): kept near one record a worker
        this.membership = new TopicDef<>(
                prefix + "membership", "worker_id", WorkerHeartbeat.class, 1, true, TopicConfigs.compactedRewritten());
        this.optimizer = new TopicDef<>(prefix + "optimizer", "job", OptimizerState.class, 1, true, compacted);
        this.evaluations = new TopicDef<>(prefix + "evaluations", "job", Evaluation.class, 1, false, evaluations);
        this.schemas = prefix + "schemas";
    }

    /** These topics with another prefix. */
    public Topics withPrefix(String newPrefix) {
        return new Topics(newPrefix, taskPartitions, roundsPartitions);
    }

    /** These topics with another number of task partitions. */
    public Topics withTaskPartitions(int partitions) {
        return new Topics(prefix, partitions, roundsPartitions);
    }

    /** These topics with another number of rounds partitions. */
    public Topics withRoundsPartitions(int partitions) {
        return new Topics(prefix, taskPartitions, partitions);
    }

    public String prefix() {
        return prefix;
    }

    /** The partitions the tasks topic is created with. */
    public int taskPartitions() {
        return taskPartitions;
    }

    /** The partitions the rounds topic is created with. */
    public int roundsPartitions() {
        return roundsPartitions;
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

    /**
     * Every assignment of {@link #tasks()} again, keyed by job, in the job's partition ({@link
     * #partitionOfJob}), written by the broker in the same transaction: the view of a job's rounds
     * its trainer watches, one partition instead of every agent's.
     */
    public TopicDef<TaskAssignment> allocations() {
        return allocations;
    }

    /**
     * The partition of {@code job}'s records on a topic keyed by job with {@code partitions}
     * partitions: Kafka's default partitioner's (murmur2 of the key's UTF-8 bytes), named so that a
     * reader of one job's records can read that partition only.
     */
    public static int partitionOfJob(String job, int partitions) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, was " + partitions);
        }
        return Utils.toPositive(Utils.murmur2(job.getBytes(StandardCharsets.UTF_8))) % partitions;
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

    /** Heartbeats the broker validated, backing its global membership store; key worker_id; compacted. */
    public TopicDef<WorkerHeartbeat> membership() {
        return membership;
    }

    /**
     * The trainer's optimizer state, published with each model version; key job; compacted, so a
     * restarted trainer reads the latest.
     */
    public TopicDef<OptimizerState> optimizer() {
        return optimizer;
    }

    /** Scores of model versions on the held-out test set; key job. */
    public TopicDef<Evaluation> evaluations() {
        return evaluations;
    }

    /**
     * The embedded Schema Registry's log of schemas and compatibility levels, like Confluent's
     * {@code _schemas}: compacted, exactly 1 partition (it orders the writes), created by the
     * registry when it first starts. Not in {@link #all()}: its records are JSON, not Avro.
     */
    public String schemas() {
        return schemas;
    }

    /**
     * The agents' consumer group on {@link #tasks()} unless one is configured: the prefix, then
     * {@code workers} ({@code ata.workers} for the default prefix). Every agent of the deployment
     * must share it ({@code ata worker --group-id} defaults to it, and the embedded deployment's
     * agents use it), so that each tasks partition has one reader. Group names are not topic names:
     * it may equal {@code workers().name()} without clashing.
     */
    public String workerGroup() {
        return prefix + "workers";
    }

    /**
     * The broker's Kafka Streams application id unless one is configured: the prefix, then
     * {@code broker} ({@code ata.broker} for the default prefix). Broker instances share the jobs
     * only within one application ({@code ata broker --application-id} defaults to it, and the
     * embedded deployment's broker uses it); it also names the broker's consumer group, the
     * prefix of its transactional ids and of its internal topics ({@code <id>-...-changelog}).
     */
    public String brokerApplicationId() {
        return prefix + "broker";
    }

    /**
     * What every {@linkplain #trainerName(String) trainer's name} starts with: the prefix, then
     * {@code trainer-}; the prefix of the trainer's ACLs on groups and transactional ids.
     */
    public String trainerNamePrefix() {
        return prefix + "trainer-";
    }

    /**
     * The trainer of {@code job}'s consumer group on {@link #gradients()} and its transactional id
     * unless others are configured: {@link #trainerNamePrefix()}, then the job
     * ({@code ata.trainer-quadratic} for the default prefix). One trainer runs a job: a restarted
     * one fences its predecessor by this id and takes over its group's committed offsets; a trainer
     * of the same job in a deployment with another prefix has another id and leaves it alone.
     */
    public String trainerName(String job) {
        Objects.requireNonNull(job, "job");
        return trainerNamePrefix() + job;
    }

    /**
     * What every {@linkplain #agentTransactionalId(String) agent's transactional id} starts with:
     * the prefix, then {@code agent-}; the prefix of the agents' ACL on transactional ids.
     */
    public String agentTransactionalIdPrefix() {
        return prefix + "agent-";
    }

    /**
     * The transactional id of the agent {@code workerId}, also its static member id in
     * {@link #workerGroup()}: {@link #agentTransactionalIdPrefix()}, then the worker id
     * ({@code ata.agent-agent-1} for the default prefix and worker {@code agent-1}). An agent
     * restarted under its worker id fences its zombie by it; an agent of the same worker id in a
     * deployment with another prefix has another id and leaves it alone.
     */
    public String agentTransactionalId(String workerId) {
        Objects.requireNonNull(workerId, "workerId");
        return agentTransactionalIdPrefix() + workerId;
    }

    /** Every topic, in the order of the class comment, e.g. to create them all. */
    public List<TopicDef<?>> all() {
        return List.of(
                workers,
                rounds,
                tasks,
                allocations,
                timings,
                gradients,
                model,
                deadLetters,
                membership,
                optimizer,
                evaluations);
    }

    /** The full names of every topic, in the order of {@link #all()}. */
    public List<String> names() {
        return all().stream().map(TopicDef::name).toList();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Topics other
                && prefix.equals(other.prefix)
                && taskPartitions == other.taskPartitions
                && roundsPartitions == other.roundsPartitions;
    }

    @Override
    public int hashCode() {
        return Objects.hash(prefix, taskPartitions, roundsPartitions);
    }

    @Override
    public String toString() {
        return "Topics[" + prefix + "*, " + taskPartitions + " task partitions, " + roundsPartitions
                + " rounds partitions]";
    }
}
