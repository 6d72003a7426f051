package io.ata.broker;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.JobState;
import io.ata.schemas.JobWorkerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.AvroSerde;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntSupplier;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.state.Stores;

/**
 * The broker's Kafka Streams topology, built by a plain method so that tests drive it with
 * {@code TopologyTestDriver} and the application runs exactly the same thing.
 *
 * <pre>
 *   workers ──► validate-heartbeats ──► membership ──► validate again ──► (global store "membership")
 *                       └──► dead-letters                     └──► skipped, logged, counted
 *                                          membership ──► MembershipAudit ──► dead-letters (once)
 *   rounds ──► allocate [stores "jobs", "job-workers", "job-learned"] ──► tasks (partition = a partition the worker owns)
 *                       ├──► allocations (key job: the job's trainer reads one partition)
 *                       └──► dead-letters
 * </pre>
 */
public final class BrokerTopology {
    public static final String JOBS_STORE = "jobs";
    /** Each job's workers' statistics, one record per (job, worker): see {@link JobStateParts}. */
    public static final String JOB_WORKERS_STORE = "job-workers";
    /** Each job's learned state in chunks, opaque bytes: see {@link JobStateParts}. */
    public static final String JOB_LEARNED_STORE = "job-learned";

    public static final String MEMBERSHIP_STORE = "membership";
    static final String MEMBERSHIP_SINK = "membership-sink";
    static final String TASKS_SINK = "tasks-sink";
    static final String ALLOCATIONS_SINK = "allocations-sink";
    static final String DEAD_LETTER_SINK_WORKERS = "dead-letters-from-workers";
    static final String DEAD_LETTER_SINK_ROUNDS = "dead-letters-from-rounds";

    private BrokerTopology() {}

    /**
     * The topology for a tasks topic of unknown size: heartbeats listing partitions past its end
     * are let through, and their assignments go to the partition modulo the count.
     */
    public static Topology build(BrokerSettings settings, SchemaRegistryClient registry, BrokerMetrics metrics) {
        return build(settings, registry, metrics, () -> 0);
    }

    /**
     * @param taskPartitions the partition count of the tasks topic, 0 while unknown: a heartbeat
     *     listing a partition past its end is refused
     */
    public static Topology build(
            BrokerSettings settings, SchemaRegistryClient registry, BrokerMetrics metrics, IntSupplier taskPartitions) {
        Topics topics = new Topics(settings.topicPrefix());
        TopicDef<WorkerHeartbeat> membership = topics.membership();
        // workers and membership carry the same record type: one serde for both
        Serde<WorkerHeartbeat> heartbeats = membership.valueSerde(registry);
        Serde<RoundEvent> rounds = topics.rounds().valueSerde(registry);
        Serde<TaskAssignment> assignments = topics.tasks().valueSerde(registry);
        Serde<DeadLetter> deadLetters = topics.deadLetters().valueSerde(registry);
        Serde<JobState> jobStates = new AvroSerde<>(registry, JobState.class);
        Serde<JobWorkerState> jobWorkerStates = new AvroSerde<>(registry, JobWorkerState.class);
        Serializer<String> keys = Serdes.String().serializer();

        HeartbeatRules heartbeatRules = heartbeatRules(settings, taskPartitions);
        MembershipMirror mirror = new MembershipMirror(); // one per topology, so per instance
        Topology topology = new Topology();

        addRawSource(topology, "workers", topics.workers().name());
        topology.addProcessor(
                "validate-heartbeats",
                () -> new HeartbeatValidator(
                        heartbeats.deserializer(),
                        topics.workers().name(),
                        metrics,
                        settings.livenessTimeoutMs(),
                        heartbeatRules),
                "workers");
        topology.addSink(
                MEMBERSHIP_SINK, membership.name(), keys, cast(heartbeats.serializer()), "validate-heartbeats");
        topology.addSink(
                DEAD_LETTER_SINK_WORKERS,
                topics.deadLetters().name(),
                keys,
                cast(deadLetters.serializer()),
                "validate-heartbeats");

        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(MEMBERSHIP_STORE), Serdes.String(), heartbeats)
                        .withLoggingDisabled(),
                "membership-source",
                Serdes.ByteArray().deserializer(), // bytes: the updater decodes and checks them itself
                Serdes.ByteArray().deserializer(),
                membership.name(),
                "membership-updater",
                () -> new MembershipUpdater(
                        membershipCheck(settings, registry, taskPartitions), membership.name(), metrics, mirror));

        addRawSource(topology, "rounds", topics.rounds().name());
        topology.addProcessor(
                "allocate",
                () -> new RoundProcessor(rounds.deserializer(), topics.rounds().name(), settings, metrics, mirror),
                "rounds");
        topology.addStateStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(JOBS_STORE), Serdes.String(), jobStates),
                "allocate");
        topology.addStateStore(
                Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(JOB_WORKERS_STORE), Serdes.String(), jobWorkerStates),
                "allocate");
        topology.addStateStore(
                Stores.keyValueStoreBuilder(
                        Stores.persistentKeyValueStore(JOB_LEARNED_STORE), Serdes.String(), Serdes.ByteArray()),
                "allocate");
        // An assignment goes to a partition its worker owns. Should that partition not exist (a
        // heartbeat from another deployment's layout), it still must not fail half-way through a
        // round: it goes to the partition modulo the count, whose owner runs it as after a rebalance.
        StreamPartitioner<String, TaskAssignment> toOwnedPartition = (topic, key, value, partitions) -> {
            int target = value.getPartition();
            if (target >= partitions) {
                metrics.count(BrokerCounter.ASSIGNMENTS_MISSING_PARTITION);
                target = Math.floorMod(target, partitions);
            }
            return Optional.of(Set.of(target));
        };
        topology.addSink(
                TASKS_SINK, topics.tasks().name(), keys, assignments.serializer(), toOwnedPartition, "allocate");
        // the same assignments keyed by job, in the job's partition, named as its trainer finds it
        StreamPartitioner<String, TaskAssignment> toJobPartition = (topic, key, value, partitions) ->
                Optional.of(Set.of(Topics.partitionOfJob(value.getJob(), partitions)));
        topology.addSink(
                ALLOCATIONS_SINK,
                topics.allocations().name(),
                keys,
                topics.allocations().valueSerde(registry).serializer(),
                toJobPartition,
                "allocate");
        topology.addSink(
                DEAD_LETTER_SINK_ROUNDS, topics.deadLetters().name(), keys, cast(deadLetters.serializer()), "allocate");
        return topology;
    }

    /** The judge of the membership topic's records, for the store and for {@link MembershipAudit}. */
    static MembershipCheck membershipCheck(
            BrokerSettings settings, SchemaRegistryClient registry, IntSupplier taskPartitions) {
        TopicDef<WorkerHeartbeat> membership = new Topics(settings.topicPrefix()).membership();
        return new MembershipCheck(
                membership.valueSerde(registry).deserializer(),
                membership.name(),
                heartbeatRules(settings, taskPartitions));
    }

    /** The heartbeat rules; a live partition count is asked again for a partition past its end. */
    private static HeartbeatRules heartbeatRules(BrokerSettings settings, IntSupplier taskPartitions) {
        IntSupplier recount = taskPartitions instanceof TaskPartitionCount live ? live::recount : taskPartitions;
        return new HeartbeatRules(taskPartitions, recount, settings.livenessTimeoutMs());
    }

    /**
     * A source handing its processor the record's bytes: the processor decodes them itself, so
     * that a record it cannot read becomes a dead letter instead of failing the stream thread.
     */
    private static void addRawSource(Topology topology, String name, String topic) {
        topology.addSource(
                name, Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer(), topic);
    }

    @SuppressWarnings("unchecked")
    private static <T> Serializer<T> cast(Serializer<?> serializer) {
        return (Serializer<T>) serializer; // sinks receive the record type their processor forwards
    }
}
