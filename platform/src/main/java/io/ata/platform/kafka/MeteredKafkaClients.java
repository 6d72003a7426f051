package io.ata.platform.kafka;

import io.ata.platform.ops.OperationsEndpoints;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.Producer;

/**
 * Real Kafka clients whose own metrics (Micrometer's {@link KafkaClientMetrics}) go to the
 * process's registry, next to the part's: the CLI hands it to the trainer and the agents in place
 * of {@link KafkaClientFactory#KAFKA}. It also answers whether a part's group consumer has
 * partitions, from that consumer's {@code assigned-partitions} metric (thread-safe, unlike asking
 * the consumer itself). Closing it removes the clients' meters: close it after the part.
 */
public final class MeteredKafkaClients implements KafkaClientFactory, AutoCloseable {
    /** Micrometer's name of the consumer coordinator's {@code assigned-partitions} metric. */
    public static final String ASSIGNED_PARTITIONS = "kafka.consumer.coordinator.assigned.partitions";

    private final MeterRegistry registry;
    private final List<KafkaClientMetrics> bound = new ArrayList<>();
    /** The {@code client.id} of the consumer in each group. */
    private final Map<String, String> groupConsumers = new ConcurrentHashMap<>();

    public MeteredKafkaClients(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public Producer<String, byte[]> producer(Map<String, Object> config) {
        Producer<String, byte[]> producer = KAFKA.producer(config);
        bind(new KafkaClientMetrics(producer));
        return producer;
    }

    @Override
    public Consumer<byte[], byte[]> consumer(Map<String, Object> config) {
        Consumer<byte[], byte[]> consumer = KAFKA.consumer(config);
        Object group = config.get(ConsumerConfig.GROUP_ID_CONFIG);
        Object clientId = config.get(CommonClientConfigs.CLIENT_ID_CONFIG);
        if (group != null && clientId != null) {
            groupConsumers.put(group.toString(), clientId.toString());
        }
        bind(new KafkaClientMetrics(consumer));
        return consumer;
    }

    /**
     * Not metered: binding a client's metrics starts a thread and keeps the client until this
     * factory closes, which a consumer made for one short task would pile up.
     */
    @Override
    public Consumer<byte[], byte[]> shortLivedConsumer(Map<String, Object> config) {
        return KAFKA.consumer(config);
    }

    private synchronized void bind(KafkaClientMetrics metrics) {
        metrics.bindTo(registry);
        bound.add(metrics);
    }

    /** Ready once the consumer of {@code group} has partitions assigned. */
    public OperationsEndpoints.Probe groupMember(String group) {
        String clientId = groupConsumers.get(group);
        Gauge assigned = clientId == null
                ? null
                : registry.find(ASSIGNED_PARTITIONS).tag("client.id", clientId).gauge();
        double partitions = assigned == null ? 0 : assigned.value();
        return new OperationsEndpoints.Probe(
                partitions > 0,
                clientId == null
                        ? "not in group " + group + " yet"
                        : (long) partitions + " partitions of group " + group + " assigned");
    }

    @Override
    public synchronized void close() {
        bound.forEach(KafkaClientMetrics::close);
        bound.clear();
    }
}
