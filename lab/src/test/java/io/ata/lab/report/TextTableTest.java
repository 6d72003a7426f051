package io.ata.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TextTableTest {
    private static final List<List<String>> ROWS =
            List.of(List.of("name", "n", "note"), List.of("a", "1234", "x"), List.of("longer", "5", ""));

    @Test
    void columnsAsWideAsTheirWidestCellTextLeftNumbersRight() {
        assertEquals("""
                name       n  note
                a       1234  x
                longer     5
                """, TextTable.format(ROWS, c -> c != 1, false));
    }

    @Test
    void aRuleAsWideAsTheTableUnderTheHeader() {
        assertEquals("""
                name       n  note
                ------------------
                a       1234     x
                longer     5
                """, TextTable.format(ROWS, c -> c == 0, true));
    }
}
