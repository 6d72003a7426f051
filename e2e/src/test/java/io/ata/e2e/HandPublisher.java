package io.ata.e2e;

import static org.awaitility.Awaitility.await;

import io.ata.bench.fleet.VirtualFleet;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.serde.AvroSerde;
import io.ata.testsupport.Records;
import io.ata.workeragent.AssignmentListener;
import io.ata.workloads.QuadraticProblem;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An embedded Kafka broker (without the ATA broker, one tasks partition) on which a test publishes
 * a job's models and assignments by hand, as the trainer and the broker would, each in a
 * transaction of its own: for tests of what agents do with them. Closing it closes the broker.
 */
final class HandPublisher implements AutoCloseable {
    private final LocalDeployment local;
    private final String job;
    private final KafkaProducer<String, byte[]> producer;

    /** A fresh embedded broker with topics named {@code prefix}..., for {@code job}. */
    static HandPublisher embedded(String prefix, String job) {
        return new HandPublisher(
                LocalDeployment.embedded(new Topics(prefix).withTaskPartitions(1), BrokerSettings.defaults()), job);
    }

    private HandPublisher(LocalDeployment local, String job) {
        this.local = local;
        this.job = job;
        Properties p = new Properties();
        p.putAll(local.clientProperties());
        p.put("transactional.id", local.topics().prefix() + "hand-publisher");
        producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        producer.initTransactions();
    }

    LocalDeployment local() {
        return local;
    }

    /**
     * Starts a virtual fleet of one agent ({@code settings}) on this broker and returns once the
     * agent owns the tasks partition. The caller closes it.
     */
    VirtualFleet startFleet(VirtualFleet.Settings settings) {
        VirtualFleet fleet = new VirtualFleet(
                local.clientProperties(), local.topics(), local.registry(), settings, AssignmentListener.NONE);
        fleet.start();
        String agent = fleet.workerIds().get(0);
        await("the virtual agent owns the tasks partition")
                .atMost(Duration.ofSeconds(60))
                .until(() -> List.of(0).equals(fleet.partitions().get(agent)));
        return fleet;
    }

    /** Publishes model {@code version} of the job (the quadratic problem's start point). */
    void publishModel(long version) {
        publishModel(
                Records.model(job, version, QuadraticProblem.paper().start()).build());
    }

    /** Publishes {@code model} in a transaction of its own, committed. */
    void publishModel(ModelVersion model) {
        openModelTransaction(model);
        producer.commitTransaction();
    }

    /**
     * Begins a transaction and writes {@code model} in it, without committing: a trainer's close
     * under way. {@link #commitOpenTransaction} or {@link #abortOpenTransaction} ends it.
     */
    void openModelTransaction(ModelVersion model) {
        String topic = local.topics().model().name();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(
                topic,
                Topics.partitionOfJob(job, producer.partitionsFor(topic).size()),
                Chunks.key(job, 0, 1),
                new AvroSerde<>(local.registry(), ModelVersion.class)
                        .serializer()
                        .serialize(topic, model)));
        producer.flush(); // written: a read_uncommitted reader sees it now
    }

    void commitOpenTransaction() {
        producer.commitTransaction();
    }

    void abortOpenTransaction() {
        producer.abortTransaction();
    }

    /**
     * Publishes {@code assignment} to partition 0 of the tasks topic; its offset (each
     * transaction's commit marker takes an offset too).
     */
    long publishAssignment(TaskAssignment assignment) throws ExecutionException, InterruptedException {
        String topic = local.topics().tasks().name();
        producer.beginTransaction();
        Future<RecordMetadata> sent = producer.send(new ProducerRecord<>(
                topic,
                0,
                assignment.getWorkerId(),
                new AvroSerde<>(local.registry(), TaskAssignment.class)
                        .serializer()
                        .serialize(topic, assignment)));
        producer.commitTransaction();
        return sent.get().offset();
    }

    /** The task ids of every result on {@code gradients}, in order. */
    List<String> resultTaskIds() {
        return TopicContents.values(local, local.topics().gradients()).stream()
                .map(TaskResult::getTaskId)
                .toList();
    }

    @Override
    public void close() {
        try {
            producer.close();
        } finally {
            local.close();
        }
    }
}
