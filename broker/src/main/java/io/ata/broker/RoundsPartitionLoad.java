package io.ata.broker;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many running jobs share each partition of the {@code rounds} topic this instance hosts, and
 * a warning when one partition carries too many. Every trainer writes its round events in
 * transactions, and a {@code read_committed} reader sees nothing in a partition past the first
 * record of a transaction still open there: with many jobs on one partition one is nearly always
 * open, and the broker reads each job's OPENED late (100 jobs on 1 partition: a control overhead
 * p50 of 3.7 s, against 104 ms on 16). The partitions are chosen when the topics are created and
 * cannot grow under a running broker (a job's state lives in the partition its key hashes to), so
 * the broker can only say so: gauge {@value #JOBS_PER_PARTITION} (the most running jobs on one
 * partition here) and a log line, at most once an hour, above {@value #ADVISED_JOBS_PER_PARTITION}.
 *
 * <p>A job counts as running while it had a round event within {@link #RUNNING_WINDOW}. Each
 * round processor reports its partition at every liveness check; thread-safe.
 */
final class RoundsPartitionLoad {
    /** Gauge: the most running jobs on one rounds partition of this instance. */
    static final String JOBS_PER_PARTITION = "ata.broker.jobs.per.rounds.partition";
    /** Above this many running jobs on one partition, the broker advises more partitions. */
    static final int ADVISED_JOBS_PER_PARTITION = 4;
    /** A job with a round event this recent is running. */
    static final Duration RUNNING_WINDOW = Duration.ofMinutes(1);
    /** The warning is repeated at most this often. */
    static final Duration WARNING_INTERVAL = Duration.ofHours(1);

    private static final Logger LOG = LoggerFactory.getLogger(RoundsPartitionLoad.class);

    private final MeterRegistry registry;
    private final Gauge gauge;
    private final Map<Integer, Integer> runningJobs = new ConcurrentHashMap<>();
    private long warnedAtMs = Long.MIN_VALUE; // guarded by this

    RoundsPartitionLoad(MeterRegistry registry, Tags tags) {
        this.registry = registry;
        this.gauge = Gauge.builder(JOBS_PER_PARTITION, this, RoundsPartitionLoad::mostOnOnePartition)
                .description("the most running jobs on one partition of the rounds topic here: above "
                        + ADVISED_JOBS_PER_PARTITION + ", their round events wait on each other's transactions")
                .tags(tags)
                .register(registry);
    }

    /**
     * Rounds partition {@code partition} carries {@code running} running jobs at {@code nowMs};
     * warns if that is too many and it has not warned within the hour.
     *
     * @return whether it warned
     */
    boolean report(int partition, int running, long nowMs) {
        runningJobs.put(partition, running);
        if (running <= ADVISED_JOBS_PER_PARTITION) {
            return false;
        }
        synchronized (this) {
            if (warnedAtMs != Long.MIN_VALUE && nowMs - warnedAtMs < WARNING_INTERVAL.toMillis()) {
                return false;
            }
            warnedAtMs = nowMs;
        }
        LOG.warn(
                "{} running jobs share partition {} of the rounds topic: each job's round events"
                        + " wait behind the others' open transactions, and its rounds open late (100 jobs on 1"
                        + " partition measured a control overhead p50 of 3.7 s, on 16 of 104 ms). Create the topics"
                        + " with more rounds partitions, about half the number of jobs that run at once or more"
                        + " (--rounds-partitions, before any job runs: they cannot grow under a running broker)",
                running,
                partition);
        return true;
    }

    /** The partition is no longer this instance's. */
    void forget(int partition) {
        runningJobs.remove(partition);
    }

    /** The most running jobs on one partition here at the last checks, 0 if none. */
    int mostOnOnePartition() {
        return runningJobs.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    void unregister() {
        registry.remove(gauge);
    }
}
