package io.ata.schemas;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.chunk.Chunks;
import org.junit.jupiter.api.Test;

class JobNamesTest {
    @Test
    void ordinaryNamesAreJobNames() {
        for (String job : new String[] {"demo-ata-auto", "sweep/lr=0.01", "é", "j".repeat(255), "a b"}) {
            assertNull(JobNames.problem(job), job);
        }
    }

    @Test
    void aNameThatCouldBeAnotherJobsSliceKeyIsRefused() {
        String sliceKey = Chunks.key("a", 1, 3);
        assertTrue(JobNames.problem(sliceKey).contains("contains '#'"), JobNames.problem(sliceKey));
        assertTrue(JobNames.problem("#").contains("'#'"));
    }

    @Test
    void blankLongAndControlCharacterNamesAreRefused() {
        assertTrue(JobNames.problem(null).contains("needs a name"));
        assertTrue(JobNames.problem(" ").contains("needs a name"));
        assertTrue(JobNames.problem("j".repeat(256)).contains("256 characters (at most 255)"));
        assertTrue(JobNames.problem("a\nb").contains("control character"));
    }
}
