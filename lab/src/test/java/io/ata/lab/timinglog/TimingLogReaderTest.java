package io.ata.lab.timinglog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.lab.timinglog.TimingRecord.Status;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimingLogReaderTest {

    @TempDir
    Path dir;

    /** Records chosen to break a naive writer or reader: separators, quotes, blanks, extreme doubles. */
    private static List<TimingRecord> awkwardRecords() {
        List<TimingRecord> r = new ArrayList<>();
        r.add(new TimingRecord("w1", 0.1 + 0.2, 0L, "t-0", 1_700_000_000_000L, Status.COMPLETED));
        r.add(new TimingRecord("w2", Double.MIN_VALUE, 0L, "a,b", null, Status.LATE));
        r.add(new TimingRecord("#w3", 1.7976931348623157E308, null, "say \"hi\"", 5L, Status.CANCELLED));
        r.add(new TimingRecord(" padded ", 0.0, -3L, "", Long.MIN_VALUE, Status.COMPLETED));
        r.add(new TimingRecord("multi\nline", 1e-7, Long.MAX_VALUE, "x\r\ny", 7L, Status.LATE));
        r.add(new TimingRecord("w1", 123456.789, 1L, null, null, Status.COMPLETED));
        r.add(new TimingRecord("7", 2.5));
        SplittableRandom rng = new SplittableRandom(1);
        for (int i = 0; i < 200; i++) {
            r.add(new TimingRecord(
                    "w" + rng.nextInt(5),
                    -Math.log(rng.nextDouble()) * 58,
                    (long) i,
                    "t" + i,
                    (long) i * 1000,
                    Status.values()[rng.nextInt(3)]));
        }
        return r;
    }

    @Test
    void csvRoundTripIsExact() {
        Path f = dir.resolve("timings.csv");
        List<TimingRecord> records = awkwardRecords();
        TimingLogWriter.write(f, records);
        assertEquals(records, TimingLogReader.readRecords(f));
    }

    @Test
    void jsonLinesRoundTripIsExact() {
        for (String name : new String[] {"timings.jsonl", "timings.ndjson", "timings.json"}) {
            Path f = dir.resolve(name);
            List<TimingRecord> records = awkwardRecords();
            TimingLogWriter.write(f, records.stream());
            assertEquals(records, TimingLogReader.readRecords(f), name);
        }
    }

    @Test
    void jsonLinesOmitNullFields() throws IOException {
        Path f = dir.resolve("t.jsonl");
        TimingLogWriter.write(f, List.of(new TimingRecord("w1", 1.5)));
        assertEquals("{\"worker\":\"w1\",\"duration\":1.5,\"status\":\"completed\"}\n", Files.readString(f));
    }

    @Test
    void csvWritesHeaderAndEmptyCellsForNulls() throws IOException {
        Path f = dir.resolve("t.csv");
        TimingLogWriter.write(
                f, List.of(new TimingRecord("w1", 1.5), new TimingRecord("w2", 2, 3L, "t", 4L, Status.LATE)));
        assertEquals(
                "worker,duration,round,task,timestamp,status\nw1,1.5,,,,completed\nw2,2.0,3,t,4,late\n",
                Files.readString(f));
    }

    @Test
    void explicitFormatOverridesExtension() {
        Path f = dir.resolve("log.txt");
        List<TimingRecord> records = awkwardRecords();
        TimingLogWriter.write(f, TimingLogFormat.JSONL, records);
        assertEquals(records, TimingLogReader.readRecords(f, TimingLogFormat.JSONL));
        assertThrows(IllegalArgumentException.class, () -> TimingLogReader.read(f));
    }

    @Test
    void csvColumnsInAnyOrderWithExtraColumns() throws IOException {
        Path f = write("t.csv", """
                Status,host,Duration,timestamp,WORKER
                late,h1,3.5,10,b
                ,h2,1.25,20,a
                cancelled,h3,9,30,b
                COMPLETED,h4,4,40,b
                """);
        List<TimingRecord> r = TimingLogReader.readRecords(f);
        assertEquals(
                List.of(
                        new TimingRecord("b", 3.5, null, null, 10L, Status.LATE),
                        new TimingRecord("a", 1.25, null, null, 20L, Status.COMPLETED),
                        new TimingRecord("b", 9, null, null, 30L, Status.CANCELLED),
                        new TimingRecord("b", 4, null, null, 40L, Status.COMPLETED)),
                r);
        TimingLog log = TimingLogReader.read(f);
        assertEquals(List.of("b", "a"), log.workerIds());
        assertArrayEquals(new double[] {3.5, 4}, log.durations(0));
        assertEquals(1, log.cancelledCount());
    }

    @Test
    void csvQuotedFieldsCommentsBlankLinesCrlfAndBom() throws IOException {
        String text = "\uFEFF# exported by the broker\r\n"
                + "\r\n"
                + "worker,duration,task\r\n"
                + "  # another comment\r\n"
                + "\"w,1\", 2.5 ,\"he said \"\"go\"\"\"\r\n"
                + "   \r\n"
                + "w2,3,\"two\r\nlines\"\r\n"
                + "\"\",1,x\r\n" // quoted empty worker: rejected, it is blank
                + " \"w3\" ,4,\"\"\r\n";
        Path f = dir.resolve("q.csv");
        Files.writeString(f, text, StandardCharsets.UTF_8);
        TimingLogReader.ReadResult res = TimingLogReader.read(f, true);
        assertEquals(List.of(new TimingLogReader.Rejected(9, "worker is missing or empty")), res.rejected());
        TimingLog log = res.log();
        assertEquals(List.of("w,1", "w2", "w3"), log.workerIds());
        assertArrayEquals(new double[] {2.5, 3, 4}, log.allDurations());

        Files.writeString(f, text.replace("\"\",1,x\r\n", ""), StandardCharsets.UTF_8);
        List<TimingRecord> r = TimingLogReader.readRecords(f);
        assertEquals("he said \"go\"", r.get(0).task());
        assertEquals("two\r\nlines", r.get(1).task()); // line breaks inside quotes are kept exactly
        assertEquals("", r.get(2).task());
    }

    @Test
    void strictModeNamesFileLineAndReason() throws IOException {
        Path f = write("timings.csv", """
                worker,duration
                w1,1.0
                # comment
                w2,abc
                w3,2
                """);
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f));
        assertEquals(4, e.line());
        assertTrue(e.getMessage().endsWith("timings.csv line 4: duration 'abc' is not a number"), e.getMessage());
    }

    @Test
    void strictModeReportsTheLineWhereAMultiLineRecordStarts() throws IOException {
        Path f = write("t.csv", "worker,duration,task\nw1,1,\"a\nb\"\nw2,-1,x\n");
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f));
        assertEquals(4, e.line());
        assertTrue(e.reason().contains("negative"), e.reason());
    }

    @Test
    void lenientModeSkipsAndReportsEveryBadLine() throws IOException {
        Path f = write("t.csv", """
                worker,duration,round,timestamp,status
                w1,1,0,100,completed
                w1,NaN,1,101,completed
                ,2,1,102,completed
                w2,3,x,103,completed
                w2,4,2,104,done
                w2,5,2
                w2,6,3,105.5,late
                "w3,7,3,106,late
                """);
        TimingLogReader.ReadResult res = TimingLogReader.read(f, true);
        List<Long> lines =
                res.rejected().stream().map(TimingLogReader.Rejected::line).toList();
        assertEquals(List.of(3L, 4L, 5L, 6L, 7L, 8L, 9L), lines);
        assertEquals(7, res.rejectedCount());
        List<String> reasons =
                res.rejected().stream().map(TimingLogReader.Rejected::reason).toList();
        assertTrue(reasons.get(0).contains("not a finite number"), reasons.get(0));
        assertTrue(reasons.get(1).contains("worker"), reasons.get(1));
        assertEquals("round 'x' is not an integer", reasons.get(2));
        assertTrue(reasons.get(3).startsWith("status 'done'"), reasons.get(3));
        assertEquals("expected 5 fields as in the header, found 3", reasons.get(4));
        assertEquals("timestamp '105.5' is not an integer", reasons.get(5));
        assertTrue(reasons.get(6).contains("never closed"), reasons.get(6));
        assertEquals(List.of("w1"), res.log().workerIds());
        assertArrayEquals(new double[] {1}, res.log().durations(0));

        // the same file read strictly stops at the first bad line
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f, false));
        assertEquals(3, e.line());
    }

    @Test
    void missingHeaderIsFatalEvenWhenLenient() throws IOException {
        Path f = write("t.csv", "w1,1.0\nw2,2.0\n");
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f, true));
        assertEquals(1, e.line());
        assertTrue(e.getMessage().contains("'worker'"), e.getMessage());

        Path empty = write("e.csv", "# nothing\n\n");
        assertTrue(assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(empty, true))
                .getMessage()
                .contains("no header"));
    }

    @Test
    void headerWithoutARequiredColumnNamesWhatItFound() throws IOException {
        Path f = write("t.csv", "# a comment\nWorker, time ,round\nw1,1,0\n");
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f, true));
        assertEquals(2, e.line());
        assertEquals(
                "header has no 'duration' column (the header must name the columns, with worker and duration"
                        + " required; found: Worker,time,round)",
                e.reason());

        Path twice = write("twice.csv", "worker,duration,WORKER\nw1,1,w2\n");
        assertEquals(
                "header names column 'worker' twice",
                assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(twice, true))
                        .reason());
    }

    @Test
    void csvMissingCellsAndQuotedCommasInAnyColumn() throws IOException {
        Path f = write("t.csv", """
                task,worker,duration
                "a,b",w1,1
                ,w2,2
                x,,3
                y,w3,
                "z, again","w,4","4"
                """);
        TimingLogReader.ReadResult res = TimingLogReader.read(f, true);
        assertEquals(
                List.of(
                        new TimingLogReader.Rejected(4, "worker is missing or empty"),
                        new TimingLogReader.Rejected(5, "duration is missing or empty")),
                res.rejected());
        assertEquals(List.of("w1", "w2", "w,4"), res.log().workerIds());
        Files.writeString(f, Files.readString(f).replace("x,,3\ny,w3,\n", ""));
        List<TimingRecord> r = TimingLogReader.readRecords(f);
        assertEquals(
                List.of("a,b", "z, again"), List.of(r.get(0).task(), r.get(2).task()));
        assertNull(r.get(1).task());
    }

    @Test
    void csvWithOldMacLineEndsAndABlankLastLine() throws IOException {
        Path f = write("t.csv", "worker,duration\rw1,1\r\rw2,x\r\t\r");
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f));
        assertEquals(4, e.line());
        assertEquals("duration 'x' is not a number", e.reason());
        // a line of blanks at the end is skipped, not a one-cell row
        Files.writeString(f, "worker,duration\rw1,1\r\rw2,2\r\t\r");
        assertEquals(List.of(new TimingRecord("w1", 1), new TimingRecord("w2", 2)), TimingLogReader.readRecords(f));
    }

    @Test
    void lenientCsvGoesOnAfterTextBehindAClosingQuote() throws IOException {
        Path f = write("t.csv", "worker,duration\n\"w1\"x,1\nw2,2\n");
        TimingLogReader.ReadResult res = TimingLogReader.read(f, true);
        assertEquals(
                List.of(new TimingLogReader.Rejected(2, "unexpected text after a closing quote in field 1")),
                res.rejected());
        assertEquals(List.of("w2"), res.log().workerIds());
    }

    @Test
    void scanDropsAByteOrderMarkInEitherFormat() {
        List<TimingRecord> records = new ArrayList<>();
        TimingLogReader.scan(
                new StringReader("\uFEFF{\"worker\":\"w1\",\"duration\":1}\n"),
                "in",
                TimingLogFormat.JSONL,
                false,
                records::add,
                r -> {});
        TimingLogReader.scan(
                new StringReader("\uFEFFworker,duration\nw2,2\n"),
                "in",
                TimingLogFormat.CSV,
                false,
                records::add,
                r -> {});
        assertEquals(List.of(new TimingRecord("w1", 1), new TimingRecord("w2", 2)), records);
    }

    @Test
    void logWithoutUsableDurationIsAnError() throws IOException {
        Path f = write("t.csv", "worker,duration,status\nw1,1,cancelled\nw2,x,completed\n");
        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f, true));
        assertTrue(e.getMessage().contains("no usable duration"), e.getMessage());
        assertTrue(e.getMessage().contains("line 3"), e.getMessage());
    }

    @Test
    void jsonLinesFieldTypes() throws IOException {
        Path f = write("t.jsonl", """
                {"worker": 7, "duration": 1.5, "round": 2, "timestamp": 99, "task": "a", "status": "LATE", "extra": [1]}

                {"worker": "w8", "duration": 2, "round": null}
                # a comment
                {"duration": 3}
                {"worker": "w9", "duration": "oops"}
                {"worker": 1.5, "duration": 3}
                {"worker": "w9", "duration": 3, "round": 2.5}
                {"worker": "w9", "duration": 3
                [{"worker": "w9", "duration": 3}]
                {"worker": "w9", "duration": 3} {"worker": "w9", "duration": 4}
                """);
        TimingLogReader.ReadResult res = TimingLogReader.read(f, true);
        assertEquals(List.of("7", "w8"), res.log().workerIds());
        assertEquals(
                List.of(5L, 6L, 7L, 8L, 9L, 10L, 11L),
                res.rejected().stream().map(TimingLogReader.Rejected::line).toList());
        List<String> reasons =
                res.rejected().stream().map(TimingLogReader.Rejected::reason).toList();
        assertEquals("worker is missing or empty", reasons.get(0));
        assertEquals("duration 'oops' is not a number", reasons.get(1));
        assertTrue(reasons.get(2).startsWith("worker must be a string or an integer"), reasons.get(2));
        assertEquals("round '2.5' is not an integer", reasons.get(3));
        assertTrue(reasons.get(4).startsWith("invalid JSON"), reasons.get(4));
        assertTrue(reasons.get(5).contains("JSON array"), reasons.get(5));
        assertTrue(reasons.get(6).startsWith("invalid JSON"), reasons.get(6));

        List<TimingRecord> ok = new ArrayList<>();
        Path g = write(
                "g.jsonl",
                "{\"worker\": 7, \"duration\": 1.5, \"round\": 2, \"timestamp\": 99, \"task\": \"a\", \"status\": \"LATE\"}\n");
        ok.addAll(TimingLogReader.readRecords(g));
        assertEquals(List.of(new TimingRecord("7", 1.5, 2L, "a", 99L, Status.LATE)), ok);

        TimingLogFormatException e = assertThrows(TimingLogFormatException.class, () -> TimingLogReader.read(f));
        assertTrue(e.getMessage().contains("t.jsonl line 5: worker is missing"), e.getMessage());
    }

    @Test
    void formatFromExtension() {
        assertEquals(TimingLogFormat.CSV, TimingLogFormat.ofPath(Path.of("a/B.CSV")));
        assertEquals(TimingLogFormat.JSONL, TimingLogFormat.ofPath(Path.of("b.ndjson")));
        assertEquals(TimingLogFormat.JSONL, TimingLogFormat.ofPath(Path.of("b.json")));
        assertEquals(TimingLogFormat.JSONL, TimingLogFormat.ofPath(Path.of("b.jsonl")));
        assertThrows(IllegalArgumentException.class, () -> TimingLogFormat.ofPath(Path.of("b.tsv")));
    }

    @Test
    void recordValidation() {
        assertThrows(IllegalArgumentException.class, () -> new TimingRecord(" ", 1));
        assertThrows(IllegalArgumentException.class, () -> new TimingRecord(null, 1));
        assertThrows(IllegalArgumentException.class, () -> new TimingRecord("w", -0.5));
        assertThrows(IllegalArgumentException.class, () -> new TimingRecord("w", Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new TimingRecord("w", Double.POSITIVE_INFINITY));
        assertEquals(Status.COMPLETED, new TimingRecord("w", 1, null, null, null, null).status());
        assertEquals(Status.CANCELLED, Status.parse(" Canceled "));
        assertNull(new TimingRecord("w", 1).round());
    }

    @Test
    void largeLogStreamsThrough() {
        Path f = dir.resolve("big.csv");
        int n = 200_000;
        try (TimingLogWriter w = TimingLogWriter.open(f)) {
            for (int i = 0; i < n; i++) {
                w.append(new TimingRecord("w" + (i % 10), i, (long) (i / 10), null, null, Status.COMPLETED));
            }
        }
        TimingLog log = TimingLogReader.read(f);
        assertEquals(10, log.workerCount());
        assertEquals(n, log.recordCount());
        assertEquals(n / 10, log.durationCount(3));
        assertEquals(13, log.duration(3, 1));
    }

    private Path write(String name, String content) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, content, StandardCharsets.UTF_8);
        return f;
    }
}
