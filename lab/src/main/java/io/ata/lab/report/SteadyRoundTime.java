package io.ata.lab.report;

import java.util.Arrays;

/**
 * A live job's mean round time once it has settled: its first fifth of rounds (rounds 1-30 of 150)
 * is left out, the rounds in which a learning policy still tries workers it knows little about
 * (ATA explores before it trusts its estimates). Unlike the time to a target accuracy, which waits
 * for the one evaluation that crosses it, this mean spreads over a hundred rounds and more, so a
 * few slow rounds move it little. Accuracy per round depends on the batch and the optimizer, not
 * on which agent computed a gradient, so a policy's time to an accuracy goes with its round time.
 */
public final class SteadyRoundTime {
    /** One in this many of a job's rounds, at its start, is left out. */
    static final int LEFT_OUT = 5;

    private SteadyRoundTime() {}

    /** The first round counted, of a job of {@code rounds} rounds: 31 of 150. */
    public static long firstRound(long rounds) {
        return rounds / LEFT_OUT + 1;
    }

    /**
     * The mean of rounds {@link #firstRound} to the last.
     *
     * @param roundTimesMs the time of round {@code k + 1} at index {@code k}
     * @return NaN if no round is counted
     */
    public static double meanMs(double[] roundTimesMs) {
        int from = (int) firstRound(roundTimesMs.length) - 1;
        return Arrays.stream(roundTimesMs, Math.min(from, roundTimesMs.length), roundTimesMs.length)
                .average()
                .orElse(Double.NaN);
    }
}
