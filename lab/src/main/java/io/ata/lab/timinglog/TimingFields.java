package io.ata.lab.timinglog;

/**
 * The fields of one log line as the file gives them, before they are checked: text, or
 * {@code null} where the line has no value. CSV cells and JSON values both arrive here, so both
 * formats are held to the same rules and get the same messages.
 */
record TimingFields(String worker, String duration, String round, String task, String timestamp, String status) {

    /**
     * The record these fields describe.
     *
     * @throws InvalidLineException naming the field that is missing or malformed
     */
    TimingRecord toRecord() {
        if (worker == null || worker.isBlank()) {
            throw new InvalidLineException("worker is missing or empty");
        }
        return new TimingRecord(
                worker,
                parseDuration(duration),
                parseLong("round", round),
                task,
                parseLong("timestamp", timestamp),
                parseStatus(status));
    }

    private static double parseDuration(String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidLineException("duration is missing or empty");
        }
        double d;
        try {
            d = Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            throw new InvalidLineException("duration '" + text + "' is not a number");
        }
        if (!Double.isFinite(d)) {
            throw new InvalidLineException("duration '" + text + "' is not a finite number");
        }
        if (d < 0) {
            throw new InvalidLineException("duration " + text + " is negative");
        }
        return d;
    }

    private static Long parseLong(String name, String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            throw new InvalidLineException(name + " '" + text + "' is not an integer");
        }
    }

    /** A missing status means the task completed (logs of finished tasks only often leave it out). */
    private static TimingRecord.Status parseStatus(String text) {
        if (text == null || text.isBlank()) {
            return TimingRecord.Status.COMPLETED;
        }
        try {
            return TimingRecord.Status.parse(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidLineException(e.getMessage());
        }
    }
}
