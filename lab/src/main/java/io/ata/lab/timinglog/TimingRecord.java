package io.ata.lab.timinglog;

import java.util.Locale;

/**
 * One line of a timing log: how long one task took on one worker. Replays and empirical time
 * models are built from these, so the record refuses values that would make a replay meaningless
 * (a blank worker, a negative or non-finite duration).
 *
 * @param worker    the worker's id as the log names it (never blank)
 * @param duration  the task's compute time, in whatever unit the log uses (finite, {@code >= 0});
 *                  for a {@link Status#CANCELLED} record this is only the time worked before the
 *                  task was stopped, not a task duration
 * @param round     the allocation round the task belonged to, or {@code null} if unknown
 * @param task      the task's id, or {@code null} if unknown
 * @param timestamp when the task finished (any monotone clock, e.g. epoch milliseconds), or
 *                  {@code null}; used only to put each worker's durations in time order
 * @param status    how the task ended; {@code null} means {@link Status#COMPLETED}
 */
public record TimingRecord(String worker, double duration, Long round, String task, Long timestamp, Status status) {

    /** How a task ended. Only COMPLETED and LATE durations are full task durations. */
    public enum Status {
        /** Finished within its round. */
        COMPLETED,
        /** Finished, but after its round had already closed; still a full task duration. */
        LATE,
        /** Stopped before it finished (e.g. the round ended): the duration is partial time. */
        CANCELLED;

        /** The name as written to logs: lower case. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * Reads {@code completed}, {@code late} or {@code cancelled} in any case (and the spelling
         * {@code canceled}).
         *
         * @throws IllegalArgumentException for anything else
         */
        public static Status parse(String text) {
            String t = text.trim().toLowerCase(Locale.ROOT);
            return switch (t) {
                case "completed" -> COMPLETED;
                case "late" -> LATE;
                case "cancelled", "canceled" -> CANCELLED;
                default ->
                    throw new IllegalArgumentException(
                            "status '" + text + "' is not one of completed, late, cancelled");
            };
        }
    }

    public TimingRecord {
        if (worker == null || worker.isBlank()) {
            throw new IllegalArgumentException("worker is empty");
        }
        if (!Double.isFinite(duration)) {
            throw new IllegalArgumentException("duration " + duration + " is not a finite number");
        }
        if (duration < 0) {
            throw new IllegalArgumentException("duration " + duration + " is negative");
        }
        if (status == null) {
            status = Status.COMPLETED;
        }
    }

    /** A completed task with only a worker and a duration. */
    public TimingRecord(String worker, double duration) {
        this(worker, duration, null, null, null, Status.COMPLETED);
    }

    /** Whether {@link #duration()} is a whole task duration (anything but CANCELLED). */
    public boolean isTaskDuration() {
        return status != Status.CANCELLED;
    }
}
