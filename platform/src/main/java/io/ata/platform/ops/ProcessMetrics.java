package io.ata.platform.ops;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.Supplier;

/**
 * Where the {@code ata} process gets its meter registry. A command runs once per process and asks
 * for one registry, which it hands to every part it runs (broker, trainers, agents): their meters'
 * tags ({@code application}, {@code job}, {@code worker}) keep the parts apart in it. It is a
 * Prometheus registry, so that {@code GET /metrics} serves it in Prometheus' text format.
 */
public final class ProcessMetrics {
    /** Prometheus' text format 0.0.4, what a scrape gets unless it asks for OpenMetrics. */
    public static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    /** OpenMetrics 1.0, for an {@code Accept} header that names it. */
    public static final String OPENMETRICS_TEXT = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    /**
     * Our timers (round time, publish time, compute time) publish histogram buckets, so that
     * Prometheus can compute percentiles over any window and across instances
     * ({@code histogram_quantile}).
     */
    private static final MeterFilter PERCENTILE_HISTOGRAMS = new MeterFilter() {
        @Override
        public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
            if (id.getType() == Meter.Type.TIMER && id.getName().startsWith("ata.")) {
                return DistributionStatisticConfig.builder()
                        .percentilesHistogram(true)
                        .build()
                        .merge(config);
            }
            return config;
        }
    };

    private ProcessMetrics() {}

    /**
     * The process's registry, with the JVM's own meters (memory, threads, CPU, uptime) bound, and
     * {@code commonTags} (key, value, ...) on every meter, e.g. a trainer's policy.
     */
    public static PrometheusMeterRegistry newRegistry(String... commonTags) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags(commonTags).meterFilter(PERCENTILE_HISTOGRAMS);
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return registry;
    }

    /** {@code GET /metrics} of {@code registry}: OpenMetrics if the request accepts it, else Prometheus text. */
    public static OperationsEndpoints.Metrics exposition(PrometheusMeterRegistry registry) {
        return accept -> {
            String type = accept != null && accept.contains("application/openmetrics-text")
                    ? OPENMETRICS_TEXT
                    : PROMETHEUS_TEXT;
            return new OperationsEndpoints.Exposition(type, registry.scrape(type));
        };
    }

    /** The operations endpoints of a part whose meters are in {@code registry}. */
    public static OperationsEndpoints endpoints(
            PrometheusMeterRegistry registry,
            Supplier<OperationsEndpoints.Probe> health,
            Supplier<OperationsEndpoints.Probe> ready) {
        return new OperationsEndpoints(exposition(registry), health, ready);
    }
}
