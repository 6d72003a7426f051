package io.ata.broker;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TimingStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Per job meters of the rounds the broker folds, from each CLOSED event's timings (the broker sees
 * every closed round of the jobs it hosts, with the policy that allocated it), tagged {@value
 * WorkerGauges#JOB} and {@value #POLICY} (and the broker's {@code application}):
 *
 * <table>
 *   <caption>Per-round meters</caption>
 *   <tr><th>name</th><th>what</th></tr>
 *   <tr><td>{@value #CONTROL_OVERHEAD}</td><td>timer (histogram, seconds): per round, the time the
 *       system added beyond the workers' compute ({@link #controlOverheadMs})</td></tr>
 *   <tr><td>{@value #BUSY_TIME}</td><td>counter, seconds: compute time of every task the round's
 *       timings report, accepted, late or cancelled (as {@link RoundHistory}'s busy time)</td></tr>
 *   <tr><td>{@value #WASTED_TIME}</td><td>counter, seconds: the part of it whose results were not
 *       used: late and cancelled tasks (as {@link RoundHistory}'s wasted time)</td></tr>
 * </table>
 *
 * <p>A job this instance stops hosting loses its meters ({@link #remove}); the instance that takes
 * it over starts its own (Prometheus' {@code rate} and {@code increase} treat that as a reset).
 * Thread-safe.
 */
final class RoundMeters {
    static final String CONTROL_OVERHEAD = "ata.broker.control.overhead";
    static final String BUSY_TIME = "ata.broker.busy.time";
    static final String WASTED_TIME = "ata.broker.wasted.time";
    /** The tag naming the job's allocation policy. */
    static final String POLICY = "policy";

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, JobMeters> jobs = new HashMap<>();

    private record JobMeters(Timer overhead, Counter busy, Counter wasted) {
        List<Meter> all() {
            return List.of(overhead, busy, wasted);
        }
    }

    RoundMeters(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.tags = tags;
    }

    /**
     * The control overhead of a closed round, in ms: its round time (trainer's open to its B-th
     * accepted result) minus the compute that result waited for on its worker, i.e. the compute
     * time of that worker's tasks of the round received up to and including it (an agent runs its
     * tasks in order). What is left is allocation, delivery of the assignment, queueing at the
     * agent and the result's way back: the span {@code ata bench-live} measures (close of round
     * {@code k} committed to the last assignment of {@code k+1} at its agent) plus the return
     * path. Never below 0 (the compute is on the worker's clock, the round time on the trainer's);
     * NaN if the event holds no accepted result.
     */
    static double controlOverheadMs(RoundEvent closed) {
        List<RoundTiming> timings = closed.getTimings();
        int last = -1;
        for (int i = 0; i < timings.size(); i++) {
            if (timings.get(i).getStatus() == TimingStatus.COMPLETED) {
                last = i; // timings are in the order the trainer received them: the last accepted is the B-th
            }
        }
        if (last < 0) {
            return Double.NaN;
        }
        String worker = timings.get(last).getWorkerId();
        double critical = 0;
        for (int i = 0; i <= last; i++) {
            if (timings.get(i).getWorkerId().equals(worker)) {
                critical += timings.get(i).getComputeMs();
            }
        }
        return Math.max(0, closed.getRoundTimeMs() - critical);
    }

    /** Round {@code closed} of a job allocated by {@code policy} was folded. */
    synchronized void closed(RoundEvent closed, String policy) {
        JobMeters m = jobs.computeIfAbsent(closed.getJob(), job -> register(job, policy));
        double overhead = controlOverheadMs(closed);
        if (!Double.isNaN(overhead)) {
            m.overhead().record(Math.round(overhead * 1e6), TimeUnit.NANOSECONDS);
        }
        RoundWork work = RoundWork.of(closed);
        m.busy().increment(work.busyMs() / 1000);
        m.wasted().increment(work.wastedMs() / 1000);
    }

    private JobMeters register(String job, String policy) {
        Tags jobTags = tags.and(WorkerGauges.JOB, job).and(POLICY, policy);
        return new JobMeters(
                Timer.builder(CONTROL_OVERHEAD)
                        .description("per round, round time minus the compute the B-th accepted result waited for")
                        .tags(jobTags)
                        .publishPercentileHistogram()
                        .minimumExpectedValue(Duration.ofMillis(1))
                        .maximumExpectedValue(Duration.ofSeconds(60))
                        .register(registry),
                Counter.builder(BUSY_TIME)
                        .description("compute time of every task of the job's closed rounds")
                        .baseUnit("seconds")
                        .tags(jobTags)
                        .register(registry),
                Counter.builder(WASTED_TIME)
                        .description("compute time of the late and cancelled tasks of the job's closed rounds")
                        .baseUnit("seconds")
                        .tags(jobTags)
                        .register(registry));
    }

    /** This instance no longer hosts {@code gone}: their meters go. */
    synchronized void remove(Set<String> gone) {
        for (String job : gone) {
            JobMeters m = jobs.remove(job);
            if (m != null) {
                m.all().forEach(registry::remove);
            }
        }
    }

    /** Removes every meter: the instance stopped. */
    synchronized void removeAll() {
        remove(Set.copyOf(jobs.keySet()));
    }
}
