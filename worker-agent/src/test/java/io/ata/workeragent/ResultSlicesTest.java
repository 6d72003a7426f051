package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultSlicesTest {

    private static TaskResult result(byte[] gradient) {
        return TaskResult.newBuilder()
                .setJob("j")
                .setRound(3)
                .setTaskId("j/3/1")
                .setWorkerId("w")
                .setModelVersion(2)
                .setGradient(ByteBuffer.wrap(gradient))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .setLoss(0.5)
                .setSamples(32)
                .setComputeMs(7)
                .setStatus(TimingStatus.COMPLETED)
                .build();
    }

    @Test
    void slicesRepeatEveryOtherFieldAndTogetherHoldTheGradient() {
        byte[] gradient = new byte[25];
        for (int i = 0; i < gradient.length; i++) {
            gradient[i] = (byte) i;
        }
        TaskResult whole = result(gradient);

        List<TaskResult> slices = ResultSlices.of(whole, 10, () -> "w-1");

        assertEquals(3, slices.size());
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        for (int i = 0; i < slices.size(); i++) {
            TaskResult slice = slices.get(i);
            assertEquals(i, slice.getChunk());
            assertEquals(3, slice.getChunks());
            assertEquals("w-1", slice.getPayloadId());
            // every other field as in the whole result
            TaskResult expected = TaskResult.newBuilder(whole)
                    .setGradient(slice.getGradient())
                    .setChunk(i)
                    .setChunks(3)
                    .setPayloadId("w-1")
                    .build();
            assertEquals(expected, slice);
            ByteBuffer part = slice.getGradient().duplicate();
            byte[] bytes = new byte[part.remaining()];
            part.get(bytes);
            joined.writeBytes(bytes);
        }
        assertArrayEquals(gradient, joined.toByteArray());
        // the whole result is left as it was
        assertEquals(0, whole.getChunk());
        assertEquals(1, whole.getChunks());
        assertEquals("", whole.getPayloadId());
        assertEquals(25, whole.getGradient().remaining());
    }

    @Test
    void aGradientThatFitsOneRecordIsTheResultItself() {
        TaskResult whole = result(new byte[10]);
        List<TaskResult> slices = ResultSlices.of(whole, 10, () -> {
            throw new AssertionError("no payload id for one record");
        });
        assertEquals(1, slices.size());
        assertSame(whole, slices.get(0));
    }
}
