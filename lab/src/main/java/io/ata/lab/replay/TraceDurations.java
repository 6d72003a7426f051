package io.ata.lab.replay;

import io.ata.lab.sim.DurationSource;
import io.ata.lab.timinglog.TimingLog;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Durations read back from a recorded timing log: worker {@code i}'s {@code k}-th call returns its
 * {@code k}-th recorded duration, so every policy replayed on the same log faces the same
 * per-worker sequences. Past the end of a worker's record the {@link ExhaustionMode} decides.
 *
 * <p>For {@link ExhaustionMode#BOOTSTRAP}, each worker has its own random stream split from the
 * seed when the source is built, so a worker's draws do not depend on the order in which workers
 * are asked. A worker with no recorded duration at all (every record cancelled) is exhausted from
 * its first call, whatever the mode. Create one instance per policy evaluation; not thread-safe.
 */
public final class TraceDurations implements DurationSource {
    private final TimingLog log;
    private final ExhaustionMode mode;
    private final long[] calls; // durations served per worker so far
    private final SplittableRandom[] streams;
    private final boolean[] ranOut; // asked for more than its record at least once
    private int exhaustedWorkers;
    private long extraDurations;

    public TraceDurations(TimingLog log, ExhaustionMode mode, long seed) {
        this.log = Objects.requireNonNull(log, "log");
        this.mode = Objects.requireNonNull(mode, "mode");
        int n = log.workerCount();
        this.calls = new long[n];
        this.streams = new SplittableRandom[n];
        this.ranOut = new boolean[n];
        SplittableRandom master = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            streams[i] = master.split();
        }
    }

    /**
     * Worker {@code worker}'s next duration.
     *
     * @throws ExhaustedException in STOP mode once the worker's record is used up, and in every
     *                            mode for a worker with no recorded duration
     */
    @Override
    public double next(int worker) {
        Objects.checkIndex(worker, calls.length);
        int recorded = log.durationCount(worker);
        long k = calls[worker];
        if (k < recorded) {
            calls[worker]++;
            return log.duration(worker, (int) k);
        }
        if (!ranOut[worker]) {
            ranOut[worker] = true;
            exhaustedWorkers++;
        }
        if (recorded == 0) {
            throw new ExhaustedException("worker " + log.workerId(worker) + " (index " + worker
                    + ") has no recorded duration in the timing log (all its records were cancelled)");
        }
        if (mode == ExhaustionMode.STOP) {
            throw new ExhaustedException("worker " + log.workerId(worker) + " (index " + worker + ") has used all its "
                    + recorded + " recorded durations");
        }
        calls[worker]++;
        extraDurations++;
        int index = mode == ExhaustionMode.CYCLE ? (int) (k % recorded) : streams[worker].nextInt(recorded);
        return log.duration(worker, index);
    }

    public ExhaustionMode mode() {
        return mode;
    }

    /** How many durations worker {@code worker} has been given so far. */
    public long calls(int worker) {
        return calls[Objects.checkIndex(worker, calls.length)];
    }

    /** Whether worker {@code worker} has asked for more durations than were recorded. */
    public boolean exhausted(int worker) {
        return ranOut[Objects.checkIndex(worker, ranOut.length)];
    }

    /**
     * How many workers asked for more durations than were recorded (each counted once, whatever
     * the mode: in CYCLE and BOOTSTRAP they were given reused durations, in STOP they were refused).
     */
    public int exhaustedWorkers() {
        return exhaustedWorkers;
    }

    /** How many durations were served beyond the recorded ones (cycled or bootstrapped). */
    public long extraDurations() {
        return extraDurations;
    }
}
