package io.ata.schemas;

/**
 * How rounds and model versions follow each other: round {@code k}'s tasks compute on model
 * version {@code k - 1}, and closing round {@code k} publishes version {@code k}. Version 0 is the
 * start, so round 1 is the first. The trainer stamps its round events and the broker its
 * assignments by this rule, and both check what they read against it.
 */
public final class ModelVersions {
    /**
     * The last round a job may have, and so its newest model version: Avro's int range, which the
     * broker and the agents check rounds and versions against.
     */
    public static final long MAX_ROUND = Integer.MAX_VALUE;

    private ModelVersions() {}

    /** The model version round {@code round}'s tasks compute on. */
    public static long computedOnBy(long round) {
        return round - 1;
    }

    /** The model version closing round {@code round} publishes; a newer one than that means the round closed. */
    public static long publishedBy(long round) {
        return round;
    }

    /** The round whose tasks compute on {@code version}: the one open while it is the latest. */
    public static long roundOn(long version) {
        return version + 1;
    }
}
