package io.ata.bench;

import java.util.Locale;

/** How a benchmark's sender hands its tasks over to a transport. */
public enum Pace {
    /**
     * Each task as soon as the previous one was handed over: an agent whose tasks compute faster
     * than the transport moves them (a GPU on a small model). Measures throughput.
     */
    STREAM,
    /**
     * Each task once the previous one has arrived at the reader: one task in flight at a time, as
     * when computing takes longer than moving. Measures one task's latency.
     */
    SERIAL;

    /** Its name on the command line. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException for a name other than {@code stream} or {@code serial}
     */
    public static Pace of(String label) {
        for (Pace p : values()) {
            if (p.label().equals(label.trim().toLowerCase(Locale.ROOT))) {
                return p;
            }
        }
        throw new IllegalArgumentException("'" + label + "' is not a pace: stream or serial");
    }
}
