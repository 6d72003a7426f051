package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskAssignment;
import io.ata.testsupport.Records;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundAssignmentsTest {

    private static TaskAssignment assignment(
            long round, String worker, List<String> tasks, double deadlineMs, String backupOf) {
        return Records.assignment("j", round, worker, 0)
                .setTaskIds(tasks)
                .setBatch(4)
                .setCreatedMs(0)
                .setDeadlineMs(deadlineMs)
                .setBackupOf(backupOf)
                .build();
    }

    @Test
    void anAssignmentWithoutAResultForItsDeadlineIsOverdueOnceWithItsMissingTasks() {
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(3, 1000);
        d.assigned(assignment(3, "w1", List.of("j/3/0", "j/3/1", "j/3/2"), 50, ""), 1010);
        d.assigned(assignment(3, "w2", List.of("j/3/3"), 80, ""), 1010);
        assertEquals(40, d.untilNextDueMs(1020));
        d.arrived("j/3/0", "w1", 10, 1040); // progress: w1's clock starts again
        d.arrived("j/3/3", "w2", 10, 1050); // w2 is done
        assertTrue(d.due(1080).isEmpty(), "40 ms since w1's last result");
        List<RoundAssignments.Overdue> due = d.due(1095);
        assertEquals(1, due.size());
        assertEquals(new RoundAssignments.Overdue("w1", List.of("j/3/1", "j/3/2"), 55, 95), due.get(0));
        assertTrue(d.due(1139).isEmpty(), "reported; again only after twice the deadline");
        assertEquals(List.of("j/3/1", "j/3/2"), d.due(1140).get(0).missing(), "still missing: reported again");
        assertTrue(d.due(1239).isEmpty(), "then after four times");
        assertEquals(1, d.due(1240).size(), "w2 had everything in: never");
    }

    @Test
    void assignmentsOfTheNextTwoRoundsReadBeforeEitherOpensAreBothKept() {
        // Pipelined: round 6's assignments (planned when 5 opened) and round 7's (planned when the
        // broker read 6's OPENED) both reached the watch before the loop marked round 6 open. Only
        // the latest round's were kept once: round 6 then had no assignment known, and stalled.
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(5, 1000);
        d.assigned(assignment(6, "w1", List.of("j/6/0"), 50, ""), 1010);
        d.assigned(assignment(7, "w1", List.of("j/7/0"), 50, ""), 1020);
        d.assigned(assignment(8, "w1", List.of("j/8/0"), 50, ""), 1020); // not planned yet: forged
        d.roundOpened(6, 1030);
        assertEquals(List.of("w1"), d.holdersOf("j/6/0"), "round 6's assignment is known");
        assertEquals(50, d.untilNextDueMs(1030));
        d.roundOpened(7, 1040);
        assertEquals(List.of("w1"), d.holdersOf("j/7/0"), "and round 7's, when it opens");
        d.roundOpened(8, 1050);
        assertEquals(List.of(), d.holdersOf("j/8/0"), "three rounds ahead of the open one: dropped");
    }

    @Test
    void aCopyReadAfterItsTaskCameIsNeverOverdueAndAnAssignmentSentAgainIsWatchedOnce() {
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(5, 1000);
        d.assigned(assignment(5, "w1", List.of("j/5/0", "j/5/1"), 50, ""), 1000);
        d.arrived("j/5/0", "w1", 10, 1020);
        // the copy of j/5/0 read after its result came: nothing of it is missing
        d.assigned(assignment(5, "w2", List.of("j/5/0"), 50, "w1"), 1030);
        // the broker sent w1's assignment again (a re-driven OPENED)
        d.assigned(assignment(5, "w1", List.of("j/5/0", "j/5/1"), 50, ""), 1040);
        assertEquals(50, d.untilNextDueMs(1020), "only w1's missing task is waited for");
        List<RoundAssignments.Overdue> due = d.due(1070);
        assertEquals(List.of(new RoundAssignments.Overdue("w1", List.of("j/5/1"), 50, 70)), due);
        d.arrived("j/5/1", "w1", 10, 1080);
        assertTrue(d.due(100_000).isEmpty(), "every task in: nothing is overdue, ever");
    }

    @Test
    void anAssignmentWithoutADeadlineOrACopyIsOverdueAfterTheStallBoundOtherJobsAreNotWatched() {
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(1, 0);
        d.assigned(assignment(1, "w1", List.of("j/1/0"), 0, ""), 0);
        d.assigned(assignment(1, "w2", List.of("j/1/0"), 0, "w1"), 0);
        TaskAssignment otherJob = TaskAssignment.newBuilder(assignment(1, "w3", List.of("x/1/0"), 10, ""))
                .setJob("x")
                .build();
        d.assigned(otherJob, 0);
        long bound = (long) StallBound.WARM_UP_MS;
        assertEquals(bound, d.untilNextDueMs(0), "no round time yet: the warm-up bound");
        assertTrue(d.due(bound - 1).isEmpty());
        List<RoundAssignments.Overdue> due = d.due(bound);
        assertEquals(
                List.of("w1", "w2"),
                due.stream().map(RoundAssignments.Overdue::worker).toList());
    }

    @Test
    void aNetworkJobWaitsLongerForItsFirstRoundWhileAgentsLoadTheirEngine() {
        RoundAssignments d = new RoundAssignments("j", StallBound.ENGINE_WARM_UP_MS);
        d.roundOpened(1, 0);
        d.assigned(assignment(1, "w1", List.of("j/1/0"), 0, ""), 0);
        long bound = (long) StallBound.ENGINE_WARM_UP_MS;
        assertEquals(bound, d.untilNextDueMs(0), "no round time yet: the engine's warm-up bound");
        assertTrue(d.due((long) StallBound.WARM_UP_MS).isEmpty(), "not overdue at the quadratic problem's bound");
        assertEquals(
                List.of("w1"),
                d.due(bound).stream().map(RoundAssignments.Overdue::worker).toList());
        // once the job has a round time, the engine's warm-up is over: the usual bound
        d.roundClosed(400);
        d.roundOpened(2, 1_000);
        assertEquals(StallBound.FLOOR_MS, d.stallBoundMs(), 1e-9, "5 x 400 ms, at least the floor");
    }

    @Test
    void onlyTheWorkersATaskWasAssignedToMayDeliverIt() {
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(2, 0);
        assertEquals(RoundAssignments.Ownership.UNKNOWN, d.ownership("j/2/0", "w1", 10), "not read yet");
        d.assigned(assignment(2, "w1", List.of("j/2/0", "j/2/1"), 50, ""), 0);
        assertEquals(RoundAssignments.Ownership.ASSIGNED, d.ownership("j/2/0", "w1", 10));
        assertEquals(
                RoundAssignments.Ownership.UNKNOWN,
                d.ownership("j/2/0", "evil", 10),
                "another worker: unknown until the watch has read as far as the result's arrival");
        d.caughtUp(10);
        assertEquals(RoundAssignments.Ownership.NOT_ASSIGNED, d.ownership("j/2/0", "evil", 10));
        assertEquals(RoundAssignments.Ownership.NOT_ASSIGNED, d.ownership("j/2/7", "w1", 10), "never assigned");
        assertEquals(RoundAssignments.Ownership.UNKNOWN, d.ownership("j/2/7", "w1", 11), "came after the catch-up");
        d.assigned(assignment(2, "w2", List.of("j/2/1"), 0, "w1"), 0);
        assertEquals(RoundAssignments.Ownership.ASSIGNED, d.ownership("j/2/1", "w2", 11), "a copy");
        assertEquals(List.of("w1", "w2"), d.holdersOf("j/2/1"));
        d.roundOpened(3, 10);
        assertEquals(
                RoundAssignments.Ownership.UNKNOWN, d.ownership("j/2/0", "w1", 20), "the last round's are forgotten");
        d.tasksReadable(false);
        assertEquals(
                RoundAssignments.Ownership.ASSIGNED, d.ownership("j/3/0", "anyone", 20), "no tasks topic: unchecked");
    }

    @Test
    void aCopysResultReadBeforeTheWatchReadTheCopyIsHeldNotRefused() {
        // the watch read the task's first assignment, then the broker sent a backup copy to w2,
        // whose result reached the trainer before the watch read the copy
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(4, 0);
        d.assigned(assignment(4, "w1", List.of("j/4/0"), 50, ""), 0);
        d.caughtUp(100);
        long copyResultRead = 200;
        assertEquals(RoundAssignments.Ownership.UNKNOWN, d.ownership("j/4/0", "w2", copyResultRead));
        d.assigned(assignment(4, "w2", List.of("j/4/0"), 0, "w1"), 250);
        d.caughtUp(300);
        assertEquals(RoundAssignments.Ownership.ASSIGNED, d.ownership("j/4/0", "w2", copyResultRead));
    }

    @Test
    void theLoopKnowsWhenTheWatchHasReadFarEnough() {
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(1, 0);
        assertTrue(d.catchUpWanted().isEmpty());
        d.requestCatchUp(100);
        d.requestCatchUp(90);
        assertEquals(100L, d.catchUpWanted().orElseThrow(), "the latest result read");
        assertEquals(RoundAssignments.Ownership.UNKNOWN, d.ownership("j/1/0", "w1", 100));
        d.caughtUp(150);
        assertEquals(RoundAssignments.Ownership.NOT_ASSIGNED, d.ownership("j/1/0", "w1", 150));
        assertEquals(RoundAssignments.Ownership.UNKNOWN, d.ownership("j/1/0", "w1", 151));
        assertTrue(d.catchUpWanted().isEmpty());
    }

    @Test
    void aRoundOpenLongerThanItsStallBoundIsStalledAgainAfterTwiceAsLong() {
        RoundAssignments d = new RoundAssignments("j");
        for (int r = 0; r < 5; r++) {
            d.roundClosed(1_000);
        }
        assertEquals(5_000, d.stallBoundMs(), 1e-9, "5 x the median round");
        d.roundOpened(7, 0);
        assertTrue(d.stall(4_999).isEmpty());
        RoundAssignments.Stall first = d.stall(5_000).orElseThrow();
        assertTrue(first.noAssignments(), "nothing of it read: its OPENED is sent again");
        assertEquals(1, first.times());
        assertTrue(d.stall(9_999).isEmpty(), "again after twice the bound");
        d.assigned(assignment(7, "w1", List.of("j/7/0", "j/7/1"), 0, ""), 9_000);
        d.arrived("j/7/0", "w1", 5, 9_500);
        RoundAssignments.Stall second = d.stall(10_000).orElseThrow();
        assertEquals(java.util.Map.of("w1", List.of("j/7/1")), second.missing());
        assertEquals(2, second.times());
        d.roundOpened(8, 20_000);
        assertTrue(d.stall(24_999).isEmpty(), "a new round starts its own count");
    }

    @Test
    void onceTheWaitIsCappedAStalledRoundIsReDrivenOncePerCapNotAtEveryCheck() {
        RoundAssignments d = new RoundAssignments("j");
        for (int r = 0; r < 5; r++) {
            d.roundClosed(1_000);
        }
        d.roundOpened(3, 0);
        d.assigned(assignment(3, "w1", List.of("j/3/0"), 0, ""), 0);
        long now = 0;
        int stalls = 0;
        int reports = 0;
        // an hour of a round that never closes, checked every 10 ms as the watch does
        for (now = 0; now <= 3_600_000; now += 10) {
            stalls += d.stall(now).isPresent() ? 1 : 0;
            reports += d.due(now).size();
        }
        // 5, 10, 20, 40, 60 (capped), then every 60 s: about 61 in the hour, not one per check
        long capped = (long) RoundAssignments.MAX_BACKOFF_MS;
        assertTrue(stalls >= 55 && stalls <= 3_600_000 / capped + 5, "stalls in an hour: " + stalls);
        assertTrue(reports >= 55 && reports <= 3_600_000 / capped + 5, "overdue reports in an hour: " + reports);
        assertTrue(d.stall(now).isEmpty(), "not again at once");
    }

    @Test
    void theStallBoundHasAFloorAndResumesFromThePublishedMedian() {
        RoundAssignments d = new RoundAssignments("j");
        assertEquals(StallBound.WARM_UP_MS, d.stallBoundMs(), 1e-9);
        d.resumeStallBound(100);
        assertEquals(StallBound.FLOOR_MS, d.stallBoundMs(), 1e-9, "5 x 100 ms is below the floor");
        d.resumeStallBound(Double.NaN);
        assertEquals(StallBound.WARM_UP_MS, d.stallBoundMs(), 1e-9, "a bad record: no median");
        d.roundClosed(3_000);
        assertEquals(15_000, d.stallBoundMs(), 1e-9);
    }

    @Test
    void anAssignmentReadBeforeItsRoundOpenedHereIsWatchedFromThen() {
        RoundAssignments d = new RoundAssignments("j");
        d.roundOpened(1, 0);
        d.assigned(assignment(2, "w1", List.of("j/2/0"), 10, ""), 5); // the broker was quicker
        assertTrue(d.due(100).isEmpty(), "round 2 is not open here yet");
        d.roundOpened(2, 100);
        assertEquals(1, d.due(111).size());
    }

    /** Results of {@code rounds} rounds of one worker, each {@code overheadMs} beyond its 10 ms compute. */
    private static void healthyRounds(RoundAssignments d, int rounds, long overheadMs) {
        long now = 0;
        for (int r = 1; r <= rounds; r++) {
            d.roundOpened(r, now);
            d.assigned(assignment(r, "w1", List.of("j/" + r + "/0"), 50, ""), now);
            now += 10 + overheadMs;
            d.arrived("j/" + r + "/0", "w1", 10, now);
        }
    }

    @Test
    void deadlinesStretchByTheDeliveryTimeHealthyResultsTook() {
        RoundAssignments d = new RoundAssignments("j");
        healthyRounds(d, DeliveryMargin.MIN_SAMPLES - 1, 200);
        assertEquals(0, d.marginMs(), "too few samples: the broker's deadline alone");
        healthyRounds(d, DeliveryMargin.MIN_SAMPLES, 200);
        assertEquals(200, d.marginMs(), 1e-9, "each result took 200 ms beyond its compute");

        d.roundOpened(100, 10_000);
        d.assigned(assignment(100, "w1", List.of("j/100/0"), 50, ""), 10_000);
        assertTrue(d.due(10_100).isEmpty(), "a loaded machine's 100 ms is no reason for a copy");
        assertEquals(150, d.untilNextDueMs(10_100));
        assertEquals(1, d.due(10_250).size(), "deadline 50 plus margin 200");
    }

    @Test
    void theMarginIsAHighQuantileSoAFewAccidentsDoNotStretchIt() {
        RoundAssignments d = new RoundAssignments("j");
        healthyRounds(d, 1, 5_000); // one long pause
        healthyRounds(d, 99, 20);
        assertEquals(20, d.marginMs(), 1e-9, "1 in 100 is above the 99th percentile");
        healthyRounds(d, DeliveryMargin.WINDOW, 5);
        assertEquals(5, d.marginMs(), 1e-9, "the window forgets older samples");
    }

    @Test
    void aRestartedTrainerStartsFromThePublishedMarginUntilItHasSamplesOfItsOwn() {
        RoundAssignments d = new RoundAssignments("j");
        d.resumeMargin(200);
        assertEquals(200, d.marginMs(), "no samples yet: the predecessor's margin");
        healthyRounds(d, DeliveryMargin.MIN_SAMPLES - 1, 30);
        assertEquals(200, d.marginMs(), "too few samples of its own");
        healthyRounds(d, 1, 30);
        assertEquals(30, d.marginMs(), 1e-9, "its own, once it has enough");
    }

    @Test
    void aBadPublishedMarginCannotSwitchBackupsOff() {
        RoundAssignments d = new RoundAssignments("j");
        for (double bad : new double[] {Double.NaN, Double.NEGATIVE_INFINITY, -5}) {
            d.resumeMargin(bad);
            assertEquals(0, d.marginMs(), "resumed " + bad);
        }
        d.resumeMargin(Double.POSITIVE_INFINITY);
        assertEquals(0, d.marginMs(), "not finite");
        d.resumeMargin(1e12);
        assertEquals(DeliveryMargin.MAX_RESUMED_MS, d.marginMs(), "capped");
    }

    @Test
    void aCopysResultIsNoSampleOfTheMargin() {
        RoundAssignments d = new RoundAssignments("j");
        healthyRounds(d, 40, 10);
        d.roundOpened(41, 1000);
        d.assigned(assignment(41, "w1", List.of("j/41/0"), 50, ""), 1000);
        assertEquals(1, d.due(1060).size(), "w1 hangs");
        d.arrived("j/41/0", "w2", 10, 1100); // its copy's result, 100 ms after w1's last progress
        assertEquals(10, d.marginMs(), 1e-9, "the stuck worker's wait is not delivery time");
    }
}
