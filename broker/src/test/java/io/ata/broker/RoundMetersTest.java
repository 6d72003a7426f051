package io.ata.broker;

import static io.ata.testsupport.RoundEvents.timing;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import io.ata.testsupport.RoundEvents;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Control overhead, busy and wasted time of closed rounds, from known timings. */
class RoundMetersTest {
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final RoundMeters meters = new RoundMeters(registry, Tags.of(BrokerMetrics.APPLICATION, "ata-broker"));

    private static RoundEvent closed(String job, long round, double roundTimeMs, List<RoundTiming> timings) {
        RoundEvent e = RoundEvents.closed(job, round, 2, timings, 1000);
        e.setRoundTimeMs(roundTimeMs);
        return e;
    }

    /** The count of the counter {@code name} of tags {@code tags} (names and values in turn). */
    private double counted(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    /**
     * B = 2. Worker a runs two tasks in order (30 then 40 ms, both accepted, the second is the B-th
     * result); b's 100 ms task arrives late, c's is cancelled after 20 ms. The B-th result waited for
     * a's 70 ms of compute: the round's 85 ms leave 15 ms of overhead.
     */
    private static final RoundEvent ROUND = closed(
            "job-1",
            1,
            85,
            List.of(
                    timing("c", "t4", 20, TimingStatus.CANCELLED),
                    timing("a", "t1", 30, TimingStatus.COMPLETED),
                    timing("a", "t2", 40, TimingStatus.COMPLETED),
                    timing("b", "t3", 100, TimingStatus.LATE)));

    @Test
    void overheadIsRoundTimeLessTheComputeTheBthResultWaitedFor() {
        assertEquals(15, RoundMeters.controlOverheadMs(ROUND), 1e-9);
        // the same round where b's result came first and was accepted: the B-th is still a's second
        RoundEvent otherWorkerFirst = closed(
                "job-1",
                1,
                85,
                List.of(
                        timing("b", "t3", 10, TimingStatus.COMPLETED),
                        timing("a", "t1", 30, TimingStatus.COMPLETED),
                        timing("a", "t2", 40, TimingStatus.LATE)));
        assertEquals(55, RoundMeters.controlOverheadMs(otherWorkerFirst), 1e-9, "B-th accepted is a's t1");
    }

    @Test
    void busyCountsEveryTaskWastedTheLateAndCancelledOnes() {
        assertEquals(190, RoundWork.of(ROUND).busyMs(), 1e-9);
        assertEquals(120, RoundWork.of(ROUND).wastedMs(), 1e-9);
    }

    @Test
    void overheadIsNeverNegativeAndUndefinedWithoutAnAcceptedResult() {
        RoundEvent clocksDisagree = closed("j", 1, 29, List.of(timing("a", "t1", 30, TimingStatus.COMPLETED)));
        assertEquals(0, RoundMeters.controlOverheadMs(clocksDisagree));
        RoundEvent none = closed("j", 1, 29, List.of(timing("a", "t1", 30, TimingStatus.CANCELLED)));
        assertTrue(Double.isNaN(RoundMeters.controlOverheadMs(none)));
    }

    @Test
    void theMetersAddUpTheRoundsOfEachJobTaggedByJobAndPolicy() {
        meters.closed(ROUND, "gta");
        meters.closed(closed("job-1", 2, 50, List.of(timing("a", "t1", 45, TimingStatus.COMPLETED))), "gta");
        meters.closed(closed("job-2", 1, 12, List.of(timing("x", "t1", 10, TimingStatus.COMPLETED))), "fta");

        Timer overhead = registry.get(RoundMeters.CONTROL_OVERHEAD)
                .tags(WorkerGauges.JOB, "job-1", RoundMeters.POLICY, "gta", BrokerMetrics.APPLICATION, "ata-broker")
                .timer();
        assertEquals(2, overhead.count());
        assertEquals(15 + 5, overhead.totalTime(TimeUnit.MILLISECONDS), 1e-6);
        assertEquals(15, overhead.max(TimeUnit.MILLISECONDS), 1e-6);
        assertEquals(
                0.190 + 0.045,
                counted(RoundMeters.BUSY_TIME, WorkerGauges.JOB, "job-1", RoundMeters.POLICY, "gta"),
                1e-9);
        assertEquals(0.120, counted(RoundMeters.WASTED_TIME, WorkerGauges.JOB, "job-1"), 1e-9);
        assertEquals(0, counted(RoundMeters.WASTED_TIME, WorkerGauges.JOB, "job-2", RoundMeters.POLICY, "fta"));
        assertEquals(
                2,
                registry.get(RoundMeters.CONTROL_OVERHEAD)
                        .tags(WorkerGauges.JOB, "job-2")
                        .timer()
                        .totalTime(TimeUnit.MILLISECONDS),
                1e-6);

        meters.remove(Set.of("job-1"));
        assertTrue(registry.find(RoundMeters.BUSY_TIME)
                .tags(WorkerGauges.JOB, "job-1")
                .meters()
                .isEmpty());
        assertEquals(
                1,
                registry.find(RoundMeters.BUSY_TIME)
                        .tags(WorkerGauges.JOB, "job-2")
                        .meters()
                        .size());
    }
}
