package io.ata.lab.report;

import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * A plain-text table for the console: each column as wide as its widest cell, two spaces between
 * columns, text columns left-aligned and numbers right-aligned, optionally a rule under the header.
 */
final class TextTable {
    private TextTable() {}

    /**
     * @param rows            the header row, then the data rows, all of the same length
     * @param leftAligned     which columns (0-based) hold text; the others are right-aligned
     * @param ruleUnderHeader whether a line of dashes, as wide as the table, follows the header
     * @return one line per row (and the rule), each ending in a line feed, without trailing blanks
     */
    static String format(List<List<String>> rows, IntPredicate leftAligned, boolean ruleUnderHeader) {
        int columns = rows.get(0).size();
        int[] width = new int[columns];
        for (List<String> row : rows) {
            for (int c = 0; c < columns; c++) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> row = rows.get(r);
            StringBuilder line = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                String cell = row.get(c);
                String pad = " ".repeat(width[c] - cell.length());
                line.append(c > 0 ? "  " : "").append(leftAligned.test(c) ? cell + pad : pad + cell);
            }
            out.append(line.toString().stripTrailing()).append('\n');
            if (r == 0 && ruleUnderHeader) {
                out.append("-".repeat(Arrays.stream(width).sum() + 2 * (columns - 1)))
                        .append('\n');
            }
        }
        return out.toString();
    }
}
