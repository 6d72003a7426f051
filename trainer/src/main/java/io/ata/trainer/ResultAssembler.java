package io.ata.trainer;

import io.ata.schemas.TaskResult;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.chunk.ShallowCopy;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;

/**
 * Puts results that arrive as slices back together before they are offered to the open round.
 * An agent publishes a large gradient as {@code chunks} records in one transaction, each
 * repeating the result's fields with a slice of the gradient and the same {@code payload_id};
 * {@link ChunkAssembler} joins them, keyed by task id, worker and payload id (so two runs of one
 * task never mix), within bounds: a payload may be no larger than the model in float64, one worker
 * may have at most {@link #MAX_PER_WORKER} payloads incomplete at once and one task at most {@link
 * #MAX_PER_TASK} (its worker's, its copies', a takeover's); a new payload beyond a bound pushes out
 * the oldest incomplete one of that worker or task. The caller offers only slices of tasks the
 * round assigned to their worker ({@link RoundAssignments}), so what is kept is bounded by the
 * round's own assignments: a flood of forged first slices can fill neither the trainer's memory
 * nor the room honest results need.
 *
 * <p>Only slices of the open round (its round and model version) are assembled. A slice of a
 * round ahead of the open one cannot be honest (that round was never published) and is refused,
 * each slice on its own. A slice of an earlier round, or arriving once the job finished, is not
 * stored: its result is offered as is, on its last slice only, to be counted (stale, usually) once.
 * This is what keeps a round's close harmless for results caught mid-way: when the round closes,
 * its incomplete payloads are dropped ({@link #roundClosed}) and the consumer's offsets are
 * committed past the slices read so far; the remaining slices, read after the close (by this
 * trainer, or by a successor from the committed offsets), belong to a closed round, so they are
 * never assembled and cannot leak memory or be joined to anything. If the open round's work is
 * dropped and read again, so is everything assembled ({@link #clear}).
 *
 * <p>Not thread-safe: the trainer thread owns it.
 */
final class ResultAssembler {
    /** Payloads one worker may have incomplete at once: an agent publishes its results one by one. */
    static final int MAX_PER_WORKER = 4;
    /** Payloads of one task incomplete at once: its worker's, a copy's or two, a takeover's. */
    static final int MAX_PER_TASK = 4;

    /** What an offered record led to. */
    sealed interface Outcome permits Whole, Pending, Refused {}

    /** A result to offer to the round: a whole one, or the last slice of one not to assemble. */
    record Whole(TaskResult result) implements Outcome {}

    /** A slice stored (or one not to assemble, before its last): nothing to offer yet. */
    record Pending() implements Outcome {}

    /** A slice that cannot be used; dead-letter the record with {@code reason}. */
    record Refused(String reason) implements Outcome {}

    private static final Pending PENDING = new Pending();
    private static final Deque<PayloadKey> NONE = new ArrayDeque<>();

    private record PayloadKey(String taskId, String workerId, String payloadId) {}

    private final ChunkAssembler<PayloadKey> assembler;
    /** The incomplete payloads, oldest first, by worker and by task. */
    private final Map<String, Deque<PayloadKey>> byWorker = new HashMap<>();

    private final Map<String, Deque<PayloadKey>> byTask = new HashMap<>();
    private int pushedOut;

    /** For a model of {@code dimension} parameters. */
    ResultAssembler(int dimension) {
        // the count of incomplete payloads is bounded here, per worker and per task
        this.assembler = new ChunkAssembler<>((long) dimension * Double.BYTES, Integer.MAX_VALUE);
    }

    /**
     * Takes one record's result.
     *
     * @param open the open round, or null once the job finished
     */
    Outcome offer(TaskResult result, RoundAccumulator open) {
        int chunk = result.getChunk();
        int chunks = result.getChunks();
        if (chunks == 1 && chunk == 0) {
            return new Whole(result); // the usual case: not sliced
        }
        if (open != null && (result.getRound() > open.round() || result.getModelVersion() > open.modelVersion())) {
            return new Refused("slice " + chunk + " of " + chunks + " of task " + result.getTaskId() + " is of round "
                    + result.getRound() + " at model version " + result.getModelVersion() + ", ahead of the open round "
                    + open.round() + ": the trainer never published it");
        }
        if (!isOfOpenRound(result, open)) {
            return chunk == chunks - 1 ? new Whole(result) : PENDING;
        }
        PayloadKey key = new PayloadKey(result.getTaskId(), result.getWorkerId(), result.getPayloadId());
        if (!byWorker.getOrDefault(key.workerId(), NONE).contains(key)) {
            makeRoom(byWorker, key.workerId(), MAX_PER_WORKER);
            makeRoom(byTask, key.taskId(), MAX_PER_TASK);
            byWorker.computeIfAbsent(key.workerId(), w -> new ArrayDeque<>()).addLast(key);
            byTask.computeIfAbsent(key.taskId(), t -> new ArrayDeque<>()).addLast(key);
        }
        ChunkAssembler.Offer offered = assembler.offer(key, chunk, chunks, result.getGradient());
        if (!(offered instanceof ChunkAssembler.Incomplete)) {
            forget(key); // complete, or refused (the assembler dropped it)
        }
        if (offered instanceof ChunkAssembler.Complete complete) {
            // the completing slice's fields, with the whole gradient
            TaskResult whole = ShallowCopy.of(result, TaskResult::new); // not newBuilder: it copies the slice
            whole.setGradient(ByteBuffer.wrap(complete.payload()));
            whole.setChunk(0);
            whole.setChunks(1);
            return new Whole(whole);
        }
        if (offered instanceof ChunkAssembler.Refused refused) {
            return new Refused("slice " + chunk + " of " + chunks + " of task " + result.getTaskId() + " (payload '"
                    + result.getPayloadId() + "'): " + refused.reason());
        }
        return PENDING;
    }

    /** Pushes out the oldest incomplete payloads of {@code id} in {@code index} until it has room for one more. */
    private void makeRoom(Map<String, Deque<PayloadKey>> index, String id, int max) {
        while (index.getOrDefault(id, NONE).size() >= max) {
            PayloadKey oldest = index.get(id).peekFirst();
            assembler.discardIf(oldest::equals);
            forget(oldest);
            pushedOut++;
        }
    }

    private void forget(PayloadKey key) {
        byWorker.computeIfPresent(key.workerId(), (w, q) -> q.remove(key) && q.isEmpty() ? null : q);
        byTask.computeIfPresent(key.taskId(), (t, q) -> q.remove(key) && q.isEmpty() ? null : q);
    }

    private static boolean isOfOpenRound(TaskResult result, RoundAccumulator open) {
        return open != null && result.getRound() == open.round() && result.getModelVersion() == open.modelVersion();
    }

    /** The open round closed: drops its incomplete results; returns how many. */
    int roundClosed() {
        return clear();
    }

    /** The open round's work is dropped, to be read again: forgets every slice; returns how many results. */
    int clear() {
        byWorker.clear();
        byTask.clear();
        return assembler.discardIf(key -> true);
    }

    /** Results still missing slices. */
    int incomplete() {
        return assembler.incomplete();
    }

    /** Incomplete results pushed out so far to make room under a bound. */
    int pushedOut() {
        return pushedOut;
    }
}
