package io.ata.bench;

import io.ata.schemas.chunk.Chunks;
import java.util.List;

/**
 * One gradient size's figures: the runs of the result path ({@code ata}), of Kafka's clients with a
 * transaction per task ({@code eos}, the floor of any exactly-once path) and of plain Kafka.
 * Latency is the median over every task of every run; throughput the median over the runs.
 */
public record TransportResult(
        int parameters, long bytesPerTask, List<TransportRun> ata, List<TransportRun> eos, List<TransportRun> plain) {

    /** Records that carry one task's gradient (slices of {@link Chunks#DEFAULT_CHUNK_BYTES}). */
    public int recordsPerTask() {
        return Chunks.count((int) bytesPerTask, Chunks.DEFAULT_CHUNK_BYTES);
    }

    public int tasks() {
        return ata.stream().mapToInt(TransportRun::tasks).sum();
    }

    public double ataMedianLatencyMs() {
        return medianLatency(ata);
    }

    public double eosMedianLatencyMs() {
        return medianLatency(eos);
    }

    public double plainMedianLatencyMs() {
        return medianLatency(plain);
    }

    public double ataThroughputMbPerS() {
        return medianThroughput(ata);
    }

    public double eosThroughputMbPerS() {
        return medianThroughput(eos);
    }

    public double plainThroughputMbPerS() {
        return medianThroughput(plain);
    }

    /** The result path's throughput as a fraction of plain Kafka's. */
    public double throughputRatio() {
        return ataThroughputMbPerS() / plainThroughputMbPerS();
    }

    /** Kafka's own exactly-once throughput as a fraction of plain Kafka's: the most the result path could reach. */
    public double eosThroughputRatio() {
        return eosThroughputMbPerS() / plainThroughputMbPerS();
    }

    private static double medianLatency(List<TransportRun> runs) {
        return TransportRun.median(runs.stream()
                .flatMapToDouble(r -> java.util.Arrays.stream(r.latenciesMs()))
                .toArray());
    }

    private static double medianThroughput(List<TransportRun> runs) {
        return TransportRun.median(
                runs.stream().mapToDouble(TransportRun::throughputMbPerS).toArray());
    }
}
