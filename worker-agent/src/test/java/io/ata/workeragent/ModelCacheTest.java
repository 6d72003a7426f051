package io.ata.workeragent;

import static io.ata.testsupport.Letters.assertReason;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.testsupport.MockClients;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Deserializer;
import org.junit.jupiter.api.Test;

class ModelCacheTest {
    private static final TopicPartition P0 = new TopicPartition(Fixtures.MODEL, 0);
    private static final TopicPartition P1 = new TopicPartition(Fixtures.MODEL, 1);

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final List<DeadLetter> deadLetters = new ArrayList<>();
    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final ModelCache cache = new ModelCache(
            consumer,
            Fixtures.MODEL,
            Fixtures.TOPICS.model().valueSerde(registry).deserializer(),
            deadLetters::add,
            Clock.fixed(Instant.ofEpochMilli(1234), ZoneOffset.UTC));

    /** Gives {@code consumer}'s model topic partitions 0 to {@code count - 1}, each beginning at offset 0. */
    private static void giveModelPartitions(MockConsumer<byte[], byte[]> consumer, int count) {
        Node node = new Node(0, "localhost", 9092);
        List<PartitionInfo> partitions = new ArrayList<>();
        Map<TopicPartition, Long> beginnings = new HashMap<>();
        for (int p = 0; p < count; p++) {
            partitions.add(new PartitionInfo(Fixtures.MODEL, p, node, new Node[0], new Node[0]));
            beginnings.put(new TopicPartition(Fixtures.MODEL, p), 0L);
        }
        consumer.updatePartitions(Fixtures.MODEL, partitions);
        consumer.updateBeginningOffsets(beginnings);
    }

    private void accept(long offset, String key, byte[] value) {
        cache.accept(MockClients.consumerRecord(Fixtures.MODEL, 0, offset, key, value));
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
        accept(3, Fixtures.model("a", 1)); // the same version again: harmless

        assertEquals(1, latestVersion("a"));
        assertEquals(5, latestVersion("b"));
        assertTrue(cache.latest("c").isEmpty());
        assertTrue(deadLetters.isEmpty());
    }

    /** What an early start confirms against: where the job's last few versions were read. */
    @Test
    void knowsWhereEachJobsLastFewVersionsWereRead() {
        accept(0, Fixtures.model("a", 0));
        accept(1, Fixtures.model("a", 1));
        accept(2, Fixtures.model("b", 7));
        assertEquals(Optional.of(new ModelPosition(0, 1)), cache.committedAt("a", 1));
        assertEquals(Optional.of(new ModelPosition(0, 0)), cache.committedAt("a", 0));

        // a straggler's task started on version 1 may end after three more versions closed
        accept(3, Fixtures.model("a", 2));
        accept(4, Fixtures.model("a", 3));
        accept(5, Fixtures.model("a", 4));
        assertEquals(Optional.of(new ModelPosition(0, 5)), cache.committedAt("a", 4));
        assertEquals(Optional.of(new ModelPosition(0, 1)), cache.committedAt("a", 1));
        assertEquals(Optional.empty(), cache.committedAt("a", 0), ModelCache.PLACES_KEPT + " versions back: not kept");
        assertEquals(Optional.of(new ModelPosition(0, 2)), cache.committedAt("b", 7), "each job its own");

        accept(6, Fixtures.model("a", 4)); // the version again, in another record: that record now
        assertEquals(Optional.of(new ModelPosition(0, 6)), cache.committedAt("a", 4));
        assertEquals(Optional.of(new ModelPosition(0, 1)), cache.committedAt("a", 1), "still kept");
        accept(7, Fixtures.model("a", 1)); // backwards: refused, nothing moves
        assertEquals(Optional.of(new ModelPosition(0, 1)), cache.committedAt("a", 1));
        assertEquals(Optional.empty(), cache.committedAt("c", 0));
    }

    @Test
    void theVersionListenerHearsOfEveryVersionKeptAsItsJobsNewestOnly() {
        List<String> heard = new ArrayList<>();
        cache.setVersionListener(m -> heard.add(m.getJob() + "@" + m.getVersion()));
        accept(0, Fixtures.model("a", 0));
        accept(1, Fixtures.model("a", 1));
        accept(2, Fixtures.model("a", 0)); // backwards: refused
        accept(3, Fixtures.model("b", 3));

        assertEquals(List.of("a@0", "a@1", "b@3"), heard);
    }

    @Test
    void aVersionGoingBackwardsIsDeadLetteredAndNeverApplied() {
        accept(0, Fixtures.model("a", 4));
        accept(1, Fixtures.model("a", 2));

        assertEquals(4, latestVersion("a"));
        assertEquals(1, deadLetters.size());
        assertReason(deadLetters.get(0), "goes backwards");
        assertEquals(1, deadLetters.get(0).getOffset());
    }

    @Test
    void aTombstoneIsDeadLetteredAndNeverApplied() {
        accept(0, Fixtures.model("a", 7));
        accept(1, "a", null);
        accept(2, "a#1", null);
        accept(3, null, null);

        assertEquals(7, latestVersion("a"), "the job's model is kept");
        assertEquals(3, deadLetters.size());
        for (DeadLetter letter : deadLetters) {
            assertReason(letter, "tombstone");
        }
    }

    @Test
    void aVersionNoRoundCanReachIsDeadLettered() {
        accept(0, Fixtures.model("ghost", 1L << 60));

        assertTrue(cache.latest("ghost").isEmpty());
        assertEquals(1, deadLetters.size());
        assertReason(deadLetters.get(0), "out of range");
    }

    @Test
    void nonFiniteParametersAreDeadLetteredAndNeverApplied() {
        accept(0, Fixtures.model("a", 1));
        accept(1, Fixtures.model("a", 2, new double[] {1, Double.NaN}));
        accept(2, Fixtures.model("a", 3, new double[] {Double.NEGATIVE_INFINITY}));

        assertEquals(1, latestVersion("a"));
        assertEquals(2, deadLetters.size());
        assertReason(deadLetters.get(0), "parameter 1 is not finite");
        accept(3, Fixtures.model("a", 2)); // the reader goes on
        assertEquals(2, latestVersion("a"));
    }

    @Test
    void aNetworkDescriptionThatDoesNotMatchItsParametersIsDeadLettered() {
        ModelVersion good = networkModel("net", 1);
        ModelVersion fewer = ModelVersion.newBuilder(networkModel("net", 2))
                .setParameters(ByteBuffer.wrap(new byte[8]))
                .build();
        ModelVersion otherNetwork = ModelVersion.newBuilder(networkModel("net", 3))
                .setTask(TaskSpec.newBuilder(good.getTask())
                        .setNetwork("mlp:5,in=4,classes=3")
                        .build())
                .build();
        accept(0, good);
        accept(1, fewer);
        accept(2, otherNetwork);

        assertEquals(1, latestVersion("net"));
        assertEquals(2, deadLetters.size());
        assertReason(deadLetters.get(0), "2 parameters");
        assertReason(deadLetters.get(1), "does not match its network");
    }

    @Test
    void aVersionWhoseSlicesAreBeingReadIsArriving() {
        List<ModelVersion> slices = slices(networkModel("net", 4), 120);
        assertFalse(cache.arriving("net", 4));
        acceptSlice(0, slices.get(0));
        assertTrue(cache.arriving("net", 4));
        assertTrue(cache.arriving("net", 3));
        assertFalse(cache.arriving("net", 5));
        acceptSlice(1, slices.get(1));
        acceptSlice(2, slices.get(2));
        assertFalse(cache.arriving("net", 4), "whole now");
        assertEquals(4, latestVersion("net"));
    }

    @Test
    void aJobsModelIsQuietSinceASliceOrAVersionOfItWasLastStoredNotSinceARefusedRecord() throws InterruptedException {
        assertEquals(ChronoUnit.FOREVER.getDuration(), cache.quietFor("net"), "nothing read of it");
        List<ModelVersion> slices = slices(networkModel("net", 4), 120);
        acceptSlice(0, slices.get(0));
        Duration afterSlice = cache.quietFor("net");
        assertTrue(afterSlice.compareTo(Duration.ofSeconds(1)) < 0, afterSlice.toString());

        Thread.sleep(50);
        accept(1, Fixtures.model("other", 1)); // another job's model says nothing of this one
        accept(2, "net", null); // a tombstone: refused
        Duration quiet = cache.quietFor("net");
        assertTrue(quiet.compareTo(Duration.ofMillis(50)) >= 0, quiet.toString());

        acceptSlice(3, slices.get(1));
        assertTrue(cache.quietFor("net").compareTo(quiet) < 0, "a slice read: the job is alive");
        Thread.sleep(50);
        acceptSlice(4, slices.get(2));
        assertTrue(cache.quietFor("net").compareTo(Duration.ofMillis(50)) < 0, "the version read whole");
        assertEquals(4, latestVersion("net"));

        accept(5, Fixtures.model("a", 1));
        Thread.sleep(50);
        accept(6, Fixtures.model("a", 2, new double[] {1, Double.NaN})); // whole, but refused
        assertTrue(cache.quietFor("a").compareTo(Duration.ofMillis(50)) >= 0, "a refused version is not heard");
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
        assertReason(letter, "magic byte");
        assertTrue(cache.latest("a").isEmpty());
    }

    @Test
    void deadLettersOutOfRangeModels() {
        accept(0, Fixtures.model("a", -1));
        accept(1, Fixtures.model(" ", 1));
        accept(2, "other-job", Fixtures.bytes(registry, Fixtures.model("a", 1)));
        accept(3, "a#1", Fixtures.bytes(registry, Fixtures.model("a#1", 1))); // job a's slice key

        assertEquals(4, deadLetters.size());
        assertTrue(deadLetters.get(0).getReason().contains("out of range"));
        assertTrue(deadLetters.get(2).getReason().contains("key"));
        assertReason(deadLetters.get(3), "contains '#'");
        assertTrue(cache.latest("a#1").isEmpty());
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
        giveModelPartitions(consumer, 2);

        cache.pollOnce(Duration.ZERO);
        assertEquals(Set.of(P0, P1), consumer.assignment());
        assertTrue(consumer.subscription().isEmpty(), "no consumer group");

        consumer.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 0, 0, "a", Fixtures.bytes(registry, Fixtures.model("a", 1))));
        consumer.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 1, 0, "b", Fixtures.bytes(registry, Fixtures.model("b", 2))));
        consumer.addRecord(MockClients.consumerRecord(Fixtures.MODEL, 1, 1, "b", new byte[] {1}));
        cache.pollOnce(Duration.ZERO);

        assertEquals(1, latestVersion("a"));
        assertEquals(2, latestVersion("b"));
        assertEquals(1, deadLetters.size());
        assertEquals(1, deadLetters.get(0).getPartition());
    }

    @Test
    void badRecordsReadWhileCatchingUpAreSkippedWithoutANewDeadLetter() {
        giveModelPartitions(consumer, 1);
        consumer.schedulePollTask(() -> {
            // on the topic before this agent started: dead-lettered by the agents that read it then
            consumer.addRecord(MockClients.consumerRecord(Fixtures.MODEL, 0, 0, "a", null));
            consumer.addRecord(MockClients.consumerRecord(
                    Fixtures.MODEL, 0, 1, "a", Fixtures.bytes(registry, Fixtures.model("a", 3))));
        });
        cache.pollOnce(Duration.ZERO);
        assertEquals(3, latestVersion("a"));
        assertTrue(deadLetters.isEmpty(), "not dead-lettered again");

        cache.pollOnce(Duration.ZERO); // nothing new: caught up
        consumer.addRecord(MockClients.consumerRecord(Fixtures.MODEL, 0, 2, "a", null));
        cache.pollOnce(Duration.ZERO);
        assertEquals(1, deadLetters.size(), "a record read live is dead-lettered");
        assertEquals(2, deadLetters.get(0).getOffset());
        assertEquals(3, latestVersion("a"));
    }

    @Test
    void waitsForTheTopicToExist() {
        cache.pollOnce(Duration.ZERO);
        assertTrue(consumer.assignment().isEmpty());
        assertFalse(consumer.closed());
        cache.close();
        assertTrue(consumer.closed());
    }

    /** A model decoder whose first call finds the registry unreachable; {@code attempts} counts the calls. */
    private Deserializer<ModelVersion> registryDownOnce(AtomicInteger attempts) {
        Deserializer<ModelVersion> real =
                Fixtures.TOPICS.model().valueSerde(registry).deserializer();
        return (topic, data) -> {
            if (attempts.getAndIncrement() == 0) {
                throw new SchemaRegistryException("registry unreachable", new IOException("connection refused"));
            }
            return real.deserialize(topic, data);
        };
    }

    /** A start on a busy cluster: fetching the topic's metadata times out, and the next step tries again. */
    @Test
    void aMetadataTimeoutIsWaitedOutNotThrown() {
        AtomicInteger timeouts = new AtomicInteger(2);
        MockConsumer<byte[], byte[]> slow = new MockConsumer<>("earliest") {
            @Override
            public synchronized List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
                if (timeouts.getAndDecrement() > 0) {
                    throw new TimeoutException("Timeout expired while fetching topic metadata");
                }
                return super.partitionsFor(topic, timeout);
            }
        };
        ModelCache following = new ModelCache(
                slow,
                Fixtures.MODEL,
                Fixtures.TOPICS.model().valueSerde(registry).deserializer(),
                deadLetters::add,
                Clock.systemUTC());
        giveModelPartitions(slow, 1);

        following.pollOnce(Duration.ofMillis(1));
        following.pollOnce(Duration.ofMillis(1));
        assertTrue(slow.assignment().isEmpty(), "not assigned while the metadata times out");
        following.pollOnce(Duration.ofMillis(1));
        assertEquals(Set.of(P0), slow.assignment());
    }

    @Test
    void aRegistryOutageIsNotTheRecordsFault() throws InterruptedException {
        AtomicInteger attempts = new AtomicInteger();
        ModelCache following = new ModelCache(
                consumer, Fixtures.MODEL, registryDownOnce(attempts), deadLetters::add, Clock.systemUTC());
        giveModelPartitions(consumer, 1);
        var record =
                MockClients.consumerRecord(Fixtures.MODEL, 0, 0, "a", Fixtures.bytes(registry, Fixtures.model("a", 3)));
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

    @Test
    void aFailedRecordIsReadAgainWithTheOtherPartitionsRecordsNotYetApplied() {
        AtomicInteger attempts = new AtomicInteger();
        ModelCache following = new ModelCache(
                consumer, Fixtures.MODEL, registryDownOnce(attempts), deadLetters::add, Clock.systemUTC());
        giveModelPartitions(consumer, 2);
        following.pollOnce(Duration.ZERO);
        consumer.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 0, 0, "a", Fixtures.bytes(registry, Fixtures.model("a", 1))));
        consumer.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, 1, 0, "b", Fixtures.bytes(registry, Fixtures.model("b", 2))));

        assertThrows(SchemaRegistryException.class, () -> following.pollOnce(Duration.ZERO));

        // the first record failed; neither it nor the other partition's record was applied, and
        // both partitions are sought back to them
        assertEquals(1, attempts.get());
        assertEquals(0, consumer.position(P0));
        assertEquals(0, consumer.position(P1));
        assertTrue(following.latest("a").isEmpty());
        assertTrue(following.latest("b").isEmpty());
    }

    // ---- forgetting quiet jobs, and reading them again ------------------------------------

    private static final Duration RETENTION = Duration.ofHours(1);
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    /** The consumers the reads again get, in order: each is used once (and closed). */
    private final Deque<MockConsumer<byte[], byte[]>> recallReaders =
            new ConcurrentLinkedDeque<>(); // taken by the read thread

    /** A cache assigned 2 partitions, whose quiet times run on {@code clock} (ns) and which reads again with {@link #recallReaders}. */
    private ModelCache forgettingCache(AtomicLong clock) {
        return forgettingCache(
                clock, Fixtures.TOPICS.model().valueSerde(registry).deserializer());
    }

    /** As above, decoding with {@code deserializer}. */
    private ModelCache forgettingCache(AtomicLong clock, Deserializer<ModelVersion> deserializer) {
        ModelCache c = new ModelCache(
                consumer,
                recallReaders::remove,
                Fixtures.MODEL,
                deserializer,
                deadLetters::add,
                Clock.systemUTC(),
                new ModelAssembler(ModelCache.MAX_MODEL_BYTES, ModelCache.MAX_INCOMPLETE),
                clock::get);
        c.setRetention(RETENTION);
        giveModelPartitions(consumer, 2);
        c.pollOnce(Duration.ZERO); // assigned
        return c;
    }

    private void addRecord(int partition, long offset, ModelVersion model) {
        consumer.addRecord(MockClients.consumerRecord(
                Fixtures.MODEL, partition, offset, model.getJob(), Fixtures.bytes(registry, model)));
    }

    /** A job's partition of the model topic (2 partitions), where the trainer writes it. */
    private static int partitionOf(String job) {
        return Topics.partitionOfJob(job, 2);
    }

    /**
     * A consumer for one read again of {@code partition}, which holds {@code records} (key, value)
     * from offset 0 on: the partition as Kafka gives it to a reader that assigns it.
     */
    private MockConsumer<byte[], byte[]> partitionHolding(int partition, List<Map.Entry<String, byte[]>> records) {
        return partitionHolding(partition, records, new CountDownLatch(0));
    }

    /** As above; its first poll waits until {@code gate} opens (a read under way, for as long as a test needs). */
    private MockConsumer<byte[], byte[]> partitionHolding(
            int partition, List<Map.Entry<String, byte[]>> records, CountDownLatch gate) {
        MockConsumer<byte[], byte[]> reader = new MockConsumer<>("earliest");
        TopicPartition tp = new TopicPartition(Fixtures.MODEL, partition);
        reader.updateBeginningOffsets(Map.of(tp, 0L));
        reader.updateEndOffsets(Map.of(tp, (long) records.size()));
        reader.schedulePollTask(() -> {
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            for (int o = 0; o < records.size(); o++) {
                reader.addRecord(MockClients.consumerRecord(
                        Fixtures.MODEL,
                        partition,
                        o,
                        records.get(o).getKey(),
                        records.get(o).getValue()));
            }
        });
        return reader;
    }

    /**
     * A consumer for one read again of {@code partition} holding {@code records}, which serves the
     * records from a sought offset on again, as Kafka does (a MockConsumer hands each record over
     * once).
     */
    private MockConsumer<byte[], byte[]> partitionServedAgainAfterASeek(
            int partition, List<Map.Entry<String, byte[]>> records) {
        TopicPartition tp = new TopicPartition(Fixtures.MODEL, partition);
        MockConsumer<byte[], byte[]> reader = new MockConsumer<>("earliest") {
            @Override
            public synchronized void seek(TopicPartition sought, long offset) {
                super.seek(sought, offset);
                for (int o = (int) offset; o < records.size(); o++) {
                    addRecord(MockClients.consumerRecord(
                            Fixtures.MODEL,
                            partition,
                            o,
                            records.get(o).getKey(),
                            records.get(o).getValue()));
                }
            }
        };
        reader.updateBeginningOffsets(Map.of(tp, 0L));
        reader.updateEndOffsets(Map.of(tp, (long) records.size()));
        reader.schedulePollTask(() -> reader.seek(tp, 0));
        return reader;
    }

    private Map.Entry<String, byte[]> entry(ModelVersion model) {
        return Map.entry(
                Chunks.key(model.getJob(), model.getChunk(), model.getChunks()), Fixtures.bytes(registry, model));
    }

    /** Forgets {@code job}, read at version {@code version}, after the retention; returns the cache. */
    private ModelCache cacheThatForgot(AtomicLong clock, String job, long version) {
        return forgot(forgettingCache(clock), clock, job, version);
    }

    private ModelCache forgot(ModelCache c, AtomicLong clock, String job, long version) {
        addRecord(partitionOf(job), 0, Fixtures.model(job, version));
        c.pollOnce(Duration.ZERO);
        clock.addAndGet(RETENTION.toNanos());
        c.pollOnce(Duration.ZERO);
        assertTrue(c.latest(job).isEmpty(), "forgotten");
        return c;
    }

    /** Waits until the cache has no read again under way for {@code job}. */
    private static void awaitRecallEnded(ModelCache c, String job) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (c.readingAgain(job)) {
            assertTrue(System.nanoTime() < deadline, "the read again of " + job + " did not end");
            Thread.sleep(5);
        }
    }

    @Test
    void aJobsModelQuietForTheRetentionIsForgottenAndOthersAreKept() {
        AtomicLong clock = new AtomicLong();
        ModelCache c = forgettingCache(clock);
        addRecord(0, 0, Fixtures.model("old", 3));
        addRecord(1, 0, Fixtures.model("live", 1));
        c.pollOnce(Duration.ZERO);
        assertEquals(2, c.jobs());

        clock.addAndGet(RETENTION.minusMinutes(5).toNanos());
        addRecord(1, 1, Fixtures.model("live", 2)); // the live job's model moves
        c.pollOnce(Duration.ZERO);
        clock.addAndGet(Duration.ofMinutes(5).toNanos());
        c.pollOnce(Duration.ZERO);

        assertTrue(c.latest("old").isEmpty(), "quiet for the retention: forgotten");
        assertEquals(2, c.latest("live").orElseThrow().getVersion(), "heard 5 min ago: kept");
        assertEquals(1, c.jobs());
        assertEquals(ChronoUnit.FOREVER.getDuration(), c.quietFor("old"));
        assertFalse(c.recall("live"), "not forgotten: nothing to read again");
        assertFalse(c.recall("never-seen"), "never read: nothing to read again");
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void aForgottenJobIsReadAgainFromItsPartitionWholeAndNewestWithAConsumerOfItsOwn() throws Exception {
        AtomicLong clock = new AtomicLong();
        ModelCache c = cacheThatForgot(clock, "net", 2);
        List<ModelVersion> v4 = slices(Fixtures.networkModel("net", 4, TASK, NET.initialParameters(4)), 200);
        assertTrue(v4.size() > 1, "a chunked version");
        List<Map.Entry<String, byte[]>> partition = new ArrayList<>();
        partition.add(entry(Fixtures.model("net", 2)));
        partition.add(entry(Fixtures.model("other", 5))); // another job's, on the same partition
        partition.add(Map.entry("net", new byte[] {1, 2, 3})); // refused when read live
        partition.add(entry(Fixtures.networkModel("net", 3, TASK, NET.initialParameters(3))));
        v4.forEach(slice -> partition.add(entry(slice)));
        CountDownLatch gate = new CountDownLatch(1);
        recallReaders.add(partitionHolding(partitionOf("net"), partition, gate));
        List<String> heard = new ArrayList<>();
        c.setVersionListener(m -> heard.add(m.getJob() + "@" + m.getVersion()));
        int deadLettersBefore = deadLetters.size();
        long mainPosition = consumer.position(new TopicPartition(Fixtures.MODEL, partitionOf("net")));

        assertTrue(c.recall("net"), "forgotten: read again");
        assertTrue(c.recall("net"), "asked again while it is read: under way");
        assertTrue(c.readingAgain("net"), "its assignments wait meanwhile");
        gate.countDown();
        awaitRecallEnded(c, "net");

        assertWhole(
                Fixtures.networkModel("net", 4, TASK, NET.initialParameters(4)),
                c.latest("net").orElseThrow());
        assertEquals(List.of("net@2", "net@3", "net@4"), heard, "every version in order, the other job's none");
        int netPartition = partitionOf("net");
        assertEquals(
                Optional.of(new ModelPosition(netPartition, partition.size() - 1)),
                c.committedAt("net", 4),
                "where its last slice was read: an early start on it can be confirmed");
        assertEquals(Optional.of(new ModelPosition(netPartition, 3)), c.committedAt("net", 3));
        assertTrue(c.latest("other").isEmpty(), "the other job's record is not the cache's business here");
        assertEquals(deadLettersBefore, deadLetters.size(), "nothing read again is dead-lettered");
        assertEquals(
                mainPosition,
                consumer.position(new TopicPartition(Fixtures.MODEL, partitionOf("net"))),
                "the cache's own consumer is not moved");
        assertTrue(c.quietFor("net").isZero(), "heard again");
        assertFalse(c.recall("net"), "no longer forgotten");
        assertTrue(recallReaders.isEmpty());
    }

    @Test
    void aRecalledJobNotFoundIsNoLongerBeingReadAndIsReadAgainAtTheNextRecall() throws Exception {
        AtomicLong clock = new AtomicLong();
        ModelCache c = cacheThatForgot(clock, "gone", 2);
        recallReaders.add(partitionHolding(partitionOf("gone"), List.of())); // e.g. deleted by the topic's retention

        assertTrue(c.recall("gone"));
        awaitRecallEnded(c, "gone");
        assertFalse(c.readingAgain("gone"), "read to the end without finding it");
        assertTrue(c.latest("gone").isEmpty());

        recallReaders.add(partitionHolding(partitionOf("gone"), List.of(entry(Fixtures.model("gone", 2)))));
        assertFalse(c.recall("gone"), "found nothing a moment ago: each assignment must not read it all again");
        assertFalse(c.readingAgain("gone"));
        clock.addAndGet(ModelCache.RECALL_COOL_DOWN.minusSeconds(1).toNanos());
        assertFalse(c.recall("gone"), "still cooling down");
        clock.addAndGet(Duration.ofSeconds(1).toNanos());
        assertTrue(c.recall("gone"), "still forgotten: read again after the cool-down");
        awaitRecallEnded(c, "gone");
        assertEquals(2, c.latest("gone").orElseThrow().getVersion());
    }

    @Test
    void aJobReadLiveAfterAMissIsReadAgainAtOnceWhenForgottenAgain() throws Exception {
        AtomicLong clock = new AtomicLong();
        ModelCache c = forgettingCache(clock);
        c.setRetention(Duration.ofSeconds(10)); // shorter than the cool-down
        addRecord(partitionOf("back"), 0, Fixtures.model("back", 1));
        c.pollOnce(Duration.ZERO);
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        c.pollOnce(Duration.ZERO);
        assertTrue(c.forgot("back"));
        recallReaders.add(partitionHolding(partitionOf("back"), List.of())); // found nothing
        assertTrue(c.recall("back"));
        awaitRecallEnded(c, "back");
        assertFalse(c.recall("back"), "cooling down");

        addRecord(partitionOf("back"), 1, Fixtures.model("back", 2)); // its trainer writes again
        c.pollOnce(Duration.ZERO);
        assertFalse(c.forgot("back"));
        clock.addAndGet(Duration.ofSeconds(10).toNanos());
        c.pollOnce(Duration.ZERO);
        assertTrue(c.forgot("back"), "quiet again for the retention, within the cool-down of the old miss");
        recallReaders.add(partitionHolding(partitionOf("back"), List.of(entry(Fixtures.model("back", 2)))));
        assertTrue(c.recall("back"), "heard live since the miss: read again at once");
        assertEquals(2, c.await("back", 2, PATIENCE).orElseThrow().getVersion());
    }

    @Test
    void aReadAgainThatFailsCoolsDownAsOneThatFoundNothing() throws Exception {
        AtomicLong clock = new AtomicLong();
        ModelCache c = cacheThatForgot(clock, "gone", 2);
        // no reader to give: making the read's consumer fails (as a cluster that cannot be reached)

        assertTrue(c.recall("gone"));
        awaitRecallEnded(c, "gone");
        assertFalse(c.recall("gone"), "failed a moment ago");
        clock.addAndGet(ModelCache.RECALL_COOL_DOWN.toNanos());
        recallReaders.add(partitionHolding(partitionOf("gone"), List.of(entry(Fixtures.model("gone", 2)))));
        assertTrue(c.recall("gone"));
        awaitRecallEnded(c, "gone");
        assertEquals(2, c.latest("gone").orElseThrow().getVersion());
    }

    @Test
    void aSchemaRegistryOutageDuringAReadAgainIsWaitedOutAndTheRecordReadAgain() throws Exception {
        AtomicLong clock = new AtomicLong();
        AtomicInteger outagesLeft = new AtomicInteger();
        Deserializer<ModelVersion> real =
                Fixtures.TOPICS.model().valueSerde(registry).deserializer();
        Deserializer<ModelVersion> failingOnVersion3 = (topic, data) -> {
            ModelVersion model = real.deserialize(topic, data);
            if (model.getVersion() == 3 && outagesLeft.getAndDecrement() > 0) {
                throw new SchemaRegistryException("registry unreachable", new IOException("connection refused"));
            }
            return model;
        };
        ModelCache c = forgot(forgettingCache(clock, failingOnVersion3), clock, "net", 1);
        List<Map.Entry<String, byte[]>> partition = List.of(
                entry(Fixtures.model("net", 2)), entry(Fixtures.model("net", 3)), entry(Fixtures.model("net", 4)));
        recallReaders.add(partitionServedAgainAfterASeek(partitionOf("net"), partition));
        List<String> heard = new ArrayList<>();
        c.setVersionListener(m -> heard.add(m.getJob() + "@" + m.getVersion()));
        outagesLeft.set(2);

        long started = System.nanoTime();
        assertTrue(c.recall("net"));
        awaitRecallEnded(c, "net");

        assertTrue(
                System.nanoTime() - started
                        >= ModelRecall.OUTAGE_RETRY.multipliedBy(2).toNanos(),
                "a pause before each of the two tries again, not a tight loop");
        assertEquals(-1, outagesLeft.get(), "asked three times: two outages, then an answer");
        assertEquals(List.of("net@2", "net@3", "net@4"), heard, "every version once, in order");
        assertEquals(4, c.latest("net").orElseThrow().getVersion());
    }

    @Test
    void aRegistryDownForLongerThanThePatienceFailsTheReadsQueuedBehindAtOnce() throws InterruptedException {
        AtomicBoolean down = new AtomicBoolean(true);
        Deserializer<ModelVersion> real =
                Fixtures.TOPICS.model().valueSerde(registry).deserializer();
        RecordDecoder<ModelVersion> decoder = new RecordDecoder<>(
                (topic, data) -> {
                    if (down.get()) {
                        throw new SchemaRegistryException("registry unreachable", new IOException("refused"));
                    }
                    return real.deserialize(topic, data);
                },
                "model version");
        // another job's record first: passed over undecoded, it says nothing of the registry
        List<Map.Entry<String, byte[]>> partition =
                List.of(entry(Fixtures.model("other", 7)), entry(Fixtures.model("net", 2)));
        ModelRecall recall = new ModelRecall(
                () -> partitionServedAgainAfterASeek(0, partition),
                Fixtures.MODEL,
                decoder,
                Duration.ofSeconds(20),
                Duration.ofMillis(1_500));
        List<ModelVersion> found = new ArrayList<>();
        ModelRecall.Found keep = (whole, at) -> found.add(whole);

        long started = System.nanoTime();
        assertThrows(SchemaRegistryException.class, () -> recall.read(Set.of("net"), 0, keep));
        assertTrue(System.nanoTime() - started >= Duration.ofMillis(1_500).toNanos(), "waited out the patience");
        started = System.nanoTime();
        assertThrows(SchemaRegistryException.class, () -> recall.read(Set.of("net"), 0, keep));
        assertTrue(
                System.nanoTime() - started < ModelRecall.OUTAGE_RETRY.toNanos(),
                "down for longer than the patience already: no wait for the next read");

        down.set(false);
        assertEquals(1, recall.read(Set.of("net"), 0, keep), "the registry answers again");
        down.set(true);
        started = System.nanoTime();
        assertThrows(SchemaRegistryException.class, () -> recall.read(Set.of("net"), 0, keep));
        assertTrue(System.nanoTime() - started >= Duration.ofMillis(1_500).toNanos(), "a new outage: waited out again");
        assertEquals(List.of(2L), found.stream().map(ModelVersion::getVersion).toList());

        // a read that ends without giving up (none of its jobs there) ends the outage it carried
        assertEquals(0, recall.read(Set.of("ghost"), 0, keep));
        started = System.nanoTime();
        assertThrows(SchemaRegistryException.class, () -> recall.read(Set.of("net"), 0, keep));
        assertTrue(
                System.nanoTime() - started >= Duration.ofMillis(1_500).toNanos(),
                "after a read that did not give up: waited out again");
        // nor does a give-up carry over to a read that starts longer than the patience after it
        Thread.sleep(1_600);
        started = System.nanoTime();
        assertThrows(SchemaRegistryException.class, () -> recall.read(Set.of("net"), 0, keep));
        assertTrue(
                System.nanoTime() - started >= Duration.ofMillis(1_500).toNanos(),
                "long after the last give-up: waited out again");
    }

    /** Two job names on different partitions of the 2, and a third on the first's. */
    private static final String ON_P = "a";

    private static String jobOn(int partition, String not) {
        for (int i = 0; ; i++) {
            String job = "job-" + i;
            if (partitionOf(job) == partition && !job.equals(not)) {
                return job;
            }
        }
    }

    /** Forgets {@code jobs}, each read at version 1 from its own partition, after the retention. */
    private ModelCache cacheThatForgotAll(AtomicLong clock, String... jobs) {
        ModelCache c = forgettingCache(clock);
        Map<Integer, Long> offsets = new HashMap<>();
        for (String job : jobs) {
            addRecord(partitionOf(job), offsets.merge(partitionOf(job), 1L, Long::sum) - 1, Fixtures.model(job, 1));
        }
        c.pollOnce(Duration.ZERO);
        clock.addAndGet(RETENTION.toNanos());
        c.pollOnce(Duration.ZERO);
        assertEquals(0, c.jobs());
        return c;
    }

    @Test
    void jobsRecalledOnTwoPartitionsAreReadOnceEachAndFound() throws Exception {
        String a = ON_P;
        String b = jobOn(1 - partitionOf(a), a);
        ModelCache c = cacheThatForgotAll(new AtomicLong(), a, b);
        recallReaders.add(partitionHolding(partitionOf(a), List.of(entry(Fixtures.model(a, 1)))));
        recallReaders.add(partitionHolding(partitionOf(b), List.of(entry(Fixtures.model(b, 7)))));

        assertTrue(c.recall(a));
        assertTrue(c.recall(b));
        assertEquals(1, c.await(a, 1, PATIENCE).orElseThrow().getVersion());
        assertEquals(7, c.await(b, 7, PATIENCE).orElseThrow().getVersion());
        assertTrue(recallReaders.isEmpty(), "a read of each partition");
    }

    @Test
    void jobsRecalledOnOnePartitionBeforeItsReadStartsShareOneRead() throws Exception {
        String a = ON_P;
        String b = jobOn(partitionOf(a), a);
        ModelCache c = cacheThatForgotAll(new AtomicLong(), a, b);
        List<ModelVersion> aSlices = slices(networkModel(a, 4), 200);
        List<ModelVersion> bSlices = slices(networkModel(b, 6), 200);
        assertTrue(aSlices.size() > 1 && bSlices.size() > 1, "chunked versions");
        List<Map.Entry<String, byte[]>> partition = new ArrayList<>();
        for (int i = 0; i < Math.max(aSlices.size(), bSlices.size()); i++) { // the two jobs' slices interleave
            if (i < aSlices.size()) {
                partition.add(entry(aSlices.get(i)));
            }
            if (i < bSlices.size()) {
                partition.add(entry(bSlices.get(i)));
            }
        }
        CountDownLatch gate = new CountDownLatch(1);
        recallReaders.add(partitionHolding(partitionOf(a), partition, gate));
        recallReaders.add(partitionHolding(partitionOf(a), List.of())); // a second read would find nothing
        List<String> heard = new ArrayList<>();
        c.setVersionListener(m -> heard.add(m.getJob() + "@" + m.getVersion()));

        // both recalled before the read takes its jobs, which it does under the cache's lock (the
        // read's thread could otherwise take a alone between the two calls, and b go to a second read)
        synchronized (c) {
            assertTrue(c.recall(a));
            assertTrue(c.recall(b));
        }
        gate.countDown();
        awaitRecallEnded(c, a);
        awaitRecallEnded(c, b);

        assertWhole(networkModel(a, 4), c.latest(a).orElseThrow());
        assertWhole(networkModel(b, 6), c.latest(b).orElseThrow());
        assertEquals(Set.of(a + "@4", b + "@6"), Set.copyOf(heard));
        assertEquals(1, recallReaders.size(), "one read for both");
    }

    @Test
    void aJobRecalledWhileItsPartitionIsReadGetsARead() throws Exception {
        String a = ON_P;
        String b = jobOn(partitionOf(a), a);
        ModelCache c = cacheThatForgotAll(new AtomicLong(), a, b);
        CountDownLatch gate = new CountDownLatch(1);
        recallReaders.add(partitionHolding(partitionOf(a), List.of(entry(Fixtures.model(a, 1))), gate));
        recallReaders.add(partitionHolding(partitionOf(a), List.of(entry(Fixtures.model(b, 3)))));

        assertTrue(c.recall(a));
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (recallReaders.size() == 2) { // a's read took its consumer: it is under way
            assertTrue(System.nanoTime() < deadline, "the read of " + a + " did not start");
            Thread.sleep(1);
        }
        assertTrue(c.recall(b), "recalled while a read of its partition is under way");
        gate.countDown();

        assertEquals(1, c.await(a, 1, PATIENCE).orElseThrow().getVersion());
        assertEquals(3, c.await(b, 3, PATIENCE).orElseThrow().getVersion(), "read by a read of its own");
    }

    @Test
    void aSharedReadThatFindsOneJobOnlyCoolsDownTheOther() throws Exception {
        String a = ON_P;
        String b = jobOn(partitionOf(a), a);
        AtomicLong clock = new AtomicLong();
        ModelCache c = cacheThatForgotAll(clock, a, b);
        CountDownLatch gate = new CountDownLatch(1);
        recallReaders.add(partitionHolding(partitionOf(a), List.of(entry(Fixtures.model(a, 2))), gate));

        assertTrue(c.recall(a));
        assertTrue(c.recall(b));
        gate.countDown();
        awaitRecallEnded(c, a);
        awaitRecallEnded(c, b);

        assertEquals(2, c.latest(a).orElseThrow().getVersion());
        assertTrue(c.latest(b).isEmpty());
        assertFalse(c.recall(b), "found nothing of it a moment ago");
        clock.addAndGet(ModelCache.RECALL_COOL_DOWN.toNanos());
        recallReaders.add(partitionHolding(partitionOf(b), List.of(entry(Fixtures.model(b, 5)))));
        assertTrue(c.recall(b));
        assertEquals(5, c.await(b, 5, PATIENCE).orElseThrow().getVersion());
    }

    @Test
    void aJobIsReadAgainFromThePartitionItWasHeardOnAndWhileItIsNothingElseIsStarted() throws Exception {
        AtomicLong clock = new AtomicLong();
        ModelCache c = forgettingCache(clock);
        int heardOn = 1 - partitionOf("moved"); // e.g. written before the topic grew
        addRecord(heardOn, 0, Fixtures.model("moved", 5));
        c.pollOnce(Duration.ZERO);
        clock.addAndGet(RETENTION.multipliedBy(30).toNanos()); // long ago: still known
        c.pollOnce(Duration.ZERO);
        assertTrue(c.latest("moved").isEmpty());
        assertFalse(c.readingAgain("moved"), "asking starts nothing");
        CountDownLatch gate = new CountDownLatch(1);
        recallReaders.add(partitionHolding(heardOn, List.of(entry(Fixtures.model("moved", 5))), gate));

        assertTrue(c.recall("moved"));
        assertTrue(c.readingAgain("moved"));
        gate.countDown();
        assertEquals(5, c.await("moved", 5, PATIENCE).orElseThrow().getVersion());
        awaitRecallEnded(c, "moved");
        assertFalse(c.readingAgain("moved"));
    }

    @Test
    void closingTheCacheStopsAReadUnderWay() throws Exception {
        AtomicLong clock = new AtomicLong();
        ModelCache c = cacheThatForgot(clock, "slow", 2);
        recallReaders.add(partitionHolding(
                partitionOf("slow"), List.of(entry(Fixtures.model("slow", 2))), new CountDownLatch(1)));
        assertTrue(c.recall("slow")); // its read waits for a gate that never opens

        c.close();
        assertFalse(c.readingAgain("slow"), "the read ended with the close");
        assertFalse(c.recall("slow"), "nothing more after the close");
    }

    @Test
    void aReadQueuedBehindAnotherIsDroppedByTheCloseAndNoLongerSaidToBeUnderWay() throws Exception {
        String a = ON_P;
        String b = jobOn(1 - partitionOf(a), a);
        ModelCache c = cacheThatForgotAll(new AtomicLong(), a, b);
        recallReaders.add(partitionHolding(partitionOf(a), List.of(), new CountDownLatch(1))); // never opens
        assertTrue(c.recall(a));
        assertTrue(c.recall(b)); // queued behind a's read, on the one thread of the reads

        c.close();
        assertFalse(c.readingAgain(b), "its read was dropped: its assignments are not kept waiting for it");
        assertFalse(c.readingAgain(a));
    }

    @Test
    void aForgottenJobReadLiveAgainIsNoLongerForgotten() {
        AtomicLong clock = new AtomicLong();
        ModelCache c = cacheThatForgot(clock, "back", 2);
        addRecord(partitionOf("back"), 1, Fixtures.model("back", 3)); // its trainer goes on
        c.pollOnce(Duration.ZERO);

        assertEquals(3, c.latest("back").orElseThrow().getVersion());
        assertFalse(c.recall("back"), "nothing to read again");
    }

    @Test
    void aCacheThatCannotReadAgainForgetsNothing() {
        AtomicLong clock = new AtomicLong();
        ModelCache c = new ModelCache(
                consumer,
                null,
                Fixtures.MODEL,
                Fixtures.TOPICS.model().valueSerde(registry).deserializer(),
                deadLetters::add,
                Clock.systemUTC(),
                new ModelAssembler(ModelCache.MAX_MODEL_BYTES, ModelCache.MAX_INCOMPLETE),
                clock::get);
        c.setRetention(RETENTION);
        giveModelPartitions(consumer, 1);
        c.pollOnce(Duration.ZERO);
        addRecord(0, 0, Fixtures.model("kept", 1));
        c.pollOnce(Duration.ZERO);
        clock.addAndGet(RETENTION.multipliedBy(3).toNanos());
        c.pollOnce(Duration.ZERO);

        assertEquals(1, c.latest("kept").orElseThrow().getVersion());
    }

    @Test
    void theRetentionMustBePositive() {
        assertThrows(IllegalArgumentException.class, () -> cache.setRetention(Duration.ZERO));
    }

    // ---- chunked model versions ----------------------------------------------------------

    private static final NetworkSpec NET = NetworkSpec.parse("mlp:3,in=20,classes=4");
    private static final TaskSpec TASK = Fixtures.taskSpec(NET, "synthetic", 100, 8, 8, 1);

    /** Version {@code version} of network job {@code job}: the whole record. */
    private static ModelVersion networkModel(String job, long version) {
        return Fixtures.networkModel(job, version, TASK, NET.initialParameters(version));
    }

    /** {@code whole} cut into slices of {@code chunkBytes}, as a trainer publishes it; the TaskSpec on slice 0 only. */
    private static List<ModelVersion> slices(ModelVersion whole, int chunkBytes) {
        byte[] bytes = bytesOf(whole.getParameters());
        int chunks = Chunks.count(bytes.length, chunkBytes);
        List<ModelVersion> slices = new ArrayList<>();
        for (int i = 0; i < chunks; i++) {
            slices.add(ModelVersion.newBuilder(whole)
                    .setParameters(Chunks.slice(bytes, i, chunkBytes))
                    .setChunk(i)
                    .setChunks(chunks)
                    .setTask(i == 0 ? whole.getTask() : null)
                    .build());
        }
        return slices;
    }

    private static byte[] bytesOf(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private void acceptSlice(long offset, ModelVersion slice) {
        accept(
                offset,
                Chunks.key(slice.getJob(), slice.getChunk(), slice.getChunks()),
                Fixtures.bytes(registry, slice));
    }

    private void assertWhole(ModelVersion expected, ModelVersion actual) {
        assertEquals(expected.getVersion(), actual.getVersion());
        assertEquals(expected.getParameters(), actual.getParameters());
        assertEquals(0, actual.getChunk());
        assertEquals(1, actual.getChunks());
        assertEquals(expected.getTask(), actual.getTask());
        assertEquals(expected.getEncoding(), actual.getEncoding());
    }

    @Test
    void aChunkedVersionIsUsableOnlyOnceAllItsSlicesArrived() {
        ModelVersion whole = networkModel("net", 4); // 79 float32 parameters: 316 bytes
        List<ModelVersion> slices = slices(whole, 120);
        assertEquals(3, slices.size());
        accept(0, networkModel("net", 3)); // the version before, in one record

        acceptSlice(1, slices.get(0));
        acceptSlice(2, slices.get(1));
        assertEquals(3, latestVersion("net"), "version 4 is not usable yet");

        acceptSlice(3, slices.get(2));
        assertWhole(whole, cache.latest("net").orElseThrow());
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void slicesOfSeveralJobsInterleave() {
        ModelVersion a = networkModel("a", 1);
        ModelVersion b = networkModel("b", 7);
        List<ModelVersion> as = slices(a, 100);
        List<ModelVersion> bs = slices(b, 200);
        long offset = 0;
        acceptSlice(offset++, as.get(0));
        acceptSlice(offset++, bs.get(0));
        acceptSlice(offset++, as.get(1));
        accept(offset++, Fixtures.model("quadratic", 2)); // an unchunked job in between
        acceptSlice(offset++, as.get(2));
        assertTrue(cache.latest("b").isEmpty());
        acceptSlice(offset++, as.get(3));
        acceptSlice(offset, bs.get(1));

        assertWhole(a, cache.latest("a").orElseThrow());
        assertWhole(b, cache.latest("b").orElseThrow());
        assertEquals(2, latestVersion("quadratic"));
        assertTrue(deadLetters.isEmpty());
    }

    @Test
    void aDuplicateSliceIsRefusedAndItsVersionDropped() {
        List<ModelVersion> slices = slices(networkModel("net", 2), 120);
        acceptSlice(0, slices.get(0));
        acceptSlice(1, slices.get(0));
        acceptSlice(2, slices.get(1));
        acceptSlice(3, slices.get(2));

        assertEquals(1, deadLetters.size());
        DeadLetter letter = deadLetters.get(0);
        assertEquals(1, letter.getOffset());
        assertEquals(ByteBuffer.wrap(Fixtures.utf8("net#0")), letter.getKey());
        assertEquals("model of job net version 2, chunk 0 of 3: chunk 0 of 3 arrived twice", letter.getReason());
        assertTrue(cache.latest("net").isEmpty(), "a version missing its first slice is never usable");
    }

    @Test
    void aNewerVersionDropsTheIncompleteOlderOne() {
        List<ModelVersion> older = slices(networkModel("net", 1), 120);
        ModelVersion newer = networkModel("net", 2);
        acceptSlice(0, older.get(1)); // e.g. left over by compaction
        long offset = 1;
        for (ModelVersion slice : slices(newer, 120)) {
            acceptSlice(offset++, slice);
        }
        // read after the newer version: a partition keeps the trainer's order, so these are
        // forged or foreign, and refused
        acceptSlice(offset++, older.get(0));
        acceptSlice(offset, older.get(2));

        assertWhole(newer, cache.latest("net").orElseThrow());
        assertEquals(2, deadLetters.size());
        assertReason(deadLetters.get(0), "goes backwards");
    }

    @Test
    void memoryIsBoundedPerVersionAndInVersionsOpen() {
        ModelCache small = new ModelCache(
                consumer,
                null,
                Fixtures.MODEL,
                Fixtures.TOPICS.model().valueSerde(registry).deserializer(),
                deadLetters::add,
                Clock.systemUTC(),
                new ModelAssembler(400, 1), // versions of 400 bytes at most, one incomplete at a time
                System::nanoTime);
        NetworkSpec larger = NetworkSpec.parse("mlp:5,in=20,classes=4"); // 129 parameters: 516 bytes
        List<ModelVersion> big = slices(
                Fixtures.networkModel(
                        "big", 1, Fixtures.taskSpec(larger, "synthetic", 100, 8, 8, 1), larger.initialParameters(1)),
                200);
        long[] offset = {0};
        java.util.function.Consumer<ModelVersion> read = slice -> small.accept(MockClients.consumerRecord(
                Fixtures.MODEL,
                0,
                offset[0]++,
                Chunks.key(slice.getJob(), slice.getChunk(), slice.getChunks()),
                Fixtures.bytes(registry, slice)));

        read.accept(big.get(0));
        read.accept(slices(networkModel("net", 1), 200).get(0)); // a second incomplete version: refused
        read.accept(big.get(1));
        read.accept(big.get(2)); // 516 bytes: refused, and big's version dropped
        slices(networkModel("net", 2), 200).forEach(read); // room again

        assertTrue(small.latest("big").isEmpty());
        assertWhole(networkModel("net", 2), small.latest("net").orElseThrow());
        assertEquals(2, deadLetters.size(), deadLetters.toString());
        assertEquals(
                "model of job net version 1, chunk 0 of 2: more than 1 chunked payloads are incomplete at once",
                deadLetters.get(0).getReason());
        assertEquals(
                "model of job big version 1, chunk 2 of 3: payload of 516 bytes or more is larger than the 400"
                        + " allowed",
                deadLetters.get(1).getReason());
    }

    @Test
    void aSliceMustBeKeyedJobHashChunk() {
        List<ModelVersion> slices = slices(networkModel("net", 1), 120);
        accept(0, "net", Fixtures.bytes(registry, slices.get(0)));
        accept(
                1,
                "net#1",
                Fixtures.bytes(
                        registry,
                        ModelVersion.newBuilder(slices.get(1)).setChunk(3).build()));

        assertEquals(2, deadLetters.size());
        assertEquals(
                "model of job net under key 'net' (the key must be 'net#0')",
                deadLetters.get(0).getReason());
        assertEquals(
                "model of job net version 1: chunk 3 of 3 is out of range",
                deadLetters.get(1).getReason());
    }
}
