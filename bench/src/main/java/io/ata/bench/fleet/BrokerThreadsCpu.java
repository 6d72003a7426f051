package io.ata.bench.fleet;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
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

    /** Reads every broker thread's CPU time; the broker's total so far, in nanoseconds. */
    synchronized long sample() {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info == null) {
                continue;
            }
            String name = info.getThreadName();
            if (name.contains(applicationId) || BROKER_THREADS.contains(name)) {
                long cpu = threads.getThreadCpuTime(info.getThreadId());
                if (cpu >= 0) {
                    cpuByThread.put(info.getThreadId(), cpu);
                }
            }
        }
        return cpuByThread.values().stream().mapToLong(Long::longValue).sum();
    }
}
