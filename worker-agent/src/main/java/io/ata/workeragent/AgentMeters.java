package io.ata.workeragent;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@link AgentMetrics} of every worker of an agent, by worker id, kept by the agent's
 * {@link SupervisedAgent} and handed to each agent it starts: a worker's counters count on across
 * starts over, as one process's should. Thread-safe.
 */
public final class AgentMeters {
    private final MeterRegistry registry;
    private final Map<String, AgentMetrics> byWorker = new LinkedHashMap<>(); // guarded by this

    public AgentMeters(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    /** The meters of worker {@code workerId}, registered on first use. */
    public synchronized AgentMetrics of(String workerId) {
        return byWorker.computeIfAbsent(workerId, id -> new AgentMetrics(registry, id));
    }

    /** Each worker's counts, as its log line at a stop has them. */
    @Override
    public synchronized String toString() {
        StringBuilder b = new StringBuilder();
        byWorker.forEach((id, m) ->
                b.append(b.length() == 0 ? "" : "; ").append(id).append(": ").append(m));
        return b.toString();
    }

    /** Removes every worker's meters from the registry (the getters still read them). */
    public synchronized void unregister() {
        byWorker.values().forEach(AgentMetrics::unregister);
    }
}
