package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.chunk.ShallowCopy;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.apache.avro.specific.SpecificRecord;
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
 * partition {@link Topics#partitionOfJob} chooses for the job, so a reader finds them together and in
 * order. The transaction makes them visible all at once or not at all.
 */
final class TransitionRecords {
    private final String job;
    private final int chunkBytes;
    private final ToIntFunction<String> partitionCount;
    private final Output<ModelVersion> models;
    private final Output<OptimizerState> optimizerStates;
    private final Output<RoundEvent> roundEvents;
    private final Output<Evaluation> evaluations;
    private final Output<DeadLetter> deadLetters;

    /** A topic and the serializer of its values. */
    private record Output<V>(String topic, Serializer<V> serializer) {
        static <V extends SpecificRecord> Output<V> of(TopicDef<V> topic, SchemaRegistryClient registry) {
            return new Output<>(topic.name(), topic.valueSerde(registry).serializer());
        }

        ProducerRecord<String, byte[]> record(Integer partition, String key, V value) {
            return new ProducerRecord<>(topic, partition, key, serializer.serialize(topic, value));
        }

        ProducerRecord<String, byte[]> record(String key, V value) {
            return record(null, key, value);
        }
    }

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
        this.models = Output.of(topics.model(), registry);
        this.optimizerStates = Output.of(topics.optimizer(), registry);
        this.roundEvents = Output.of(topics.rounds(), registry);
        this.evaluations = Output.of(topics.evaluations(), registry);
        this.deadLetters = Output.of(topics.deadLetters(), registry);
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
            records.add(roundEvents.record(job, event));
        }
        records.addAll(evaluations(ready));
        records.addAll(deadLetters(letters));
        return records;
    }

    /** Dead letters alone (key: their source topic). */
    List<ProducerRecord<String, byte[]>> deadLetters(List<DeadLetter> letters) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(letters.size());
        for (DeadLetter letter : letters) {
            records.add(deadLetters.record(DeadLetters.keyOf(letter), letter));
        }
        return records;
    }

    /** The job whose records these are. */
    String job() {
        return job;
    }

    /** Evaluations alone (key the job): the job's last ones, published when it ends. */
    List<ProducerRecord<String, byte[]>> evaluations(List<Evaluation> ready) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(ready.size());
        for (Evaluation evaluation : ready) {
            records.add(evaluations.record(job, evaluation));
        }
        return records;
    }

    private void addModel(List<ProducerRecord<String, byte[]>> records, ModelVersion whole) {
        addSlices(records, models, whole, whole.getParameters(), ModelVersion::new, (slice, i, n, bytes) -> {
            slice.setParameters(bytes);
            slice.setChunk(i);
            slice.setChunks(n);
            if (i > 0) {
                slice.setTask(null); // the task description travels on slice 0 only
            }
        });
    }

    private void addOptimizerState(List<ProducerRecord<String, byte[]>> records, OptimizerState whole) {
        addSlices(records, optimizerStates, whole, whole.getState(), OptimizerState::new, (slice, i, n, bytes) -> {
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
            Output<R> output,
            R whole,
            ByteBuffer payload,
            Supplier<R> empty,
            SliceFields<R> fields) {
        byte[] bytes = Chunks.bytesOf(payload);
        int chunks = Chunks.count(bytes.length, chunkBytes);
        int partition = Topics.partitionOfJob(job, partitionCount.applyAsInt(output.topic()));
        for (int i = 0; i < chunks; i++) {
            R slice = ShallowCopy.of(whole, empty);
            fields.set(slice, i, chunks, Chunks.slice(bytes, i, chunkBytes));
            records.add(output.record(partition, Chunks.key(job, i, chunks), slice));
        }
    }
}
