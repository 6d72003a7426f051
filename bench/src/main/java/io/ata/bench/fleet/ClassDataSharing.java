package io.ata.bench.fleet;

/**
 * Whether a restarted broker process mapped a class-data sharing archive ({@link ClassDataArchive}),
 * and if not, why, when a reason is known.
 *
 * @param on  whether the new process's JVM mapped the archive
 * @param why why it did not, or empty (not asked for, or on)
 */
public record ClassDataSharing(boolean on, String why) {
    /** Not asked for: the restarted JVM was given no archive. */
    public static final ClassDataSharing OFF = new ClassDataSharing(false, "");
    /** The restarted JVM mapped the archive. */
    public static final ClassDataSharing ON = new ClassDataSharing(true, "");

    /** Asked for, but not mapped, because of {@code why}. */
    public static ClassDataSharing failed(String why) {
        return new ClassDataSharing(false, why);
    }

    /** For the table: {@code on}, {@code off}, or {@code off: } and why. */
    public String describe() {
        return on ? "on" : why.isEmpty() ? "off" : "off: " + why;
    }
}
