package io.ata.trainer;

import io.ata.schemas.TaskResult;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.chunk.ShallowCopy;
import java.nio.ByteBuffer;

/**
 * Puts results that arrive as slices back together before they are offered to the open round.
 * An agent publishes a large gradient as {@code chunks} records in one transaction, each
 * repeating the result's fields with a slice of the gradient and the same {@code payload_id};
 * {@link ChunkAssembler} joins them, keyed by task id and payload id (so two runs of one task
 * never mix), within bounds: a payload may be no larger than the model in float64, and at most
 * {@link #MAX_INCOMPLETE} may be incomplete at once.
 *
 * <p>Only slices of the open round (its round and model version) are assembled. A slice of any
 * other round, or arriving once the job finished, is not stored: its result is offered as is, on
 * its last slice only, to be counted (stale, usually) once. This is what keeps a round's close
 * harmless for results caught mid-way: when the round closes, its incomplete payloads are dropped
 * ({@link #roundClosed}) and the consumer's offsets are committed past the slices read so far;
 * the remaining slices, read after the close (by this trainer, or by a successor from the
 * committed offsets), belong to a closed round, so they are never assembled and cannot leak
 * memory or be joined to anything. If the open round's work is dropped and read again, so is
 * everything assembled ({@link #clear}).
 *
 * <p>Not thread-safe: the trainer thread owns it.
 */
final class ResultAssembler {
    /** Results that may be incomplete at once: a few per agent publishing at the same time. */
    static final int MAX_INCOMPLETE = 64;

    /** What an offered record led to. */
    sealed interface Outcome permits Whole, Pending, Refused {}

    /** A result to offer to the round: a whole one, or the last slice of one not to assemble. */
    record Whole(TaskResult result) implements Outcome {}

    /** A slice stored (or one not to assemble, before its last): nothing to offer yet. */
    record Pending() implements Outcome {}

    /** A slice that cannot be used; dead-letter the record with {@code reason}. */
    record Refused(String reason) implements Outcome {}

    private static final Pending PENDING = new Pending();

    private record PayloadKey(String taskId, String payloadId) {}

    private final ChunkAssembler<PayloadKey> assembler;

    /** For a model of {@code dimension} parameters. */
    ResultAssembler(int dimension) {
        this.assembler = new ChunkAssembler<>((long) dimension * Double.BYTES, MAX_INCOMPLETE);
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
        if (!isOfOpenRound(result, open)) {
            return chunk == chunks - 1 ? new Whole(result) : PENDING;
        }
        ChunkAssembler.Offer offered = assembler.offer(
                new PayloadKey(result.getTaskId(), result.getPayloadId()), chunk, chunks, result.getGradient());
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

    private static boolean isOfOpenRound(TaskResult result, RoundAccumulator open) {
        return open != null && result.getRound() == open.round() && result.getModelVersion() == open.modelVersion();
    }

    /** The open round closed: drops its incomplete results; returns how many. */
    int roundClosed() {
        return assembler.discardIf(key -> true);
    }

    /** The open round's work is dropped, to be read again: forgets every slice. */
    void clear() {
        assembler.discardIf(key -> true);
    }

    /** Results still missing slices. */
    int incomplete() {
        return assembler.incomplete();
    }
}
