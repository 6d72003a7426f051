package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.testsupport.EndToEnd;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ata bench-transport} end to end, tiny: an embedded broker, both transports, one gradient
 * of one record and one of two slices. It checks what the command prints and writes, never the
 * figures themselves (speed is not asserted in tests).
 */
@EndToEnd
class TransportBenchCommandTest {

    @TempDir
    Path out;

    @Test
    void measuresBothTransportsForEverySizeAndWritesTheFigures() throws Exception {
        CliRun run = CliRun.of(
                "bench-transport",
                "--sizes",
                "1k,300000",
                "--tasks",
                "3",
                "--repeats",
                "2",
                "--warmup",
                "1",
                "--out",
                out.toString());
        assertEquals(0, run.exitCode(), run.transcript());

        CsvTable csv = CsvTable.read(out.resolve("transport.csv"));
        assertEquals(List.of(TransportBenchCommand.CSV_HEADER.split(",")), csv.header());
        assertEquals(2, csv.rows().size(), run.transcript());
        Map<String, String> small = csv.row("parameters", "1000");
        Map<String, String> sliced = csv.row("parameters", "300000");
        assertEquals("4000", small.get("bytes_per_task"));
        assertEquals("1", small.get("records_per_task"));
        assertEquals("1200000", sliced.get("bytes_per_task"));
        assertEquals("2", sliced.get("records_per_task"), "a gradient over 900000 bytes travels in two slices");
        for (Map<String, String> row : csv.rows()) {
            assertEquals("stream", row.get("pace"), "the default");
            assertEquals("6", row.get("tasks"), "3 tasks x 2 runs");
            for (String column : List.of(
                    "ata_median_latency_ms",
                    "kafka_eos_median_latency_ms",
                    "plain_median_latency_ms",
                    "ata_throughput_mb_s",
                    "kafka_eos_throughput_mb_s",
                    "plain_throughput_mb_s")) {
                assertTrue(CsvTable.number(row, column) > 0, column + " in " + row);
            }
            double plain = CsvTable.number(row, "plain_throughput_mb_s");
            double ratio = CsvTable.number(row, "ata_throughput_mb_s") / plain;
            assertEquals(ratio, CsvTable.number(row, "throughput_ratio"), 1e-3 * ratio + 1e-4);
            double eosRatio = CsvTable.number(row, "kafka_eos_throughput_mb_s") / plain;
            assertEquals(eosRatio, CsvTable.number(row, "kafka_eos_throughput_ratio"), 1e-3 * eosRatio + 1e-4);

            // the printed line of the size shows the same figures
            String line = run.out()
                    .lines()
                    .filter(l -> l.startsWith(row.get("parameters") + " "))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no line for " + row + "\n" + run.transcript()));
            double[] printed = Arrays.stream(line.trim().split(" +"))
                    .mapToDouble(Double::parseDouble)
                    .toArray();
            assertEquals(11, printed.length, line);
            assertEquals(CsvTable.number(row, "ata_median_latency_ms"), printed[3], 0.051, line);
            assertEquals(CsvTable.number(row, "kafka_eos_median_latency_ms"), printed[4], 0.051, line);
            assertEquals(CsvTable.number(row, "plain_throughput_mb_s"), printed[8], 0.051, line);
            assertEquals(CsvTable.number(row, "throughput_ratio"), printed[9], 0.0051, line);
            assertEquals(CsvTable.number(row, "kafka_eos_throughput_ratio"), printed[10], 0.0051, line);
        }
        CsvTable tasks = CsvTable.read(out.resolve("transport-tasks.csv"));
        assertEquals(List.of(TransportBenchCommand.TASKS_CSV_HEADER.split(",")), tasks.header());
        assertEquals(2 * 3 * 6, tasks.rows().size(), "every measured task of both sizes and the three transports");
        for (String transport : List.of("ata", "kafka-eos", "plain")) {
            List<Map<String, String>> rows = tasks.rowsWhere("transport", transport);
            assertEquals(12, rows.size(), transport);
            assertTrue(rows.stream().allMatch(r -> CsvTable.number(r, "latency_ms") > 0), transport);
            for (Map<String, String> size : csv.rows()) {
                double[] latencies = rows.stream()
                        .filter(r -> r.get("parameters").equals(size.get("parameters")))
                        .mapToDouble(r -> CsvTable.number(r, "latency_ms"))
                        .sorted()
                        .toArray();
                assertEquals(6, latencies.length);
                assertEquals(
                        latencies[3],
                        CsvTable.number(size, transport.replace('-', '_') + "_median_latency_ms"),
                        2e-3,
                        "the median of the tasks' latencies, " + transport + " " + size);
            }
        }
        assertTrue(run.out().contains("outputs in " + out + ": transport.csv, transport-tasks.csv"), run.transcript());
    }

    @Test
    void aSerialRunSaysSoAndMeasuresEveryTask() throws Exception {
        CliRun run = CliRun.of(
                "bench-transport",
                "--pace",
                "serial",
                "--sizes",
                "1k",
                "--tasks",
                "2",
                "--repeats",
                "1",
                "--warmup",
                "0",
                "--out",
                out.toString());
        assertEquals(0, run.exitCode(), run.transcript());
        assertTrue(run.out().contains("at pace serial"), run.transcript());
        assertEquals(
                "serial",
                CsvTable.read(out.resolve("transport.csv")).rows().get(0).get("pace"));
        CsvTable tasks = CsvTable.read(out.resolve("transport-tasks.csv"));
        assertEquals(3 * 2, tasks.rows().size(), "two tasks of each transport");
        assertTrue(tasks.rows().stream().allMatch(r -> r.get("pace").equals("serial")));

        CliRun wrong = CliRun.of("bench-transport", "--pace", "fast", "--out", out.toString());
        assertEquals(2, wrong.exitCode(), wrong.transcript());
        assertTrue(wrong.err().contains("'fast' is not a pace: stream or serial"), wrong.transcript());
    }

    @Test
    void readsSizesWithSuffixesAndRefusesOthers() {
        TransportBenchCommand.ParameterCount count = new TransportBenchCommand.ParameterCount();
        assertEquals(100_000, count.convert("0.1M"));
        assertEquals(10_000_000, count.convert("10M"));
        assertEquals(300_000, count.convert("300k"));
        assertEquals(1234, count.convert("1234"));

        CliRun fractional = CliRun.of("bench-transport", "--sizes", "1.5");
        assertEquals(2, fractional.exitCode(), fractional.transcript());
        assertTrue(fractional.err().contains("whole number of parameters"), fractional.transcript());
        CliRun zeroTasks = CliRun.of("bench-transport", "--tasks", "0", "--out", out.toString());
        assertEquals(2, zeroTasks.exitCode(), zeroTasks.transcript());
        assertTrue(zeroTasks.err().contains("tasks >= 1"), zeroTasks.transcript());
    }
}
