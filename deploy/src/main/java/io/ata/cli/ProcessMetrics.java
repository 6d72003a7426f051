package io.ata.cli;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Where the {@code ata} process gets its meter registry. A command runs once per process and asks
 * for one registry, which it hands to every part it runs (broker, trainers, agents): their meters'
 * tags ({@code application}, {@code job}, {@code worker}) keep the parts apart in it.
 */
final class ProcessMetrics {
    private ProcessMetrics() {}

    /**
     * The process's registry. To expose the meters in Prometheus' text format, return a
     * {@code PrometheusMeterRegistry} here (micrometer-registry-prometheus) and serve its
     * {@code scrape()}.
     */
    static MeterRegistry newRegistry() {
        return new SimpleMeterRegistry();
    }
}
