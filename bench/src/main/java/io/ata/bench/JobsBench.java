package io.ata.bench;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.Decoded;
import io.ata.schemas.decoding.RecordDecoder;
import io.ata.trainer.Trainer;
import io.ata.workeragent.AgentConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One broker (or two instances of it) serving many concurrent jobs: {@code jobs} trainers at once,
 * each a {@code uta} job of {@code B} = {@link #AGENTS} zero-work tasks a round, on one shared fleet
 * of {@link #AGENTS} agents. It measures what the broker adds per round when it is busy with other
 * jobs, and how many rounds it allocates per second, with each round planned when it opens:
 *
 * <ul>
 *   <li>overhead of round {@code k+1} of a job: from the commit of its round {@code k}'s close (the
 *       trainer's round listener) to the moment the last of round {@code k+1}'s assignments is
 *       readable on {@code tasks} (a read_committed reader of its own, so an agent's queue of other
 *       jobs' tasks does not count);</li>
 *   <li>rounds allocated per second: the rounds of every job closed in the measured window, over
 *       its length.</li>
 * </ul>
 * Each job first runs {@code warmup} rounds that are not measured.
 */
public final class JobsBench {
    public static final int AGENTS = 8;

    /**
     * Each round planned when it opens: what is measured is the broker's allocation path under
     * many jobs, which pipelined allocation would take off the rounds (its assignments readable
     * before the close that opens their round).
     */
    private static final BrokerSettings AT_OPEN = BrokerSettings.defaults().withPipelinedAllocation(false);

    /** The figures of one load. */
    public record Result(int jobs, int instances, long rounds, double seconds, double[] overheadMs) {
        public double roundsPerSecond() {
            return rounds / seconds;
        }
    }

    private final MeterRegistry meters;
    private final LongConsumer progress;

    public JobsBench(MeterRegistry meters, LongConsumer progress) {
        this.meters = meters;
        this.progress = progress;
    }

    public Result run(int jobs, int instances, int rounds, int warmup) throws Exception {
        int total = warmup + rounds;
        Topics topics = new Topics("jobs-" + jobs + "x" + instances + "-" + System.nanoTime() + ".", 32, 8);
        Map<String, long[]> closedAt = new HashMap<>();
        ConcurrentMap<String, Long> readable = new ConcurrentHashMap<>();
        AtomicLong closedInWindow = new AtomicLong();
        long[] window = new long[2];
        try (LocalDeployment local = LocalDeployment.embedded(topics, AT_OPEN, meters)) {
            local.startBroker();
            for (int i = 1; i < instances; i++) {
                local.startExtraBrokerInstance();
            }
            for (int j = 1; j <= AGENTS; j++) {
                local.startAgent(local.agentConfig(String.format(Locale.ROOT, "agent-%02d", j))
                        .heartbeatInterval(AgentConfig.DEFAULT_HEARTBEAT_INTERVAL)
                        .build());
            }
            local.awaitFleet(Duration.ofSeconds(120));
            try (AssignmentReader reader = new AssignmentReader(local, readable)) {
                reader.start();
                List<Trainer> trainers = new ArrayList<>();
                for (int i = 1; i <= jobs; i++) {
                    String job = String.format(Locale.ROOT, "job-%03d", i);
                    long[] closed = new long[total + 2];
                    closedAt.put(job, closed);
                    trainers.add(local.startTrainer(local.trainerConfig(job, "uta", AGENTS, total)
                            .listener(summary -> {
                                long now = summary.committedNanos();
                                closed[(int) summary.round()] = now;
                                if (summary.round() > warmup) {
                                    synchronized (window) {
                                        window[0] = window[0] == 0 ? now : Math.min(window[0], now);
                                        window[1] = Math.max(window[1], now);
                                    }
                                    closedInWindow.incrementAndGet();
                                }
                                progress.accept(1);
                            })
                            .build()));
                }
                for (Trainer t : trainers) {
                    if (!t.awaitRounds(total, Duration.ofMinutes(20))) {
                        throw new IllegalStateException(
                                "a job stalled at round " + t.metrics().lastClosedRound() + " of " + total);
                    }
                }
                Trainer.closeAll(trainers);
            }
        }
        double[] ms = overheadsMs(closedAt, readable, warmup, total);
        // the window runs from the first measured close to the last: one close fewer than counted
        double seconds = (window[1] - window[0]) / 1e9;
        return new Result(jobs, instances, Math.max(0, closedInWindow.get() - 1), seconds, ms);
    }

    /**
     * One measured round's control overhead.
     *
     * @param job         the job
     * @param round       {@code k+1}, the round whose assignments were waited for
     * @param closedNanos when the close of round {@code k} was committed ({@link System#nanoTime()})
     * @param ms          from then to the last of round {@code k+1}'s assignments
     */
    public record RoundOverhead(String job, long round, long closedNanos, double ms) {}

    /**
     * Every measured round's overhead, in the order the rounds closed: for each job and round
     * {@code k} from {@code warmup} to {@code total - 1}, from {@code closedAt[job][k]} (nanos, the
     * close of round {@code k} committed) to {@code arrivedAt["job/k+1"]} (nanos, the last of round
     * {@code k+1}'s assignments arrived); rounds missing either are left out.
     */
    public static List<RoundOverhead> roundOverheads(
            Map<String, long[]> closedAt, Map<String, Long> arrivedAt, int warmup, int total) {
        List<RoundOverhead> overhead = new ArrayList<>();
        closedAt.forEach((job, closed) -> {
            for (int k = warmup; k < total; k++) {
                Long at = arrivedAt.get(job + "/" + (k + 1));
                if (at != null && closed[k] > 0) {
                    overhead.add(new RoundOverhead(job, k + 1, closed[k], (at - closed[k]) / 1e6));
                }
            }
        });
        overhead.sort(Comparator.comparingLong(RoundOverhead::closedNanos));
        return overhead;
    }

    /** The overheads of {@link #roundOverheads} in ms, sorted. */
    public static double[] overheadsMs(
            Map<String, long[]> closedAt, Map<String, Long> arrivedAt, int warmup, int total) {
        return sortedMs(roundOverheads(closedAt, arrivedAt, warmup, total));
    }

    /** The rounds' overheads in ms, sorted (as {@link Percentiles#of} takes them). */
    public static double[] sortedMs(List<RoundOverhead> rounds) {
        return rounds.stream().mapToDouble(RoundOverhead::ms).sorted().toArray();
    }

    /** Reads {@code tasks} (read_committed) and keeps, per job and round, when its last assignment was readable. */
    private static final class AssignmentReader implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final RecordDecoder<TaskAssignment> decoder;
        private final ConcurrentMap<String, Long> readable;
        private final Thread thread;
        private volatile boolean running = true;

        public AssignmentReader(LocalDeployment local, ConcurrentMap<String, Long> readable) {
            Map<String, Object> config = new HashMap<>(local.clientProperties());
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            config.remove(ConsumerConfig.GROUP_ID_CONFIG);
            this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            String topic = local.topics().tasks().name();
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position); // fix the start before any job runs
            this.decoder = new RecordDecoder<>(
                    local.topics().tasks().valueSerde(local.registry()).deserializer(), "task assignment");
            this.readable = readable;
            this.thread = new Thread(this::read, "bench-assignment-reader");
            thread.setDaemon(true);
        }

        public void start() {
            thread.start();
        }

        private void read() {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(5))) {
                    long now = System.nanoTime();
                    if (decoder.decode(r.topic(), r.value()) instanceof Decoded.Valid<TaskAssignment> valid
                            && valid.record().getBackupOf().isEmpty()) {
                        TaskAssignment a = valid.record();
                        readable.merge(a.getJob() + "/" + a.getRound(), now, Math::max);
                    }
                }
            }
            consumer.close();
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(Duration.ofSeconds(10).toMillis());
        }
    }

    /**
     * The floor under every round's overhead, on a broker of its own started the same way: a
     * record produced in a transaction, committed, and read by a read_committed consumer, {@code
     * samples} times one after another (after as many unmeasured ones); sorted latencies in ms.
     */
    public double[] transactionalFloor(int samples) throws Exception {
        Topics topics = new Topics("floor-" + System.nanoTime() + ".");
        try (LocalDeployment local = LocalDeployment.embedded(topics, BrokerSettings.defaults(), meters)) {
            String topic = topics.prefix() + "floor";
            Map<String, Object> common = new HashMap<>(local.clientProperties());
            try (Admin admin = Admin.create(common)) {
                admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                        .all()
                        .get();
            }
            Map<String, Object> p = new HashMap<>(common);
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, topics.prefix() + "floor");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            Map<String, Object> c = new HashMap<>(common);
            c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
            c.remove(ConsumerConfig.GROUP_ID_CONFIG);
            TopicPartition partition = new TopicPartition(topic, 0);
            double[] ms = new double[samples];
            try (KafkaProducer<byte[], byte[]> producer =
                            new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
                    KafkaConsumer<byte[], byte[]> consumer =
                            new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
                producer.initTransactions();
                consumer.assign(List.of(partition));
                consumer.seekToEnd(List.of(partition));
                consumer.position(partition);
                for (int i = -samples; i < samples; i++) {
                    long start = System.nanoTime();
                    producer.beginTransaction();
                    producer.send(new ProducerRecord<>(topic, 0, null, new byte[8]));
                    producer.commitTransaction();
                    while (consumer.poll(Duration.ofMillis(100)).isEmpty()) {
                        // until the committed record is readable
                    }
                    if (i >= 0) {
                        ms[i] = (System.nanoTime() - start) / 1e6;
                    }
                }
            }
            Arrays.sort(ms);
            return ms;
        }
    }
}
