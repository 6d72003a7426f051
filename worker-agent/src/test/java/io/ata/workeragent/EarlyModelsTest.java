package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The versions an agent may start on before their commit: whole, valid and newer than the committed. */
class EarlyModelsTest {
    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("latest");
    private final Map<String, ModelVersion> committed = new HashMap<>();
    private final List<ModelVersion> heard = new ArrayList<>();
    private long nanoNow;

    /** The committed versions, in a map. */
    private final ModelSource committedSource = new ModelSource() {
        @Override
        public Optional<ModelVersion> latest(String job) {
            return Optional.ofNullable(committed.get(job));
        }

        @Override
        public Optional<ModelVersion> await(String job, long version, Duration timeout) {
            return latest(job).filter(m -> m.getVersion() >= version);
        }

        @Override
        public boolean arriving(String job, long version) {
            return false;
        }

        @Override
        public Duration quietFor(String job) {
            return ChronoUnit.FOREVER.getDuration();
        }
    };

    private final EarlyModels early = new EarlyModels(
            consumer,
            Fixtures.MODEL,
            Fixtures.TOPICS.model().valueSerde(registry).deserializer(),
            committedSource,
            () -> nanoNow);

    {
        early.setVersionListener(heard::add);
    }

    private void read(long offset, ModelVersion model) {
        read(offset, model.getJob(), model);
    }

    private void read(long offset, String key, ModelVersion model) {
        early.accept(MockClients.consumerRecord(Fixtures.MODEL, 0, offset, key, Fixtures.bytes(registry, model)));
    }

    @Test
    void keepsEachJobsNewestWholeVersionAboveTheCommittedOneAndSaysWhereItWasRead() {
        committed.put("a", Fixtures.model("a", 0));
        read(10, Fixtures.model("a", 1));
        read(11, Fixtures.model("b", 0)); // a job with nothing committed yet

        assertEquals(
                Optional.of(new EarlyModel(Fixtures.model("a", 1), new ModelPosition(0, 10))), early.early("a", 1));
        assertEquals(Optional.empty(), early.early("a", 2), "only the version asked for");
        assertEquals(0, early.early("b", 0).orElseThrow().model().getVersion());
        assertEquals(List.of(Fixtures.model("a", 1), Fixtures.model("b", 0)), heard, "each wakes the task thread");

        read(12, Fixtures.model("a", 2));
        read(13, Fixtures.model("a", 1)); // older than the one kept
        assertEquals(Optional.empty(), early.early("a", 1));
        assertEquals(new ModelPosition(0, 12), early.early("a", 2).orElseThrow().position());
    }

    @Test
    void ignoresWhatCannotBeStartedOnWithoutRefusingIt() {
        committed.put("a", Fixtures.model("a", 3));
        read(1, Fixtures.model("a", 3)); // committed already
        read(2, Fixtures.model("a", 2)); // behind it
        read(3, ModelVersion.newBuilder(Fixtures.model("a", 4)).setChunks(2).build()); // a slice
        read(4, "not-a", Fixtures.model("a", 5)); // under another key
        early.accept(MockClients.consumerRecord(Fixtures.MODEL, 0, 5, "a", new byte[] {1, 2})); // not a version
        early.accept(MockClients.consumerRecord(Fixtures.MODEL, 0, 6, "a", null)); // a tombstone

        for (long v = 0; v <= 5; v++) {
            assertEquals(Optional.empty(), early.early("a", v), "version " + v);
        }
        assertEquals(0, early.kept());
        assertEquals(List.of(), heard);
    }

    @Test
    void putsASlicedVersionTogetherAndPlacesItAtItsLastSlice() {
        ModelVersion whole = Fixtures.model("a", 1, new double[] {1.0, -2.0, 3.5, 0.25});
        byte[] bytes = new byte[whole.getParameters().remaining()];
        whole.getParameters().duplicate().get(bytes);
        for (int i = 0; i < 2; i++) {
            ModelVersion slice = ModelVersion.newBuilder(whole)
                    .setParameters(Chunks.slice(bytes, i, bytes.length / 2))
                    .setChunk(i)
                    .setChunks(2)
                    .build();
            assertEquals(Optional.empty(), early.early("a", 1), "not whole before slice " + i);
            read(20 + i, Chunks.key("a", i, 2), slice);
        }

        EarlyModel kept = early.early("a", 1).orElseThrow();
        assertEquals(new ModelPosition(0, 21), kept.position(), "where its last slice was read");
        assertEquals(1, kept.model().getChunks());
        assertEquals(whole.getParameters(), kept.model().getParameters());
    }

    @Test
    void forgetsAVersionOnceCommittedOnceDistrustedAndOnceOldWithoutACommit() {
        read(1, Fixtures.model("a", 1));
        read(2, Fixtures.model("b", 1));
        read(3, Fixtures.model("c", 1));
        committed.put("a", Fixtures.model("a", 1));
        early.distrust("b", early.early("b", 1).orElseThrow());
        early.distrust("c", new EarlyModel(Fixtures.model("c", 1), new ModelPosition(0, 99))); // not the one kept

        early.forgetCommitted();
        assertEquals(Optional.empty(), early.early("a", 1), "committed: of no use");
        assertEquals(Optional.empty(), early.early("b", 1), "distrusted");
        assertTrue(early.early("c", 1).isPresent(), "another record's distrust leaves it");

        nanoNow += EarlyModels.MAX_AGE.toNanos();
        early.forgetCommitted();
        assertEquals(0, early.kept(), "a close that never committed does not hold its model for good");
    }

    @Test
    void itFollowsOnceItStandsAtTheTopicsEndAndNotBefore() throws Exception {
        early.start("early-test");
        assertFalse(early.awaitFollowing(Duration.ofMillis(300)), "no topic yet");
        consumer.updatePartitions(
                Fixtures.MODEL,
                List.of(new PartitionInfo(Fixtures.MODEL, 0, new Node(0, "mock", 9092), new Node[0], new Node[0])));
        consumer.updateEndOffsets(Map.of(new TopicPartition(Fixtures.MODEL, 0), 7L));
        assertTrue(early.awaitFollowing(Duration.ofSeconds(10)));
        early.close();
        assertTrue(consumer.closed(), "its thread closes its consumer");
    }

    @Test
    void closingBeforeItStartedClosesTheConsumer() {
        early.close();
        assertTrue(consumer.closed());
    }
}
