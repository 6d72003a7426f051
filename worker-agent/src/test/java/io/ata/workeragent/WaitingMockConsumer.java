package io.ata.workeragent;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * MockConsumer.poll returns at once, which would spin the agent's loop; this one, like a real
 * consumer, waits up to the poll timeout when it has nothing, and a record or a wakeup ends the wait.
 */
final class WaitingMockConsumer extends MockConsumer<byte[], byte[]> {
    private final Semaphore news = new Semaphore(0);
    final AtomicInteger wakeups = new AtomicInteger();
    /** How long an empty poll waits for news or a wakeup; null: the timeout it was given. */
    volatile Duration emptyPollWait;
    /** The group generation {@link #groupMetadata()} reports, as a rebalance moves it; 0: MockConsumer's. */
    volatile int generation;

    WaitingMockConsumer() {
        super("earliest");
    }

    /** One that knows {@code topic}'s one partition and stands at its end (offset 0): it reads nothing. */
    static WaitingMockConsumer atTheEndOf(String topic) {
        WaitingMockConsumer consumer = new WaitingMockConsumer();
        consumer.updatePartitions(
                topic, List.of(new PartitionInfo(topic, 0, new Node(0, "mock", 9092), new Node[0], new Node[0])));
        consumer.updateEndOffsets(Map.of(new TopicPartition(topic, 0), 0L));
        return consumer;
    }

    @Override
    public ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
        ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
        if (records.isEmpty()) {
            try {
                Duration wait = emptyPollWait == null ? timeout : emptyPollWait;
                if (news.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                    news.drainPermits();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.apache.kafka.common.errors.InterruptException(e);
            }
        }
        return records;
    }

    @Override
    public synchronized void addRecord(ConsumerRecord<byte[], byte[]> record) {
        super.addRecord(record);
        news.release();
    }

    @Override
    public synchronized ConsumerGroupMetadata groupMetadata() {
        ConsumerGroupMetadata mock = super.groupMetadata();
        return generation == 0
                ? mock
                : new ConsumerGroupMetadata(mock.groupId(), generation, mock.memberId(), mock.groupInstanceId());
    }

    @Override
    public void wakeup() {
        wakeups.incrementAndGet();
        super.wakeup();
        news.release();
    }
}
