package io.ata.broker;

/** What the broker accepts as a worker id, in heartbeats and in the timings of CLOSED events. */
final class WorkerIds {
    /** Longer ids are refused: an id is a key of every statistic, shown by every query. */
    static final int MAX_LENGTH = 255;

    private WorkerIds() {}

    /** Why {@code id} is no worker id, or null if it is one. */
    static String problem(String id) {
        if (id.isBlank()) {
            return "blank worker id";
        }
        if (id.length() > MAX_LENGTH) {
            return "worker id of " + id.length() + " characters (at most " + MAX_LENGTH + ")";
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            return "worker id with a control character";
        }
        return null;
    }
}
