package io.ata.workeragent;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.kafka.KafkaErrors;
import io.ata.platform.kafka.ProducerUnusableException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The group commit on Kafka's mock producer, whose first commit waits at a gate the test opens:
 * what queues meanwhile shares one transaction, the queue's byte bound holds the caller back, a
 * failed transaction drops what queued behind it, and closing publishes what is queued.
 */
class TransactionPublisherTest {

    private static final long WAIT_SECONDS = 20;
    private static final KafkaException BROKEN = new KafkaException("coordinator went away");

    private final AgentMetrics metrics = new AgentMetrics(new SimpleMeterRegistry(), "w1");
    private final GatedProducer producer = new GatedProducer();
    private TransactionPublisher publisher;

    /** Holds its first commit until {@link #open} is counted down; can fail that commit. */
    private static final class GatedProducer extends MockProducer<String, byte[]> {
        final CountDownLatch open = new CountDownLatch(1);
        final CountDownLatch firstCommitStarted = new CountDownLatch(1);
        final AtomicInteger commits = new AtomicInteger();
        final List<Integer> recordsPerTransaction = new ArrayList<>();
        private int sentInTransaction;
        volatile boolean failFirst;
        volatile boolean dieFirst;
        volatile boolean slowRetry;
        private volatile boolean commitCutShort;

        GatedProducer() {
            super(true, null, new StringSerializer(), new ByteArraySerializer());
            initTransactions();
        }

        @Override
        public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                ProducerRecord<String, byte[]> record) {
            sentInTransaction++;
            return super.send(record);
        }

        @Override
        public void commitTransaction() {
            if (commits.getAndIncrement() == 0) {
                firstCommitStarted.countDown();
                try {
                    open.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    commitCutShort = true;
                    throw new org.apache.kafka.common.errors.InterruptException(e); // as Kafka's producer does
                }
                if (failFirst) {
                    throw BROKEN;
                }
                if (dieFirst) {
                    throw new OutOfMemoryError("test: no heap left");
                }
            } else if (slowRetry) {
                try {
                    Thread.sleep(300); // a broker round trip, long enough for a caller not waiting to be seen
                } catch (InterruptedException e) {
                    throw new org.apache.kafka.common.errors.InterruptException(e);
                }
            }
            synchronized (this) {
                recordsPerTransaction.add(sentInTransaction);
                sentInTransaction = 0;
                commitCutShort = false;
            }
            super.commitTransaction();
        }

        @Override
        public synchronized void abortTransaction() {
            if (commitCutShort) {
                // Kafka's producer: after a commit that timed out or was interrupted, only the commit again
                throw new IllegalStateException("test: an interrupted commit must be retried, not aborted");
            }
            sentInTransaction = 0;
            super.abortTransaction();
        }
    }

    private TransactionPublisher publisher(long maxQueuedBytes) {
        return publisher(maxQueuedBytes, Long.MAX_VALUE);
    }

    private TransactionPublisher publisher(long maxQueuedBytes, long maxTransactionBytes) {
        publisher = new TransactionPublisher(producer, "test-commit", maxQueuedBytes, maxTransactionBytes, metrics);
        return publisher;
    }

    @AfterEach
    void close() {
        producer.open.countDown();
        if (publisher != null) {
            publisher.close();
        }
    }

    private static List<ProducerRecord<String, byte[]>> records(int count, int bytes) {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            records.add(new ProducerRecord<>("t", "k", new byte[bytes]));
        }
        return records;
    }

    /** Waits until {@code caller} blocks, waiting (for a commit, or for room in the queue). */
    private static void awaitWaiting(Thread caller) {
        await().atMost(WAIT_SECONDS, TimeUnit.SECONDS)
                .pollInterval(Duration.ofMillis(5))
                .until(() -> caller.getState() == Thread.State.WAITING);
    }

    /** Lets the first commit through and waits for {@code caller} to return. */
    private void openGateAndJoin(Thread caller) throws InterruptedException {
        producer.open.countDown();
        caller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
    }

    /**
     * Publishes a task (whose commit waits at the gate), then a second, then, on a thread of its
     * own, a third with an offset; opens the gate once that call waits, and returns what it threw.
     */
    private List<RuntimeException> commitAnOffsetBehindTwoTasks(TransactionPublisher p) throws InterruptedException {
        p.publish(records(1, 10));
        awaitFirstCommit();
        p.publish(records(1, 10));
        Map<TopicPartition, OffsetAndMetadata> offsets =
                Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(8));
        List<RuntimeException> thrown = new ArrayList<>();
        Thread last = new Thread(() -> {
            try {
                p.publishAndCommit(records(1, 10), offsets, new ConsumerGroupMetadata("g"));
            } catch (RuntimeException e) {
                thrown.add(e);
            }
        });
        last.start();
        awaitWaiting(last);
        openGateAndJoin(last);
        return thrown;
    }

    private void awaitFirstCommit() throws InterruptedException {
        assertTrue(producer.firstCommitStarted.await(WAIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void whatQueuesWhileACommitIsInFlightSharesTheNextTransaction() throws Exception {
        TransactionPublisher p = publisher(TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES);
        p.publish(records(2, 10));
        awaitFirstCommit();
        for (int task = 0; task < 5; task++) {
            p.publish(records(2, 10)); // returns at once: the commit in flight is not waited for
        }
        producer.open.countDown();
        p.await();

        assertEquals(List.of(2, 10), producer.recordsPerTransaction);
        assertEquals(2, metrics.transactionsCommitted());
        assertEquals(12, producer.history().size());
    }

    @Test
    void offsetsGoInTheTransactionOfTheirRecordsAndTheCallReturnsOnceItCommitted() throws Exception {
        TransactionPublisher p = publisher(TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES);
        p.publish(records(1, 10));
        awaitFirstCommit();
        p.publish(records(1, 10));
        Map<TopicPartition, OffsetAndMetadata> offsets =
                Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(8));
        Thread last = new Thread(() -> p.publishAndCommit(records(1, 10), offsets, new ConsumerGroupMetadata("g")));
        last.start();
        awaitWaiting(last);
        assertTrue(producer.consumerGroupOffsetsHistory().isEmpty(), "nothing committed while the gate is shut");

        openGateAndJoin(last);

        assertEquals(List.of(1, 2), producer.recordsPerTransaction);
        assertEquals(List.of(Map.of("g", offsets)), producer.consumerGroupOffsetsHistory());
    }

    @Test
    void aFullQueueHoldsTheCallerBackUntilTheTransportTakesIt() throws Exception {
        TransactionPublisher p = publisher(100);
        p.publish(records(1, 10));
        awaitFirstCommit();
        p.publish(records(1, 60)); // queued: 60 of 100 bytes
        Thread third = new Thread(() -> p.publish(records(1, 60))); // 120 > 100: waits
        third.start();
        awaitWaiting(third);

        openGateAndJoin(third);
        p.await();

        assertEquals(3, producer.history().size());
        assertEquals(
                10 + 60 + 60,
                producer.history().stream().mapToInt(r -> r.value().length).sum());
    }

    @Test
    void aTransactionTakesWhatFitsItsBoundAndTheNextOneTheRest() throws Exception {
        TransactionPublisher p = publisher(TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES, 100);
        p.publish(records(1, 10));
        awaitFirstCommit();
        for (int task = 0; task < 5; task++) {
            p.publish(records(1, 40)); // 5 x 40 bytes queue: 2 fit 100, then 2, then 1
        }
        producer.open.countDown();
        p.await();

        assertEquals(List.of(1, 2, 2, 1), producer.recordsPerTransaction);
    }

    @Test
    void anOutputLargerThanTheBoundGoesOutAlone() {
        TransactionPublisher p = publisher(100);
        producer.open.countDown();
        p.publish(records(1, 1_000));
        p.await();
        assertEquals(List.of(1), producer.recordsPerTransaction);
    }

    @Test
    void aFailedTransactionDropsWhatQueuedBehindItAndIsThrownOnce() throws Exception {
        producer.failFirst = true;
        TransactionPublisher p = publisher(TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES);
        List<RuntimeException> thrown = commitAnOffsetBehindTwoTasks(p);

        assertEquals(1, thrown.size());
        assertSame(BROKEN, thrown.get(0));
        assertEquals(1, metrics.transactionsAborted());
        assertEquals(0, metrics.transactionsCommitted(), "what queued behind the failure is not published");
        assertTrue(producer.consumerGroupOffsetsHistory().isEmpty(), "no offset past a lost result");
        p.await(); // thrown once
        p.publish(records(1, 10)); // and the publisher goes on
        p.await();
        assertEquals(1, metrics.transactionsCommitted());
    }

    @Test
    void anErrorOnThePublishingThreadIsThrownToEveryCallNotWaitedForForever() throws Exception {
        producer.dieFirst = true;
        TransactionPublisher p = publisher(TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES);
        List<RuntimeException> thrown = commitAnOffsetBehindTwoTasks(p);

        assertEquals(1, thrown.size(), "the waiting call returned, with the error");
        assertInstanceOf(OutOfMemoryError.class, thrown.get(0).getCause());
        assertTrue(producer.consumerGroupOffsetsHistory().isEmpty(), "no offset past a lost result");
        assertThrows(IllegalStateException.class, p::await, "and every later call says so");
        assertThrows(IllegalStateException.class, () -> p.publish(records(1, 10)));
    }

    @Test
    void aCallerWaitingForRoomWhenThePublisherClosesIsRefused() throws Exception {
        producer.slowRetry = true;
        TransactionPublisher p = publisher(100);
        p.publish(records(1, 10));
        awaitFirstCommit(); // held at the gate
        p.publish(records(1, 60));
        List<RuntimeException> thrown = new ArrayList<>();
        Thread third = new Thread(() -> {
            try {
                p.publish(records(1, 60)); // 120 > 100: waits for room
            } catch (RuntimeException e) {
                thrown.add(e);
            }
        });
        third.start();
        awaitWaiting(third);

        p.close(Duration.ofMillis(200)); // the gate stays shut: close gives up on the commit
        // the interrupted commit is tried again, not aborted, and settled before close returns
        assertTrue(producer.transactionCommitted(), "committed when close returned");
        assertFalse(producer.transactionAborted());
        third.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertEquals(1, thrown.size(), "refused, not queued behind a thread that ended");
        assertInstanceOf(IllegalStateException.class, thrown.get(0));
    }

    /** A producer whose first {@code timeouts} commits time out; it refuses an abort after a timed-out commit, as Kafka does. */
    private static MockProducer<String, byte[]> timingOut(int timeouts) {
        return new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()) {
            private int left = timeouts;
            private boolean timedOut;

            @Override
            public void commitTransaction() {
                if (left-- > 0) {
                    timedOut = true;
                    throw new org.apache.kafka.common.errors.TimeoutException("test: no answer in max.block.ms");
                }
                super.commitTransaction();
            }

            @Override
            public void abortTransaction() {
                if (timedOut) {
                    throw new IllegalStateException("test: a timed-out commit must be retried, not aborted");
                }
                super.abortTransaction();
            }
        };
    }

    /** A publisher (small bounds) over {@code mock}, whose transactions are initialised here. */
    private TransactionPublisher publisherOn(MockProducer<String, byte[]> mock) {
        mock.initTransactions();
        publisher = new TransactionPublisher(mock, "test-commit", 1_000, 1_000, metrics);
        return publisher;
    }

    @Test
    void aCommitThatTimedOutIsTriedAgain() {
        MockProducer<String, byte[]> slow = timingOut(TransactionPublisher.COMMIT_ATTEMPTS - 1);
        publisherOn(slow);
        publisher.publishAndCommit(
                records(1, 10),
                Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(8)),
                new ConsumerGroupMetadata("g"));

        assertEquals(1, slow.commitCount());
        assertEquals(1, slow.consumerGroupOffsetsHistory().size(), "the offset committed with it");
        assertEquals(1, metrics.transactionsCommitted());
        assertEquals(0, metrics.transactionsAborted());
    }

    @Test
    void aCommitThatKeepsTimingOutGivesTheProducerUpWithoutAnAbort() {
        MockProducer<String, byte[]> dead = timingOut(Integer.MAX_VALUE);
        publisherOn(dead);
        publisher.publish(records(1, 10));

        ProducerUnusableException thrown = assertThrows(ProducerUnusableException.class, publisher::await);
        assertInstanceOf(org.apache.kafka.common.errors.TimeoutException.class, thrown.getCause());
        assertTrue(thrown.getMessage().contains("cut short " + TransactionPublisher.COMMIT_ATTEMPTS + " times"));
        assertEquals(0, metrics.transactionsAborted());
        assertEquals(0, dead.commitCount());
    }

    @Test
    void aBugWhileSendingAbortsTheTransactionRatherThanLeavingItOpen() {
        // an open transaction would hide every later result on the partition from read_committed
        // readers until transaction.timeout.ms
        IllegalArgumentException bug = new IllegalArgumentException("test: a bug of ours");
        MockProducer<String, byte[]> failing =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()) {
                    @Override
                    public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata>
                            send(ProducerRecord<String, byte[]> record) {
                        throw bug;
                    }
                };
        publisherOn(failing);
        publisher.publish(records(1, 10));

        assertSame(bug, assertThrows(IllegalArgumentException.class, publisher::await));
        assertTrue(failing.transactionAborted());
        assertFalse(failing.transactionInFlight());
        assertEquals(1, metrics.transactionsAborted());
    }

    @Test
    void aProducerKafkaLeftBrokenIsReportedUnusableSoOnlyNewClientsGoOn() {
        // a fence that landed during a commit, as an agent logged it: the coordinator answered an
        // unknown server error, the client an unnamed KafkaException, and the producer is broken
        KafkaException unnamed = new KafkaException("test: Unhandled error in EndTxnResponse");
        MockProducer<String, byte[]> broken =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()) {
                    private boolean failed;

                    @Override
                    public void beginTransaction() {
                        if (failed) {
                            throw new KafkaException("test: in an error state", unnamed);
                        }
                        super.beginTransaction();
                    }

                    @Override
                    public void commitTransaction() {
                        failed = true;
                        throw unnamed;
                    }

                    @Override
                    public void abortTransaction() {
                        throw new KafkaException("test: in an error state", unnamed);
                    }
                };
        publisherOn(broken);
        publisher.publish(records(1, 10));

        ProducerUnusableException thrown = assertThrows(ProducerUnusableException.class, publisher::await);
        assertSame(unnamed, thrown.getSuppressed()[0], "the commit's failure is kept");
        assertTrue(KafkaErrors.isFatal(thrown), "the agent stops on it rather than retrying");
        assertTrue(KafkaErrors.isHealedByNewClients(thrown), "and its supervisor starts it over");
        publisher.publish(records(1, 10));
        ProducerUnusableException next = assertThrows(ProducerUnusableException.class, publisher::await);
        assertTrue(next.getMessage().contains("cannot begin a transaction"), next.getMessage());
        assertEquals(0, metrics.transactionsCommitted());
    }

    @Test
    void aFencedProducerIsNotAskedToAbort() {
        ProducerFencedException fenced = new ProducerFencedException("test: a newer agent took the id");
        MockProducer<String, byte[]> old =
                new MockProducer<>(true, null, new StringSerializer(), new ByteArraySerializer()) {
                    @Override
                    public void commitTransaction() {
                        throw fenced;
                    }
                };
        publisherOn(old);
        publisher.publish(records(1, 10));

        assertSame(fenced, assertThrows(ProducerFencedException.class, publisher::await));
        assertFalse(old.transactionAborted());
        assertEquals(0, metrics.transactionsAborted());
    }

    @Test
    void closingPublishesWhatIsQueued() throws Exception {
        TransactionPublisher p = publisher(TransactionPublisher.DEFAULT_MAX_QUEUED_BYTES);
        p.publish(records(1, 10));
        awaitFirstCommit();
        p.publish(records(3, 10));
        producer.open.countDown();
        p.close(Duration.ofSeconds(WAIT_SECONDS));

        assertEquals(List.of(1, 3), producer.recordsPerTransaction);
        assertThrows(IllegalStateException.class, () -> p.publish(records(1, 10)), "closed");
    }

    private static ConsumerGroupMetadata generation(int generation) {
        return new ConsumerGroupMetadata("agents", generation, "member-" + generation, Optional.of("node"));
    }

    /** Set to stop waiting for a rejoin, as an agent that stops does. */
    private final AtomicBoolean stopping = new AtomicBoolean();

    private TransactionPublisher republishingOn(MockProducer<String, byte[]> mock, Duration rejoinWait) {
        publisherOn(mock);
        publisher = publisher.republishingAfterRebalance(rejoinWait, stopping::get);
        return publisher;
    }

    @Test
    void aTransactionARebalanceRefusedIsPublishedAgainOnceTheConsumerRejoined() throws Exception {
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(1);
        republishingOn(mock, Duration.ofSeconds(WAIT_SECONDS));
        AtomicReference<ConsumerGroupMetadata> group = new AtomicReference<>(generation(1));
        Map<TopicPartition, OffsetAndMetadata> offsets =
                Map.of(new TopicPartition("tasks", 3), new OffsetAndMetadata(8));

        Thread caller = new Thread(() -> publisher.publishAndCommit(records(3, 10), () -> offsets, group::get));
        caller.start();
        // the poll thread rejoins a moment later: the refused transaction waits for it
        await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> metrics.transactionsAborted() == 1);
        assertTrue(caller.isAlive(), "the caller waits for the transaction to go through again");
        group.set(generation(2));
        caller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertFalse(caller.isAlive());
        assertEquals(1, metrics.transactionsRepublished());
        assertEquals(1, metrics.transactionsCommitted());
        assertEquals(1, mock.commitCount());
        assertEquals(3, mock.history().size(), "every record of the refused transaction, published once");
        assertEquals(List.of(Map.of("agents", offsets)), mock.consumerGroupOffsetsHistory());
    }

    @Test
    void withoutRepublishingARefusedTransactionFailsAsBefore() {
        // the single agent polls on the thread that waits for the commit: it cannot rejoin meanwhile
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(1);
        publisherOn(mock);

        RuntimeException thrown = assertThrows(
                RuntimeException.class,
                () -> publisher.publishAndCommit(
                        records(1, 10),
                        Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(1)),
                        generation(1)));

        assertTrue(KafkaErrors.isGroupMembershipLost(thrown), thrown.toString());
        assertEquals(0, metrics.transactionsRepublished());
        assertEquals(1, metrics.transactionsAborted());
        assertTrue(mock.history().isEmpty());
    }

    @Test
    void aPartitionGoneWhileWaitingForTheRejoinFailsTheTransactionWithThat() {
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(1);
        republishingOn(mock, Duration.ofSeconds(WAIT_SECONDS));
        IllegalStateException gone = new IllegalStateException("test: task partition tasks-0 is no longer ours");
        AtomicInteger asked = new AtomicInteger();

        RuntimeException thrown = assertThrows(
                RuntimeException.class,
                () -> publisher.publishAndCommit(
                        records(1, 10), () -> Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(1)), () -> {
                            if (asked.incrementAndGet() > 1) {
                                throw gone; // revoked in the rebalance: its next owner runs it
                            }
                            return generation(1);
                        }));

        assertSame(gone, thrown);
        assertTrue(KafkaErrors.isGroupMembershipLost(thrown.getSuppressed()[0]), "the refusal, suppressed");
        assertEquals(0, metrics.transactionsRepublished());
        assertEquals(0, mock.commitCount());
        assertTrue(mock.history().isEmpty());
    }

    @Test
    @Timeout(60)
    void aGroupThatDoesNotMoveOnWithinTheWaitFailsTheTransaction() {
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(1);
        republishingOn(mock, Duration.ofMillis(200));
        long start = System.nanoTime();

        RuntimeException thrown = assertThrows(
                RuntimeException.class,
                () -> publisher.publishAndCommit(
                        records(1, 10),
                        Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(1)),
                        generation(1)));

        assertTrue(KafkaErrors.isGroupMembershipLost(thrown), thrown.toString());
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(200), "it waited");
        assertEquals(0, metrics.transactionsRepublished());
        assertEquals(0, mock.commitCount());
    }

    @Test
    @Timeout(60)
    void anAgentThatStopsStopsWaitingForTheRejoin() throws Exception {
        // its poll thread no longer polls: the group's next generation would never show
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(1);
        republishingOn(mock, Duration.ofSeconds(WAIT_SECONDS));
        AtomicReference<RuntimeException> thrown = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                publisher.publishAndCommit(
                        records(1, 10),
                        Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(1)),
                        generation(1));
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        });
        caller.start();
        await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> metrics.transactionsAborted() == 1);
        long stoppedAt = System.nanoTime();
        stopping.set(true);
        caller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertFalse(caller.isAlive());
        assertTrue(System.nanoTime() - stoppedAt < TimeUnit.SECONDS.toNanos(WAIT_SECONDS / 2), "not the whole wait");
        assertTrue(KafkaErrors.isGroupMembershipLost(thrown.get()), String.valueOf(thrown.get()));
        assertEquals(0, mock.commitCount());
    }

    @Test
    @Timeout(60)
    void everyOutputOfARefusedTransactionIsPublishedAgainWithOffsetsAsOfTheSend() throws Exception {
        // the first transaction commits at a gate, so a task's records and the assignment's last
        // records with its offset queue behind it and go out together: that one is refused
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger commitsStarted = new AtomicInteger();
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(1) {
            @Override
            public void commitTransaction() {
                if (commitsStarted.getAndIncrement() == 0) {
                    try {
                        gate.await(WAIT_SECONDS, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        throw new org.apache.kafka.common.errors.InterruptException(e);
                    }
                }
                super.commitTransaction();
            }
        };
        republishingOn(mock, Duration.ofSeconds(WAIT_SECONDS));
        AtomicReference<ConsumerGroupMetadata> group = new AtomicReference<>(generation(1));
        AtomicLong doneUpTo = new AtomicLong(5);
        TopicPartition p = new TopicPartition("tasks", 0);

        publisher.publish(records(1, 10)); // an earlier assignment's task, committing at the gate
        await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> commitsStarted.get() == 1);
        publisher.publish(records(2, 10)); // this assignment's first task
        Thread caller = new Thread(() -> publisher.publishAndCommit(
                records(1, 10), () -> Map.of(p, new OffsetAndMetadata(doneUpTo.get())), group::get));
        caller.start();
        awaitWaiting(caller);
        gate.countDown();
        await().atMost(WAIT_SECONDS, TimeUnit.SECONDS).until(() -> metrics.transactionsAborted() == 1);
        doneUpTo.set(9); // siblings finished records meanwhile
        group.set(generation(2));
        caller.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));

        assertFalse(caller.isAlive());
        assertEquals(1, metrics.transactionsRepublished());
        assertEquals(2, mock.commitCount());
        assertEquals(4, mock.history().size(), "both outputs of the refused transaction, once each");
        assertEquals(
                List.of(Map.of("agents", Map.of(p, new OffsetAndMetadata(9)))), mock.consumerGroupOffsetsHistory());
    }

    @Test
    void aTransactionRefusedAgainAndAgainIsRepublishedABoundedNumberOfTimes() {
        MockProducer<String, byte[]> mock = new GenerationRefusingProducer(Integer.MAX_VALUE);
        republishingOn(mock, Duration.ofSeconds(WAIT_SECONDS));
        AtomicInteger generations = new AtomicInteger();

        RuntimeException thrown = assertThrows(
                RuntimeException.class,
                () -> publisher.publishAndCommit(
                        records(1, 10),
                        () -> Map.of(new TopicPartition("tasks", 0), new OffsetAndMetadata(1)),
                        () -> generation(generations.incrementAndGet())));

        assertTrue(KafkaErrors.isGroupMembershipLost(thrown), thrown.toString());
        assertEquals(TransactionPublisher.MAX_REPUBLISHES, metrics.transactionsRepublished());
        assertEquals(TransactionPublisher.MAX_REPUBLISHES + 1, metrics.transactionsAborted());
        assertEquals(0, mock.commitCount());
    }
}
