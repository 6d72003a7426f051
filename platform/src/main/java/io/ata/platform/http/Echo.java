package io.ata.platform.http;

/**
 * What of a client's input an error message may repeat: a bounded prefix, so a hostile request
 * (a path of 8 KB, a header of junk) is never reflected whole into an answer or a log line.
 */
public final class Echo {
    /** The most characters of the input an answer repeats. */
    public static final int MAX_CHARS = 200;

    private Echo() {}

    /** {@code input} itself if short, else its first {@link #MAX_CHARS} characters and "...". */
    public static String bounded(String input) {
        if (input == null) {
            return "";
        }
        return input.length() <= MAX_CHARS ? input : input.substring(0, MAX_CHARS) + "...";
    }
}
