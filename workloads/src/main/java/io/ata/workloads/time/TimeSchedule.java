package io.ata.workloads.time;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One worker's task-time distribution over the rounds of a job, and the rounds it takes part in:
 * a fleet that changes over time. Rounds are numbered from 1.
 *
 * <ul>
 *   <li>{@code initial} holds until the first change; a {@link Change} {@code after_round R}
 *       replaces the distribution from round {@code R + 1} on (a {@code constant} of a huge value
 *       models a hang);</li>
 *   <li>the worker takes part from round {@code joinAfterRound + 1} (0: from the start) through
 *       round {@code leaveAfterRound} ({@link #NEVER}: to the end).</li>
 * </ul>
 *
 * <p>Plain data with no simulator in it, so that a worker agent can follow the same schedule.
 */
public record TimeSchedule(
        TaskTimeDistribution initial, List<Change> changes, long joinAfterRound, long leaveAfterRound) {

    /** {@code leaveAfterRound} of a worker that never leaves. */
    public static final long NEVER = Long.MAX_VALUE;

    /** From round {@code afterRound + 1} on, task times follow {@code time}. */
    public record Change(long afterRound, TaskTimeDistribution time) {
        public Change {
            Objects.requireNonNull(time, "time");
            if (afterRound < 0) {
                throw new IllegalArgumentException("after_round must be >= 0, was " + afterRound);
            }
        }
    }

    public TimeSchedule {
        Objects.requireNonNull(initial, "initial");
        changes = List.copyOf(changes);
        for (int i = 1; i < changes.size(); i++) {
            if (changes.get(i).afterRound() <= changes.get(i - 1).afterRound()) {
                throw new IllegalArgumentException("changes must have increasing after_round, but "
                        + changes.get(i).afterRound() + " follows "
                        + changes.get(i - 1).afterRound());
            }
        }
        if (joinAfterRound < 0) {
            throw new IllegalArgumentException("join_after_round must be >= 0, was " + joinAfterRound);
        }
        if (leaveAfterRound <= joinAfterRound) {
            throw new IllegalArgumentException("leave_after_round (" + leaveAfterRound
                    + ") must be greater than join_after_round (" + joinAfterRound
                    + "): the worker would never take part");
        }
    }

    /** A worker with one distribution, present from the first round to the last. */
    public static TimeSchedule constant(TaskTimeDistribution time) {
        return new TimeSchedule(time, List.of(), 0, NEVER);
    }

    /** True if nothing changes: one distribution, present throughout. */
    public boolean isStationary() {
        return changes.isEmpty() && joinAfterRound == 0 && leaveAfterRound == NEVER;
    }

    /** The distribution task times follow in {@code round}. */
    public TaskTimeDistribution timeIn(long round) {
        TaskTimeDistribution current = initial;
        for (Change c : changes) { // few changes: a scan is simplest
            if (round <= c.afterRound()) {
                break;
            }
            current = c.time();
        }
        return current;
    }

    /** Whether the worker takes part in {@code round}. */
    public boolean presentIn(long round) {
        return round > joinAfterRound && round <= leaveAfterRound;
    }

    /** The schedule in words, e.g. for a run's description. */
    public String describe() {
        return isStationary() ? initial.describe() : initial.describe() + "; " + describeChanges();
    }

    /** What changes after the start, in words ("" if nothing does). */
    public String describeChanges() {
        List<String> parts = new ArrayList<>();
        for (Change c : changes) {
            parts.add("after round " + c.afterRound() + ": " + c.time().describe());
        }
        if (joinAfterRound > 0) {
            parts.add("joins after round " + joinAfterRound);
        }
        if (leaveAfterRound != NEVER) {
            parts.add("leaves after round " + leaveAfterRound);
        }
        return String.join("; ", parts);
    }
}
