package io.ata.workeragent;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.chunk.ChunkAssembler;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.chunk.ShallowCopy;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Puts chunked model versions back together for the {@link ModelCache}. A version whose parameters
 * travel as several records ({@link Chunks}: {@code chunk} of {@code chunks}, keyed {@code job#i})
 * is usable only once all its slices have arrived; it then comes out whole, as if it had been one
 * record: {@code chunk} 0 of 1, the parameters entire, and the other fields (the TaskSpec among
 * them) of its slice 0. A version in one record comes out as it is.
 *
 * <p>Slices of several jobs and versions may interleave. Memory is bounded by a
 * {@link ChunkAssembler}: a version's parameters may not exceed {@code maxPayloadBytes}, and at
 * most {@code maxOpen} versions may be incomplete at once. An incomplete version is dropped once a
 * newer version of its job arrives (it can no longer become the newest) or the job is forgotten. A
 * slice that cannot be used (a duplicate, a slice count that contradicts its siblings', a version
 * too large) drops its version, and the reason is handed back for a dead letter.
 *
 * <p>Not thread-safe: the model cache's thread alone uses it.
 */
final class ModelAssembler {

    /** What a slice led to. */
    sealed interface Result permits Pending, Whole, Refused {}

    /** The version still misses slices. */
    record Pending(int received, int chunks) implements Result {}

    /** The version is complete: here it is, in one piece. */
    record Whole(ModelVersion model) implements Result {}

    /** The slice cannot be used, nor its version; {@code reason} says why. */
    record Refused(String reason) implements Result {}

    private record VersionKey(String job, long version) {}

    private final ChunkAssembler<VersionKey> slices;
    /** Slice 0 of each incomplete version that has it: the fields of the whole version. */
    private final Map<VersionKey, ModelVersion> firstSlices = new HashMap<>();

    /**
     * @param maxPayloadBytes the largest parameter payload of one version, in bytes
     * @param maxOpen how many versions may be incomplete at once
     */
    ModelAssembler(long maxPayloadBytes, int maxOpen) {
        this.slices = new ChunkAssembler<>(maxPayloadBytes, maxOpen);
    }

    /** Adds one record of the model topic (its key already checked). */
    Result offer(ModelVersion slice) {
        String job = slice.getJob();
        long version = slice.getVersion();
        discard(key -> key.job().equals(job) && key.version() < version);
        if (slice.getChunks() == 1 && slice.getChunk() == 0) {
            return new Whole(slice);
        }
        VersionKey key = new VersionKey(job, version);
        ChunkAssembler.Offer offer = slices.offer(key, slice.getChunk(), slice.getChunks(), slice.getParameters());
        if (offer instanceof ChunkAssembler.Incomplete incomplete) {
            if (slice.getChunk() == 0) {
                firstSlices.put(key, slice);
            }
            return new Pending(incomplete.received(), incomplete.chunks());
        }
        if (offer instanceof ChunkAssembler.Refused refused) {
            firstSlices.remove(key);
            return new Refused("model of job " + job + " version " + version + ", chunk " + slice.getChunk() + " of "
                    + slice.getChunks() + ": " + refused.reason());
        }
        byte[] parameters = ((ChunkAssembler.Complete) offer).payload();
        ModelVersion first = slice.getChunk() == 0 ? slice : firstSlices.remove(key);
        ModelVersion whole = ShallowCopy.of(first, ModelVersion::new); // not newBuilder: it copies the slice
        whole.setParameters(ByteBuffer.wrap(parameters));
        whole.setChunk(0);
        whole.setChunks(1);
        return new Whole(whole);
    }

    /** Drops every incomplete version of {@code job} (its model was deleted). */
    void forget(String job) {
        discard(key -> key.job().equals(job));
    }

    /** Versions still missing slices. */
    int incomplete() {
        return slices.incomplete();
    }

    private void discard(Predicate<VersionKey> drop) {
        if (slices.discardIf(drop) > 0) {
            firstSlices.keySet().removeIf(drop);
        }
    }
}
