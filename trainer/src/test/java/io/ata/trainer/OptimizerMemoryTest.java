package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.OptimizerState;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

/** The optimizer's memory as a record and back: the layout, and every way a state may not fit. */
class OptimizerMemoryTest {
    private static final String JOB = "j";
    private static final int DIM = 5;
    private final AdamOptimizer adam = new AdamOptimizer(1e-3);

    /** Adam's memory after a few steps on random float32 gradients. */
    private OptimizerMemory stepped(TensorEncoding precision, int steps) {
        OptimizerMemory memory = OptimizerMemory.fresh(adam, DIM, precision);
        FlatTensor x = FlatTensor.zeros(DIM, precision);
        SplittableRandom random = new SplittableRandom(steps);
        for (int s = 0; s < steps; s++) {
            adam.step(x, random.doubles(DIM, -1, 1).toArray(), memory);
        }
        return memory;
    }

    @Test
    void theRecordHoldsTheStepAndTheVectorsOneAfterAnotherInTheModelsPrecision() {
        OptimizerMemory memory = stepped(TensorEncoding.FLOAT32_LE, 3);
        OptimizerState record = memory.toRecord(JOB, 3, adam, 77);
        assertEquals(JOB, record.getJob());
        assertEquals(3, record.getVersion());
        assertEquals(3, record.getStep());
        assertEquals(adam.describe(), record.getOptimizer());
        assertEquals(TensorEncoding.FLOAT32_LE, record.getEncoding());
        assertEquals(0, record.getChunk());
        assertEquals(1, record.getChunks());
        assertEquals(77, record.getTimestampMs());
        double[] all = TensorCodec.decode(record.getState(), record.getEncoding());
        assertEquals(2 * DIM, all.length);
        for (int i = 0; i < DIM; i++) {
            assertEquals(memory.vector(0).get(i), all[i], 0, "m first");
            assertEquals(memory.vector(1).get(i), all[DIM + i], 0, "then v");
        }
    }

    /** Through Avro bytes and back: the same step and bits, in float32 and in float64. */
    @Test
    void restoringTheRecordGivesTheSameBits() {
        Serde<OptimizerState> serde = new Topics().optimizer().valueSerde(new EmbeddedSchemaRegistry());
        for (TensorEncoding precision : new TensorEncoding[] {TensorEncoding.FLOAT32_LE, TensorEncoding.FLOAT64_LE}) {
            OptimizerMemory memory = stepped(precision, 4);
            byte[] bytes = serde.serializer().serialize("t", memory.toRecord(JOB, 9, adam, 1));
            OptimizerState read = serde.deserializer().deserialize("t", bytes);
            OptimizerMemory restored = OptimizerMemory.restore(read, adam, JOB, 9, DIM, precision);
            assertTrue(restored.sameBits(memory), precision.toString());
            assertEquals(4, restored.step());
        }
    }

    @Test
    void aMissingOrMismatchedStateIsAClearError() {
        OptimizerState state = stepped(TensorEncoding.FLOAT32_LE, 2).toRecord(JOB, 2, adam, 1);
        TensorEncoding f32 = TensorEncoding.FLOAT32_LE;

        assertMessage("holds no state", () -> OptimizerMemory.restore(null, adam, JOB, 2, DIM, f32));
        assertMessage("adam(lr=0.002", () -> OptimizerMemory.restore(state, new AdamOptimizer(2e-3), JOB, 2, DIM, f32));
        assertMessage("latest model version is 3", () -> OptimizerMemory.restore(state, adam, JOB, 3, DIM, f32));
        assertMessage(
                "model is kept as FLOAT64_LE",
                () -> OptimizerMemory.restore(state, adam, JOB, 2, DIM, TensorEncoding.FLOAT64_LE));
        assertMessage("2 vectors [m, v] of 6 values", () -> OptimizerMemory.restore(state, adam, JOB, 2, DIM + 1, f32));
        OptimizerState truncated = OptimizerState.newBuilder(state)
                .setState(ByteBuffer.wrap(new byte[2 * DIM * 4 - 1]))
                .build();
        assertMessage("a partial value", () -> OptimizerMemory.restore(truncated, adam, JOB, 2, DIM, f32));
    }

    /** Plain SGD remembers nothing: whatever the topic holds, it starts afresh. */
    @Test
    void aStatelessOptimizerNeedsNoState() {
        SgdOptimizer sgd = new SgdOptimizer(0.1);
        OptimizerMemory memory = OptimizerMemory.restore(null, sgd, JOB, 7, DIM, TensorEncoding.FLOAT64_LE);
        assertEquals(0, memory.vectorCount());
        SgdOptimizer momentum = new SgdOptimizer(0.1, 0.5, 0);
        assertMessage(
                "sgd(lr=0.1,momentum=0.5,wd=0) needs its state",
                () -> OptimizerMemory.restore(null, momentum, JOB, 7, DIM, TensorEncoding.FLOAT64_LE));
        OptimizerMemory fresh = OptimizerMemory.fresh(momentum, DIM, TensorEncoding.FLOAT64_LE);
        assertArrayEquals(new double[DIM], fresh.vector(0).toDoubles(), 0);
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalStateException e = assertThrows(IllegalStateException.class, call);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
