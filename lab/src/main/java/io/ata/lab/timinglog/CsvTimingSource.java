package io.ata.lab.timinglog;

import java.io.IOException;
import java.io.Reader;

/**
 * Reads the CSV form of a timing log: a header row naming the columns (see {@link CsvColumns}),
 * then one record per row (see {@link CsvRowReader} for the CSV dialect).
 */
final class CsvTimingSource {
    private CsvTimingSource() {}

    /**
     * Hands every row after the header to {@code out}, as a record or as an invalid line.
     *
     * @param source the name used in error messages
     * @throws TimingLogFormatException if the header is missing or unusable: nothing can be read then
     */
    static void read(Reader in, String source, TimingLineSink out) throws IOException {
        try (CsvRowReader rows = new CsvRowReader(in)) {
            CsvRow header = rows.next();
            if (header == null) {
                throw new TimingLogFormatException(
                        source, 0, "no header row; the first line must name the columns, e.g. worker,duration");
            }
            CsvColumns columns;
            try {
                columns = CsvColumns.ofHeader(header.cellsOrThrow());
            } catch (InvalidLineException e) {
                throw new TimingLogFormatException(source, header.line(), e.getMessage());
            }
            for (CsvRow row = rows.next(); row != null; row = rows.next()) {
                TimingRecord record;
                try {
                    record = columns.fieldsOf(row.cellsOrThrow()).toRecord();
                } catch (InvalidLineException e) {
                    out.invalidLine(row.line(), e.getMessage());
                    continue;
                }
                out.record(record);
            }
        }
    }
}
