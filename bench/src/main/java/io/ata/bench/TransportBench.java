package io.ata.bench;

import io.ata.local.kafka.TopicAdmin;
import io.ata.local.kafka.TopicSpec;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.schemas.tensor.TensorCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.admin.Admin;

/**
 * Gradient transport, measured: for each gradient size, the system's exactly-once result path
 * ({@link ResultPathTransport}), Kafka's clients with a transaction per task and plain Kafka (both
 * {@link PlainKafkaTransport}) each move {@code tasks} gradients, {@code repeats} times, taking
 * turns (so a change in the machine's load hits all three), on the same cluster in the same run,
 * each at the same {@link Pace}.
 * All first move {@code warmup} unmeasured tasks of each size, for the JIT. It creates its topics
 * (fresh names under its prefix: the gradients and timings topics as the system defines them, and
 * one topic for each of Kafka's transports) and deletes them when closed.
 */
public final class TransportBench implements AutoCloseable {
    private final Map<String, Object> clientProperties;
    private final List<String> topicNames;
    private final ResultPathTransport ata;
    private final PlainKafkaTransport eos;
    private final PlainKafkaTransport plain;

    /** What to measure. */
    public record Settings(List<Integer> sizes, int tasks, int repeats, int warmup, Pace pace) {
        public Settings {
            sizes = List.copyOf(sizes);
            java.util.Objects.requireNonNull(pace, "pace");
            if (sizes.isEmpty() || sizes.stream().anyMatch(s -> s < 1)) {
                throw new IllegalArgumentException("sizes must be >= 1 parameter, were " + sizes);
            }
            if (tasks < 1 || repeats < 1 || warmup < 0) {
                throw new IllegalArgumentException(
                        "need tasks >= 1, repeats >= 1, warmup >= 0, got " + tasks + ", " + repeats + ", " + warmup);
            }
        }

        /** Tasks moved in all, warm-up included: for a progress bar. */
        public long totalTasks() {
            return 3L * sizes.size() * (warmup + (long) tasks * repeats);
        }
    }

    /**
     * @param clientProperties the cluster's client properties, bootstrap.servers included
     * @param registry the Schema Registry the result path's records are encoded with
     * @param prefix the prefix of the topics it creates; fresh, they are deleted at the end
     * @param largestSize the largest gradient to be sent, in float32 values
     */
    public TransportBench(
            Map<String, Object> clientProperties, SchemaRegistryClient registry, String prefix, int largestSize) {
        this.clientProperties = Map.copyOf(clientProperties);
        Topics topics = new Topics(prefix);
        String plainTopic = prefix + "plain";
        String eosTopic = prefix + "kafka-eos";
        List<TopicSpec> specs = List.of(
                TopicSpec.of(topics.gradients()),
                TopicSpec.of(topics.timings()),
                TopicSpec.of(eosTopic, 1),
                TopicSpec.of(plainTopic, 1));
        this.topicNames = specs.stream().map(TopicSpec::name).toList();
        try (Admin admin = admin()) {
            TopicAdmin.createTopics(admin, specs);
        }
        // the trainer's bound on a gradient: its model in float64
        this.ata = new ResultPathTransport(topics, clientProperties, registry, (long) largestSize * Double.BYTES);
        this.eos = PlainKafkaTransport.exactlyOnce(eosTopic, clientProperties);
        this.plain = PlainKafkaTransport.plain(plainTopic, clientProperties);
    }

    /**
     * Runs every size; {@code onSize} gets each size's figures as soon as they are measured.
     *
     * @param progress told of every task that arrived, warm-up included
     */
    public List<TransportResult> run(Settings settings, LongConsumer progress, Consumer<TransportResult> onSize)
            throws InterruptedException {
        List<TransportResult> results = new ArrayList<>();
        for (int size : settings.sizes()) {
            byte[] gradient = gradient(size);
            List<GradientTransport> transports = List.of(ata, eos, plain);
            if (settings.warmup() > 0) {
                for (GradientTransport t : transports) {
                    t.run(gradient, size, settings.warmup(), settings.pace(), progress);
                }
            }
            Map<GradientTransport, List<TransportRun>> runs = new HashMap<>();
            for (int r = 0; r < settings.repeats(); r++) {
                // each repeat starts with the next transport, so none always runs first or last
                for (int k = 0; k < transports.size(); k++) {
                    GradientTransport t = transports.get((r + k) % transports.size());
                    runs.computeIfAbsent(t, x -> new ArrayList<>())
                            .add(t.run(gradient, size, settings.tasks(), settings.pace(), progress));
                }
            }
            TransportResult result =
                    new TransportResult(size, gradient.length, runs.get(ata), runs.get(eos), runs.get(plain));
            results.add(result);
            onSize.accept(result);
        }
        return results;
    }

    /** A gradient of {@code size} float32 values, random (so no layer of the path can compress it). */
    static byte[] gradient(int size) {
        Random random = new Random(size);
        float[] values = new float[size];
        for (int i = 0; i < size; i++) {
            values[i] = (float) random.nextGaussian();
        }
        return TensorCodec.encode(values, TensorEncoding.FLOAT32_LE);
    }

    private Admin admin() {
        Properties p = new Properties();
        p.putAll(clientProperties);
        return Admin.create(p);
    }

    /** Closes the clients and deletes the topics. */
    @Override
    public void close() {
        ata.close();
        eos.close();
        plain.close();
        try (Admin admin = admin()) {
            admin.deleteTopics(topicNames).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // best effort: the topics hold nothing anybody needs
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
