package io.ata.workeragent;

import java.util.Map;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A mock producer whose consumed offsets the group refuses while they are sent with generation
 * {@link #refusedGeneration} or older, as Kafka's does after a rebalance: {@code
 * sendOffsetsToTransaction} fails with {@link CommitFailedException} and the transaction must be
 * aborted.
 */
class GenerationRefusingProducer extends MockProducer<String, byte[]> {
    /** Offsets sent with this generation or an older one are refused; 0 refuses none. */
    volatile int refusedGeneration;

    GenerationRefusingProducer(int refusedGeneration) {
        super(true, null, new StringSerializer(), new ByteArraySerializer());
        this.refusedGeneration = refusedGeneration;
    }

    @Override
    public synchronized void sendOffsetsToTransaction(
            Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group) {
        if (group.generationId() <= refusedGeneration) {
            throw new CommitFailedException("test: Transaction offset Commit failed due to consumer group"
                    + " metadata mismatch: The provided generation id is not the current one");
        }
        super.sendOffsetsToTransaction(offsets, group);
    }
}
