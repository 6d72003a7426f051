package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TaskResult;
import io.ata.testsupport.Records;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** The bounds on what slices may hold in memory, and what is never stored. */
class ResultAssemblerTest {
    private static final String JOB = "job";
    private static final int DIM = 4; // at most 32 bytes of gradient
    private final RoundAccumulator open = new RoundAccumulator(JOB, 3, 2, DIM, 0, new TestClock(0));

    private static TaskResult slice(long round, String taskId, String payload, int chunk, int chunks, int bytes) {
        return slice(round, taskId, "w", payload, chunk, chunks, bytes);
    }

    private static TaskResult slice(
            long round, String taskId, String worker, String payload, int chunk, int chunks, int bytes) {
        return Records.result(JOB, round, round - 1, taskId, worker, new double[0], 1)
                .setGradient(ByteBuffer.wrap(new byte[bytes]))
                .setChunk(chunk)
                .setChunks(chunks)
                .setPayloadId(payload)
                .build();
    }

    @Test
    void aPayloadLargerThanTheModelIsRefused() {
        ResultAssembler assembler = new ResultAssembler(DIM);
        assertInstanceOf(ResultAssembler.Pending.class, assembler.offer(slice(3, "job/3/0", "p", 0, 3, 16), open));
        ResultAssembler.Outcome second = assembler.offer(slice(3, "job/3/0", "p", 1, 3, 24), open);
        ResultAssembler.Refused refused = assertInstanceOf(ResultAssembler.Refused.class, second);
        assertTrue(refused.reason().contains("larger than the 32 allowed"), refused.reason());
        assertEquals(0, assembler.incomplete(), "the payload is dropped");
    }

    @Test
    void aWorkerHasAtMostSoManyResultsIncompleteAndANewOnePushesOutItsOldest() {
        ResultAssembler assembler = new ResultAssembler(DIM);
        for (int i = 0; i < ResultAssembler.MAX_PER_WORKER; i++) {
            assembler.offer(slice(3, "job/3/" + i, "flood", "p", 0, 2, 8), open);
        }
        assertInstanceOf(
                ResultAssembler.Pending.class, assembler.offer(slice(3, "job/3/9", "flood", "p", 0, 2, 8), open));
        assertEquals(ResultAssembler.MAX_PER_WORKER, assembler.incomplete(), "the flood's oldest was pushed out");
        assertEquals(1, assembler.pushedOut());
        // another worker's result is untouched by the flood, and completes
        assertInstanceOf(
                ResultAssembler.Pending.class, assembler.offer(slice(3, "job/3/1", "honest", "h", 0, 2, 8), open));
        assertInstanceOf(
                ResultAssembler.Whole.class, assembler.offer(slice(3, "job/3/1", "honest", "h", 1, 2, 8), open));
        // the pushed-out one's next slice starts anew and never completes on its own
        assertInstanceOf(
                ResultAssembler.Pending.class, assembler.offer(slice(3, "job/3/0", "flood", "p", 1, 2, 8), open));
        assertEquals(ResultAssembler.MAX_PER_WORKER, assembler.roundClosed());
        assertEquals(0, assembler.incomplete());
    }

    @Test
    void aTaskHasAtMostSoManyResultsIncompleteWhoeverSendsThem() {
        ResultAssembler assembler = new ResultAssembler(DIM);
        for (int w = 0; w < ResultAssembler.MAX_PER_TASK + 3; w++) {
            assembler.offer(slice(3, "job/3/0", "w" + w, "p", 0, 2, 8), open);
        }
        assertEquals(ResultAssembler.MAX_PER_TASK, assembler.incomplete(), "bounded by the task, not the senders");
        assertInstanceOf(
                ResultAssembler.Whole.class,
                assembler.offer(slice(3, "job/3/0", "w" + (ResultAssembler.MAX_PER_TASK + 2), "p", 1, 2, 8), open),
                "the newest completes");
    }

    @Test
    void everySliceOfARoundAheadOfTheOpenOneIsRefused() {
        ResultAssembler assembler = new ResultAssembler(DIM);
        for (int chunk = 0; chunk < 2; chunk++) {
            ResultAssembler.Refused refused = assertInstanceOf(
                    ResultAssembler.Refused.class, assembler.offer(slice(4, "job/4/0", "p", chunk, 2, 8), open));
            assertTrue(refused.reason().contains("ahead of the open round 3"), refused.reason());
        }
        assertEquals(0, assembler.incomplete());
    }

    /** Two runs of one task (two payload ids) never mix; each completes on its own. */
    @Test
    void payloadIdsKeepTwoRunsOfATaskApart() {
        ResultAssembler assembler = new ResultAssembler(DIM);
        assembler.offer(slice(3, "job/3/0", "run-1", 0, 2, 16), open);
        assembler.offer(slice(3, "job/3/0", "run-2", 0, 2, 16), open);
        ResultAssembler.Whole whole = assertInstanceOf(
                ResultAssembler.Whole.class, assembler.offer(slice(3, "job/3/0", "run-2", 1, 2, 16), open));
        assertEquals(32, whole.result().getGradient().remaining());
        assertEquals(1, whole.result().getChunks());
        assertEquals(1, assembler.incomplete(), "run-1 still waits");
    }

    /** Slices of another round, or once the job finished, are never stored: only the last is passed on. */
    @Test
    void slicesOfAnotherRoundAreNotStored() {
        ResultAssembler assembler = new ResultAssembler(DIM);
        assertInstanceOf(ResultAssembler.Pending.class, assembler.offer(slice(2, "job/2/0", "p", 0, 2, 16), open));
        assertInstanceOf(ResultAssembler.Whole.class, assembler.offer(slice(2, "job/2/0", "p", 1, 2, 16), open));
        assertInstanceOf(ResultAssembler.Pending.class, assembler.offer(slice(3, "job/3/0", "p", 0, 2, 16), null));
        assertEquals(0, assembler.incomplete());
    }
}
