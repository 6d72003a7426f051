package io.ata.bench;

import io.ata.platform.Threads;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads, as they are committed, the dead letters of every part and the job's CLOSED round events:
 * when each round's close was decided (the event's timestamp, the trainer's clock when it sent
 * it), so that a forged record can be told to have met its round open, and every letter with its
 * source record, so that its latency can be measured.
 */
public final class SoakWatch implements AutoCloseable {
    /**
     * A dead letter as read.
     *
     * @param timestampMs       the letter's {@code timestamp_ms}: when its part refused the record
     * @param recordTimestampMs the letter record's own timestamp: when it was sent
     * @param seenMs            when the watch read it (wall clock)
     */
    public record Letter(
            String component,
            String sourceTopic,
            int partition,
            long offset,
            String reason,
            long timestampMs,
            long recordTimestampMs,
            long seenMs) {}

    private static final Duration POLL = Duration.ofMillis(200);
    /** Tries to decode a letter while the registry is away (restarting), before giving up on it. */
    private static final int LETTER_ATTEMPTS = 50;

    private final Topics topics;
    private final String job;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Deserializer<DeadLetter> letters;
    private final Deserializer<RoundEvent> rounds;
    private final List<Letter> read = new ArrayList<>(); // guarded by this
    private final Map<Long, Long> closedAtMs = new HashMap<>(); // guarded by this
    private long undecodableLetters; // guarded by this
    private volatile boolean running = true;
    private final Thread thread;

    public SoakWatch(Map<String, Object> clientProperties, Topics topics, SchemaRegistryClient registry, String job) {
        this.topics = topics;
        this.job = job;
        Properties props = new Properties();
        props.putAll(clientProperties);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.letters = topics.deadLetters().valueSerde(registry).deserializer();
        this.rounds = topics.rounds().valueSerde(registry).deserializer();
        this.thread = new Thread(this::loop, "soak-watch");
        thread.setDaemon(true);
    }

    public SoakWatch start() {
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : List.of(topics.deadLetters().name(), topics.rounds().name())) {
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        thread.start();
        return this;
    }

    public synchronized List<Letter> letters() {
        return List.copyOf(read);
    }

    /** When the job's round {@code round} was closed (its CLOSED event's timestamp), if that was read. */
    public synchronized OptionalLong closedAtMs(long round) {
        Long at = closedAtMs.get(round);
        return at == null ? OptionalLong.empty() : OptionalLong.of(at);
    }

    /** When each of the job's rounds was closed (its CLOSED event's timestamp), by round, as read so far. */
    public synchronized Map<Long, Long> closedAtMs() {
        return Map.copyOf(closedAtMs);
    }

    /** Letters that could not be decoded, even after the registry had time to come back. */
    public synchronized long undecodableLetters() {
        return undecodableLetters;
    }

    private void loop() {
        Map<String, Integer> attempts = new HashMap<>();
        while (running) {
            try {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(POLL);
                boolean retry = false;
                for (TopicPartition tp : polled.partitions()) {
                    for (ConsumerRecord<byte[], byte[]> r : polled.records(tp)) {
                        if (r.topic().equals(topics.rounds().name())) {
                            round(r);
                        } else if (!letter(r, attempts)) {
                            // the registry is away: read it again, and what came after it
                            consumer.seek(tp, r.offset());
                            retry = true;
                            break;
                        }
                    }
                }
                if (retry) {
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (!running) {
                    return;
                }
                try {
                    Thread.sleep(200);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private void round(ConsumerRecord<byte[], byte[]> r) {
        if (r.value() == null) {
            return;
        }
        RoundEvent event;
        try {
            event = rounds.deserialize(r.topic(), r.value());
        } catch (RuntimeException e) {
            return; // the soak's own bad records, or one the registry could not answer for: not a close
        }
        if (event.getJob().equals(job) && event.getType() == RoundEventType.CLOSED) {
            synchronized (this) {
                closedAtMs.putIfAbsent(event.getRound(), r.timestamp());
            }
        }
    }

    /** Records one letter; false if it should be read again later. */
    private boolean letter(ConsumerRecord<byte[], byte[]> r, Map<String, Integer> attempts) {
        String place = r.partition() + "@" + r.offset();
        DeadLetter l;
        try {
            l = letters.deserialize(r.topic(), r.value());
        } catch (RuntimeException e) {
            int tried = attempts.merge(place, 1, Integer::sum);
            if (tried < LETTER_ATTEMPTS) {
                return false;
            }
            synchronized (this) {
                undecodableLetters++;
            }
            return true;
        }
        attempts.remove(place);
        Letter letter = new Letter(
                l.getComponent(),
                l.getSourceTopic(),
                l.getPartition(),
                l.getOffset(),
                l.getReason(),
                l.getTimestampMs(),
                r.timestamp(),
                System.currentTimeMillis());
        synchronized (this) {
            read.add(letter);
        }
        return true;
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        Threads.awaitEnd(thread, Duration.ofSeconds(5));
        consumer.close(Duration.ofSeconds(2));
    }
}
