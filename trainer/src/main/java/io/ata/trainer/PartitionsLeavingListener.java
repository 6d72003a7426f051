package io.ata.trainer;

import java.util.Collection;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the trainer when Kafka takes {@code gradients} partitions away (revoked in a rebalance, or
 * lost): the results read from them may now be read again by another member of the group, so the
 * open round's work cannot be committed as is. Called on the trainer thread, inside its poll.
 */
final class PartitionsLeavingListener implements ConsumerRebalanceListener {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    private final String job;
    private final Consumer<Collection<TopicPartition>> leaving;

    /** {@code leaving} is told the partitions taken away. */
    PartitionsLeavingListener(String job, Consumer<Collection<TopicPartition>> leaving) {
        this.job = job;
        this.leaving = leaving;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        leaving.accept(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        leaving.accept(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        log.debug("job {}: assigned {}", job, partitions);
    }
}
