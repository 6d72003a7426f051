package io.ata.allocation;

import java.util.SplittableRandom;

/**
 * Random streams derived from (seed, round, purpose) instead of carried from round to round.
 *
 * <p>A policy's tie-breaking in round {@code k} then depends only on its seed, {@code k} and the
 * statistics, so a broker restarted mid-run, and an offline replay of the run's timings, make
 * exactly the same choices without persisting any generator state.
 */
public final class RoundRandom {
    /** Purposes, so that streams used for different things in the same round are independent. */
    public static final long EXPLORATION = 0x1;

    public static final long RESERVOIR = 0x2;

    private RoundRandom() {}

    public static SplittableRandom of(long seed, long round, long purpose) {
        return new SplittableRandom(mix(mix(seed ^ mix(purpose)) + round));
    }

    /** SplitMix64's finaliser: a bijection that scatters nearby inputs. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
