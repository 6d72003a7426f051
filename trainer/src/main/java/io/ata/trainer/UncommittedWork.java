package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the trainer has done since its last commit: how far it read each {@code gradients}
 * partition, and the dead letters of the open round. It is committed with the round's close, or
 * dropped with the open round's work (then read again from the committed offsets).
 */
final class UncommittedWork {
    /** Next offset per partition of everything processed since the last commit. */
    private final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();

    private final List<DeadLetter> deadLetters = new ArrayList<>();

    /** {@code record} was processed: the group's offset moves past it at the next commit. */
    void processed(ConsumerRecord<?, ?> record) {
        offsets.put(
                new TopicPartition(record.topic(), record.partition()),
                new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
    }

    /** Queues a dead letter, published with the round's close. */
    void deadLetter(DeadLetter letter) {
        deadLetters.add(letter);
    }

    Map<TopicPartition, OffsetAndMetadata> offsets() {
        return Map.copyOf(offsets);
    }

    List<DeadLetter> deadLetters() {
        return List.copyOf(deadLetters);
    }

    boolean isEmpty() {
        return offsets.isEmpty() && deadLetters.isEmpty();
    }

    /** Committed, or dropped. */
    void clear() {
        offsets.clear();
        deadLetters.clear();
    }
}
