package io.ata.allocation.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.allocation.RoundOutcome;
import io.ata.allocation.WorkerStats;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The estimator's version 1 encoding, pinned: bytes written before its reader moved to
 * {@link StateReader} (spelled out here, so a change of format cannot pass unnoticed) still load,
 * and states round-trip byte for byte.
 */
class EstimatedRelativeWidthStateTest {
    /**
     * eta 0.7, 300 durations seen, next refresh at 512, samples (worker 0, 1.5), (3, 2.25),
     * (1, 9): big-endian double, long, long, int count, then int worker and double duration each.
     */
    private static final String THREE_SAMPLES = "3fe6666666666666" + "000000000000012c" + "0000000000000200"
            + "00000003" + "00000000" + "3ff8000000000000" + "00000003" + "4002000000000000" + "00000001"
            + "4022000000000000";
    /** A fresh estimator: eta 1, nothing seen, first refresh at 64, no samples. */
    private static final String FRESH = "3ff0000000000000" + "0000000000000000" + "0000000000000040" + "00000000";

    @Test
    void bytesWrittenByTheVersionOneWriterLoad() {
        byte[] bytes = HexFormat.of().parseHex(THREE_SAMPLES);
        EstimatedRelativeWidth.State state = EstimatedRelativeWidth.State.fromBytes(bytes);
        assertEquals(0.7, state.eta());
        assertEquals(300, state.seen());
        assertEquals(512, state.nextRefresh());
        assertArrayEquals(new int[] {0, 3, 1}, state.sampleWorkers());
        assertArrayEquals(new double[] {1.5, 2.25, 9}, state.samples());
        assertArrayEquals(bytes, state.toBytes(), "written back identically");

        EstimatedRelativeWidth.State fresh =
                EstimatedRelativeWidth.State.fromBytes(HexFormat.of().parseHex(FRESH));
        assertEquals(EstimatedRelativeWidth.INITIAL_ETA, fresh.eta());
        assertEquals(0, fresh.seen());
        assertEquals(64, fresh.nextRefresh());
        assertEquals(0, fresh.samples().length);
    }

    @Test
    void theWriterStillWritesThoseBytes() {
        EstimatedRelativeWidth.State state =
                new EstimatedRelativeWidth.State(0.7, 300, 512, new int[] {0, 3, 1}, new double[] {1.5, 2.25, 9});
        assertEquals(THREE_SAMPLES, HexFormat.of().formatHex(state.toBytes()));
        assertEquals(
                FRESH,
                HexFormat.of()
                        .formatHex(new EstimatedRelativeWidth(2, ConfidenceWidth.Form.RATIO, 1)
                                .snapshot()
                                .toBytes()));
    }

    @Test
    void aLearnedStateRoundTripsByteForByteAndRestoresTheSameWidth() {
        int workers = 4;
        WorkerStats stats = new WorkerStats(workers);
        EstimatedRelativeWidth width = new EstimatedRelativeWidth(2, ConfidenceWidth.Form.RATIO, 7);
        SplittableRandom random = new SplittableRandom(3);
        RoundOutcome outcome = new RoundOutcome(workers);
        for (int round = 1; round <= 1200; round++) {
            outcome.reset(round, workers);
            for (int w = 0; w < workers; w++) {
                double t = 10 * (w + 1) * (1 + random.nextExponential());
                stats.record(w, t);
                outcome.addCompleted(w, t, true);
            }
            width.observe(stats, outcome);
        }
        EstimatedRelativeWidth.State state = width.snapshot();
        assertEquals(4800, state.seen(), "past the reservoir's 4096");
        assertEquals(4096, state.samples().length);
        byte[] bytes = state.toBytes();
        EstimatedRelativeWidth.State back = EstimatedRelativeWidth.State.fromBytes(bytes);
        assertArrayEquals(bytes, back.toBytes());

        EstimatedRelativeWidth restored = new EstimatedRelativeWidth(2, ConfidenceWidth.Form.RATIO, 7);
        restored.restore(back);
        assertEquals(width.eta(), restored.eta());
        assertEquals(width.constant(), restored.constant());
    }

    @Test
    void bytesNoEstimatorWritesAreRefusedSayingWhy() {
        byte[] good = HexFormat.of().parseHex(THREE_SAMPLES);
        assertEquals("malformed estimator state: 3 bytes left over", refused(Arrays.copyOf(good, good.length + 3)));
        assertEquals(
                "malformed estimator state: eta is NaN, not a finite number >= 0",
                refused(edit(good, b -> b.putDouble(0, Double.NaN))));
        assertEquals(
                "malformed estimator state: eta is Infinity, not a finite number >= 0",
                refused(edit(good, b -> b.putDouble(0, Double.POSITIVE_INFINITY))));
        assertEquals(
                "malformed estimator state: 2 durations seen for 3 samples", refused(edit(good, b -> b.putLong(8, 2))));
        assertEquals(
                "malformed estimator state: the next refresh is -1, not >= 0",
                refused(edit(good, b -> b.putLong(16, -1))));
        assertEquals(
                "malformed estimator state: -1 samples do not fit in the 36 bytes left",
                refused(edit(good, b -> b.putInt(24, -1))));
        assertEquals(
                "malformed estimator state: sample 1's worker is -4, not in [0, 2147483647]",
                refused(edit(good, b -> b.putInt(28 + 12, -4))));
        assertEquals(
                "malformed estimator state: sample 2's duration is -9.0, not a finite number >= 0",
                refused(edit(good, b -> b.putDouble(28 + 24 + 4, -9))));
    }

    private static String refused(byte[] bytes) {
        return assertThrows(IllegalArgumentException.class, () -> EstimatedRelativeWidth.State.fromBytes(bytes))
                .getMessage();
    }

    private static byte[] edit(byte[] bytes, java.util.function.Consumer<ByteBuffer> change) {
        byte[] copy = bytes.clone();
        change.accept(ByteBuffer.wrap(copy));
        return copy;
    }
}
