package io.ata.trainer;

import io.ata.schemas.DeadLetter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the trainer has done since its last commit: how far it read each {@code gradients}
 * partition, and the dead letters not yet published. The offsets are committed with the round's
 * close, or dropped with the open round's work (then read again from the committed offsets). Dead
 * letters go out with the close, or before it in a transaction of their own, so that none waits
 * for a round that does not close; a record whose letter is out already is not lettered again
 * when it is read again.
 */
final class UncommittedWork {
    /** Next offset per partition of everything processed since the last commit. */
    private final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();

    private final List<DeadLetter> deadLetters = new ArrayList<>();
    /** When the oldest letter not yet published was queued (epoch ms); -1 if none is. */
    private long firstLetterAtMs = -1;
    /**
     * The source records (partition, offset) whose letters are published since the last commit: a
     * record read again after the open round's work was dropped is not lettered twice. Not a high
     * mark per partition: a held result is judged after records read behind it, and its letter must
     * still go out. Kept across drops, cleared at a commit (nothing before it is read again).
     */
    private final Map<TopicPartition, Set<Long>> lettered = new HashMap<>();

    /** {@code record} was processed: the group's offset moves past it at the next commit. */
    void processed(ConsumerRecord<?, ?> record) {
        offsets.put(
                new TopicPartition(record.topic(), record.partition()),
                new OffsetAndMetadata(record.offset() + 1, record.leaderEpoch(), ""));
    }

    /**
     * Queues a dead letter queued at {@code nowMs}; false (nothing queued) if the record's letter
     * was published already.
     */
    boolean deadLetter(DeadLetter letter, long nowMs) {
        if (letter.getPartition() >= 0
                && lettered.getOrDefault(new TopicPartition(letter.getSourceTopic(), letter.getPartition()), Set.of())
                        .contains(letter.getOffset())) {
            return false;
        }
        if (deadLetters.isEmpty()) {
            firstLetterAtMs = nowMs;
        }
        deadLetters.add(letter);
        return true;
    }

    /** When the oldest letter not yet published was queued (epoch ms); -1 if none is. */
    long firstLetterAtMs() {
        return firstLetterAtMs;
    }

    /** The letters queued were published: they are remembered, so as not to be queued again. */
    void lettersPublished() {
        for (DeadLetter letter : deadLetters) {
            if (letter.getPartition() >= 0 && letter.getOffset() >= 0) {
                lettered.computeIfAbsent(
                                new TopicPartition(letter.getSourceTopic(), letter.getPartition()),
                                tp -> new HashSet<>())
                        .add(letter.getOffset());
            }
        }
        deadLetters.clear();
        firstLetterAtMs = -1;
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

    /** Committed: the offsets and the letters with them. */
    void committed() {
        deadLetters.clear();
        firstLetterAtMs = -1;
        lettered.clear(); // the offsets are committed past every record read: none is read again
        offsets.clear();
    }

    /** Dropped, to be read again: the offsets and the letters not yet published. */
    void clear() {
        offsets.clear();
        deadLetters.clear();
        firstLetterAtMs = -1;
    }
}
