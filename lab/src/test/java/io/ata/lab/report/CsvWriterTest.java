package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CsvWriterTest {

    @Test
    void quotesPerRfc4180() {
        assertEquals("plain", CsvWriter.field("plain"));
        assertEquals("\"a, b\"", CsvWriter.field("a, b"));
        assertEquals("\"say \"\"hi\"\"\"", CsvWriter.field("say \"hi\""));
        assertEquals("\"two\nlines\"", CsvWriter.field("two\nlines"));
    }

    @Test
    void numbersParseBackAndNanIsEmpty() {
        assertEquals("3000", CsvWriter.number(3000.0));
        assertEquals("-1", CsvWriter.number(-1));
        assertEquals("0.1", CsvWriter.number(0.1));
        assertEquals(5.849123456e8 + 0.25, Double.parseDouble(CsvWriter.number(5.849123456e8 + 0.25)));
        assertEquals("", CsvWriter.number(Double.NaN));
    }

    @Test
    void writesHeaderAndRows(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.csv");
        try (CsvWriter csv = new CsvWriter(file, List.of("policy", "description"))) {
            csv.row(List.of("fta", "oracle means, proxy value 1"));
        }
        assertEquals("policy,description\nfta,\"oracle means, proxy value 1\"\n", Files.readString(file));
    }
}
