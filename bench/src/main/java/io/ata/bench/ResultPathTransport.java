package io.ata.bench;

import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.chunk.ShallowCopy;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.serde.AvroSerde;
import io.ata.workeragent.AgentMetrics;
import io.ata.workeragent.ResultSlices;
import io.ata.workeragent.TransactionPublisher;
import io.ata.workloads.TaskIds;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * The system's own result path, exactly-once, as an agent and the trainer run it: each task is a
 * {@link TaskResult} cut into records by {@link ResultSlices} (slices of
 * {@link Chunks#DEFAULT_CHUNK_BYTES}), Avro-encoded in the registry's wire format and handed with
 * the task's {@link TaskTiming} to the agent's own {@link TransactionPublisher}, which commits them
 * in a transaction (together with the tasks that queued while the previous one committed); the
 * reader is
 * a {@code read_committed} consumer that decodes every record and puts the slices back together
 * with a {@link ChunkAssembler} keyed by task and payload id, as the trainer does.
 */
final class ResultPathTransport extends GradientTransport {
    static final String NAME = "ata";
    private static final String JOB = "bench";
    private static final String WORKER = "bench-agent";

    private final Topics topics;
    private final KafkaProducer<String, byte[]> producer;
    private final TransactionPublisher publisher;
    private final Serializer<TaskResult> results;
    private final Serializer<TaskTiming> timings;
    private final Deserializer<TaskResult> reader;
    private final long maxPayloadBytes;
    private ChunkAssembler<String> assembler;
    private long runs;

    /**
     * @param maxPayloadBytes the largest gradient the reader accepts (the trainer's bound: the
     *     model's size in float64)
     */
    ResultPathTransport(
            Topics topics, Map<String, Object> clientProperties, SchemaRegistryClient registry, long maxPayloadBytes) {
        super(
                NAME,
                topics.gradients().name(),
                clientProperties,
                Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
        this.topics = topics;
        this.maxPayloadBytes = maxPayloadBytes;
        this.producer = producer(clientProperties, true, "ata-bench-transport-");
        this.publisher = new TransactionPublisher(
                producer,
                "bench-ata-publisher",
                TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES,
                TransactionPublisher.DEFAULT_MAX_TRANSACTION_BYTES,
                new AgentMetrics(new SimpleMeterRegistry(), WORKER));
        this.results = new AvroSerde<>(registry, TaskResult.class).serializer();
        this.timings = new AvroSerde<>(registry, TaskTiming.class).serializer();
        this.reader = new AvroSerde<>(registry, TaskResult.class).deserializer();
    }

    @Override
    void reset(long bytesPerTask) {
        assembler = new ChunkAssembler<>(maxPayloadBytes, 64);
        runs++;
    }

    @Override
    void publish(int task, byte[] gradient) {
        String taskId = TaskIds.of(JOB, runs, task);
        long now = System.currentTimeMillis();
        TaskResult result = TaskResult.newBuilder()
                .setJob(JOB)
                .setRound(runs)
                .setTaskId(taskId)
                .setWorkerId(WORKER)
                .setModelVersion(runs - 1)
                .setGradient(ByteBuffer.wrap(gradient))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setComputeMs(0)
                .build();
        TaskTiming timing = TaskTiming.newBuilder()
                .setJob(JOB)
                .setRound(runs)
                .setTaskId(taskId)
                .setWorkerId(WORKER)
                .setModelVersion(runs - 1)
                .setComputeMs(0)
                .setStartMs(now)
                .setEndMs(now)
                .setStatus(TimingStatus.COMPLETED)
                .build();
        List<TaskResult> records = ResultSlices.of(result, Chunks.DEFAULT_CHUNK_BYTES, () -> WORKER + "-" + taskId);
        String gradients = topics.gradients().name();
        List<ProducerRecord<String, byte[]>> out = new ArrayList<>();
        for (TaskResult record : records) {
            out.add(new ProducerRecord<>(gradients, 0, JOB, results.serialize(gradients, record)));
        }
        String timingTopic = topics.timings().name();
        out.add(new ProducerRecord<>(timingTopic, WORKER, timings.serialize(timingTopic, timing)));
        publisher.publish(out);
    }

    @Override
    void flush() {
        publisher.await();
    }

    @Override
    int read(ConsumerRecord<String, byte[]> record) {
        TaskResult slice = reader.deserialize(record.topic(), record.value());
        ChunkAssembler.Offer offer = assembler.offer(
                slice.getTaskId() + " " + slice.getPayloadId(),
                slice.getChunk(),
                slice.getChunks(),
                slice.getGradient());
        if (offer instanceof ChunkAssembler.Refused refused) {
            throw new IllegalStateException(
                    "slice " + slice.getChunk() + " of task " + slice.getTaskId() + ": " + refused.reason());
        }
        if (!(offer instanceof ChunkAssembler.Complete complete)) {
            return -1;
        }
        // the completing slice's fields with the whole gradient, as the trainer's ResultAssembler makes it
        TaskResult whole = ShallowCopy.of(slice, TaskResult::new);
        whole.setGradient(ByteBuffer.wrap(complete.payload()));
        whole.setChunk(0);
        whole.setChunks(1);
        String taskId = whole.getTaskId();
        return Integer.parseInt(taskId.substring(taskId.lastIndexOf('/') + 1));
    }

    @Override
    public void close() {
        publisher.close();
        producer.close();
        super.close();
    }
}
