package io.ata.bench.fleet;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Each job's round closes around a broker's kill, for {@link FleetRestore}: the round each had
 * closed when it was killed, and when each first closed a round that a live broker planned after
 * the kill. A job may close {@code roundsWithoutTheBroker} rounds past the kill on assignments sent
 * before it (the open round and, pipelined, the next): those say nothing of the restore.
 */
final class KillWatch {
    private final int roundsWithoutTheBroker;
    private final AtomicLongArray lastRound;
    private final AtomicLongArray roundAtKill;
    private final AtomicLongArray firstAfterKill;
    private final AtomicLong killedAt = new AtomicLong(Long.MAX_VALUE);

    KillWatch(int jobs, int roundsWithoutTheBroker) {
        this.roundsWithoutTheBroker = roundsWithoutTheBroker;
        this.lastRound = new AtomicLongArray(jobs);
        this.roundAtKill = new AtomicLongArray(jobs);
        this.firstAfterKill = new AtomicLongArray(jobs);
    }

    /** Job {@code job} closed {@code round} at {@code nanos} (System.nanoTime). */
    void closed(int job, long round, long nanos) {
        lastRound.accumulateAndGet(job, round, Math::max);
        if (nanos > killedAt.get() && round > roundAtKill.get(job) + roundsWithoutTheBroker) {
            firstAfterKill.compareAndSet(job, 0, nanos);
        }
    }

    /** Notes every job's last closed round, then the kill's time: called right before the kill. */
    void killing() {
        for (int j = 0; j < lastRound.length(); j++) {
            roundAtKill.set(j, lastRound.get(j));
        }
        killedAt.set(System.nanoTime());
    }

    /** Seconds from the kill to now. */
    double secondsSinceKill() {
        return (System.nanoTime() - killedAt.get()) / 1e9;
    }

    /** Jobs {@code from}..{@code to - 1} that closed a round a live broker planned after the kill. */
    int progressed(int from, int to) {
        int c = 0;
        for (int j = from; j < to; j++) {
            c += firstAfterKill.get(j) > 0 ? 1 : 0;
        }
        return c;
    }

    /** Seconds from the kill to the first such close of jobs {@code from}..{@code to - 1}; NaN if none. */
    double firstSeconds(int from, int to) {
        long first = Long.MAX_VALUE;
        for (int j = from; j < to; j++) {
            long t = firstAfterKill.get(j);
            if (t > 0) {
                first = Math.min(first, t);
            }
        }
        return first == Long.MAX_VALUE ? Double.NaN : (first - killedAt.get()) / 1e9;
    }

    /** Seconds from the kill until every one of jobs {@code from}..{@code to - 1} had such a close; NaN if one had none. */
    double allSeconds(int from, int to) {
        long last = 0;
        for (int j = from; j < to; j++) {
            long t = firstAfterKill.get(j);
            if (t == 0) {
                return Double.NaN;
            }
            last = Math.max(last, t);
        }
        return (last - killedAt.get()) / 1e9;
    }
}
