package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class RoundsPartitionLoadTest {
    private static final int TOO_MANY = RoundsPartitionLoad.ADVISED_JOBS_PER_PARTITION + 1;
    private static final long HOUR = RoundsPartitionLoad.WARNING_INTERVAL.toMillis();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RoundsPartitionLoad load = new RoundsPartitionLoad(registry, Tags.of("application", "a"));

    private double gauge() {
        return registry.get(RoundsPartitionLoad.JOBS_PER_PARTITION).gauge().value();
    }

    @Test
    void theGaugeIsTheMostRunningJobsOnOnePartitionHere() {
        assertEquals(0, gauge());
        load.report(0, 3, 0);
        load.report(5, 2, 0);
        assertEquals(3, gauge());
        load.forget(0); // the partition moved to another instance
        assertEquals(2, gauge());
    }

    @Test
    void tooManyJobsOnAPartitionAreWarnedOfOnceAnHour() {
        assertFalse(load.report(0, RoundsPartitionLoad.ADVISED_JOBS_PER_PARTITION, 0), "as advised: no warning");
        assertTrue(load.report(0, TOO_MANY, 1_000));
        assertFalse(load.report(0, TOO_MANY, 2_000), "not every second");
        assertFalse(load.report(1, TOO_MANY, 1_000 + HOUR - 1), "nor for another partition within the hour");
        assertTrue(load.report(0, TOO_MANY, 1_000 + HOUR));
    }

    @Test
    void itsGaugeGoesWithTheInstance() {
        load.unregister();
        assertTrue(
                registry.find(RoundsPartitionLoad.JOBS_PER_PARTITION).gauges().isEmpty());
    }
}
