package io.ata.lab.timinglog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One row of a CSV file: the line it starts on and its cells, or why the parser could not split it.
 *
 * @param line    the 1-based line the row starts on (a quoted cell may carry it over several lines)
 * @param cells   the cells in order, {@code null} for an empty unquoted cell; empty if malformed
 * @param problem why the row could not be split into cells, or {@code null} if it could
 */
record CsvRow(long line, List<String> cells, String problem) {

    CsvRow {
        cells = Collections.unmodifiableList(new ArrayList<>(cells)); // List.copyOf refuses the nulls
    }

    static CsvRow of(long line, List<String> cells) {
        return new CsvRow(line, cells, null);
    }

    static CsvRow malformed(long line, String problem) {
        return new CsvRow(line, List.of(), problem);
    }

    /** The cells, or the problem as an {@link InvalidLineException}. */
    List<String> cellsOrThrow() {
        if (problem != null) {
            throw new InvalidLineException(problem);
        }
        return cells;
    }
}
