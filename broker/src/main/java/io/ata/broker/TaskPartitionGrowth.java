package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grows the tasks topic when the fleet outgrows it. Kafka gives each partition to one consumer of
 * the group, so with more live agents' consumers than partitions some own none, and the broker,
 * which writes a worker's tasks to a partition it owns, never gives their workers work. Agents are
 * counted by consumer ({@link TaskConsumers}): the workers of one multi-device agent share its
 * partitions. Checked every few seconds (see {@link TaskPartitionChecks}): when a live agent's
 * consumer owns no partition and there are more live consumers than partitions, the topic is
 * grown to twice its partitions, or to the live consumers if that is more, at most {@link
 * #MAX_PARTITIONS}. The group then rebalances and the idle agents get partitions.
 *
 * <p>Growing needs ALTER on the topic; without it (or at the maximum) the idle agents are logged
 * and counted in {@code ata.broker.workers.without.partition}, never silent. Results keep their
 * {@code gradients} partitions (an agent writes to its tasks partition modulo their count), so the
 * trainer need not notice the change.
 */
final class TaskPartitionGrowth implements TaskPartitionChecks.FleetCheck, AutoCloseable {
    /** The most partitions the broker grows the tasks topic to. */
    static final int MAX_PARTITIONS = 1024;
    /** Gauge: live agents owning no partition of the tasks topic, at the last check. */
    static final String WORKERS_WITHOUT_PARTITION = "ata.broker.workers.without.partition";
    /** Counter: times this instance grew the tasks topic. */
    static final String PARTITIONS_GROWN = "ata.broker.task.partitions.grown";

    private static final Logger LOG = LoggerFactory.getLogger(TaskPartitionGrowth.class);

    private final TaskPartitionCount partitions;
    private final BrokerSettings settings;
    private final MeterRegistry registry;
    private final AtomicInteger idleWorkers = new AtomicInteger();
    private final Gauge idleGauge;
    private final Counter grown;
    private int refusedAt;

    TaskPartitionGrowth(
            TaskPartitionCount partitions, BrokerSettings settings, MeterRegistry registry, String applicationId) {
        this.partitions = partitions;
        this.settings = settings;
        this.registry = registry;
        Tags tags = Tags.of(BrokerMetrics.APPLICATION, applicationId);
        this.idleGauge = Gauge.builder(WORKERS_WITHOUT_PARTITION, idleWorkers, AtomicInteger::get)
                .description("live agents owning no partition of the tasks topic: they get no tasks")
                .tags(tags)
                .register(registry);
        this.grown = Counter.builder(PARTITIONS_GROWN)
                .description("times the broker grew the tasks topic for a fleet that outgrew it")
                .tags(tags)
                .register(registry);
    }

    /** Live agents owning no partition at the last check. */
    int workersWithoutPartition() {
        return idleWorkers.get();
    }

    /** Removes the meters. */
    @Override
    public void close() {
        registry.remove(idleGauge);
        registry.remove(grown);
    }

    /**
     * The live fleet as the tasks topic sees it.
     *
     * @param consumers the live workers' consumers ({@link TaskConsumers}): each needs a partition
     * @param idleConsumers those of them none of whose workers owns a partition
     * @param idleWorkers live workers owning no partition
     */
    record Readers(int consumers, int idleConsumers, int idleWorkers) {}

    /** The live fleet in {@code heartbeats} at {@code now}, counted by consumer. */
    static Readers readers(Collection<WorkerHeartbeat> heartbeats, BrokerSettings settings, long now) {
        // per consumer, whether one of its workers owns a partition: the workers of one consumer
        // share what it owns
        Map<String, Boolean> ownsAny = new HashMap<>();
        int idleWorkers = 0;
        for (WorkerHeartbeat h : heartbeats) {
            if (settings.isLive(h, now)) {
                boolean owns = !h.getPartitions().isEmpty();
                ownsAny.merge(TaskConsumers.of(h), owns, Boolean::logicalOr);
                if (!owns) {
                    idleWorkers++;
                }
            }
        }
        int idleConsumers =
                (int) ownsAny.values().stream().filter(owns -> !owns).count();
        return new Readers(ownsAny.size(), idleConsumers, idleWorkers);
    }

    @Override
    public void check(Collection<WorkerHeartbeat> heartbeats, long now) throws InterruptedException {
        Readers readers = readers(heartbeats, settings, now);
        idleWorkers.set(readers.idleWorkers());
        int live = readers.consumers();
        int idle = readers.idleConsumers();
        int count = partitions.getAsInt();
        int target = target(live, idle, count);
        if (target <= count) {
            if (idle > 0 && live > count && count >= MAX_PARTITIONS && refusedAt != count) {
                refusedAt = count;
                LOG.warn(
                        "{} of {} live agents' consumers own no partition of the tasks topic, which has the most"
                                + " partitions the broker grows it to ({}): their workers get no tasks",
                        idle,
                        live,
                        count);
            }
            return;
        }
        try {
            int after = partitions.growTo(target);
            grown.increment();
            LOG.info(
                    "{} of {} live agents' consumers owned no partition of the tasks topic: grew it from {} to {}"
                            + " partitions",
                    idle,
                    live,
                    count,
                    after);
        } catch (ExecutionException | TimeoutException e) {
            if (refusedAt != count) {
                refusedAt = count;
                LOG.warn(
                        "{} of {} live agents' consumers own no partition of the tasks topic ({} partitions), their"
                                + " workers get no tasks; growing it to {} failed ({}): grant the broker ALTER on the"
                                + " topic, or add partitions",
                        idle,
                        live,
                        count,
                        target,
                        e.getCause() == null ? e.toString() : e.getCause().toString());
            }
        }
    }

    /**
     * How many partitions the tasks topic should have, given the live agents, those of them
     * owning none, and its partitions now (0: unknown); at most {@code count} means leave it.
     */
    static int target(int live, int idle, int count) {
        if (count <= 0 || idle == 0 || live <= count) {
            return count;
        }
        return Math.max(count, Math.min(MAX_PARTITIONS, Math.max(live, 2 * count)));
    }
}
