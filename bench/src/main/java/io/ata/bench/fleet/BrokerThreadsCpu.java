package io.ata.bench.fleet;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The CPU time of the broker's threads in this JVM, by {@link ThreadMXBean}: every thread whose
 * name carries the broker's application id (Kafka Streams' stream threads, global thread and
 * clients name themselves after it) and the broker's own {@code task-partition-checks} and
 * {@code membership-audit}. Kafka's, the trainers' and the fleet's threads are not counted. A
 * thread's time is kept from its last {@link #sample()}, so call that often: a thread that ends
 * between two samples loses its last stretch.
 */
final class BrokerThreadsCpu {

    private static final Set<String> BROKER_THREADS = Set.of("task-partition-checks", "membership-audit");

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final String applicationId;
    private final Map<Long, Long> cpuByThread = new HashMap<>();
    /** How often the broker's threads are looked up by name, the thread count unchanged. */
    private static final long RESCAN_NANOS = 2_000_000_000L;
    /**
     * The least time between two look-ups, the thread count changed: with a thousand jobs' trainers
     * starting and ending, it changed at almost every sample (2.2 s of CPU a minute).
     */
    private static final long MIN_RESCAN_NANOS = 200_000_000L;

    private final List<Long> brokerThreadIds = new ArrayList<>();
    private int threadCountAtScan = -1;
    private long scannedAtNanos;

    BrokerThreadsCpu(String applicationId) {
        this.applicationId = applicationId;
        if (threads.isThreadCpuTimeSupported() && !threads.isThreadCpuTimeEnabled()) {
            threads.setThreadCpuTimeEnabled(true);
        }
    }

    /** Whether this JVM measures threads' CPU time at all. */
    boolean supported() {
        return threads.isThreadCpuTimeSupported();
    }

    /**
     * Reads every broker thread's CPU time; the broker's total so far, in nanoseconds. Which threads
     * are the broker's is looked up by name only when the JVM's thread count changed (at most every
     * {@link #MIN_RESCAN_NANOS}), or every {@link #RESCAN_NANOS}: a name lookup is a snapshot of every thread (a safepoint), which with
     * thousands of threads (a thousand jobs' trainers) every 100 ms slowed the whole process. A
     * thread's CPU clock counts from its start, so one found late loses nothing.
     */
    synchronized long sample() {
        long now = System.nanoTime();
        int count = threads.getThreadCount();
        long sinceScan = now - scannedAtNanos;
        if ((count != threadCountAtScan && sinceScan >= MIN_RESCAN_NANOS) || sinceScan > RESCAN_NANOS) {
            scan();
            threadCountAtScan = count;
            scannedAtNanos = now;
        }
        for (long id : brokerThreadIds) {
            long cpu = threads.getThreadCpuTime(id);
            if (cpu >= 0) {
                cpuByThread.put(id, cpu);
            }
        }
        return cpuByThread.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Finds the broker's threads among the JVM's by name. */
    private void scan() {
        brokerThreadIds.clear();
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            String name = info.getThreadName();
            if (name.contains(applicationId) || BROKER_THREADS.contains(name)) {
                brokerThreadIds.add(info.getThreadId());
            }
        }
    }
}
