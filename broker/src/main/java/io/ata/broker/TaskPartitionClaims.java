package io.ata.broker;

import io.ata.schemas.WorkerHeartbeat;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches for a partition of the tasks topic claimed by two live workers of different consumers at
 * once (workers of one consumer share its partitions by design, see {@link TaskConsumers}). Kafka
 * gives each partition to one member of a consumer group, so two claims that last mean two groups
 * read the tasks topic: an agent started with another {@code --group-id} than the fleet's reads every
 * partition beside it. Tasks then run twice, and the broker sends a worker's tasks to a partition
 * that another agent reads too. A claim left over from a rebalance, which the worker's next
 * heartbeat corrects, is not that: so a double claim is reported only once every claimant has
 * announced the partition again since the claim was first seen (a heartbeat of its own, later than
 * the one that made it; each worker's times on its own clock, so no clocks are compared), and the
 * same workers still claim it at a later check (see {@link TaskPartitionChecks}). With thousands of
 * agents heartbeating seconds apart, two checks in a row still found a rebalance's leftovers. It is
 * logged once, and counted in
 * the gauge {@value #CLAIMED_TWICE} for as long as it lasts.
 */
final class TaskPartitionClaims implements TaskPartitionChecks.FleetCheck, AutoCloseable {
    /** Gauge: tasks partitions claimed by more than one live worker at the last two checks. */
    static final String CLAIMED_TWICE = "ata.broker.task.partitions.claimed.twice";

    private static final Logger LOG = LoggerFactory.getLogger(TaskPartitionClaims.class);

    private final BrokerSettings settings;
    private final MeterRegistry registry;
    private final AtomicInteger claimedTwice = new AtomicInteger();
    private final Gauge gauge;
    /** Double claims seen, by partition: who claims it, and each claimant's heartbeat time when first seen. */
    private Map<Integer, Claim> seen = Map.of();

    private final Map<Integer, Set<String>> reported = new HashMap<>();

    TaskPartitionClaims(BrokerSettings settings, MeterRegistry registry, String applicationId) {
        this.settings = settings;
        this.registry = registry;
        this.gauge = Gauge.builder(CLAIMED_TWICE, claimedTwice, AtomicInteger::get)
                .description("tasks partitions claimed by several live workers: agents in another consumer group")
                .tags(Tags.of(BrokerMetrics.APPLICATION, applicationId))
                .register(registry);
    }

    /**
     * The tasks partitions claimed by live workers of more than one consumer, each with its
     * claimants (sorted). Workers naming the same consumer share its partitions by design
     * ({@link TaskConsumers}).
     */
    static Map<Integer, Set<String>> doubleClaims(
            Collection<WorkerHeartbeat> heartbeats, BrokerSettings settings, long nowMs) {
        Map<Integer, Set<String>> claimants = new TreeMap<>();
        Map<Integer, Set<String>> consumers = new HashMap<>();
        for (WorkerHeartbeat h : heartbeats) {
            if (settings.isLive(h, nowMs)) {
                for (int p : h.getPartitions()) {
                    claimants.computeIfAbsent(p, x -> new TreeSet<>()).add(h.getWorkerId());
                    consumers.computeIfAbsent(p, x -> new HashSet<>()).add(TaskConsumers.of(h));
                }
            }
        }
        claimants.keySet().removeIf(p -> consumers.get(p).size() < 2);
        return claimants;
    }

    private record Claim(Set<String> workers, Map<String, Long> firstHeartbeatMs) {}

    /** Partitions whose double claim lasts (see the class comment). */
    int claimedTwice() {
        return claimedTwice.get();
    }

    @Override
    public void check(Collection<WorkerHeartbeat> heartbeats, long nowMs) {
        Map<String, Long> sentMs = new HashMap<>();
        heartbeats.forEach(h -> sentMs.put(h.getWorkerId(), h.getTimestampMs()));
        Map<Integer, Claim> next = new HashMap<>();
        Set<Integer> lasting = new HashSet<>();
        doubleClaims(heartbeats, settings, nowMs).forEach((p, workers) -> {
            Claim before = seen.get(p);
            Claim claim = before != null && before.workers().equals(workers)
                    ? before
                    : new Claim(workers, timesOf(workers, sentMs));
            next.put(p, claim);
            boolean allAgain = workers.stream()
                    .allMatch(w -> sentMs.getOrDefault(w, Long.MIN_VALUE)
                            > claim.firstHeartbeatMs().get(w));
            if (before == claim && allAgain) {
                lasting.add(p);
                if (!workers.equals(reported.put(p, workers))) {
                    LOG.warn(
                            "partition {} of the tasks topic is claimed by {} at once: two consumer groups read"
                                    + " it (an agent with another --group-id?), so its tasks run twice",
                            p,
                            workers);
                }
            }
        });
        reported.keySet().retainAll(lasting);
        claimedTwice.set(lasting.size());
        seen = next;
    }

    private static Map<String, Long> timesOf(Set<String> workers, Map<String, Long> sentMs) {
        Map<String, Long> times = new HashMap<>();
        workers.forEach(w -> times.put(w, sentMs.get(w)));
        return times;
    }

    /** Removes the gauge. */
    @Override
    public void close() {
        registry.remove(gauge);
    }
}
