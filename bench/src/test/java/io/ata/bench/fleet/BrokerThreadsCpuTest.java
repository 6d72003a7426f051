package io.ata.bench.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The broker's threads' CPU time: its threads only, one started after the first sample too. */
class BrokerThreadsCpuTest {
    private static final long SPIN_NANOS = 200_000_000L;

    /** A thread named {@code name} that burns about {@link #SPIN_NANOS} of CPU, then waits idle for {@code release}. */
    private static Thread spinning(String name, CountDownLatch done, CountDownLatch release) {
        Thread t = new Thread(
                () -> {
                    // until its own CPU time, not the clock, says so: on a busy machine a spin of
                    // 200 ms of wall time got 62 ms of CPU
                    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
                    long until = threads.getCurrentThreadCpuTime() + SPIN_NANOS;
                    long x = 0;
                    while (threads.getCurrentThreadCpuTime() < until) {
                        x += System.identityHashCode(new Object());
                    }
                    done.countDown();
                    try {
                        release.await(); // alive but idle, so its CPU time is still read
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    if (x == 42) {
                        System.out.print(""); // keeps the spin from being optimized away
                    }
                },
                name);
        t.setDaemon(true);
        return t;
    }

    @Test
    void countsTheBrokersThreadsOnlyOneStartedLateIncluded() throws Exception {
        BrokerThreadsCpu cpu = new BrokerThreadsCpu("app-under-test");
        assumeTrue(cpu.supported(), "this JVM does not measure threads' CPU time");
        assertEquals(0, cpu.sample(), "no broker thread yet");
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch spun = new CountDownLatch(2);
        Thread other = spinning("someone-else", spun, release);
        Thread broker = spinning("app-under-test-StreamThread-1", spun, release);
        other.start();
        broker.start(); // after the first sample: found when the thread count changes
        spun.await();
        long measured = cpu.sample();
        release.countDown();
        broker.join();
        other.join();
        // the broker thread's spin (about 200 ms of CPU), not the other's too
        assertTrue(measured >= SPIN_NANOS / 2, "measured " + measured / 1e6 + " ms");
        assertTrue(measured < SPIN_NANOS * 3 / 2 + 100_000_000L, "measured " + measured / 1e6 + " ms");
    }
}
