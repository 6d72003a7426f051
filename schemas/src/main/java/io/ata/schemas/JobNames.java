package io.ata.schemas;

/**
 * What a job's name may be. The name is the key of the job's records on every topic and the
 * prefix of its task ids, and a model version cut into slices is keyed {@code job#i}: a name with
 * {@code #} could be another job's slice key ({@code a#1} is job {@code a}'s slice 1), and
 * compaction would then keep one and drop the other. The trainer refuses such a name at start;
 * the broker and the agents refuse records that carry one.
 */
public final class JobNames {
    /** The longest job name: it is part of every task id. */
    public static final int MAX_LENGTH = 255;
    /** Separates a job's name from a slice's number in the keys of a model version's slices. */
    public static final char SLICE_SEPARATOR = '#';

    private JobNames() {}

    /** Why {@code job} cannot be a job's name, or null if it can. */
    public static String problem(String job) {
        if (job == null || job.isBlank()) {
            return "a job needs a name";
        }
        if (job.length() > MAX_LENGTH) {
            return "job name of " + job.length() + " characters (at most " + MAX_LENGTH + ")";
        }
        if (job.chars().anyMatch(Character::isISOControl)) {
            return "job name with a control character";
        }
        if (job.indexOf(SLICE_SEPARATOR) >= 0) {
            return "job name '" + job + "' contains '" + SLICE_SEPARATOR
                    + "', which separates a job's name from a slice number in the keys of its model";
        }
        return null;
    }
}
