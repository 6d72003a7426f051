package io.ata.workloads;

import java.util.Objects;
import java.util.Optional;

/**
 * The one spelling of a task's id: {@code job/round/index}, e.g. {@code fmnist/3/7}, the round and
 * the index in decimal without leading zeros. The broker builds the ids it assigns here, the
 * trainer and the broker check the ids they are sent here, and the sample rule and the task seed
 * hash them, so one task has one id whoever spells it.
 */
public final class TaskIds {
    /** At most 999,999,999 tasks a round. */
    private static final int MAX_INDEX_DIGITS = 9;
    /** Rounds up to Long.MAX_VALUE's 19 digits, less one so that the value cannot overflow. */
    private static final int MAX_ROUND_DIGITS = 18;

    private TaskIds() {}

    /** A task id taken apart. */
    public record TaskId(String job, long round, int index) {}

    /**
     * The id of task {@code index} of round {@code round} of {@code job}.
     *
     * @throws IllegalArgumentException if the round or the index is negative
     */
    public static String of(String job, long round, int index) {
        Objects.requireNonNull(job, "job");
        if (round < 0 || index < 0) {
            throw new IllegalArgumentException("round " + round + " and index " + index + " must not be negative");
        }
        return job + "/" + round + "/" + index;
    }

    /** The form of round {@code round}'s task ids, for messages: {@code job/round/<index>}. */
    public static String form(String job, long round) {
        return job + "/" + round + "/<index>";
    }

    /**
     * {@code taskId} taken apart as a task of {@code job}: empty if it is not {@code job/round/index}
     * spelled as {@link #of} spells it.
     */
    public static Optional<TaskId> parse(String job, String taskId) {
        String prefix = job + "/";
        if (taskId == null || !taskId.startsWith(prefix)) {
            return Optional.empty();
        }
        int slash = taskId.indexOf('/', prefix.length());
        if (slash < 0) {
            return Optional.empty();
        }
        long round = number(taskId, prefix.length(), slash, MAX_ROUND_DIGITS);
        long index = number(taskId, slash + 1, taskId.length(), MAX_INDEX_DIGITS);
        if (round < 0 || index < 0) {
            return Optional.empty();
        }
        return Optional.of(new TaskId(job, round, (int) index));
    }

    /** Whether {@code taskId} is a task of round {@code round} of {@code job}, spelled as {@link #of} spells it. */
    public static boolean isOfRound(String job, long round, String taskId) {
        return parse(job, taskId).map(t -> t.round() == round).orElse(false);
    }

    /** The decimal number in {@code s[from, to)}, or -1 if it is none, too long or has a leading zero. */
    private static long number(String s, int from, int to, int maxDigits) {
        int digits = to - from;
        if (digits < 1 || digits > maxDigits || (digits > 1 && s.charAt(from) == '0')) {
            return -1;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
