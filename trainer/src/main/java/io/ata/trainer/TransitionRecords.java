package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.kafka.DeadLetters;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificRecordBase;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * What one transaction of the trainer publishes, as records: the one place that turns a
 * {@link Transition}, the evaluations ready to publish and the dead letters of its round into what
 * goes to Kafka, in order. Whatever a round's close should publish atomically with the model
 * belongs here.
 *
 * <p>In order: the model version, the optimizer state (if any), the round events, the evaluations,
 * the dead letters. A model version or optimizer state whose payload is larger than
 * {@code chunkBytes} is cut into slices ({@link Chunks}): slice {@code i} of {@code n} repeats the
 * record's other fields (the model's task description only on slice 0), is keyed
 * {@code job#i}, and every slice, like an unsliced record (keyed {@code job}), goes to the
 * partition {@link Chunks#partitionOf} chooses for the job, so a reader finds them together and in
 * order. The transaction makes them visible all at once or not at all.
 */
final class TransitionRecords {
    private final String job;
    private final int chunkBytes;
    private final ToIntFunction<String> partitionCount;
    private final String modelTopic;
    private final String optimizerTopic;
    private final String roundsTopic;
    private final String evaluationsTopic;
    private final String deadLettersTopic;
    private final Serializer<ModelVersion> models;
    private final Serializer<OptimizerState> optimizerStates;
    private final Serializer<RoundEvent> roundEvents;
    private final Serializer<Evaluation> evaluations;
    private final Serializer<DeadLetter> deadLetters;

    /**
     * @param chunkBytes     the largest payload of one record (parameters or state bytes)
     * @param partitionCount the number of partitions of a topic, by name
     */
    TransitionRecords(
            String job,
            Topics topics,
            SchemaRegistryClient registry,
            int chunkBytes,
            ToIntFunction<String> partitionCount) {
        this.job = job;
        this.chunkBytes = Bounds.atLeast(chunkBytes, 1, "chunkBytes");
        this.partitionCount = partitionCount;
        this.modelTopic = topics.model().name();
        this.optimizerTopic = topics.optimizer().name();
        this.roundsTopic = topics.rounds().name();
        this.evaluationsTopic = topics.evaluations().name();
        this.deadLettersTopic = topics.deadLetters().name();
        this.models = topics.model().valueSerde(registry).serializer();
        this.optimizerStates = topics.optimizer().valueSerde(registry).serializer();
        this.roundEvents = topics.rounds().valueSerde(registry).serializer();
        this.evaluations = topics.evaluations().valueSerde(registry).serializer();
        this.deadLetters = topics.deadLetters().valueSerde(registry).serializer();
    }

    /**
     * The model version's slices (key the job, or {@code job#i}), the optimizer state's slices,
     * the round events (key the job) in order, the evaluations (key the job), then the dead letters
     * (key: their source topic, {@link DeadLetters#keyOf}).
     */
    List<ProducerRecord<String, byte[]>> of(Transition transition, List<Evaluation> ready, List<DeadLetter> letters) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        addModel(records, transition.model());
        transition.optimizer().ifPresent(state -> addOptimizerState(records, state));
        for (RoundEvent event : transition.roundEvents()) {
            records.add(new ProducerRecord<>(roundsTopic, job, roundEvents.serialize(roundsTopic, event)));
        }
        records.addAll(evaluations(ready));
        for (DeadLetter letter : letters) {
            records.add(new ProducerRecord<>(
                    deadLettersTopic, DeadLetters.keyOf(letter), deadLetters.serialize(deadLettersTopic, letter)));
        }
        return records;
    }

    /** Evaluations alone (key the job): the job's last ones, published when it ends. */
    List<ProducerRecord<String, byte[]>> evaluations(List<Evaluation> ready) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(ready.size());
        for (Evaluation evaluation : ready) {
            records.add(
                    new ProducerRecord<>(evaluationsTopic, job, evaluations.serialize(evaluationsTopic, evaluation)));
        }
        return records;
    }

    private void addModel(List<ProducerRecord<String, byte[]>> records, ModelVersion whole) {
        addSlices(
                records, modelTopic, models, whole, whole.getParameters(), ModelVersion::new, (slice, i, n, bytes) -> {
                    slice.setParameters(bytes);
                    slice.setChunk(i);
                    slice.setChunks(n);
                    if (i > 0) {
                        slice.setTask(null); // the task description travels on slice 0 only
                    }
                });
    }

    private void addOptimizerState(List<ProducerRecord<String, byte[]>> records, OptimizerState whole) {
        addSlices(
                records,
                optimizerTopic,
                optimizerStates,
                whole,
                whole.getState(),
                OptimizerState::new,
                (slice, i, n, bytes) -> {
                    slice.setState(bytes);
                    slice.setChunk(i);
                    slice.setChunks(n);
                });
    }

    /** Makes slice {@code chunk} of {@code chunks} of a record: sets its payload bytes and slice fields. */
    private interface SliceFields<R> {
        void set(R slice, int chunk, int chunks, ByteBuffer bytes);
    }

    /**
     * Adds {@code whole}'s slices (each a copy of it with a slice of {@code payload}), keyed
     * {@link Chunks#key} and written to the job's partition of {@code topic}.
     */
    private <R extends SpecificRecordBase> void addSlices(
            List<ProducerRecord<String, byte[]>> records,
            String topic,
            Serializer<R> serializer,
            R whole,
            ByteBuffer payload,
            Supplier<R> empty,
            SliceFields<R> fields) {
        byte[] bytes = bytesOf(payload);
        int chunks = Chunks.count(bytes.length, chunkBytes);
        int partition = Chunks.partitionOf(job, partitionCount.applyAsInt(topic));
        for (int i = 0; i < chunks; i++) {
            R slice = shallowCopy(whole, empty.get());
            fields.set(slice, i, chunks, Chunks.slice(bytes, i, chunkBytes));
            records.add(new ProducerRecord<>(
                    topic, partition, Chunks.key(job, i, chunks), serializer.serialize(topic, slice)));
        }
    }

    /**
     * {@code into} with every field of {@code record}, sharing the values: Avro's builders copy a
     * bytes field deeply, which for a sliced model would copy the whole payload once per slice.
     */
    private static <R extends SpecificRecordBase> R shallowCopy(R record, R into) {
        for (Schema.Field field : record.getSchema().getFields()) {
            into.put(field.pos(), record.get(field.pos()));
        }
        return into;
    }

    /** The bytes from the buffer's position to its limit (the whole array when it wraps one exactly). */
    private static byte[] bytesOf(ByteBuffer buffer) {
        if (buffer.hasArray()
                && buffer.arrayOffset() == 0
                && buffer.position() == 0
                && buffer.remaining() == buffer.array().length) {
            return buffer.array();
        }
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
