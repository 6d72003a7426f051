package io.ata.workeragent;

import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.ParameterDescription;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.Records;
import io.ata.workloads.QuadraticProblem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** Records and their wire bytes for the agent's tests. */
final class Fixtures {

    static final Topics TOPICS = new Topics();
    static final String TASKS = TOPICS.tasks().name();
    static final String MODEL = TOPICS.model().name();

    private Fixtures() {}

    /** The quadratic problem's start point as model {@code version} of {@code job}. */
    static ModelVersion model(String job, long version) {
        return model(job, version, QuadraticProblem.paper().start());
    }

    static ModelVersion model(String job, long version, double[] parameters) {
        return Records.model(job, version, parameters).build();
    }

    /**
     * The TaskSpec of {@code network} on {@code datasetSize} samples of {@code dataset}: its
     * layout as the parameters, tasks of {@code samplesPerTask} samples in micro-batches of
     * {@code microBatch}, sample seed {@code sampleSeed}.
     */
    static TaskSpec taskSpec(
            NetworkSpec network, String dataset, int datasetSize, int samplesPerTask, int microBatch, long sampleSeed) {
        return TaskSpec.newBuilder()
                .setNetwork(network.toString())
                .setParameters(network.layout().parameters().stream()
                        .map(p -> ParameterDescription.newBuilder()
                                .setName(p.name())
                                .setShape(p.shape())
                                .build())
                        .toList())
                .setDataset(dataset)
                .setDatasetSize(datasetSize)
                .setSamplesPerTask(samplesPerTask)
                .setMicroBatch(microBatch)
                .setSampleSeed(sampleSeed)
                .build();
    }

    /** Model {@code version} of a network {@code job}: {@code parameters} as FLOAT32_LE, with {@code task}. */
    static ModelVersion networkModel(String job, long version, TaskSpec task, float[] parameters) {
        return ModelVersion.newBuilder()
                .setJob(job)
                .setVersion(version)
                .setParameters(ByteBuffer.wrap(TensorCodec.encode(parameters, TensorEncoding.FLOAT32_LE)))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setTask(task)
                .setTimestampMs(1)
                .build();
    }

    /** Round {@code round} of {@code job} at model version {@code round - 1}, {@code tasks} tasks. */
    static TaskAssignment assignment(String job, long round, String forWorker, int tasks) {
        return Records.assignment(job, round, forWorker, tasks).build();
    }

    static byte[] bytes(EmbeddedSchemaRegistry registry, TaskAssignment assignment) {
        return TOPICS.tasks().valueSerde(registry).serializer().serialize(TASKS, assignment);
    }

    static byte[] bytes(EmbeddedSchemaRegistry registry, ModelVersion model) {
        return TOPICS.model().valueSerde(registry).serializer().serialize(MODEL, model);
    }

    /** The value of {@code record}, sent to {@code topic}, read back. */
    static <V extends SpecificRecord> V decode(
            EmbeddedSchemaRegistry registry, TopicDef<V> topic, ProducerRecord<String, byte[]> record) {
        return topic.valueSerde(registry).deserializer().deserialize(topic.name(), record.value());
    }

    static byte[] utf8(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
