package io.ata.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TaskIdsTest {

    @Test
    void anIdIsJobRoundIndex() {
        assertEquals("fmnist/3/7", TaskIds.of("fmnist", 3, 7));
        assertEquals("a/b/12/0", TaskIds.of("a/b", 12, 0), "a job name may hold slashes");
        assertThrows(IllegalArgumentException.class, () -> TaskIds.of("j", -1, 0));
        assertThrows(IllegalArgumentException.class, () -> TaskIds.of("j", 1, -1));
    }

    @Test
    void parsingTakesTheIdApartForItsJob() {
        assertEquals(Optional.of(new TaskIds.TaskId("fmnist", 3, 7)), TaskIds.parse("fmnist", "fmnist/3/7"));
        assertEquals(Optional.of(new TaskIds.TaskId("a/b", 12, 0)), TaskIds.parse("a/b", "a/b/12/0"));
        assertEquals(Optional.of(new TaskIds.TaskId("j", 0, 999_999_999)), TaskIds.parse("j", "j/0/999999999"));
        assertTrue(TaskIds.isOfRound("fmnist", 3, "fmnist/3/7"));
        assertFalse(TaskIds.isOfRound("fmnist", 4, "fmnist/3/7"));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "other/3/7", // another job
                "fmnist/3", // no index
                "fmnist/3/", // empty index
                "fmnist//7", // empty round
                "fmnist/03/7", // a second spelling of round 3
                "fmnist/3/07", // a second spelling of task 7
                "fmnist/-3/7",
                "fmnist/3/-7",
                "fmnist/3/7/1",
                "fmnist/3/1000000000", // ten digits: more tasks than a round has
                "fmnist/1234567890123456789/0", // a round beyond a long's safe digits
                "fmnist/3/x",
                "fmnist/ 3/7",
                "fmnist"
            })
    void anythingElseIsNoTaskOfTheJob(String id) {
        assertEquals(Optional.empty(), TaskIds.parse("fmnist", id), id);
        assertFalse(TaskIds.isOfRound("fmnist", 3, id), id);
    }

    @Test
    void whatOfSpellsParsesBack() {
        for (long round : new long[] {0, 1, 9, 10, 123_456_789_012L}) {
            for (int index : new int[] {0, 1, 10, 99, 999_999_999}) {
                assertEquals(
                        Optional.of(new TaskIds.TaskId("job", round, index)),
                        TaskIds.parse("job", TaskIds.of("job", round, index)));
            }
        }
    }
}
