package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.testsupport.MockClients;
import io.ata.testsupport.Records;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A trainer host's one reader of allocations for all its jobs' watches, against Kafka's mock consumers. */
class SharedAllocationsReaderTest extends MockKafkaTrainerTest {
    private static final int PARTITIONS = 4;
    private static final String TASK = JOB + "/1/0";

    private final String allocations = topics.allocations().name();
    private final int mine = Topics.partitionOfJob(JOB, PARTITIONS);
    private final TopicPartition partition = new TopicPartition(allocations, mine);
    /** Another job of the same partition. */
    private final String neighbour = IntStream.range(0, 1000)
            .mapToObj(i -> "other-" + i)
            .filter(j -> Topics.partitionOfJob(j, PARTITIONS) == mine)
            .findFirst()
            .orElseThrow();

    /** Answers every look-up by time with none: partitions added are read from their end. */
    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("latest") {
        @Override
        public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                Map<TopicPartition, Long> timestamps) {
            Map<TopicPartition, OffsetAndTimestamp> none = new HashMap<>();
            timestamps.keySet().forEach(tp -> none.put(tp, null));
            return none;
        }
    };
    /** Answers every look-up by time with offset 0: a job joining reads its partition from the start. */
    private final MockConsumer<byte[], byte[]> catchUpConsumer = new MockConsumer<>("latest") {
        @Override
        public synchronized Map<TopicPartition, OffsetAndTimestamp> offsetsForTimes(
                Map<TopicPartition, Long> timestamps) {
            if (failingLookUps.getAndDecrement() > 0) {
                throw new TimeoutException("the look-up timed out");
            }
            Map<TopicPartition, OffsetAndTimestamp> fromStart = new HashMap<>();
            timestamps.keySet().forEach(tp -> fromStart.put(tp, lookBack ? new OffsetAndTimestamp(0, 0) : null));
            return fromStart;
        }
    };

    private final MockProducer<String, byte[]> producer = MockClients.producer();
    private final AllocationsFixture fixture = new AllocationsFixture(topics, registry);
    /** Looks for partitions added every 50 ms. */
    private final SharedAllocationsReader reader =
            new SharedAllocationsReader(consumer, catchUpConsumer, allocations, 50);

    private final Thread thread = new Thread(reader, "allocations-reader");
    /** Look-ups by time that fail before one succeeds. */
    private final AtomicInteger failingLookUps = new AtomicInteger();
    /** Whether the partition has records in the jobs' look-back window. */
    private volatile boolean lookBack = true;

    SharedAllocationsReaderTest() {
        super("a.");
        fixture.withPartitions(consumer, PARTITIONS);
        fixture.withPartitions(catchUpConsumer, PARTITIONS);
    }

    @AfterEach
    void stopReader() throws InterruptedException {
        reader.stop();
        thread.join(10_000);
    }

    @Test
    void aJobJoiningReadsWhatCameBeforeItThenWhatTheReaderKeptForItInOrder() {
        // two assignments of the open round before the reader started, one more as it reads
        consumer.updateEndOffsets(Map.of(partition, 2L));
        catchUpConsumer.schedulePollTask(() -> {
            catchUpConsumer.addRecord(record(0, JOB, assignment(JOB, "w1")));
            catchUpConsumer.addRecord(record(1, JOB, assignment(JOB, "w2")));
        });
        consumer.schedulePollTask(() -> consumer.addRecord(record(2, JOB, assignment(JOB, "w3"))));
        RoundAssignments assignments = roundOne();
        reader.attach(watch(JOB, assignments), 0);
        thread.start();

        await(() -> assignments.holdersOf(TASK).size() == 3, "three assignments read");
        assertEquals(List.of("w1", "w2", "w3"), assignments.holdersOf(TASK), "in the order made");
    }

    @Test
    void aJobWhoseTakingInFailedIsTakenInOnTheNextTry() {
        failingLookUps.set(1);
        consumer.updateEndOffsets(Map.of(partition, 1L));
        catchUpConsumer.schedulePollTask(() -> catchUpConsumer.addRecord(record(0, JOB, assignment(JOB, "w1"))));
        RoundAssignments assignments = roundOne();
        reader.attach(watch(JOB, assignments), 0);
        thread.start();

        await(() -> failingLookUps.get() < 0, "the look-up failed, then was tried again");
        await(() -> assignments.holdersOf(TASK).equals(List.of("w1")), "the job caught up all the same");
        consumer.addRecord(record(1, JOB, assignment(JOB, "w2")));
        await(() -> assignments.holdersOf(TASK).size() == 2, "and is handed what the reader reads");
    }

    @Test
    void aCatchUpRequestIsAnsweredOnlyOnceTheReaderPassedTheEndOffsetsAtTheRequest() throws Exception {
        lookBack = false;
        RoundAssignments assignments = roundOne();
        reader.attach(watch(JOB, assignments), 0);
        thread.start();
        await(() -> consumer.assignment().contains(partition), "reading");

        consumer.updateEndOffsets(Map.of(partition, 1L)); // an assignment committed, not yet read
        long readNanos = System.nanoTime();
        assignments.requestCatchUp(readNanos);
        Thread.sleep(200); // the reader looks at requests every 20 ms at most
        assertEquals(
                RoundAssignments.Ownership.UNKNOWN,
                assignments.ownership(TASK, "w9", readNanos),
                "not answered before the reader read up to the end offset");

        consumer.addRecord(record(0, JOB, assignment(JOB, "w1")));
        await(
                () -> assignments.ownership(TASK, "w9", readNanos) == RoundAssignments.Ownership.NOT_ASSIGNED,
                "answered: every assignment made before the request is known");
        assertEquals(RoundAssignments.Ownership.ASSIGNED, assignments.ownership(TASK, "w1", readNanos));
    }

    @Test
    void recordsOfNoJobOfThePartitionAreDeadLetteredByEachJobThereAndAStoppedJobDoesNothing() {
        lookBack = false;
        RoundAssignments ours = roundOne();
        RoundAssignments theirs = new RoundAssignments(neighbour);
        theirs.roundOpened(1, System.currentTimeMillis());
        RoundWatch ourWatch = reader.attach(watch(JOB, ours), 0);
        reader.attach(watch(neighbour, theirs), 0);
        thread.start();
        await(() -> consumer.assignment().contains(partition), "reading");

        consumer.addRecord(record(0, neighbour, assignment(neighbour, "w1")));
        consumer.addRecord(record(1, null, assignment(JOB, "w2"))); // no key: whose is it?
        await(() -> letters().size() == 2, "a dead letter from each job of the partition");
        assertTrue(ours.holdersOf(TASK).isEmpty(), "the neighbour's assignment is not ours, nor the keyless one");
        assertEquals(List.of("w1"), theirs.holdersOf(neighbour + "/1/0"));

        ourWatch.stop();
        consumer.addRecord(record(2, null, new byte[] {1, 2, 3}));
        consumer.addRecord(record(3, JOB, assignment(JOB, "w3")));
        await(() -> letters().size() == 3, "the neighbour's dead letter");
        assertEquals(
                List.of(1L, 1L, 2L),
                letters().stream().map(DeadLetter::getOffset).toList());
        assertTrue(ours.holdersOf(TASK).isEmpty(), "a stopped job is handed nothing");
    }

    @Test
    void aJobWhoseActionFailsHarmsNoOtherJobNorItsOwnNextRecords() {
        lookBack = false;
        RoundAssignments ours = roundOne();
        RoundAssignments theirs = new RoundAssignments(neighbour);
        theirs.roundOpened(1, System.currentTimeMillis());
        MockProducer<String, byte[]> broken = new MockProducer<>() {
            @Override
            public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                    org.apache.kafka.clients.producer.ProducerRecord<String, byte[]> record) {
                throw new IllegalStateException("cannot send");
            }
        };
        reader.attach(watch(JOB, ours, broken), 0);
        reader.attach(watch(neighbour, theirs), 0);
        thread.start();
        await(() -> consumer.assignment().contains(partition), "reading");

        consumer.addRecord(record(0, null, new byte[] {1, 2, 3})); // each job of the partition dead-letters it
        consumer.addRecord(record(1, JOB, assignment(JOB, "w1")));
        consumer.addRecord(record(2, neighbour, assignment(neighbour, "w2")));
        await(() -> ours.holdersOf(TASK).equals(List.of("w1")), "our next record read");
        await(() -> theirs.holdersOf(neighbour + "/1/0").equals(List.of("w2")), "the neighbour's read");
        assertEquals(List.of(0L), letters().stream().map(DeadLetter::getOffset).toList(), "the neighbour's letter");
    }

    @Test
    void aJobMovedByAddedPartitionsTakesItsRecordsFromItsPartitionBeforeAndItsCatchUpsWaitForBoth() throws Exception {
        lookBack = false;
        // jobs of our partition under 4 partitions: two that 8 partitions move elsewhere, one they leave
        List<String> moving = jobsOf(mine, j -> Topics.partitionOfJob(j, 2 * PARTITIONS) != mine, 2);
        String mover = moving.get(0);
        String stranger = moving.get(1); // not here: another host's job
        String stayer = jobsOf(mine, j -> Topics.partitionOfJob(j, 2 * PARTITIONS) == mine, 1)
                .get(0);
        RoundAssignments moved = new RoundAssignments(mover);
        moved.roundOpened(1, System.currentTimeMillis());
        RoundAssignments stays = new RoundAssignments(stayer);
        stays.roundOpened(1, System.currentTimeMillis());
        reader.attach(watch(mover, moved), 0);
        reader.attach(watch(stayer, stays), 0);
        thread.start();
        await(() -> consumer.assignment().contains(partition), "reading");

        fixture.withPartitions(consumer, 2 * PARTITIONS); // an operator added partitions
        await(() -> consumer.assignment().size() == 2 * PARTITIONS, "the partitions added are read");
        // the broker's producer has not seen them yet: it still writes the mover's records to its partition before
        consumer.addRecord(record(0, mover, assignment(mover, "w1")));
        consumer.addRecord(record(1, stranger, assignment(stranger, "w2")));
        consumer.addRecord(record(2, null, assignment(stayer, "w3"))); // no key: whose is it?
        await(() -> moved.holdersOf(mover + "/1/0").equals(List.of("w1")), "the moved job's record taken");
        await(() -> !letters().isEmpty(), "the keyless record dead-lettered");
        Thread.sleep(100);
        assertEquals(
                List.of(2L),
                letters().stream().map(DeadLetter::getOffset).toList(),
                "the keyless record only: the moved stranger's is its own trainer's");

        // an assignment of the mover committed on its partition before, not read yet
        consumer.updateEndOffsets(Map.of(partition, 4L));
        long readNanos = System.nanoTime();
        moved.requestCatchUp(readNanos);
        Thread.sleep(200); // the reader looks at requests every 20 ms at most
        assertEquals(
                RoundAssignments.Ownership.UNKNOWN,
                moved.ownership(mover + "/1/0", "w9", readNanos),
                "not answered before the reader read its partition before up to its end too");
        consumer.addRecord(record(3, mover, assignment(mover, "w4")));
        await(
                () -> moved.ownership(mover + "/1/0", "w9", readNanos) == RoundAssignments.Ownership.NOT_ASSIGNED,
                "answered once both partitions were read up to their ends");
        assertEquals(List.of("w1", "w4"), moved.holdersOf(mover + "/1/0"));
    }

    /** {@code count} job names of {@code partition} (of {@link #PARTITIONS}) that pass {@code test}. */
    private static List<String> jobsOf(int partition, java.util.function.Predicate<String> test, int count) {
        return IntStream.range(0, 10_000)
                .mapToObj(i -> "job-" + i)
                .filter(j -> Topics.partitionOfJob(j, PARTITIONS) == partition && test.test(j))
                .limit(count)
                .toList();
    }

    @Test
    void anOverdueAssignmentIsReportedWithTheHostsProducer() {
        lookBack = false;
        RoundAssignments assignments = roundOne();
        reader.attach(watch(JOB, assignments), 0);
        thread.start();
        await(() -> consumer.assignment().contains(partition), "reading");

        TaskAssignment due = Records.assignment(JOB, 1, "w1", 0)
                .setTaskIds(List.of(TASK))
                .setBatch(1)
                .setCreatedMs(0)
                .setDeadlineMs(20)
                .setBackupOf("")
                .build();
        consumer.addRecord(record(0, JOB, bytes(due)));
        await(() -> !events(RoundEventType.OVERDUE).isEmpty(), "an OVERDUE event");
        RoundEvent overdue = events(RoundEventType.OVERDUE).get(0);
        assertEquals(JOB, overdue.getJob());
        assertEquals(1, overdue.getRound());
        assertEquals("w1", overdue.getTimings().get(0).getWorkerId());
    }

    private RoundAssignments roundOne() {
        RoundAssignments assignments = new RoundAssignments(JOB);
        assignments.roundOpened(1, System.currentTimeMillis());
        return assignments;
    }

    private JobWatch watch(String job, RoundAssignments assignments) {
        return watch(job, assignments, producer);
    }

    private JobWatch watch(String job, RoundAssignments assignments, MockProducer<String, byte[]> sender) {
        return new JobWatch(
                fixture.config(job, meters),
                registry,
                sender,
                assignments,
                new TrainerMetrics(new SimpleMeterRegistry(), job, new JobProgress()));
    }

    private List<DeadLetter> letters() {
        String topic = topics.deadLetters().name();
        return producer.history().stream()
                .filter(r -> r.topic().equals(topic))
                .map(r ->
                        topics.deadLetters().valueSerde(registry).deserializer().deserialize(topic, r.value()))
                .toList();
    }

    private List<RoundEvent> events(RoundEventType type) {
        String topic = topics.rounds().name();
        return producer.history().stream()
                .filter(r -> r.topic().equals(topic))
                .map(r -> topics.rounds().valueSerde(registry).deserializer().deserialize(topic, r.value()))
                .filter(e -> e.getType() == type)
                .toList();
    }

    private org.apache.kafka.clients.consumer.ConsumerRecord<byte[], byte[]> record(
            long offset, String key, byte[] value) {
        return MockClients.consumerRecord(allocations, mine, offset, key, value);
    }

    private byte[] assignment(String job, String worker) {
        return bytes(AllocationsFixture.assignment(job, worker));
    }

    private byte[] bytes(TaskAssignment a) {
        return fixture.bytes(a);
    }
}
