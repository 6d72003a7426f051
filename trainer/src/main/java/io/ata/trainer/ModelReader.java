package io.ata.trainer;

import io.ata.schemas.ModelVersion;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Finds the latest model version of a job on the compacted {@code model} topic: what a restarted
 * trainer resumes from.
 *
 * <p>It reads every partition from the beginning to its end with a {@code read_committed}
 * consumer of its own (assigned, no group): the end offsets are then the last stable offsets, so
 * only committed model versions count, and the last record with the job's key is the latest.
 * Call it after {@code initTransactions()}, which settles a transaction the previous trainer left
 * open.
 */
final class ModelReader {
    private final Consumer<byte[], byte[]> consumer;
    private final String topic;
    private final String job;
    private final Deserializer<ModelVersion> deserializer;
    private final Clock clock;

    /** Reads with {@code consumer} (read_committed, no group), which the caller closes. */
    ModelReader(
            Consumer<byte[], byte[]> consumer,
            String topic,
            String job,
            Deserializer<ModelVersion> deserializer,
            Clock clock) {
        this.consumer = consumer;
        this.topic = topic;
        this.job = job;
        this.deserializer = deserializer;
        this.clock = clock;
    }

    /**
     * The job's latest model version, or empty if it has none (a new job, or a missing topic).
     *
     * @throws TimeoutException      if the topic cannot be read to its end within {@code timeout}
     * @throws IllegalStateException if the latest record of the job cannot be decoded: resuming
     *                               from an older version would publish versions that exist already
     */
    Optional<ModelVersion> latest(Duration timeout) {
        long deadline = clock.millis() + timeout.toMillis();
        List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
        if (infos == null || infos.isEmpty()) {
            return Optional.empty();
        }
        List<TopicPartition> partitions = new ArrayList<>(infos.size());
        for (PartitionInfo info : infos) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);

        // The job's key hashes to one partition, unless the topic was repartitioned: keep the
        // latest record of each partition and compare versions at the end.
        Map<TopicPartition, ConsumerRecord<byte[], byte[]>> latest = new HashMap<>();
        byte[] key = job.getBytes(StandardCharsets.UTF_8);
        while (!atEnd(partitions, end)) {
            if (clock.millis() > deadline) {
                throw new TimeoutException("reading topic " + topic + " to its end took longer than " + timeout);
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (r.key() != null && Arrays.equals(r.key(), key)) {
                    latest.put(new TopicPartition(r.topic(), r.partition()), r);
                }
            }
        }
        consumer.unsubscribe();

        ModelVersion newest = null;
        for (ConsumerRecord<byte[], byte[]> r : latest.values()) {
            if (r.value() == null) {
                continue; // a tombstone: the job's model was deleted
            }
            ModelVersion model;
            try {
                model = deserializer.deserialize(topic, r.value());
            } catch (SerializationException e) {
                throw new IllegalStateException(
                        "cannot decode the latest model version of job " + job + " at " + r.topic() + "-"
                                + r.partition() + "@" + r.offset() + ": " + e.getMessage(),
                        e);
            }
            if (job.equals(model.getJob()) && (newest == null || model.getVersion() > newest.getVersion())) {
                newest = model;
            }
        }
        return Optional.ofNullable(newest);
    }

    private boolean atEnd(List<TopicPartition> partitions, Map<TopicPartition, Long> end) {
        for (TopicPartition tp : partitions) {
            Long last = end.get(tp);
            if (last != null && consumer.position(tp) < last) {
                return false;
            }
        }
        return true;
    }
}
