package io.ata.bench.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.schemas.TaskAssignment;
import io.ata.workeragent.AssignmentListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;

/** When a round's assignments were read and started at the fleet, as bench-fleet counts them. */
class FleetArrivalsTest {
    private final ConcurrentMap<String, Long> received = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Long> versions = new ConcurrentHashMap<>();
    private final ConcurrentMap<String, Long> started = new ConcurrentHashMap<>();
    private final AssignmentListener arrivals = FleetBench.arrivals(received, versions, started);

    @Test
    void aRoundIsReadyWhenTheLastOfItsAssignmentsFirstCameNotWhenOneWasSentAgain() {
        arrivals.received(assignment("w1", "j/3/0", ""), 100);
        arrivals.received(assignment("w2", "j/3/1", ""), 250); // the last one of the round
        arrivals.received(assignment("w9", "j/3/1", "w2"), 400); // a backup copy: not the round's delivery
        arrivals.received(assignment("w1", "j/3/0", ""), 60_000); // sent again after a re-drive
        assertEquals(Map.of("j/3", 250L), received);
        assertEquals(Map.of("j/3", 2L), versions);

        arrivals.started(assignment("w1", "j/3/0", ""), 300);
        arrivals.started(assignment("w2", "j/3/1", ""), 500);
        arrivals.started(assignment("w1", "j/3/0", ""), 61_000); // the copy sent again, run again
        assertEquals(Map.of("j/3", 500L), started);
    }

    private static TaskAssignment assignment(String worker, String task, String backupOf) {
        return TaskAssignment.newBuilder()
                .setJob("j")
                .setRound(3)
                .setModelVersion(2)
                .setWorkerId(worker)
                .setPartition(0)
                .setTaskIds(List.of(task))
                .setBatch(2)
                .setCreatedMs(1)
                .setBackupOf(backupOf)
                .build();
    }
}
