package io.ata.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

class ModelCacheTest {

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final List<DeadLetter> deadLetters = new ArrayList<>();
    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final ModelCache cache = new ModelCache(
            consumer,
            Fixtures.MODEL,
            Fixtures.TOPICS.model().valueSerde(registry).deserializer(),
            deadLetters::add,
            Clock.fixed(Instant.ofEpochMilli(1234), ZoneOffset.UTC));

    private void accept(long offset, String key, byte[] value) {
        cache.accept(Fixtures.record(Fixtures.MODEL, 0, offset, key, value));
    }

    private void accept(long offset, ModelVersion model) {
        accept(offset, model.getJob(), Fixtures.bytes(registry, model));
    }

    private long latestVersion(String job) {
        return cache.latest(job).orElseThrow().getVersion();
    }

    @Test
    void keepsTheNewestVersionPerJob() {
        accept(0, Fixtures.model("a", 0));
        accept(1, Fixtures.model("b", 5));
        accept(2, Fixtures.model("a", 1));
        accept(3, Fixtures.model("a", 0)); // an old record read later never moves the model back

        assertEquals(1, latestVersion("a"));
        assertEquals(5, latestVersion("b"));
        assertTrue(cache.latest("c").isEmpty());
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void aTombstoneForgetsTheJob() {
        accept(0, Fixtures.model("a", 7));
        accept(1, "a", null);
        assertTrue(cache.latest("a").isEmpty());

        accept(2, Fixtures.model("a", 0)); // the job name can start over
        assertEquals(0, latestVersion("a"));
    }

    @Test
    void deadLettersRecordsThatDoNotDecode() {
        byte[] garbage = {0x7b, 0x22};
        accept(4, "a", garbage);

        assertEquals(1, deadLetters.size());
        DeadLetter letter = deadLetters.get(0);
        assertEquals(Fixtures.MODEL, letter.getSourceTopic());
        assertEquals(0, letter.getPartition());
        assertEquals(4, letter.getOffset());
        assertEquals(ByteBuffer.wrap(Fixtures.utf8("a")), letter.getKey());
        assertEquals(ByteBuffer.wrap(garbage), letter.getValue());
        assertEquals("worker-agent", letter.getComponent());
        assertEquals(1234, letter.getTimestampMs());
        assertTrue(letter.getReason().contains("magic byte"), letter.getReason());
        assertTrue(cache.latest("a").isEmpty());
    }

    @Test
    void deadLettersOutOfRangeModels() {
        accept(0, Fixtures.model("a", -1));
        accept(1, Fixtures.model(" ", 1));
        accept(2, "other-job", Fixtures.bytes(registry, Fixtures.model("a", 1)));

        assertEquals(3, deadLetters.size());
        assertTrue(deadLetters.get(0).getReason().contains("out of range"));
        assertTrue(deadLetters.get(2).getReason().contains("key"));
        assertTrue(cache.latest("a").isEmpty());
    }

    @Test
    void awaitReturnsOnceTheVersionArrives() throws Exception {
        accept(0, Fixtures.model("a", 2));
        CompletableFuture<Optional<ModelVersion>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return cache.await("a", 3, Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        accept(1, Fixtures.model("a", 4)); // newer than asked: returned, the caller checks
        assertEquals(4, waiting.get().orElseThrow().getVersion());
    }

    @Test
    void awaitReturnsAtOnceWhenTheVersionIsThere() throws InterruptedException {
        accept(0, Fixtures.model("a", 3));
        assertEquals(3, cache.await("a", 3, Duration.ZERO).orElseThrow().getVersion());
        assertEquals(3, cache.await("a", 1, Duration.ZERO).orElseThrow().getVersion());
    }

    @Test
    void awaitGivesUpAfterTheTimeout() throws InterruptedException {
        accept(0, Fixtures.model("a", 1));
        assertTrue(cache.await("a", 2, Duration.ofMillis(1)).isEmpty());
        assertTrue(cache.await("unknown", 0, Duration.ZERO).isEmpty());
    }

    @Test
    void followsEveryPartitionOfTheTopicFromTheBeginning() {
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> partitions = List.of(
                new PartitionInfo(Fixtures.MODEL, 0, node, new Node[0], new Node[0]),
                new PartitionInfo(Fixtures.MODEL, 1, node, new Node[0], new Node[0]));
        consumer.updatePartitions(Fixtures.MODEL, partitions);
        TopicPartition p0 = new TopicPartition(Fixtures.MODEL, 0);
        TopicPartition p1 = new TopicPartition(Fixtures.MODEL, 1);
        consumer.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));

        cache.pollOnce(Duration.ZERO);
        assertEquals(Set.of(p0, p1), consumer.assignment());
        assertTrue(consumer.subscription().isEmpty(), "no consumer group");

        consumer.addRecord(
                Fixtures.record(Fixtures.MODEL, 0, 0, "a", Fixtures.bytes(registry, Fixtures.model("a", 1))));
        consumer.addRecord(
                Fixtures.record(Fixtures.MODEL, 1, 0, "b", Fixtures.bytes(registry, Fixtures.model("b", 2))));
        consumer.addRecord(Fixtures.record(Fixtures.MODEL, 1, 1, "b", new byte[] {1}));
        cache.pollOnce(Duration.ZERO);

        assertEquals(1, latestVersion("a"));
        assertEquals(2, latestVersion("b"));
        assertEquals(1, deadLetters.size());
        assertEquals(1, deadLetters.get(0).getPartition());
    }

    @Test
    void waitsForTheTopicToExist() {
        cache.pollOnce(Duration.ZERO);
        assertTrue(consumer.assignment().isEmpty());
        assertFalse(consumer.closed());
        cache.close();
        assertTrue(consumer.closed());
    }

    @Test
    void aRegistryOutageIsNotTheRecordsFault() throws InterruptedException {
        Deserializer<ModelVersion> real =
                Fixtures.TOPICS.model().valueSerde(registry).deserializer();
        AtomicInteger attempts = new AtomicInteger();
        Deserializer<ModelVersion> flaky = (topic, data) -> {
            if (attempts.getAndIncrement() == 0) {
                throw new SchemaRegistryException("registry unreachable", new IOException("connection refused"));
            }
            return real.deserialize(topic, data);
        };
        ModelCache following = new ModelCache(consumer, Fixtures.MODEL, flaky, deadLetters::add, Clock.systemUTC());
        TopicPartition p0 = new TopicPartition(Fixtures.MODEL, 0);
        consumer.updatePartitions(
                Fixtures.MODEL,
                List.of(new PartitionInfo(
                        Fixtures.MODEL, 0, new Node(0, "localhost", 9092), new Node[0], new Node[0])));
        consumer.updateBeginningOffsets(Map.of(p0, 0L));
        var record = Fixtures.record(Fixtures.MODEL, 0, 0, "a", Fixtures.bytes(registry, Fixtures.model("a", 3)));
        consumer.schedulePollTask(() -> consumer.addRecord(record));
        try {
            following.start("model-cache-test");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (attempts.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            // the cache sought back to the record; a MockConsumer, unlike Kafka, delivers it only once
            consumer.schedulePollTask(() -> consumer.addRecord(record));

            assertEquals(
                    3,
                    following
                            .await("a", 3, Duration.ofSeconds(20))
                            .orElseThrow()
                            .getVersion());
            assertTrue(deadLetters.isEmpty(), "not dead-lettered");
            assertEquals(2, attempts.get());
        } finally {
            following.close();
        }
    }
}
