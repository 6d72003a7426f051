package io.ata.lab.replay;

import io.ata.lab.sim.DurationSource;
import java.util.Locale;

/**
 * What a replay does when a worker has used up its recorded durations. A policy that gives a fast
 * worker more tasks than it did in the recorded run asks for more durations than were logged, so
 * this choice matters whenever the policies being compared differ from the recorded one.
 */
public enum ExhaustionMode {
    /**
     * Start that worker's sequence again from its first record: durations {@code d0, d1, ..., dn-1,
     * d0, d1, ...}. Deterministic and keeps any time trend, but repeats it.
     */
    CYCLE,
    /**
     * Draw further durations uniformly at random, with replacement, from that worker's recorded
     * durations, using the replay's seeded random stream (one stream per worker), so results are
     * reproducible for a seed.
     */
    BOOTSTRAP,
    /**
     * Throw {@link DurationSource.ExhaustedException} naming the worker, so the caller ends that
     * policy's evaluation at its last complete round: no duration is ever invented.
     */
    STOP;

    /**
     * Reads a mode name in any case: {@code cycle}, {@code bootstrap} (alias
     * {@code bootstrap-resample}) or {@code stop}; {@code _} may stand for {@code -}.
     *
     * @throws IllegalArgumentException for anything else, listing the known names
     */
    public static ExhaustionMode parse(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        return switch (n) {
            case "cycle" -> CYCLE;
            case "bootstrap", "bootstrap-resample" -> BOOTSTRAP;
            case "stop" -> STOP;
            default ->
                throw new IllegalArgumentException("unknown exhaustion mode '" + name
                        + "'; known: cycle, bootstrap (alias bootstrap-resample), stop");
        };
    }

    /** The name as written on a command line: lower case. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
