package io.ata.lab.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ExhaustionModeTest {

    @Test
    void parsesNamesAndAliasesInAnyCase() {
        assertEquals(ExhaustionMode.CYCLE, ExhaustionMode.parse("cycle"));
        assertEquals(ExhaustionMode.CYCLE, ExhaustionMode.parse(" CYCLE "));
        assertEquals(ExhaustionMode.BOOTSTRAP, ExhaustionMode.parse("Bootstrap"));
        assertEquals(ExhaustionMode.BOOTSTRAP, ExhaustionMode.parse("bootstrap-resample"));
        assertEquals(ExhaustionMode.BOOTSTRAP, ExhaustionMode.parse("BOOTSTRAP_RESAMPLE"));
        assertEquals(ExhaustionMode.STOP, ExhaustionMode.parse("stop"));
        assertEquals("bootstrap", ExhaustionMode.BOOTSTRAP.label());
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExhaustionMode.parse("repeat"));
        assertTrue(e.getMessage().contains("'repeat'"), e.getMessage());
        assertTrue(
                e.getMessage().contains("cycle")
                        && e.getMessage().contains("bootstrap")
                        && e.getMessage().contains("stop"),
                e.getMessage());
    }
}
