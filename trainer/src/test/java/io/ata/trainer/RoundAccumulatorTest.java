package io.ata.trainer;

import static io.ata.trainer.OfferOutcome.ACCEPTED;
import static io.ata.trainer.OfferOutcome.CANCELLED;
import static io.ata.trainer.OfferOutcome.DUPLICATE;
import static io.ata.trainer.OfferOutcome.INVALID;
import static io.ata.trainer.OfferOutcome.LATE;
import static io.ata.trainer.OfferOutcome.STALE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.Records;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RoundAccumulatorTest {
    private static final String JOB = "job";
    private static final int DIM = 3;
    private static final long ROUND = 3;

    private final TestClock clock = new TestClock(10_000);

    private RoundAccumulator round(int batch) {
        return new RoundAccumulator(JOB, ROUND, batch, DIM, clock.millis(), clock);
    }

    /** A round of mean aggregation that clips with {@code bound}, the previous round's median norm given. */
    private RoundAccumulator round(int batch, NormBound bound, double previousMedianNorm) {
        return new RoundAccumulator(
                JOB, ROUND, batch, DIM, clock.millis(), clock, MeanAggregator.INSTANCE, bound, previousMedianNorm);
    }

    private static TaskResult result(int index, String worker, double... gradient) {
        return Results.of(JOB, ROUND, index, worker, gradient, 5.0);
    }

    @Test
    void acceptsExactlyBDistinctResultsThenLate() {
        RoundAccumulator acc = round(3);
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 1, 1, 1)));
        assertEquals(ACCEPTED, acc.offer(result(1, "w2", 1, 1, 1)));
        assertFalse(acc.isComplete());
        assertEquals(ACCEPTED, acc.offer(result(7, "w1", 1, 1, 1)));
        assertTrue(acc.isComplete());
        assertEquals(LATE, acc.offer(result(2, "w3", 1, 1, 1)));
        assertEquals(LATE, acc.offer(result(3, "w3", 1, 1, 1)));
        assertEquals(3, acc.accepted());
        assertEquals(2, acc.count(LATE));
        assertTrue(acc.isComplete());
    }

    @Test
    void duplicateOfAnAcceptedOrLateTaskIdIsDropped() {
        RoundAccumulator acc = round(2);
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 1, 2, 3)));
        // the new owner of a partition re-ran task 0 after a rebalance
        assertEquals(DUPLICATE, acc.offer(result(0, "w2", 100, 100, 100)));
        assertFalse(acc.isComplete(), "a duplicate does not count towards B");
        assertEquals(ACCEPTED, acc.offer(result(1, "w1", 3, 2, 1)));
        assertEquals(LATE, acc.offer(result(2, "w2", 0, 0, 0)));
        assertEquals(DUPLICATE, acc.offer(result(2, "w3", 0, 0, 0)), "already seen late");
        assertEquals(2, acc.count(DUPLICATE));
        assertArrayEquals(new double[] {2, 2, 2}, acc.aggregatedGradient(), 0, "the duplicate's gradient is not used");
    }

    @Test
    void resultsOfAnEarlierRoundOrModelVersionAreStale() {
        RoundAccumulator acc = round(2);
        assertEquals(STALE, acc.offer(Results.of(JOB, ROUND - 1, 0, "w1", new double[DIM], 1)));
        TaskResult wrongVersion = Records.result(JOB, ROUND, ROUND - 2, JOB + "/3/0", "w1", new double[DIM], 1)
                .build();
        assertEquals(STALE, acc.offer(wrongVersion));
        // the shape of another round's gradient is not judged: a wrong length is just stale
        assertEquals(STALE, acc.offer(Results.of(JOB, ROUND - 1, 0, "w1", new double[] {1, 2, 3}, 1)));
        assertEquals(3, acc.count(STALE));
        // but a non-finite value is refused however late, with the index of the first one
        assertEquals(INVALID, acc.offer(Results.of(JOB, ROUND - 1, 0, "w1", new double[] {0, Double.NaN}, 1)));
        assertEquals("gradient value 1 is not finite", acc.lastRefusal().orElseThrow());
        assertEquals(
                INVALID, acc.offer(Results.of(JOB, ROUND - 1, 0, "w1", new double[] {Double.NEGATIVE_INFINITY}, 1)));
        assertEquals(0, acc.accepted());
        assertTrue(acc.timings().isEmpty(), "stale results are not timings of this round");
        // stale results do not mark task ids as seen
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 0, 0, 0)));
    }

    @Test
    void invalidResultsAreRejectedWithAReason() {
        RoundAccumulator acc = round(2);
        List<TaskResult> invalid = new ArrayList<>(List.of(
                result(0, "w1", 1, 2), // wrong length
                result(0, "w1", 1, Double.NaN, 3),
                result(0, "w1", 1, Double.POSITIVE_INFINITY, 3),
                Records.result(JOB, ROUND, ROUND - 1, "job/3/0", "w1", new double[DIM], 1)
                        .setGradient(ByteBuffer.wrap(new byte[DIM * 8 - 1]))
                        .build())); // partial value
        // task ids that are not this round's job/<round>/<index>
        for (String taskId :
                List.of("job/2/0", "other/3/0", "job/3/", "job/3/x", "job/3/-1", "job/3/01", "job/3/0/1")) {
            invalid.add(Records.result(JOB, ROUND, ROUND - 1, taskId, "w1", new double[DIM], 1)
                    .build());
        }
        invalid.addAll(List.of(
                Records.result(JOB, ROUND, ROUND - 1, "job/3/0", "w1", new double[DIM], -1)
                        .build(),
                Records.result(JOB, ROUND, ROUND - 1, "job/3/0", "w1", new double[DIM], Double.NaN)
                        .build(),
                Records.result(JOB, ROUND, ROUND - 1, "job/3/0", " ", new double[DIM], 1)
                        .build(),
                Records.result("other", ROUND, ROUND - 1, "other/3/0", "w1", new double[DIM], 1)
                        .build(),
                Records.result(JOB, 0, -1, "job/0/0", "w1", new double[DIM], 1).build()));
        for (TaskResult r : invalid) {
            assertTrue(acc.invalidReason(r).isPresent(), () -> "expected a reason for " + r);
            assertEquals(INVALID, acc.offer(r), () -> "expected INVALID for " + r);
        }
        assertEquals(invalid.size(), acc.count(INVALID));
        assertTrue(acc.timings().isEmpty(), "invalid results are not timings");
        assertTrue(acc.invalidReason(result(0, "w1", 1, 2, 3)).isEmpty());
        // an invalid result does not mark its task id as seen: the valid one still counts
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 1, 2, 3)));
        assertTrue(acc.invalidReason(result(0, "w1", 1, 2)).orElseThrow().contains("2 values"));
    }

    @Test
    void aggregatedGradientOfTheAcceptedResults() {
        RoundAccumulator acc = round(2);
        assertThrows(IllegalStateException.class, acc::aggregatedGradient);
        acc.offer(result(0, "w1", 1, 2, 3));
        TaskResult float32 = Records.result(JOB, ROUND, ROUND - 1, "job/3/1", "w2", new double[DIM], 1)
                .setGradient(Results.float32(new double[] {3, 4, 5}))
                .setEncoding(TensorEncoding.FLOAT32_LE)
                .build();
        assertEquals(ACCEPTED, acc.offer(float32));
        acc.offer(result(2, "w1", 1000, 1000, 1000)); // late: not in the mean
        assertArrayEquals(new double[] {2, 3, 4}, acc.aggregatedGradient(), 1e-12);
    }

    private static TaskResult encoded(int index, TensorEncoding encoding, double... gradient) {
        return Records.result(JOB, ROUND, ROUND - 1, "job/3/" + index, "w" + index, new double[DIM], 1)
                .setGradient(ByteBuffer.wrap(TensorCodec.encode(gradient, encoding)))
                .setEncoding(encoding)
                .build();
    }

    /** Gradients in every encoding join one mean, each widened exactly and summed in double. */
    @Test
    void gradientsOfEveryEncodingAreAveragedInDouble() {
        RoundAccumulator acc = round(4);
        assertEquals(ACCEPTED, acc.offer(encoded(0, TensorEncoding.FLOAT64_LE, 1, 2, 3.1)));
        assertEquals(ACCEPTED, acc.offer(encoded(1, TensorEncoding.FLOAT32_LE, 3, 4, 5)));
        assertEquals(ACCEPTED, acc.offer(encoded(2, TensorEncoding.FLOAT16_LE, 0.5, -1, 2)));
        assertEquals(ACCEPTED, acc.offer(encoded(3, TensorEncoding.BFLOAT16_LE, 1.5, 2, -4)));
        assertArrayEquals(
                new double[] {(1 + 3 + 0.5 + 1.5) / 4, (2 + 4 - 1 + 2) / 4.0, (3.1 + 5 + 2 - 4) / 4},
                acc.aggregatedGradient(),
                0);
    }

    /** A 16-bit gradient that overflowed (float16 above 65504) or is NaN is INVALID, with the reason. */
    @Test
    void nonFiniteSixteenBitGradientsAreInvalid() {
        RoundAccumulator acc = round(2);
        TaskResult overflow = encoded(0, TensorEncoding.FLOAT16_LE, 1, 70_000, 2);
        assertEquals(INVALID, acc.offer(overflow));
        assertTrue(acc.invalidReason(overflow).orElseThrow().contains("value 1 is Infinity"));
        TaskResult nan = encoded(1, TensorEncoding.BFLOAT16_LE, Double.NaN, 1, 2);
        assertEquals(INVALID, acc.offer(nan));
        TaskResult wrongLength = encoded(2, TensorEncoding.BFLOAT16_LE, 1, 2);
        assertEquals(INVALID, acc.offer(wrongLength));
        assertTrue(acc.invalidReason(wrongLength).orElseThrow().contains("2 values, the model has 3"));
        assertEquals(0, acc.accepted());
    }

    /** The mean of the losses the accepted results reported: the objective a network's version gets. */
    @Test
    void meanReportedLossOfTheAcceptedResults() {
        RoundAccumulator acc = round(2);
        acc.offer(Records.result(JOB, ROUND, ROUND - 1, "job/3/0", "w", new double[DIM], 1)
                .setLoss(2.0)
                .build());
        assertThrows(IllegalStateException.class, acc::meanReportedLoss);
        acc.offer(Records.result(JOB, ROUND, ROUND - 1, "job/3/1", "w", new double[DIM], 1)
                .setLoss(3.0)
                .build());
        acc.offer(Records.result(JOB, ROUND, ROUND - 1, "job/3/2", "w", new double[DIM], 1)
                .setLoss(100.0)
                .build()); // late
        assertEquals(2.5, acc.meanReportedLoss());
    }

    @Test
    void timingsListEveryResultOfTheRoundInArrivalOrder() {
        RoundAccumulator acc = round(2);
        acc.offer(Results.of(JOB, ROUND, 0, "w1", new double[DIM], 10));
        acc.offer(Results.of(JOB, ROUND - 1, 5, "w9", new double[DIM], 99)); // stale: absent
        acc.offer(Results.of(JOB, ROUND, 0, "w2", new double[DIM], 11)); // duplicate: LATE
        acc.offer(Results.of(JOB, ROUND, 1, "w3", new double[] {1}, 12)); // invalid: absent
        acc.offer(Results.of(JOB, ROUND, 1, "w3", new double[DIM], 13));
        acc.offer(Results.of(JOB, ROUND, 2, "w4", new double[DIM], 14)); // late
        List<RoundTiming> timings = acc.timings();
        assertEquals(
                List.of("job/3/0", "job/3/0", "job/3/1", "job/3/2"),
                timings.stream().map(RoundTiming::getTaskId).toList());
        assertEquals(
                List.of("w1", "w2", "w3", "w4"),
                timings.stream().map(RoundTiming::getWorkerId).toList());
        assertEquals(
                List.of(TimingStatus.COMPLETED, TimingStatus.LATE, TimingStatus.COMPLETED, TimingStatus.LATE),
                timings.stream().map(RoundTiming::getStatus).toList());
        assertEquals(
                List.of(10.0, 11.0, 13.0, 14.0),
                timings.stream().map(RoundTiming::getComputeMs).toList());
    }

    @Test
    void eachTimingSaysWhenItsResultArrivedFromTheRoundsOpen() {
        RoundAccumulator acc = round(2);
        clock.advance(40);
        acc.offer(result(0, "w1", 0, 0, 0));
        clock.advance(25);
        acc.offer(cancelled(ROUND - 1, 4, "w9", 7)); // of an earlier round: its arrival does not matter
        clock.advance(5);
        acc.offer(result(1, "w2", 0, 0, 0));
        clock.advance(30);
        acc.offer(result(2, "w1", 0, 0, 0)); // late
        assertEquals(
                List.of(40.0, -1.0, 70.0, 100.0),
                acc.timings().stream().map(RoundTiming::getArrivalMs).toList());
    }

    @Test
    void roundTimeRunsFromTheOpenToTheBthAcceptedResult() {
        RoundAccumulator acc = round(2);
        assertThrows(IllegalStateException.class, acc::roundTimeMs);
        clock.advance(300);
        acc.offer(result(0, "w1", 0, 0, 0));
        clock.advance(200);
        acc.offer(result(0, "w2", 0, 0, 0)); // duplicate: does not complete
        clock.advance(250);
        acc.offer(result(1, "w2", 0, 0, 0));
        clock.advance(1000);
        acc.offer(result(2, "w3", 0, 0, 0)); // late: does not move the round time
        assertEquals(750.0, acc.roundTimeMs());
    }

    @Test
    void countersAddUpToTheResultsOffered() {
        RoundAccumulator acc = round(1, new NormBound(10, 3, 1), Double.NaN);
        acc.offer(result(0, "w1", 0, 0, 0));
        acc.offer(result(0, "w1", 0, 0, 0));
        acc.offer(result(1, "w1", 0, 0, 0));
        acc.offer(Results.of(JOB, 1, 0, "w1", new double[DIM], 1));
        acc.offer(result(2, "w1", 0));
        acc.offer(cancelled(ROUND - 1, 3, "w2", 4));
        int total = 0;
        for (OfferOutcome o : OfferOutcome.values()) {
            assertEquals(1, acc.count(o), o.name());
            total += acc.count(o);
        }
        assertEquals(6, total);
    }

    @Test
    void describesItsRound() {
        RoundAccumulator acc = round(4);
        assertEquals(ROUND, acc.round());
        assertEquals(ROUND - 1, acc.modelVersion());
        assertEquals(4, acc.batch());
        assertEquals(DIM, acc.dimension());
        assertThrows(IllegalArgumentException.class, () -> new RoundAccumulator(JOB, 0, 1, DIM, 0, clock));
        assertThrows(IllegalArgumentException.class, () -> new RoundAccumulator(JOB, 1, 0, DIM, 0, clock));
    }

    /** An agent's notice that it stopped {@code job/round/index} part-way: no gradient, the time worked. */
    private static TaskResult cancelled(long round, int index, String worker, double workedMs) {
        return Records.result(JOB, round, index, worker, new double[0], workedMs)
                .setSamples(0)
                .setStatus(TimingStatus.CANCELLED)
                .build();
    }

    @Test
    void cancellationsOfEarlierRoundsBecomeCancelledTimingsOfThisRoundOncePerTask() {
        RoundAccumulator acc = round(1);
        assertEquals(CANCELLED, acc.offer(cancelled(ROUND - 1, 4, "w2", 17.5)));
        assertEquals(CANCELLED, acc.offer(cancelled(ROUND - 1, 4, "w2", 17.5)), "a repeated notice");
        assertFalse(acc.isComplete(), "a cancellation is not a result");
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 1, 1, 1)));

        List<RoundTiming> timings = acc.timings();
        assertEquals(2, timings.size(), "the repeated notice is kept once");
        assertEquals(TimingStatus.CANCELLED, timings.get(0).getStatus());
        assertEquals("w2", timings.get(0).getWorkerId());
        assertEquals(JOB + "/2/4", timings.get(0).getTaskId());
        assertEquals(17.5, timings.get(0).getComputeMs());
        assertEquals(TimingStatus.COMPLETED, timings.get(1).getStatus());
        assertEquals(2, acc.count(CANCELLED));
        assertArrayEquals(new double[] {1, 1, 1}, acc.aggregatedGradient(), 0);
    }

    @Test
    void aCancellationOfARoundThatHasNotClosedIsInvalid() {
        RoundAccumulator acc = round(1);
        assertEquals(INVALID, acc.offer(cancelled(ROUND, 0, "w1", 3)));
        assertEquals(INVALID, acc.offer(cancelled(ROUND + 1, 0, "w1", 3)));
        assertTrue(acc.invalidReason(cancelled(ROUND, 0, "w1", 3)).orElseThrow().contains("has not closed"));
        assertTrue(acc.timings().isEmpty());
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 1, 1, 1)), "the task id was not marked seen");
    }

    @Test
    void aResultMarkedLateByItsSenderIsInvalid() {
        RoundAccumulator acc = round(1);
        TaskResult odd = TaskResult.newBuilder(result(0, "w1", 1, 1, 1))
                .setStatus(TimingStatus.LATE)
                .build();
        assertEquals(INVALID, acc.offer(odd));
    }

    @Test
    void aRoundOrModelVersionTheTrainerNeverPublishedIsInvalid() {
        RoundAccumulator acc = round(2);
        assertEquals(INVALID, acc.offer(Results.of(JOB, ROUND + 1, 0, "w1", new double[DIM], 1)));
        assertTrue(acc.lastRefusal().orElseThrow().contains("never published"));
        TaskResult aheadVersion = Records.result(JOB, ROUND, 1L << 60, JOB + "/3/0", "w1", new double[DIM], 1)
                .build();
        assertEquals(INVALID, acc.offer(aheadVersion));
        assertEquals(2, acc.count(INVALID));
        assertEquals(0, acc.count(STALE));
    }

    @Test
    void aHugeButFiniteGradientIsClippedToTenTimesTheMedianAndCountsTowardsB() {
        RoundAccumulator acc = round(4);
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 1, 2, 2)));
        assertEquals(ACCEPTED, acc.offer(result(1, "w2", 2, 1, 2)));
        assertEquals(ACCEPTED, acc.offer(result(2, "w3", 2, 2, 1)));
        assertTrue(acc.lastClip().isEmpty());
        assertEquals(ACCEPTED, acc.offer(result(3, "evil", 1e300, -1e300, 1e300)));
        String clip = acc.lastClip().orElseThrow();
        assertTrue(clip.contains("clipped to 30.0") && clip.contains("median"), clip);
        assertTrue(acc.lastRefusal().isEmpty(), "clipped, not refused");
        assertTrue(acc.isComplete(), "a clipped result counts towards B: the round can close");
        // its norm is now 10 x 3 (the median of 3, 3, 3), in its own direction: 30/sqrt(3) each way
        double c = 30 / Math.sqrt(3);
        assertArrayEquals(new double[] {(5 + c) / 4, (5 - c) / 4, (5 + c) / 4}, acc.aggregatedGradient(), 1e-9);
        assertEquals(1, acc.clipped());
        assertEquals(3, acc.medianAcceptedNorm(), 1e-12);
        assertEquals(LATE, acc.offer(result(4, "w1", 2, 2, 1)), "the round is full: the next result is late");
        assertTrue(acc.lastClip().isEmpty());
    }

    @Test
    void theMedianIsOfTheNormsWhateverOrderTheyCameIn() {
        RoundAccumulator acc = round(5);
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 9, 0, 0)));
        assertEquals(ACCEPTED, acc.offer(result(1, "w2", 1, 0, 0)));
        assertEquals(ACCEPTED, acc.offer(result(2, "w3", 4, 0, 0)));
        assertEquals(ACCEPTED, acc.offer(result(3, "w4", 2, 0, 0)));
        assertEquals(0, acc.clipped());
        // norms 9, 1, 4, 2: median (2 + 4) / 2 = 3, so 10 x 3 = 30 is the limit (in arrival order it was 5)
        assertEquals(3, acc.medianAcceptedNorm(), 1e-12);
        assertEquals(ACCEPTED, acc.offer(result(4, "w5", 45, 0, 0)));
        assertTrue(
                acc.lastClip().orElseThrow().contains("clipped to 30.0"),
                acc.lastClip().orElseThrow());
        assertEquals(4, acc.medianAcceptedNorm(), 1e-12, "1, 2, 4, 9 and the clipped 30");
    }

    @Test
    void anHonestOutlierIsAcceptedEveryTimeItIsComputed() {
        // the same task computed twice (its backup copy) gives the same gradient: both runs are clipped
        // alike, neither is refused, so the round can always close
        for (int run = 0; run < 2; run++) {
            RoundAccumulator acc = round(1, NormBound.DEFAULT, 0.18);
            assertEquals(ACCEPTED, acc.offer(result(0, "w" + run, 2.39, 0, 0)), "13 x the previous median");
            assertTrue(acc.isComplete());
            assertArrayEquals(new double[] {1.8, 0, 0}, acc.aggregatedGradient(), 1e-12);
        }
    }

    @Test
    void beforeTheRoundHasItsOwnMedianThePreviousRoundsIsTheScale() {
        RoundAccumulator acc = round(4, NormBound.DEFAULT, 3.0);
        assertEquals(ACCEPTED, acc.offer(result(0, "evil", 100, 0, 0)));
        assertEquals(1, acc.clipped(), "100 > 10 x 3, the previous median: clipped to 30");
        assertEquals(ACCEPTED, acc.offer(result(1, "w1", 20, 0, 0)));
        assertEquals(1, acc.clipped(), "20 <= 30: as it is");
        RoundAccumulator first = round(4);
        assertEquals(ACCEPTED, first.offer(result(0, "w1", 100, 0, 0)));
        assertEquals(0, first.clipped(), "no scale yet: only the cap applies");
    }

    @Test
    void theAbsoluteCapAppliesFromTheFirstResult() {
        RoundAccumulator acc = round(2, new NormBound(10, 3, 5), Double.NaN);
        assertEquals(ACCEPTED, acc.offer(result(0, "w1", 3, 4, 0.1)));
        assertTrue(acc.lastClip().orElseThrow().contains("cap"));
        assertEquals(ACCEPTED, acc.offer(result(1, "w1", 3, 4, 0)), "a norm of 5 is at the cap");
        assertTrue(acc.lastClip().isEmpty());
        assertEquals(1, acc.clipped());
        double[] mean = acc.aggregatedGradient();
        double n = Math.sqrt(9 + 16 + 0.01);
        assertArrayEquals(new double[] {(3 * 5 / n + 3) / 2, (4 * 5 / n + 4) / 2, (0.1 * 5 / n) / 2}, mean, 1e-12);
    }

    @Test
    void withTheNormRuleOffAHugeFiniteGradientIsAccepted() {
        RoundAccumulator acc = round(4, NormBound.OFF, 1.0);
        acc.offer(result(0, "w1", 1, 1, 1));
        acc.offer(result(1, "w1", 1, 1, 1));
        acc.offer(result(2, "w1", 1, 1, 1));
        assertEquals(ACCEPTED, acc.offer(result(3, "w1", 1e300, 1e300, 1e300)));
    }
}
