package io.ata.lab.timinglog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.dataformat.csv.CsvFactory;
import com.fasterxml.jackson.dataformat.csv.CsvParser;
import java.io.Closeable;
import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits CSV text into rows of cells with Jackson's CSV parser, as RFC 4180 has it: a quoted cell
 * may hold commas, doubled quotes and line breaks (kept exactly), and CRLF, LF and CR all end a
 * row. On top of RFC 4180: lines that are blank or start with {@code #} (after spaces) are
 * skipped; spaces around unquoted cells and outside quotes are dropped; an empty unquoted cell is
 * {@code null} (a missing value), a quoted one the empty string.
 *
 * <p>A row the parser cannot split (text after a closing quote, a quote never closed) comes back
 * with the reason, and reading goes on with the rest of the input.
 */
final class CsvRowReader implements Closeable {
    private static final CsvFactory CSV = CsvFactory.builder()
            .enable(
                    CsvParser.Feature.TRIM_SPACES,
                    CsvParser.Feature.ALLOW_COMMENTS,
                    CsvParser.Feature.EMPTY_UNQUOTED_STRING_AS_NULL)
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE) // the caller owns the reader
            .build();

    private final EndAwareReader input;
    private final CsvParser parser;

    /** Reads {@code in} (without a byte-order mark: see {@link TimingLogReader}); does not close it. */
    CsvRowReader(Reader in) throws IOException {
        this.input = new EndAwareReader(in);
        this.parser = CSV.createParser(input); // without a schema, Jackson returns each row as an array
    }

    /** The next row that is not blank, or {@code null} at the end of the input. */
    CsvRow next() throws IOException {
        while (parser.nextToken() == JsonToken.START_ARRAY) {
            long line = parser.currentLocation().getLineNr();
            List<String> cells = new ArrayList<>();
            try {
                for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY && t != null; t = parser.nextToken()) {
                    cells.add(t == JsonToken.VALUE_NULL ? null : parser.getText());
                }
            } catch (StreamConstraintsException e) {
                skipRestOfRow();
                return CsvRow.malformed(line, e.getOriginalMessage());
            } catch (JsonProcessingException e) {
                // Jackson reports two faults in rows: input that ends inside quotes, and text after
                // a closing quote (this reader sets no escape character, the only other source).
                String problem = input.ended()
                        ? "quoted field opened on line " + line + " is never closed"
                        : "unexpected text after a closing quote in field " + (cells.size() + 1);
                skipRestOfRow();
                return CsvRow.malformed(line, problem);
            }
            // Lines of spaces never reach here; a line of other blanks (tabs) is one empty cell.
            boolean blank = cells.size() == 1 && cells.get(0) == null;
            if (!blank) {
                return CsvRow.of(line, cells);
            }
        }
        return null;
    }

    /** After a fault, drops what is left of the row so that the next call starts on a new row. */
    private void skipRestOfRow() throws IOException {
        while (true) {
            try {
                JsonToken t = parser.nextToken();
                if (t == JsonToken.END_ARRAY || t == null) {
                    return;
                }
            } catch (JsonProcessingException again) {
                // another fault in the same row; each one moved past at least one character
            }
        }
    }

    @Override
    public void close() throws IOException {
        parser.close();
    }

    /**
     * Remembers whether the input has run out. The parser reads ahead only when it has used up
     * every character it holds, so a fault that comes after the end was seen is one that needed
     * more input: a quote never closed.
     */
    private static final class EndAwareReader extends FilterReader {
        private boolean ended;

        EndAwareReader(Reader in) {
            super(in);
        }

        @Override
        public int read(char[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            ended |= n < 0;
            return n;
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            ended |= c < 0;
            return c;
        }

        boolean ended() {
            return ended;
        }
    }
}
