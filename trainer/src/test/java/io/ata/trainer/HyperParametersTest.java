package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One spelling per number: the optimizer text a restarted trainer compares. */
class HyperParametersTest {

    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "-0.0, 0",
        "1, 1",
        "3.0, 3",
        "0.9, 0.9",
        "0.999, 0.999",
        "0.001, 0.001",
        "0.0001, 0.0001",
        "1e-5, 1e-05",
        "2.5e-5, 2.5e-05",
        "1e-8, 1e-08",
        "-0.001, -0.001",
        "123.5, 123.5",
        "1e16, 1e+16",
        "0.30000000000000004, 0.30000000000000004",
    })
    void numbersHaveTheShortestExactSpelling(double value, String text) {
        assertEquals(text, HyperParameters.number(value));
        assertEquals(value == 0 ? 0.0 : value, Double.parseDouble(text), 0, "reads back as the same double");
    }

    @ParameterizedTest
    @CsvSource({"NaN", "Infinity"})
    void refusesValuesThatAreNotFinite(double value) {
        assertThrows(IllegalArgumentException.class, () -> HyperParameters.number(value));
    }
}
