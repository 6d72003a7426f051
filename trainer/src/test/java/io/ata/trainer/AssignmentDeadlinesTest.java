package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskAssignment;
import java.util.List;
import org.junit.jupiter.api.Test;

class AssignmentDeadlinesTest {

    private static TaskAssignment assignment(
            long round, String worker, List<String> tasks, double deadlineMs, String backupOf) {
        return TaskAssignment.newBuilder()
                .setJob("j")
                .setRound(round)
                .setModelVersion(round - 1)
                .setWorkerId(worker)
                .setPartition(0)
                .setTaskIds(tasks)
                .setBatch(4)
                .setCreatedMs(0)
                .setDeadlineMs(deadlineMs)
                .setBackupOf(backupOf)
                .build();
    }

    @Test
    void anAssignmentWithoutAResultForItsDeadlineIsOverdueOnceWithItsMissingTasks() {
        AssignmentDeadlines d = new AssignmentDeadlines("j");
        d.roundOpened(3, 1000);
        d.assigned(assignment(3, "w1", List.of("j/3/0", "j/3/1", "j/3/2"), 50, ""), 1010);
        d.assigned(assignment(3, "w2", List.of("j/3/3"), 80, ""), 1010);
        assertEquals(40, d.untilNextDueMs(1020));
        d.arrived("j/3/0", 1040); // progress: w1's clock starts again
        d.arrived("j/3/3", 1050); // w2 is done
        assertTrue(d.due(1080).isEmpty(), "40 ms since w1's last result");
        List<AssignmentDeadlines.Overdue> due = d.due(1095);
        assertEquals(1, due.size());
        assertEquals(new AssignmentDeadlines.Overdue("w1", List.of("j/3/1", "j/3/2"), 55, 95), due.get(0));
        assertTrue(d.due(5000).isEmpty(), "reported once; w2 had everything in");
    }

    @Test
    void copiesAssignmentsWithoutADeadlineAndOtherJobsAreNotWatched() {
        AssignmentDeadlines d = new AssignmentDeadlines("j");
        d.roundOpened(1, 0);
        d.assigned(assignment(1, "w1", List.of("j/1/0"), 0, ""), 0);
        d.assigned(assignment(1, "w2", List.of("j/1/0"), 10, "w1"), 0);
        assertEquals(Long.MAX_VALUE, d.untilNextDueMs(0));
        assertTrue(d.due(1_000_000).isEmpty());
    }

    @Test
    void anAssignmentReadBeforeItsRoundOpenedHereIsWatchedFromThen() {
        AssignmentDeadlines d = new AssignmentDeadlines("j");
        d.roundOpened(1, 0);
        d.assigned(assignment(2, "w1", List.of("j/2/0"), 10, ""), 5); // the broker was quicker
        assertTrue(d.due(100).isEmpty(), "round 2 is not open here yet");
        d.roundOpened(2, 100);
        assertEquals(1, d.due(111).size());
    }
}
