package io.ata.trainer;

/** The range checks of the trainer's arguments, with one wording: {@code "batch must be >= 1, was 0"}. */
final class Bounds {
    private Bounds() {}

    /**
     * {@code value}, if it is at least {@code min}.
     *
     * @throws IllegalArgumentException {@code "<what> must be >= <min>, was <value>"} otherwise
     */
    static long atLeast(long value, long min, String what) {
        if (value < min) {
            throw new IllegalArgumentException(what + " must be >= " + min + ", was " + value);
        }
        return value;
    }

    /** {@link #atLeast(long, long, String)} for an int. */
    static int atLeast(int value, int min, String what) {
        return Math.toIntExact(atLeast((long) value, min, what));
    }
}
