package io.ata.bench;

import java.util.Arrays;

/**
 * One measured run of a transport: {@code tasks} gradients of {@code bytesPerTask} bytes each, sent
 * one after the other, and when each was sent and received.
 *
 * @param transport which transport ran
 * @param parameters float32 values in one gradient
 * @param bytesPerTask the gradient's bytes
 * @param latenciesMs per task: from the start of its publication to the reader holding all of it
 * @param seconds from the first task's publication to the last task's arrival
 */
public record TransportRun(String transport, int parameters, long bytesPerTask, double[] latenciesMs, double seconds) {

    public int tasks() {
        return latenciesMs.length;
    }

    /** Gradient bytes delivered per second, in MB (10^6 bytes). */
    public double throughputMbPerS() {
        return bytesPerTask * (double) tasks() / 1e6 / seconds;
    }

    /** The median of the tasks' latencies (the upper one of an even count's two middles). */
    public double medianLatencyMs() {
        return median(latenciesMs);
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
