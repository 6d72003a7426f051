package io.ata.lab.timinglog;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CSV dialect of timing logs, row by row. */
class CsvRowReaderTest {

    private static List<CsvRow> rows(String text) throws IOException {
        List<CsvRow> rows = new ArrayList<>();
        try (CsvRowReader reader = new CsvRowReader(new StringReader(text))) {
            for (CsvRow row = reader.next(); row != null; row = reader.next()) {
                rows.add(row);
            }
        }
        return rows;
    }

    private static CsvRow row(long line, String... cells) {
        return CsvRow.of(line, Arrays.asList(cells));
    }

    @Test
    void quotedCellsKeepCommasQuotesAndLineBreaks() throws IOException {
        assertEquals(
                List.of(row(1, "a,b", "say \"hi\"", "x"), row(2, "two\r\nlines", "y"), row(4, "z", "w")),
                rows("\"a,b\",\"say \"\"hi\"\"\",x\r\n\"two\r\nlines\",y\r\nz,w"));
    }

    @Test
    void emptyUnquotedCellIsMissingAndQuotedEmptyCellIsEmpty() throws IOException {
        assertEquals(List.of(row(1, null, "", null)), rows(",\"\",\n"));
        assertEquals(List.of(row(1, "a", null)), rows("a,   \n"));
    }

    @Test
    void spacesAroundCellsAreDroppedButNotInsideQuotes() throws IOException {
        assertEquals(List.of(row(1, "a b", " c ", "d")), rows("  a b  , \" c \" ,\td\t\n"));
    }

    @Test
    void blankAndCommentLinesAreSkippedAndCountedInLineNumbers() throws IOException {
        List<CsvRow> rows = rows("# header comes next\n\n   \nh1,h2\r\n\t\n  # indented comment\nv1,v2\n");
        assertEquals(List.of(row(4, "h1", "h2"), row(7, "v1", "v2")), rows);
    }

    @Test
    void everyKindOfLineEndEndsARow() throws IOException {
        assertEquals(List.of(row(1, "a"), row(2, "b"), row(3, "c"), row(4, "d")), rows("a\rb\nc\r\nd"));
    }

    @Test
    void textAfterAClosingQuoteSpoilsOnlyItsRow() throws IOException {
        List<CsvRow> rows = rows("ok,1\n\"w\"x,2\nnext,3\n");
        assertEquals(row(1, "ok", "1"), rows.get(0));
        assertEquals(CsvRow.malformed(2, "unexpected text after a closing quote in field 1"), rows.get(1));
        assertEquals(row(3, "next", "3"), rows.get(2));
        assertEquals(3, rows.size());
    }

    @Test
    void aQuoteNeverClosedIsReportedAtTheLineItsRowStarts() throws IOException {
        List<CsvRow> rows = rows("ok,1\nw,\"never\nclosed,2\nthird,3\n");
        assertEquals(
                List.of(row(1, "ok", "1"), CsvRow.malformed(2, "quoted field opened on line 2 is never closed")), rows);
    }
}
