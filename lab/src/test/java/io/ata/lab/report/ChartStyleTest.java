package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChartStyleTest {
    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "0.5, 0.5",
        "0.01, 0.01",
        "0.0001, 1e-4",
        "500, 500",
        "1000, 1k",
        "5500, 5.5k",
        "10000, 10k",
        "100000, 100k",
        "999999, 1M",
        "1500000, 1.5M",
        "500000000, 500M",
        "1500000000, 1.5G",
        "25000000000, 25G",
        "-2500, -2.5k",
    })
    void everyTickLabelHasTheOneCompactFormat(double value, String label) {
        assertEquals(label, new ChartStyle.CompactNumberFormat().format(value));
    }
}
