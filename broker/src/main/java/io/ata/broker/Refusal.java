package io.ata.broker;

import java.util.Locale;
import java.util.Objects;

/**
 * Why the broker refuses an input record: its {@link Kind} (the {@code reason} tag of the
 * dead-letter counter, a handful of values) and the text the dead letter carries.
 */
record Refusal(Refusal.Kind kind, String reason) {

    /** What kind of rule a refused record broke. */
    enum Kind {
        /** Not a record of the expected type: no value, not Avro, an unknown schema id. */
        UNDECODABLE,
        /** A heartbeat out of range: worker id, partitions, capacity, time. */
        INVALID_HEARTBEAT,
        /** A round event out of range on its own: job, round, batch, model version, policy. */
        INVALID_ROUND_EVENT,
        /** A CLOSED event of a job the broker does not have. */
        UNKNOWN_JOB,
        /** A round event that is not at or next to the job's open round. */
        ROUND_OUT_OF_WINDOW,
        /** A CLOSED event with a timing out of range: worker, task id, time. */
        INVALID_TIMING;

        /** The tag value: {@code invalid-heartbeat} for {@link #INVALID_HEARTBEAT}. */
        String tag() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    Refusal {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(reason, "reason");
    }
}
