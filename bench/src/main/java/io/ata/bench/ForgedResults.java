package io.ata.bench;

import io.ata.schemas.ModelVersions;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TopicDef;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.workloads.TaskIds;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Floods of forged results aimed at the open round, all sent at once so that most meet it open:
 * first slices (chunk 0 of 2, each with its own payload id) of the round's real task ids from
 * workers never assigned them, more than the trainer buffers per worker and task; whole results of
 * task ids nobody was assigned, under a real worker's name; and whole results of the round's real
 * task ids from workers nobody knows. None may count; each should be dead-lettered promptly,
 * whether or not its round closes.
 */
public final class ForgedResults {
    /** Forged first slices per flood. */
    public static final int SLICES = 80;
    /** Forged whole results per flood: half for unassigned task ids, half from unknown workers. */
    public static final int RESULTS = 20;

    private final Producer<byte[], byte[]> producer;
    private final TopicDef<TaskResult> gradients;
    private final Serializer<TaskResult> serializer;
    private final String job;
    private final String realWorker;
    private final SentRecords sent;
    private final SoakEvents events;
    private int floods;

    /**
     * @param realWorker a worker of the fleet, named by the results of tasks nobody was assigned
     */
    public ForgedResults(
            Producer<byte[], byte[]> producer,
            TopicDef<TaskResult> gradients,
            SchemaRegistryClient registry,
            String job,
            String realWorker,
            SentRecords sent,
            SoakEvents events) {
        this.producer = producer;
        this.gradients = gradients;
        this.serializer = gradients.valueSerde(registry).serializer();
        this.job = job;
        this.realWorker = realWorker;
        this.sent = sent;
        this.events = events;
    }

    /**
     * One flood at round {@code open} (the open round, as far as the soak knows), whose tasks are
     * {@code job/open/0 .. batch-1}, for a model of {@code dimension} parameters.
     */
    public void flood(long open, int batch, int dimension) throws InterruptedException {
        int wave = ++floods;
        List<byte[]> values = new ArrayList<>();
        List<SentRecords.Kind> kinds = new ArrayList<>();
        byte[] gradient = TensorCodec.encode(filled(dimension, 1e300), TensorEncoding.FLOAT64_LE);
        for (int i = 0; i < SLICES; i++) {
            TaskResult slice = result(open, TaskIds.of(job, open, i % batch), "forger-" + i, gradient)
                    .setChunk(0)
                    .setChunks(2)
                    .setPayloadId("soak-forged-" + wave + "-" + i)
                    .build();
            values.add(serializer.serialize(gradients.name(), slice));
            kinds.add(SentRecords.Kind.FORGED_SLICE);
        }
        for (int i = 0; i < RESULTS; i++) {
            TaskResult whole = i % 2 == 0
                    ? result(open, TaskIds.of(job, open, 900 + i), realWorker, gradient)
                            .build()
                    : result(open, TaskIds.of(job, open, i % batch), "ghost-" + i, gradient)
                            .build();
            values.add(serializer.serialize(gradients.name(), whole));
            kinds.add(SentRecords.Kind.FORGED_RESULT);
        }
        byte[] key = job.getBytes(StandardCharsets.UTF_8);
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (byte[] value : values) {
            futures.add(producer.send(new ProducerRecord<>(gradients.name(), key, value)));
        }
        producer.flush();
        for (int i = 0; i < futures.size(); i++) {
            try {
                sent.add(
                        futures.get(i).get(),
                        kinds.get(i),
                        open,
                        kinds.get(i) == SentRecords.Kind.FORGED_SLICE ? "forged first slice" : "forged whole result");
            } catch (ExecutionException e) {
                events.add("send-failed", "forged result: " + e.getCause());
            }
        }
        events.add("flood", SLICES + " forged slices and " + RESULTS + " forged results for round " + open);
    }

    private TaskResult.Builder result(long round, String taskId, String worker, byte[] gradient) {
        return TaskResult.newBuilder()
                .setJob(job)
                .setRound(round)
                .setTaskId(taskId)
                .setWorkerId(worker)
                .setModelVersion(ModelVersions.computedOnBy(round))
                .setGradient(ByteBuffer.wrap(gradient))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setComputeMs(1);
    }

    private static double[] filled(int n, double value) {
        double[] v = new double[n];
        Arrays.fill(v, value);
        return v;
    }
}
