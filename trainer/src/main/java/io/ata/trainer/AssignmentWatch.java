package io.ata.trainer;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.kafka.Decoded;
import io.ata.schemas.kafka.KafkaClientFactory;
import io.ata.schemas.kafka.RecordDecoder;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trainer's watch for overdue assignments, on a thread of its own: reads the job's
 * assignments from the {@code tasks} topic (read_committed, no group: it only watches), keeps
 * their deadlines ({@link AssignmentDeadlines}), and when one is overdue sends its missing tasks
 * to the broker as an OVERDUE round event (key: the job, like the trainer's other round events).
 *
 * <p>Its producer is not the trainer's transactional one, on purpose: an OVERDUE event is a
 * request, not part of the round's exactly-once state. Sent twice (a restart), or after the round
 * closed, it is ignored by the broker; lost, the round waits as it would without backups.
 */
final class OverdueWatch implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);
    /**
     * The longest poll. A poll returns as soon as assignments arrive and lasts no longer than until
     * the next deadline it knows of; this bounds how late it notices a deadline it learnt of from
     * the training loop meanwhile (an assignment read before its round opened here). Polls of 10 ms
     * cost a 100-job trainer host 10,000 wake-ups a second for nothing.
     */
    private static final long MAX_POLL_MS = 50;
    /** The wait while the tasks topic has no partitions yet. */
    private static final long NO_TOPIC_WAIT_MS = 10;
    /** How often the partitions of {@code tasks} are looked up again (the broker may add some). */
    private static final long PARTITION_REFRESH_MS = 5_000;
    /** At start, assignments from this long ago are read, so the open round's are watched too. */
    private static final long LOOK_BACK_MS = 30_000;

    private final String job;
    private final String tasksTopic;
    private final String roundsTopic;
    private final RecordDecoder<TaskAssignment> decoder;
    private final Serializer<RoundEvent> roundSerializer;
    private final AssignmentDeadlines deadlines;
    private final Clock clock;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<String, byte[]> producer;
    private volatile boolean running = true;
    private long partitionsCheckedAtMs;
    private int knownPartitions;

    OverdueWatch(
            TrainerConfig config,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            AssignmentDeadlines deadlines) {
        this.job = config.job();
        this.tasksTopic = config.topics().tasks().name();
        this.roundsTopic = config.topics().rounds().name();
        this.decoder =
                new RecordDecoder<>(config.topics().tasks().valueSerde(registry).deserializer(), "task assignment");
        this.roundSerializer = config.topics().rounds().valueSerde(registry).serializer();
        this.deadlines = deadlines;
        this.clock = config.clock();
        this.consumer = clients.consumer(TrainerClients.tasksWatcher(config));
        this.producer = clients.producer(TrainerClients.overdueProducer(config));
    }

    @Override
    public void run() {
        try {
            while (running) {
                refreshPartitions();
                if (consumer.assignment().isEmpty()) {
                    Thread.sleep(NO_TOPIC_WAIT_MS); // no tasks topic yet
                    continue;
                }
                long now = clock.millis();
                long wait = Math.max(1, Math.min(MAX_POLL_MS, deadlines.untilNextDueMs(now)));
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(wait))) {
                    if (r.value() != null
                            && decoder.decode(r.topic(), r.value()) instanceof Decoded.Valid<TaskAssignment> valid) {
                        deadlines.assigned(valid.record(), clock.millis());
                    } // an undecodable assignment is the agents' to dead-letter
                }
                for (AssignmentDeadlines.Overdue overdue : deadlines.due(clock.millis())) {
                    send(overdue);
                }
            }
        } catch (WakeupException e) {
            // stop()
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("job {}: the watch for overdue tasks stopped; rounds now wait for every task", job, e);
        } finally {
            consumer.close();
            producer.close(Duration.ofSeconds(5));
        }
    }

    private void send(AssignmentDeadlines.Overdue overdue) {
        long round = deadlines.round();
        List<RoundTiming> missing = new ArrayList<>();
        for (String taskId : overdue.missing()) {
            missing.add(RoundTiming.newBuilder()
                    .setWorkerId(overdue.worker())
                    .setTaskId(taskId)
                    .setComputeMs(overdue.quietMs())
                    .setStatus(TimingStatus.CANCELLED)
                    .setArrivalMs(overdue.sinceOpenMs())
                    .build());
        }
        RoundEvent event = RoundEvent.newBuilder()
                .setJob(job)
                .setRound(round)
                .setType(RoundEventType.OVERDUE)
                .setModelVersion(round - 1)
                .setBatch(0)
                .setTimings(missing)
                .setTimestampMs(clock.millis())
                .build();
        producer.send(new ProducerRecord<>(roundsTopic, job, roundSerializer.serialize(roundsTopic, event)));
        log.info(
                "job {} round {}: {} task(s) of {} overdue ({} ms without a result, delivery margin {} ms),"
                        + " asking for backups",
                job,
                round,
                missing.size(),
                overdue.worker(),
                Math.round(overdue.quietMs()),
                Math.round(deadlines.marginMs()));
    }

    /** Reads every partition of {@code tasks}, from a little before now for partitions new to it. */
    private void refreshPartitions() {
        long now = clock.millis();
        long every = knownPartitions == 0 ? 100 : PARTITION_REFRESH_MS;
        if (now - partitionsCheckedAtMs < every) {
            return;
        }
        partitionsCheckedAtMs = now;
        List<PartitionInfo> infos = consumer.partitionsFor(tasksTopic);
        if (infos == null || infos.isEmpty() || infos.size() == knownPartitions) {
            return;
        }
        List<TopicPartition> all = infos.stream()
                .map(i -> new TopicPartition(tasksTopic, i.partition()))
                .toList();
        List<TopicPartition> added =
                all.stream().filter(tp -> !consumer.assignment().contains(tp)).toList();
        consumer.assign(all);
        Map<TopicPartition, Long> since = new HashMap<>();
        added.forEach(tp -> since.put(tp, now - LOOK_BACK_MS));
        Map<TopicPartition, OffsetAndTimestamp> offsets = consumer.offsetsForTimes(since);
        for (TopicPartition tp : added) {
            OffsetAndTimestamp at = offsets.get(tp);
            if (at != null) {
                consumer.seek(tp, at.offset());
            } else {
                consumer.seekToEnd(List.of(tp));
            }
        }
        knownPartitions = infos.size();
    }

    /** Stops the watch from another thread; {@link #run()} returns soon after. */
    void stop() {
        running = false;
        consumer.wakeup();
    }
}
