package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.serde.AvroSerde;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.MockClients;
import io.ata.testsupport.Records;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Model versions and optimizer states larger than one record: sliced by {@link TransitionRecords}
 * into one transaction's records, put back together by {@link ModelReader}.
 */
class ChunkedRecordsTest {
    private static final String JOB = "net";
    private static final int PARTITIONS = 3;
    private static final int CHUNK_BYTES = 10_000;

    private final Topics topics = new Topics("c.");
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final AvroSerde<ModelVersion> modelSerde = topics.model().valueSerde(registry);
    private final TestClock clock = new TestClock(1_000);
    /** mlp:8 has 6,370 float32 parameters: 25,480 bytes, 3 slices; Adam's state 6 slices. */
    private final NetworkModel model =
            new NetworkModel(NetworkSpec.parse("mlp:8"), "synthetic", SyntheticDataset.split(0), 16, 8, 1);

    private final TrainingJob job = new TrainingJob(
            JOB, 2, "ata", 0, 10, model, new AdamOptimizer(1e-3), MeanAggregator.INSTANCE, NormBound.DEFAULT);

    private TransitionRecords records() {
        return new TransitionRecords(JOB, topics, registry, CHUNK_BYTES, topic -> PARTITIONS);
    }

    @Test
    void largePayloadsAreSlicedIntoKeyedRecordsOfTheJobsPartition() {
        Transition first = TrainerState.fresh(job, clock).firstTransition();
        Evaluation evaluation = Evaluation.newBuilder()
                .setJob(JOB)
                .setModelVersion(0)
                .setTestLoss(2.3)
                .setTestAccuracy(0.1)
                .setSamples(10)
                .setModelTimestampMs(1)
                .setTimestampMs(2)
                .build();
        List<ProducerRecord<String, byte[]>> out = records().of(first, List.of(evaluation), List.of());
        int partition = Topics.partitionOfJob(JOB, PARTITIONS);
        assertEquals(
                List.of("net#0", "net#1", "net#2", "net#0", "net#1", "net#2", "net#3", "net#4", "net#5", "net", "net"),
                out.stream().map(ProducerRecord::key).toList());
        // 3 model slices, 6 optimizer state slices, the round event, the evaluation
        assertEquals(
                Stream.of(
                                Collections.nCopies(3, topics.model().name()),
                                Collections.nCopies(6, topics.optimizer().name()),
                                List.of(
                                        topics.rounds().name(),
                                        topics.evaluations().name()))
                        .flatMap(List::stream)
                        .toList(),
                out.stream().map(ProducerRecord::topic).toList());
        for (ProducerRecord<String, byte[]> r : out.subList(0, 9)) {
            assertEquals(partition, r.partition(), "every slice in the job's partition");
            assertTrue(r.value().length < CHUNK_BYTES + 1_000, "a slice fits: " + r.value().length);
        }
        var models = modelSerde.deserializer();
        ModelVersion slice0 = models.deserialize("t", out.get(0).value());
        ModelVersion slice2 = models.deserialize("t", out.get(2).value());
        assertEquals(model.taskSpec().orElseThrow(), slice0.getTask(), "the task description on slice 0");
        assertNull(slice2.getTask(), "and on slice 0 only");
        assertEquals(2, slice2.getChunk());
        assertEquals(3, slice2.getChunks());
        assertEquals(
                model.dimension() * 4 - 2 * CHUNK_BYTES, slice2.getParameters().remaining());
    }

    @Test
    void theReaderPutsTheLatestVersionBackTogether() {
        TrainerState state = TrainerState.fresh(job, clock);
        List<ProducerRecord<String, byte[]>> log =
                new ArrayList<>(records().of(state.firstTransition(), List.of(), List.of()));
        for (long round = 1; round <= 2; round++) {
            for (int i = 0; i < 2; i++) {
                state.offer(Records.result(JOB, round, round - 1, JOB + "/" + round + "/" + i, "w", new double[0], 1)
                        .setGradient(ByteBuffer.wrap(new byte[model.dimension() * 8]))
                        .build());
            }
            log.addAll(records().of(state.closeRound(), List.of(), List.of()));
        }
        // another job's record named like a slice of ours, and another job's slices
        log.add(new ProducerRecord<>(topics.model().name(), "net#x", new byte[] {1}));
        log.add(new ProducerRecord<>(topics.model().name(), "other#0", new byte[] {1}));

        ModelReader reader = new ModelReader(consumerOf(log), JOB, Clock.systemUTC(), Duration.ofSeconds(10));
        ModelVersion latest = reader.latestModel(
                        topics.model().name(), modelSerde.deserializer(), m -> TrainerState.misfit(m, job))
                .orElseThrow();
        assertEquals(2, latest.getVersion());
        assertEquals(1, latest.getChunks());
        assertEquals(state.currentModel().getParameters(), latest.getParameters(), "the parameters, whole");
        assertEquals(model.taskSpec().orElseThrow(), latest.getTask());
        OptimizerState optimizer = reader.latestOptimizerState(
                        topics.optimizer().name(),
                        topics.optimizer().valueSerde(registry).deserializer(),
                        2,
                        o -> null)
                .orElseThrow();
        assertEquals(2, optimizer.getVersion());
        assertEquals(state.currentOptimizerState().orElseThrow().getState(), optimizer.getState());
        // and a trainer resumes from the two
        TrainerState resumed = TrainerState.recover(latest, optimizer, job, clock);
        assertTrue(resumed.parameterTensor().sameBits(state.parameterTensor()));
        assertTrue(resumed.optimizerMemory().sameBits(state.optimizerMemory()));
        assertTrue(reader.latestEvaluatedVersion(
                        topics.evaluations().name(),
                        topics.evaluations().valueSerde(registry).deserializer())
                .isEmpty());
    }

    /**
     * A newest version with slices missing, or a last record that does not decode, is skipped and
     * handed back for a letter: the trainer resumes from the newest good version.
     */
    @Test
    void anIncompleteOrUndecodableNewestVersionIsSkippedAndTheNewestGoodOneResumedFrom() {
        TrainerState state = TrainerState.fresh(job, clock);
        List<ProducerRecord<String, byte[]>> v0 = records().of(state.firstTransition(), List.of(), List.of());
        List<ProducerRecord<String, byte[]>> models =
                v0.stream().filter(r -> r.topic().equals(topics.model().name())).toList();
        var deserializer = modelSerde.deserializer();

        ModelVersion newer = deserializer.deserialize("t", models.get(1).value());
        newer.setVersion(1);
        byte[] newerBytes = modelSerde.serializer().serialize("t", newer);
        List<ProducerRecord<String, byte[]>> incomplete = new ArrayList<>(models);
        incomplete.add(new ProducerRecord<>(topics.model().name(), "net#1", newerBytes));
        ModelReader reader = new ModelReader(consumerOf(incomplete), JOB, Clock.systemUTC(), Duration.ofSeconds(10));
        assertEquals(
                0,
                reader.latestModel(topics.model().name(), deserializer, m -> null)
                        .orElseThrow()
                        .getVersion());
        assertEquals(1, reader.refused().size());
        assertTrue(
                reader.refused().get(0).reason().contains("version 1 of job net")
                        && reader.refused().get(0).reason().contains("incomplete"),
                reader.refused().get(0).reason());

        List<ProducerRecord<String, byte[]>> garbage = new ArrayList<>(models);
        garbage.add(new ProducerRecord<>(topics.model().name(), "net", new byte[] {0, 0, 0, 0, 9}));
        reader = new ModelReader(consumerOf(garbage), JOB, Clock.systemUTC(), Duration.ofSeconds(10));
        Optional<ModelVersion> whole = reader.latestModel(topics.model().name(), deserializer, m -> null);
        assertArrayEquals(
                state.currentModel().getParameters().array(),
                whole.orElseThrow().getParameters().array());
        assertEquals(1, reader.refused().size());
        assertTrue(
                reader.refused().get(0).reason().contains("does not decode"),
                reader.refused().get(0).reason());
        assertEquals(5, reader.refused().get(0).record().value().length, "the letter carries the record");
    }

    /**
     * The newest version that fits wins; a newer one of other settings is a stray record (a
     * letter), and when none fits the reader says why, for the trainer to refuse to start.
     */
    @Test
    void aVersionOfOtherSettingsIsAStrayRecordUnlessNoneFits() {
        TrainerState state = TrainerState.fresh(job, clock);
        List<ProducerRecord<String, byte[]>> models = modelRecords(state.firstTransition());
        ModelVersion first =
                modelSerde.deserializer().deserialize("t", models.get(0).value());
        ModelVersion other = ModelVersion.newBuilder(first)
                .setVersion(7)
                .setChunk(0)
                .setChunks(1)
                .setParameters(ByteBuffer.wrap(new byte[8]))
                .build();
        List<ProducerRecord<String, byte[]>> log = new ArrayList<>(models);
        log.add(new ProducerRecord<>(
                topics.model().name(), "net", modelSerde.serializer().serialize("t", other)));

        ModelReader reader = new ModelReader(consumerOf(log), JOB, Clock.systemUTC(), Duration.ofSeconds(10));
        ModelVersion latest = reader.latestModel(
                        topics.model().name(), modelSerde.deserializer(), m -> TrainerState.misfit(m, job))
                .orElseThrow();
        assertEquals(0, latest.getVersion());
        assertEquals(1, reader.refused().size());
        assertTrue(
                reader.refused().get(0).reason().contains("model version 7 of job net has"),
                reader.refused().get(0).reason());
        assertNull(reader.misfit());

        List<ProducerRecord<String, byte[]>> onlyOther = List.of(log.get(log.size() - 1));
        reader = new ModelReader(consumerOf(onlyOther), JOB, Clock.systemUTC(), Duration.ofSeconds(10));
        assertTrue(
                reader.latestModel(topics.model().name(), modelSerde.deserializer(), m -> TrainerState.misfit(m, job))
                        .isEmpty());
        assertTrue(reader.misfit().contains("model version 7 of job net has"), reader.misfit());
        assertTrue(
                reader.refused().isEmpty(), "the job's own version of other settings: no letter, a refusal to start");
    }

    /** A tombstone, a version no round reaches and NaN parameters are skipped and handed back. */
    @Test
    void recordsNoTrainerWritesAreSkippedAndHandedBack() {
        TrainerState state = TrainerState.fresh(job, clock);
        List<ProducerRecord<String, byte[]>> models = modelRecords(state.firstTransition());
        ModelVersion first =
                modelSerde.deserializer().deserialize("t", models.get(0).value());
        float[] nan = new float[model.dimension()];
        Arrays.fill(nan, Float.NaN);
        ModelVersion nanVersion = ModelVersion.newBuilder(first)
                .setVersion(1)
                .setChunk(0)
                .setChunks(1)
                .setParameters(ByteBuffer.wrap(TensorCodec.encode(nan, first.getEncoding())))
                .build();
        ModelVersion farVersion =
                ModelVersion.newBuilder(first).setVersion(1L << 60).build();
        List<ProducerRecord<String, byte[]>> log = new ArrayList<>(models);
        log.add(new ProducerRecord<>(topics.model().name(), "net", null));
        log.add(new ProducerRecord<>(
                topics.model().name(), "net#0", modelSerde.serializer().serialize("t", farVersion)));
        log.add(new ProducerRecord<>(
                topics.model().name(), "net", modelSerde.serializer().serialize("t", nanVersion)));

        ModelReader reader = new ModelReader(consumerOf(log), JOB, Clock.systemUTC(), Duration.ofSeconds(10));
        ModelVersion latest = reader.latestModel(topics.model().name(), modelSerde.deserializer(), m -> null)
                .orElseThrow();

        assertEquals(0, latest.getVersion(), "version 0 is kept: nothing after it is applied");
        assertArrayEquals(
                state.currentModel().getParameters().array(),
                latest.getParameters().array());
        List<ModelReader.Refused> refused = reader.refused();
        assertEquals(3, refused.size());
        assertTrue(refused.get(0).reason().contains("tombstone"), refused.get(0).reason());
        assertTrue(
                refused.get(1).reason().contains("out of range"), refused.get(1).reason());
        assertTrue(
                refused.get(2).reason().contains("not finite"), refused.get(2).reason());
        assertNull(refused.get(0).record().value(), "the letter carries the record refused");
    }

    /** The {@code model} topic's records of {@code transition}: its version's slices. */
    private List<ProducerRecord<String, byte[]>> modelRecords(Transition transition) {
        return records().of(transition, List.of(), List.of()).stream()
                .filter(r -> r.topic().equals(topics.model().name()))
                .toList();
    }

    /** A reader's consumer whose topics hold {@code records}, each on its record's partition (else 0). */
    private MockConsumer<byte[], byte[]> consumerOf(List<ProducerRecord<String, byte[]>> records) {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
            @Override
            public synchronized void assign(java.util.Collection<TopicPartition> partitions) {
                super.assign(partitions);
                long[] offsets = new long[PARTITIONS];
                for (ProducerRecord<String, byte[]> r : records) {
                    int p = r.partition() == null ? 0 : r.partition();
                    if (partitions.contains(new TopicPartition(r.topic(), p))) {
                        addRecord(MockClients.consumerRecord(r.topic(), p, offsets[p]++, r.key(), r.value()));
                    }
                }
            }
        };
        for (String topic : List.of(
                topics.model().name(),
                topics.optimizer().name(),
                topics.evaluations().name())) {
            List<PartitionInfo> infos = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                infos.add(new PartitionInfo(topic, p, null, null, null));
                TopicPartition tp = new TopicPartition(topic, p);
                int partition = p;
                long count = records.stream()
                        .filter(r ->
                                r.topic().equals(topic) && (r.partition() == null ? 0 : r.partition()) == partition)
                        .count();
                consumer.updateBeginningOffsets(Map.of(tp, 0L));
                consumer.updateEndOffsets(Map.of(tp, count));
            }
            consumer.updatePartitions(topic, infos);
        }
        return consumer;
    }
}
