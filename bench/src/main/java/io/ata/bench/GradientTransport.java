package io.ata.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A way to move task gradients from a sender (an agent) to a reader (the trainer) over one topic
 * partition, measured: the sender publishes the tasks one after the other, as an agent does, at a
 * {@link Pace} (streamed, or each once the previous one arrived), while the reader, on a thread of
 * its own, polls until it holds every task whole. A subclass says how a task is published and how
 * the records it reads make up tasks; this class does the timing.
 *
 * <p>Not thread-safe; one run at a time.
 */
abstract class GradientTransport implements AutoCloseable {
    /** How long a run may take before it is called stuck. */
    private static final Duration RUN_TIMEOUT = Duration.ofMinutes(5);

    private final String name;
    private final TopicPartition partition;
    private final KafkaConsumer<String, byte[]> consumer;

    /**
     * @param name the transport's name in the results
     * @param topic the topic it writes, of one partition (or the tasks go to partition 0)
     * @param consumerConfig the reader's settings, over the cluster's client properties
     */
    GradientTransport(
            String name, String topic, Map<String, Object> clientProperties, Map<String, Object> consumerConfig) {
        this.name = name;
        this.partition = new TopicPartition(topic, 0);
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.putAll(consumerConfig);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.remove(ConsumerConfig.GROUP_ID_CONFIG); // assigned, no group
        this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
        consumer.assign(List.of(partition));
    }

    /**
     * A producer over the cluster's client properties, {@code transactional} with the agent's
     * settings (AgentClients.transactionalProducer: idempotent, acks=all, a fresh transactional id
     * starting with {@code transactionalIdPrefix}) and its transactions initialised, or plain.
     */
    static KafkaProducer<String, byte[]> producer(
            Map<String, Object> clientProperties, boolean transactional, String transactionalIdPrefix) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        if (transactional) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalIdPrefix + System.nanoTime());
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
        }
        KafkaProducer<String, byte[]> producer =
                new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
        if (transactional) {
            producer.initTransactions();
        }
        return producer;
    }

    String name() {
        return name;
    }

    /** Hands task {@code task}'s gradient to the transport; it may still be on its way when this returns. */
    abstract void publish(int task, byte[] gradient);

    /** Returns once everything published is sent: committed, or acknowledged by the broker. */
    abstract void flush();

    /**
     * Takes one record the reader read.
     *
     * @return the index of the task the record completed, or -1 if it completed none
     */
    abstract int read(ConsumerRecord<String, byte[]> record);

    /** Before a run of tasks of {@code bytesPerTask} bytes: forgets whatever a previous run left half read. */
    abstract void reset(long bytesPerTask);

    /**
     * Sends {@code tasks} copies of {@code gradient} at {@code pace} and measures them.
     *
     * @param parameters the float32 values {@code gradient} encodes
     * @param progress told of every task that arrived
     */
    TransportRun run(byte[] gradient, int parameters, int tasks, Pace pace, LongConsumer progress)
            throws InterruptedException {
        reset(gradient.length);
        consumer.seekToEnd(List.of(partition));
        consumer.position(partition); // resolves the end now: the reader starts before the first task
        long[] started = new long[tasks];
        long[] arrived = new long[tasks];
        AtomicReference<RuntimeException> readerFailure = new AtomicReference<>();
        Semaphore arrivals = new Semaphore(0);
        Thread reader = new Thread(
                () -> {
                    try {
                        readAll(arrived, n -> {
                            arrivals.release();
                            progress.accept(n);
                        });
                    } catch (RuntimeException e) {
                        readerFailure.set(e);
                    }
                },
                "bench-reader-" + name);
        reader.start();
        try {
            for (int task = 0; task < tasks; task++) {
                started[task] = System.nanoTime();
                publish(task, gradient);
                if (pace == Pace.SERIAL) {
                    flush();
                    awaitArrival(arrivals, reader, readerFailure);
                }
            }
            flush();
        } catch (RuntimeException e) {
            reader.interrupt();
            reader.join();
            throw e;
        }
        reader.join(RUN_TIMEOUT.toMillis());
        if (readerFailure.get() != null) {
            throw readerFailure.get();
        }
        if (reader.isAlive()) {
            reader.interrupt();
            throw new IllegalStateException(name + ": the reader did not get all " + tasks + " tasks within "
                    + RUN_TIMEOUT.toMinutes() + " minutes");
        }
        double[] latenciesMs = new double[tasks];
        for (int task = 0; task < tasks; task++) {
            latenciesMs[task] = (arrived[task] - started[task]) / 1e6;
        }
        return new TransportRun(
                name, parameters, gradient.length, latenciesMs, (arrived[tasks - 1] - started[0]) / 1e9);
    }

    /** Waits for the reader to count one more task (or to fail or end). */
    private void awaitArrival(Semaphore arrivals, Thread reader, AtomicReference<RuntimeException> readerFailure)
            throws InterruptedException {
        while (!arrivals.tryAcquire(100, TimeUnit.MILLISECONDS)) {
            if (readerFailure.get() != null || !reader.isAlive()) {
                return; // the run's end reports it
            }
        }
    }

    private void readAll(long[] arrived, LongConsumer progress) {
        long deadline = System.nanoTime() + RUN_TIMEOUT.toNanos();
        int received = 0;
        while (received < arrived.length) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + ": the reader got " + received + " of " + arrived.length
                        + " tasks within " + RUN_TIMEOUT.toMinutes() + " minutes");
            }
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                int task = read(r);
                if (task >= 0) {
                    arrived[task] = System.nanoTime();
                    received++;
                    progress.accept(1);
                }
            }
        }
    }

    @Override
    public void close() {
        consumer.close();
    }
}
