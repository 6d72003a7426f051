package io.ata.broker;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Per job and worker gauges of the jobs this instance hosts, tagged {@value #JOB} and {@value #WORKER}
 * (and the broker's {@code application}):
 *
 * <table>
 *   <caption>Per-worker gauges</caption>
 *   <tr><th>name</th><th>what</th></tr>
 *   <tr><td>{@value #MEAN}</td><td>mean task time, seconds</td></tr>
 *   <tr><td>{@value #LOWER_BOUND}</td><td>the lower confidence bound on the mean the policy plans
 *       with (LCB policies only; NaN before the worker's first task), seconds</td></tr>
 *   <tr><td>{@value #TASKS_ALLOCATED}</td><td>tasks given to the worker in the last opened round</td></tr>
 *   <tr><td>{@value #ALLOCATION_SHARE}</td><td>its share of that round's tasks, 0 to 1</td></tr>
 * </table>
 *
 * <p>Only active workers have gauges: a worker that leaves (or dies) loses them at the job's next
 * update, and a job this instance stops hosting loses all of them ({@link #remove}). The series are
 * capped at {@link #MAX_SERIES} (job, worker) pairs so that a runaway fleet cannot flood the
 * metrics; pairs past the cap are left out, with a warning. Thread-safe.
 */
final class WorkerGauges {
    static final String MEAN = "ata.broker.worker.task.time.mean";
    static final String LOWER_BOUND = "ata.broker.worker.task.time.lower.bound";
    static final String TASKS_ALLOCATED = "ata.broker.worker.tasks.allocated";
    static final String ALLOCATION_SHARE = "ata.broker.worker.allocation.share";
    /**
     * The tag naming the job: not {@code job}, which Prometheus sets to the scrape job (a scraped
     * {@code job} label would be renamed {@code exported_job}).
     */
    static final String JOB = "training_job";

    static final String WORKER = "worker";
    /** At most this many (job, worker) pairs have gauges at once. */
    static final int MAX_SERIES = 1000;

    private static final Logger log = LoggerFactory.getLogger(WorkerGauges.class);

    private final MeterRegistry registry;
    private final Tags tags;
    private final Map<String, Map<String, Series>> jobs = new HashMap<>();
    private int seriesCount;
    private boolean warnedFull;

    WorkerGauges(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.tags = tags;
    }

    /** The current values of one (job, worker) pair, read by its gauges. */
    private static final class Series {
        volatile WorkerSummary summary;
        volatile double share;
        List<Meter> meters = List.of();
    }

    /** Sets the gauges of {@code job} to {@code workers}: the active ones have gauges, the others lose them. */
    synchronized void update(String job, List<WorkerSummary> workers) {
        int allocated = workers.stream().mapToInt(WorkerSummary::tasksThisRound).sum();
        Map<String, Series> current = jobs.computeIfAbsent(job, j -> new HashMap<>());
        Set<String> active = new HashSet<>();
        for (WorkerSummary w : workers) {
            if (!w.active()) {
                continue;
            }
            Series s = current.get(w.worker());
            if (s == null) {
                if (seriesCount >= MAX_SERIES) {
                    if (!warnedFull) {
                        log.warn(
                                "more than {} (job, worker) pairs: the per-worker gauges of the others are left out",
                                MAX_SERIES);
                        warnedFull = true;
                    }
                    continue;
                }
                s = register(job, w.worker());
                current.put(w.worker(), s);
                seriesCount++;
            }
            s.summary = w;
            s.share = allocated == 0 ? 0 : (double) w.tasksThisRound() / allocated;
            active.add(w.worker());
        }
        for (Iterator<Map.Entry<String, Series>> it = current.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Series> e = it.next();
            if (!active.contains(e.getKey())) {
                unregister(e.getValue());
                it.remove();
            }
        }
        if (current.isEmpty()) {
            jobs.remove(job);
        }
    }

    private Series register(String job, String worker) {
        Series s = new Series();
        Tags pair = tags.and(JOB, job, WORKER, worker);
        s.meters = List.of(
                gauge(MEAN, "mean task time", "seconds", pair, s, x -> x.summary.meanMs() / 1e3),
                gauge(
                        LOWER_BOUND,
                        "lower confidence bound on the mean task time the policy plans with",
                        "seconds",
                        pair,
                        s,
                        x -> x.summary.lowerBoundMs() / 1e3),
                gauge(
                        TASKS_ALLOCATED,
                        "tasks given to the worker in the last opened round",
                        null,
                        pair,
                        s,
                        x -> x.summary.tasksThisRound()),
                gauge(
                        ALLOCATION_SHARE,
                        "the worker's share of the last opened round's tasks",
                        null,
                        pair,
                        s,
                        x -> x.share));
        return s;
    }

    private Meter gauge(
            String name, String description, String unit, Tags pair, Series s, ToDoubleFunction<Series> value) {
        return Gauge.builder(name, s, value)
                .description(description)
                .baseUnit(unit)
                .tags(pair)
                .strongReference(true)
                .register(registry);
    }

    private void unregister(Series s) {
        s.meters.forEach(registry::remove);
        seriesCount--;
    }

    /** Removes the gauges of {@code gone}: this instance no longer hosts them. */
    synchronized void remove(Set<String> gone) {
        for (String job : gone) {
            Map<String, Series> series = jobs.remove(job);
            if (series != null) {
                series.values().forEach(this::unregister);
            }
        }
    }

    /** Removes every gauge: the instance stopped. */
    synchronized void removeAll() {
        remove(Set.copyOf(jobs.keySet()));
    }
}
