package io.ata.workeragent;

import io.ata.schemas.TaskResult;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.chunk.ShallowCopy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A task's result as the records that carry it on the gradients topic: the result itself when its
 * gradient fits one record, else {@link Chunks#count} records that each carry one slice of the
 * gradient bytes and repeat every other field, with {@code chunk}, {@code chunks} and one
 * {@code payload_id} for all of them (so the slices of two runs of the same task never mix). All
 * are published in one transaction, keyed by the job like any result.
 */
public final class ResultSlices {

    private ResultSlices() {}

    /**
     * @param result the whole result (chunk 0 of 1)
     * @param chunkBytes the most gradient bytes one record carries
     * @param payloadIds a new payload id, asked only when the gradient needs several records
     */
    public static List<TaskResult> of(TaskResult result, int chunkBytes, Supplier<String> payloadIds) {
        ByteBuffer gradient = result.getGradient();
        int chunks = Chunks.count(gradient.remaining(), chunkBytes);
        if (chunks == 1) {
            return List.of(result);
        }
        String payloadId = payloadIds.get();
        List<TaskResult> slices = new ArrayList<>(chunks);
        for (int i = 0; i < chunks; i++) {
            TaskResult slice = ShallowCopy.of(result, TaskResult::new);
            // a view: the bytes are copied once, when the slice is encoded
            slice.setGradient(Chunks.slice(gradient, i, chunkBytes));
            slice.setChunk(i);
            slice.setChunks(chunks);
            slice.setPayloadId(payloadId);
            slices.add(slice);
        }
        return slices;
    }
}
