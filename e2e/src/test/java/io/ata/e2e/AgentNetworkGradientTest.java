package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.data.TaskSamples;
import io.ata.ml.djl.DeviceChoice;
import io.ata.ml.djl.DjlNetwork;
import io.ata.ml.djl.GradientComputer;
import io.ata.ml.djl.GradientResult;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.ParameterDescription;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.serde.AvroSerde;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.EndToEnd;
import io.ata.workeragent.WorkerAgent;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real agent computes a real network's gradients on the embedded Kafka broker: the model (the
 * {@code mlp} preset, 940 KB of float32 parameters, two slices) and an assignment are published by
 * hand, as a trainer would; the agent's results come back as two slices each, read with a
 * read_committed consumer, and put together they are exactly the gradient computed here from the
 * TaskSpec and the sample rule.
 */
@EndToEnd
class AgentNetworkGradientTest {
    private static final String JOB = "nn";
    private static final String WORKER = "nn-agent";
    private static final NetworkSpec NET = NetworkSpec.mlp();
    private static final int SAMPLES = 32;
    private static final int MICRO_BATCH = 16;
    private static final long SAMPLE_SEED = 5;

    private LocalDeployment local;

    @BeforeEach
    void start() {
        local = LocalDeployment.embedded(new Topics("nn.").withTaskPartitions(2), BrokerSettings.defaults());
    }

    @AfterEach
    void stop() {
        local.close();
    }

    private static TaskSpec taskSpec() {
        return TaskSpec.newBuilder()
                .setNetwork(NET.toString())
                .setParameters(NET.layout().parameters().stream()
                        .map(p -> ParameterDescription.newBuilder()
                                .setName(p.name())
                                .setShape(p.shape())
                                .build())
                        .toList())
                .setDataset("synthetic")
                .setDatasetSize(SyntheticDataset.TRAIN_SIZE)
                .setSamplesPerTask(SAMPLES)
                .setMicroBatch(MICRO_BATCH)
                .setSampleSeed(SAMPLE_SEED)
                .build();
    }

    /** Publishes model version 0 in slices, and round 1's assignment, each in one transaction. */
    private void publishModelAndAssignment(float[] parameters) {
        Properties p = new Properties();
        p.putAll(local.clientProperties());
        p.put("transactional.id", "nn-test-trainer");
        Topics topics = local.topics();
        byte[] bytes = TensorCodec.encode(parameters, TensorEncoding.FLOAT32_LE);
        int chunks = Chunks.count(bytes.length, Chunks.DEFAULT_CHUNK_BYTES);
        assertEquals(2, chunks, "the mlp preset's parameters take two records");
        try (KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            int modelPartitions = producer.partitionsFor(topics.model().name()).size();
            producer.beginTransaction();
            var models = new AvroSerde<>(local.registry(), ModelVersion.class).serializer();
            for (int i = 0; i < chunks; i++) {
                ModelVersion slice = ModelVersion.newBuilder()
                        .setJob(JOB)
                        .setVersion(0)
                        .setParameters(Chunks.slice(bytes, i, Chunks.DEFAULT_CHUNK_BYTES))
                        .setEncoding(TensorEncoding.FLOAT32_LE)
                        .setChunk(i)
                        .setChunks(chunks)
                        .setTask(i == 0 ? taskSpec() : null)
                        .setTimestampMs(1)
                        .build();
                producer.send(new ProducerRecord<>(
                        topics.model().name(),
                        Topics.partitionOfJob(JOB, modelPartitions),
                        Chunks.key(JOB, i, chunks),
                        models.serialize(topics.model().name(), slice)));
            }
            producer.commitTransaction();

            producer.beginTransaction();
            TaskAssignment assignment = TaskAssignment.newBuilder()
                    .setJob(JOB)
                    .setRound(1)
                    .setModelVersion(0)
                    .setWorkerId(WORKER)
                    .setPartition(0)
                    .setTaskIds(List.of(JOB + "/1/0", JOB + "/1/1"))
                    .setBatch(2)
                    .setCreatedMs(1)
                    .build();
            var assignments = new AvroSerde<>(local.registry(), TaskAssignment.class).serializer();
            producer.send(new ProducerRecord<>(
                    topics.tasks().name(),
                    0,
                    WORKER,
                    assignments.serialize(topics.tasks().name(), assignment)));
            producer.commitTransaction();
        }
    }

    /** Task {@code index} of round 1, computed here from the TaskSpec and the sample rule. */
    private static GradientResult expected(float[] parameters, int index) {
        int[] samples = TaskSamples.of(SAMPLE_SEED, JOB, 1, index, SyntheticDataset.TRAIN_SIZE, SAMPLES);
        try (DjlNetwork network = DjlNetwork.build(NET, Device.cpu())) {
            network.setParameters(parameters);
            return new GradientComputer(network, MICRO_BATCH)
                    .compute(SyntheticDataset.split(0).train(), samples, () -> false);
        }
    }

    @Test
    void anAgentComputesAChunkedModelsGradientsAndPublishesThemChunked() {
        float[] parameters = NET.initialParameters(42);
        WorkerAgent agent = local.startAgent(
                local.agentConfig(WORKER).device(DeviceChoice.CPU).threads(1).build());
        publishModelAndAssignment(parameters);

        List<TaskResult> results = await("both tasks' results, every slice")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> TopicContents.values(local, local.topics().gradients()), all -> all.size() >= 4);
        assertTrue(agent.isRunning(), agent.failure().toString());

        // every result: two slices of one publication, put back together with the schemas' assembler
        assertEquals(4, results.size());
        ChunkAssembler<String> assembler = new ChunkAssembler<>(8L << 20, 4);
        Map<String, byte[]> gradients = new HashMap<>();
        Map<String, TaskResult> firstSlices = new HashMap<>();
        for (TaskResult slice : results) {
            if (slice.getChunk() == 0) {
                firstSlices.put(slice.getTaskId(), slice);
            }
            assertEquals(JOB, slice.getJob());
            assertEquals(WORKER, slice.getWorkerId());
            assertEquals(TimingStatus.COMPLETED, slice.getStatus());
            assertEquals(TensorEncoding.FLOAT32_LE, slice.getEncoding());
            assertEquals(2, slice.getChunks());
            assertFalse(slice.getPayloadId().isBlank());
            assertEquals(SAMPLES, slice.getSamples());
            ChunkAssembler.Offer offer = assembler.offer(
                    slice.getTaskId() + " " + slice.getPayloadId(),
                    slice.getChunk(),
                    slice.getChunks(),
                    slice.getGradient());
            if (offer instanceof ChunkAssembler.Complete complete) {
                gradients.put(slice.getTaskId(), complete.payload());
            } else {
                assertInstanceOf(ChunkAssembler.Incomplete.class, offer);
            }
        }
        assertEquals(2, gradients.size());
        for (int index = 0; index < 2; index++) {
            String taskId = JOB + "/1/" + index;
            float[] gradient =
                    TensorCodec.decodeFloats(ByteBuffer.wrap(gradients.get(taskId)), TensorEncoding.FLOAT32_LE);
            GradientResult expected = expected(parameters, index);
            assertArrayEquals(expected.gradient(), gradient, taskId + ", bitwise (one PyTorch thread)");
            assertEquals(expected.loss(), firstSlices.get(taskId).getLoss(), 0);
            assertTrue(firstSlices.get(taskId).getComputeMs() > 0);
        }

        List<TaskTiming> timings = TopicContents.values(local, local.topics().timings());
        assertEquals(2, timings.size(), "one timing per task, not per slice");
        List<WorkerHeartbeat> heartbeats = TopicContents.values(
                local, local.topics().workers(), h -> h.getWorkerId().equals(WORKER));
        WorkerHeartbeat last = heartbeats.get(heartbeats.size() - 1);
        assertEquals(DeviceKind.CPU, last.getDevice());
        assertFalse(last.getDeviceName().isBlank());
        assertEquals(1, last.getThreads());
        assertTrue(last.getDeviceMemoryBytes() > 0);
    }
}
