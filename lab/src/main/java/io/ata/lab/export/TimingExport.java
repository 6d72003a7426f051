package io.ata.lab.export;

import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.lab.timinglog.TimingLogWriter;
import io.ata.lab.timinglog.TimingRecord;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Turns a live deployment's {@code timings} topic into a timing log that {@code ata replay} reads:
 * one record per task run, {@code worker} = the agent, {@code duration} = its measured compute time
 * (ms), {@code round}, {@code task}, {@code timestamp} = the task's wall-clock end (epoch ms), and
 * {@code status} = the task's fate: {@code completed} if the trainer accepted it into its round's
 * batch (or the round has not closed yet), {@code late} if it finished but the round was served by
 * others, {@code cancelled} if the agent stopped it part-way.
 *
 * <p>The fates come from the {@code rounds} topic: each CLOSED event lists every result the trainer
 * saw. Both topics are read with {@code read_committed} from their beginning to their end at the
 * time of reading. {@code ata export-timings}, {@code ata replay --from-topic} and {@code ata demo}
 * all export through this class.
 */
public final class TimingExport {
    /** How long reading a topic to its end may take. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    /**
     * What was read.
     *
     * @param records     the timing log, ordered by each task's end time
     * @param undecodable records of the timings topic that did not decode (skipped)
     * @param jobs        the jobs the records belong to
     */
    public record Result(List<TimingRecord> records, long undecodable, Set<String> jobs) {
        public long count(TimingRecord.Status status) {
            return records.stream().filter(r -> r.status() == status).count();
        }

        public long workers() {
            return records.stream().map(TimingRecord::worker).distinct().count();
        }

        /** Sum of the durations of the records with {@code status} (null: all). */
        public double duration(TimingRecord.Status status) {
            return records.stream()
                    .filter(r -> status == null || r.status() == status)
                    .mapToDouble(TimingRecord::duration)
                    .sum();
        }

        /** Sum of the durations of the records whose work was not used: late and cancelled. */
        public double wasted() {
            return records.stream()
                    .filter(r -> r.status() != TimingRecord.Status.COMPLETED)
                    .mapToDouble(TimingRecord::duration)
                    .sum();
        }
    }

    private TimingExport() {}

    /**
     * Reads the timings of {@code job} (every job if null) from the topics named by {@code prefix}.
     *
     * @param client Kafka client properties, with bootstrap.servers
     * @throws TimingExportException if the timings topic does not exist, cannot be read in time, or none of
     *                    its records decode with {@code registry}
     */
    public static Result read(
            Map<String, Object> client, SchemaRegistryClient registry, String prefix, String job, Duration timeout) {
        Topics topics = new Topics(prefix);
        Fates fates = new Fates();
        Deserializer<RoundEvent> roundDecoder =
                topics.rounds().valueSerde(registry).deserializer();
        forEachRecord(client, topics.rounds().name(), timeout, false, raw -> {
            RoundEvent e = decode(roundDecoder, raw);
            if (e != null && e.getType() == RoundEventType.CLOSED && (job == null || job.equals(e.getJob()))) {
                fates.closed(e);
            }
        });

        Deserializer<TaskTiming> timingDecoder =
                topics.timings().valueSerde(registry).deserializer();
        List<TimingRecord> records = new ArrayList<>();
        Set<String> jobs = new TreeSet<>();
        long[] seen = new long[2]; // undecodable, total
        forEachRecord(client, topics.timings().name(), timeout, true, raw -> {
            seen[1]++;
            TaskTiming t = decode(timingDecoder, raw);
            if (t == null) {
                seen[0]++;
                return;
            }
            if (job != null && !job.equals(t.getJob())) {
                return;
            }
            jobs.add(t.getJob());
            records.add(new TimingRecord(
                    t.getWorkerId(), t.getComputeMs(), t.getRound(), t.getTaskId(), t.getEndMs(), fates.of(t)));
        });
        if (seen[1] > 0 && seen[0] == seen[1]) {
            throw new TimingExportException(
                    "none of the " + seen[1] + " records of " + topics.timings().name()
                            + " decode with this Schema Registry: is it the one the deployment uses?");
        }
        records.sort(Comparator.comparingLong(TimingRecord::timestamp)); // stable: file order among equals
        return new Result(List.copyOf(records), seen[0], jobs);
    }

    /** Writes {@code records} to {@code out} (parent directories created) in {@code format}. */
    public static void write(Path out, TimingLogFormat format, List<TimingRecord> records) {
        Path parent = out.toAbsolutePath().getParent();
        try {
            if (parent != null) {
                Files.createDirectories(parent);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the directory of " + out, e);
        }
        TimingLogWriter.write(out, format, records);
    }

    /**
     * The number of records of {@code topic} whose value decodes as {@code type} and passes
     * {@code filter}; used to count a job's task assignments.
     */
    public static <V extends SpecificRecord> long count(
            Map<String, Object> client, String topic, Deserializer<V> decoder, Predicate<V> filter, Duration timeout) {
        long[] n = new long[1];
        forEachRecord(client, topic, timeout, true, raw -> {
            V v = decode(decoder, raw);
            if (v != null && filter.test(v)) {
                n[0]++;
            }
        });
        return n[0];
    }

    private static <V> V decode(Deserializer<V> decoder, ConsumerRecord<byte[], byte[]> raw) {
        if (raw.value() == null) {
            return null;
        }
        try {
            return decoder.deserialize(raw.topic(), raw.value());
        } catch (RuntimeException e) {
            return null; // not a record of this topic's schema (a dead letter's business, not ours)
        }
    }

    /**
     * Reads {@code topic} (committed records only) from its beginning to its end as of now.
     *
     * @param required whether a missing topic is an error (else: nothing is read)
     */
    private static void forEachRecord(
            Map<String, Object> client,
            String topic,
            Duration timeout,
            boolean required,
            Consumer<ConsumerRecord<byte[], byte[]>> action) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "ata-export-timings");
        p.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 << 20);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            Map<String, List<PartitionInfo>> all = consumer.listTopics(timeout);
            List<PartitionInfo> infos = all.get(topic);
            if (infos == null || infos.isEmpty()) {
                if (required) {
                    throw new TimingExportException("topic " + topic + " does not exist on "
                            + client.get("bootstrap.servers") + " (is --topic-prefix right?)");
                }
                return;
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(i -> new TopicPartition(topic, i.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new TimingExportException(
                            "could not read " + topic + " to its end within " + timeout.toSeconds() + " s");
                }
                // short polls: the last batch of a partition may be a transaction marker, which a
                // poll does not return as a record but still steps over
                consumer.poll(Duration.ofMillis(20)).forEach(action);
            }
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new TimingExportException(
                    "reading " + topic + " from " + client.get("bootstrap.servers") + " timed out: " + e.getMessage(),
                    e);
        } catch (KafkaException e) {
            throw new TimingExportException(
                    "cannot read " + topic + " from " + client.get("bootstrap.servers") + ": " + e.getMessage(), e);
        }
    }

    /** The fate of every task of the closed rounds, from their CLOSED events. */
    private static final class Fates {
        private final Set<String> closedRounds = new HashSet<>();
        /** Accepted (worker, task) pairs not yet matched to a timing; a re-run duplicate is then late. */
        private final Map<String, Integer> accepted = new HashMap<>();

        public void closed(RoundEvent e) {
            closedRounds.add(e.getJob() + '\n' + e.getRound());
            for (RoundTiming t : e.getTimings()) {
                if (t.getStatus() == TimingStatus.COMPLETED) {
                    accepted.merge(key(e.getJob(), t.getWorkerId(), t.getTaskId()), 1, Integer::sum);
                }
            }
        }

        public TimingRecord.Status of(TaskTiming t) {
            if (t.getStatus() == TimingStatus.CANCELLED) {
                return TimingRecord.Status.CANCELLED;
            }
            if (!closedRounds.contains(t.getJob() + '\n' + t.getRound())) {
                return TimingRecord.Status.COMPLETED; // the round is open: as the worker saw it
            }
            String key = key(t.getJob(), t.getWorkerId(), t.getTaskId());
            Integer left = accepted.get(key);
            if (left == null) {
                return TimingRecord.Status.LATE;
            }
            if (left == 1) {
                accepted.remove(key);
            } else {
                accepted.put(key, left - 1);
            }
            return TimingRecord.Status.COMPLETED;
        }

        private static String key(String job, String worker, String task) {
            return job + '\n' + worker + '\n' + task;
        }
    }
}
