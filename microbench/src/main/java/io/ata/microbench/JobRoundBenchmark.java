package io.ata.microbench;

import io.ata.broker.BrokerSettings;
import io.ata.broker.JobRuntime;
import io.ata.broker.JobStateParts;
import io.ata.schemas.TaskAssignment;
import io.ata.testsupport.Records;
import io.ata.testsupport.RoundEvents;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the broker's stream thread spends on one job's round, apart from Kafka: the round planned
 * (its OPENED event), its timings folded (its CLOSED event) and, in {@link #roundStored}, the job's
 * state to store after each as {@code RoundProcessor} does. A round of {@code B} = 10 touches about
 * ten workers of the fleet, so what grows with {@code workers} is work done for the untouched ones.
 * The difference of the two benchmarks is what storing costs.
 *
 * <pre>java -jar microbench/target/benchmarks.jar JobRoundBenchmark</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class JobRoundBenchmark {
    private static final String JOB = "job";
    private static final int BATCH = 10;
    private static final long NOW = 1_000_000;
    /**
     * Rounds played before measuring: ata-auto's reservoir of task times (4,096) is full by then; at
     * 4,096 workers its exploration of the fleet goes on into JMH's warm-up. A measured round also
     * builds its event records (the broker decodes them instead).
     */
    private static final int WARMUP_ROUNDS = 500;

    @Param({"64", "1024", "4096"})
    int workers;

    @Param({"ata-auto", "uta"})
    String policy;

    private JobRuntime job;
    private long round;
    private SplittableRandom random;

    @Setup(Level.Trial)
    public void startJob() {
        job = JobRuntime.create(RoundEvents.opened(JOB, 1, BATCH, policy, NOW), BrokerSettings.defaults());
        job.syncMembership(Records.aliveWorkers(workers, NOW), NOW);
        random = new SplittableRandom(1);
        for (int r = 0; r < WARMUP_ROUNDS; r++) {
            play(true, null);
        }
    }

    /** A round planned and its timings folded. */
    @Benchmark
    public void round(Blackhole out) {
        play(false, out);
    }

    /** A round planned and its timings folded, the job's state to store after each. */
    @Benchmark
    public void roundStored(Blackhole out) {
        play(true, out);
    }

    private void play(boolean store, Blackhole out) {
        round++;
        List<TaskAssignment> assignments = job.allocate(round, round - 1, NOW);
        JobStateParts opened = store ? job.partsToStore() : null;
        // worker wi takes about 10 (1 + i mod 8) ms a task: a heterogeneous fleet to learn
        job.fold(RoundEvents.closed(
                JOB,
                round,
                BATCH,
                RoundEvents.completed(assignments, (worker, task) -> {
                    int i = Integer.parseInt(worker.substring(1));
                    return 10.0 * (1 + i % 8) * (0.5 + random.nextExponential());
                }),
                NOW));
        JobStateParts closed = store ? job.partsToStore() : null;
        if (out != null) {
            out.consume(assignments);
            out.consume(opened);
            out.consume(closed);
        }
    }
}
