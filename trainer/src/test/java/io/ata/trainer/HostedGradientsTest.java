package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.Topics;
import io.ata.testsupport.MockClients;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.WakeupException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A trainer host's reader and its jobs' shares of it, on Kafka's mock consumers: which records a
 * job gets, from where, and again after a rewind.
 */
class HostedGradientsTest {
    private static final Duration POLL = Duration.ofMillis(50);
    private static final int PARTITIONS = 2;
    /** Where the topic ends when the host starts: the host reads from there. */
    private static final long END = 10;

    private final Topics topics = new Topics("h.");
    private final String topic = topics.gradients().name();
    private final TopicPartition p0 = new TopicPartition(topic, 0);
    private final TopicPartition p1 = new TopicPartition(topic, 1);
    private final MockConsumer<byte[], byte[]> hostConsumer = new MockConsumer<>("earliest");
    /** Per job's group: its committed offsets, as the catch-up's consumer reads them. */
    private final Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = new ConcurrentHashMap<>();
    /** Per job's group: the records on the topic before the host's start, which a catch-up may read. */
    private final List<ConsumerRecord<byte[], byte[]>> before = new ArrayList<>();
    /** The catch-ups' consumers, in order. */
    private final List<MockConsumer<byte[], byte[]>> catchUps = new ArrayList<>();

    private final SharedGradientsReader reader;
    private final Thread readerThread;

    HostedGradientsTest() {
        List<PartitionInfo> infos = List.of(partition(0), partition(1));
        hostConsumer.updatePartitions(topic, infos);
        hostConsumer.updateEndOffsets(Map.of(p0, END, p1, END));
        reader = new SharedGradientsReader(hostConsumer, topic, Duration.ofSeconds(10));
        readerThread = new Thread(reader, "host-reader");
        readerThread.start();
    }

    @AfterEach
    void stopReader() throws InterruptedException {
        reader.stop();
        readerThread.join(10_000);
    }

    private PartitionInfo partition(int p) {
        return new PartitionInfo(topic, p, Node.noNode(), new Node[0], new Node[0]);
    }

    /** Hands out catch-up consumers that know the jobs' committed offsets and the records before the host's start. */
    private final KafkaClientFactory clients = new KafkaClientFactory() {
        @Override
        public Producer<String, byte[]> producer(Map<String, Object> config) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
            String group = (String) config.get(ConsumerConfig.GROUP_ID_CONFIG);
            MockConsumer<byte[], byte[]> c = new MockConsumer<>("earliest") {
                @Override
                public synchronized Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
                    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                    committed.getOrDefault(group, Map.of()).forEach((tp, o) -> {
                        if (partitions.contains(tp)) {
                            offsets.put(tp, o);
                        }
                    });
                    return offsets;
                }
            };
            c.updatePartitions(topic, List.of(partition(0), partition(1)));
            c.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
            c.updateEndOffsets(Map.of(p0, END, p1, END));
            // at its first poll, the records it was seeked to: what Kafka holds from there on
            c.schedulePollTask(() -> {
                for (ConsumerRecord<byte[], byte[]> r : before) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (c.assignment().contains(tp) && r.offset() >= c.position(tp)) {
                        c.addRecord(r);
                    }
                }
            });
            synchronized (catchUps) {
                catchUps.add(c);
            }
            return c;
        }
    };

    private TrainerConfig config(String job) {
        return TrainerConfig.builder()
                .bootstrapServers("mock:9092")
                .topicPrefix("h.")
                .job(job)
                .batch(2)
                .objective(SquaredNorm.INSTANCE)
                .build();
    }

    private HostedGradients attach(String job, long committedOn0, long committedOn1) {
        TrainerConfig config = config(job);
        committed.put(
                config.groupId(),
                Map.of(p0, new OffsetAndMetadata(committedOn0), p1, new OffsetAndMetadata(committedOn1)));
        return new HostedGradients(config, clients, reader);
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, String key) {
        return MockClients.consumerRecord(tp.topic(), tp.partition(), offset, key, new byte[] {1});
    }

    /** What the host reads next: added to its consumer while its thread polls. */
    private void arrive(ConsumerRecord<byte[], byte[]> r) {
        hostConsumer.schedulePollTask(() -> hostConsumer.addRecord(r));
    }

    /** Polls {@code source} until it returned {@code count} records (or a few seconds passed). */
    private static List<String> pollFor(HostedGradients source, int count) {
        List<String> got = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (got.size() < count && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : source.poll(POLL)) {
                got.add(describe(r));
            }
        }
        return got;
    }

    private static String describe(ConsumerRecord<byte[], byte[]> r) {
        return (r.key() == null ? "-" : new String(r.key(), StandardCharsets.UTF_8)) + "@" + r.partition() + ":"
                + r.offset();
    }

    @Test
    void eachRecordGoesToTheJobItsKeyNamesAnUnkeyedOneToEveryJob() {
        HostedGradients a = attach("a", END, END);
        HostedGradients b = attach("b", END, END);
        a.start(leaving -> {});
        b.start(leaving -> {});
        arrive(record(p0, 10, "a"));
        arrive(record(p1, 10, "b"));
        arrive(record(p0, 11, "elsewhere"));
        arrive(record(p0, 12, null));
        assertEquals(List.of("a@0:10", "-@0:12"), pollFor(a, 2));
        assertEquals(List.of("b@1:10", "-@0:12"), pollFor(b, 2));
        assertEquals(1, reader.unrouted(), "the record of a job not here is dropped");
        assertTrue(catchUps.size() == 2 && catchUps.stream().allMatch(MockConsumer::closed), "no catch-up needed");
    }

    @Test
    void aJobBehindTheReaderReadsTheGapItselfThenWhatIsHanded() {
        before.add(record(p0, 3, "a")); // before its committed offset: a closed round's
        before.add(record(p0, 4, "a"));
        before.add(record(p0, 5, "b"));
        before.add(record(p0, 6, null));
        before.add(record(p0, 9, "a"));
        HostedGradients a = attach("a", 4, END);
        a.start(leaving -> {});
        arrive(record(p0, 10, "a"));
        arrive(record(p1, 10, "a"));
        assertEquals(List.of("a@0:4", "-@0:6", "a@0:9", "a@0:10", "a@1:10"), pollFor(a, 5));
        MockConsumer<byte[], byte[]> catchUp = catchUps.get(catchUps.size() - 1);
        assertEquals(Set.of(p0), catchUp.assignment(), "the catch-up read p0 only: p1 was not behind");
        assertTrue(catchUp.closed());
    }

    @Test
    void aRewindReadsTheOpenRoundAgainFromTheCommittedOffsets() {
        HostedGradients a = attach("a", END, END);
        a.start(leaving -> {});
        arrive(record(p0, 10, "a"));
        arrive(record(p0, 11, "a"));
        assertEquals(List.of("a@0:10", "a@0:11"), pollFor(a, 2));
        // the round's transaction failed: nothing committed, read from offset 10 again
        before.add(record(p0, 10, "a"));
        before.add(record(p0, 11, "a"));
        a.rewindToCommitted(a.assignment());
        arrive(record(p0, 12, "a"));
        assertEquals(List.of("a@0:10", "a@0:11", "a@0:12"), pollFor(a, 3));
    }

    @Test
    void aTopicCreatedAfterTheHostStartedIsReadFromItsStartAndAnErrorRewindsItsPartitionsToo()
            throws InterruptedException {
        MockConsumer<byte[], byte[]> noTopicYet = new MockConsumer<>("earliest");
        SharedGradientsReader late = new SharedGradientsReader(noTopicYet, topic, Duration.ofSeconds(10));
        Thread thread = new Thread(late, "late-reader");
        thread.start();
        try {
            HostedGradients a = new HostedGradients(config("a"), clients, late); // attaches without the topic
            a.start(leaving -> {});
            assertEquals(Set.of(), a.assignment());

            noTopicYet.updatePartitions(topic, List.of(partition(0), partition(1)));
            noTopicYet.updateBeginningOffsets(Map.of(p0, 0L, p1, 0L));
            await(() -> noTopicYet.assignment().size() == 2);
            noTopicYet.schedulePollTask(() -> noTopicYet.addRecord(record(p0, 0, "a")));
            assertEquals(List.of("a@0:0"), pollFor(a, 1), "read from the start, as a group member would");
            assertEquals(Set.of(p0), a.assignment(), "an error rewinds the partition found since");
        } finally {
            late.stop();
            thread.join(10_000);
        }
    }

    @Test
    void recordsBeforeTheCommittedOffsetsAreDroppedWhereTheJobIsAheadOfTheReader() {
        HostedGradients a = attach("a", 12, END); // a new job: its offsets the topic's end, past the reader
        a.start(leaving -> {});
        arrive(record(p0, 10, "a"));
        arrive(record(p0, 11, "a"));
        arrive(record(p0, 12, "a"));
        assertEquals(List.of("a@0:12"), pollFor(a, 1));
        assertEquals(List.of(), a.poll(POLL));
    }

    @Test
    void aWakeUpMakesOnePollThrow() {
        HostedGradients a = attach("a", END, END);
        a.start(leaving -> {});
        a.wakeup();
        assertThrows(WakeupException.class, () -> a.poll(Duration.ofSeconds(10)));
        assertEquals(List.of(), a.poll(POLL), "the next poll does not throw");
    }

    @Test
    void aJobClosedIsHandedNothingMore() {
        HostedGradients a = attach("a", END, END);
        a.start(leaving -> {});
        assertEquals(1, reader.jobs());
        a.close(false);
        assertEquals(0, reader.jobs());
        arrive(record(p0, 10, "a"));
        await(() -> reader.unrouted() == 1);
    }

    @Test
    void theReaderFailingForGoodStopsItsJobs() {
        HostedGradients a = attach("a", END, END);
        a.start(leaving -> {});
        TopicAuthorizationException denied = new TopicAuthorizationException(Set.of(topic));
        hostConsumer.setPollException(denied);
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        RuntimeException thrown = null;
        while (thrown == null && System.nanoTime() < deadline) {
            try {
                a.poll(POLL);
            } catch (RuntimeException e) {
                thrown = e;
            }
        }
        assertSame(denied, thrown);
    }

    @Test
    void aNewerTrainerOfTheJobStopsTheOlderOne() {
        HostedGradients older = attach("a", END, END);
        older.start(leaving -> {});
        HostedGradients newer = attach("a", END, END);
        newer.start(leaving -> {});
        IllegalStateException stopped = assertThrows(IllegalStateException.class, () -> older.poll(POLL));
        assertTrue(stopped.getMessage().contains("another trainer of job a"), stopped.getMessage());
        assertThrows(IllegalStateException.class, () -> older.rewindToCommitted(older.assignment()));
        older.close(true); // leaves the newer one attached
        arrive(record(p0, 10, "a"));
        assertEquals(List.of("a@0:10"), pollFor(newer, 1));
    }

    @Test
    void aStoppedReaderStopsItsJobsAndRefusesNewOnes() throws Exception {
        HostedGradients a = attach("a", END, END);
        a.start(leaving -> {});
        reader.stop();
        readerThread.join(10_000);
        assertThrows(IllegalStateException.class, () -> a.poll(POLL));
        assertThrows(IllegalStateException.class, () -> attach("b", END, END));
    }

    private static void await(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out");
            Thread.onSpinWait();
        }
    }
}
