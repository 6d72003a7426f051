package io.ata.schemas.registry;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.Incompatibility;

/**
 * Which earlier versions of a subject a new schema must be compatible with, and in which direction,
 * with Confluent's names and meanings:
 * <ul>
 *   <li>{@code BACKWARD}: the new schema can read data written with the latest version (the
 *       default: consumers upgrade first);</li>
 *   <li>{@code FORWARD}: the latest version can read data written with the new schema;</li>
 *   <li>{@code FULL}: both;</li>
 *   <li>{@code *_TRANSITIVE}: the same against every earlier version, not only the latest;</li>
 *   <li>{@code NONE}: no check.</li>
 * </ul>
 * The checks are Avro's own {@link SchemaCompatibility}.
 */
public enum CompatibilityLevel {
    NONE(false, false, false),
    BACKWARD(true, false, false),
    BACKWARD_TRANSITIVE(true, false, true),
    FORWARD(false, true, false),
    FORWARD_TRANSITIVE(false, true, true),
    FULL(true, true, false),
    FULL_TRANSITIVE(true, true, true);

    /** Confluent's default, and ours. */
    public static final CompatibilityLevel DEFAULT = BACKWARD;

    private final boolean newReadsOld;
    private final boolean oldReadsNew;
    private final boolean transitive;

    CompatibilityLevel(boolean newReadsOld, boolean oldReadsNew, boolean transitive) {
        this.newReadsOld = newReadsOld;
        this.oldReadsNew = oldReadsNew;
        this.transitive = transitive;
    }

    /**
     * The level named {@code name} (case-insensitive).
     *
     * @throws IllegalArgumentException if there is no such level; the message lists the valid ones
     */
    public static CompatibilityLevel parse(String name) {
        if (name != null) {
            for (CompatibilityLevel level : values()) {
                if (level.name().equals(name.strip().toUpperCase(Locale.ROOT))) {
                    return level;
                }
            }
        }
        throw new IllegalArgumentException(
                "Invalid compatibility level '" + name + "'; valid levels are " + List.of(values()));
    }

    /** Whether a new version is checked against every earlier version rather than the latest only. */
    public boolean transitive() {
        return transitive;
    }

    /**
     * Why {@code candidate} breaks this level against {@code earlier} (a subject's versions, oldest
     * first): empty if it is compatible. Non-transitive levels look at the last element only.
     */
    public List<String> incompatibilities(Schema candidate, List<Schema> earlier) {
        List<String> problems = new ArrayList<>();
        if (earlier.isEmpty()) {
            return problems;
        }
        List<Schema> checked = transitive ? earlier : earlier.subList(earlier.size() - 1, earlier.size());
        for (Schema previous : checked) {
            if (newReadsOld) {
                describe(candidate, previous, "the new schema cannot read data written with an earlier one", problems);
            }
            if (oldReadsNew) {
                describe(previous, candidate, "an earlier schema cannot read data written with the new one", problems);
            }
        }
        return problems;
    }

    private static void describe(Schema reader, Schema writer, String direction, List<String> problems) {
        var result = SchemaCompatibility.checkReaderWriterCompatibility(reader, writer)
                .getResult();
        for (Incompatibility incompatibility : result.getIncompatibilities()) {
            problems.add(direction + ": " + incompatibility.getType() + " at " + incompatibility.getLocation() + " ("
                    + incompatibility.getMessage() + ")");
        }
    }
}
