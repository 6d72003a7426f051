package io.ata.allocation;

import java.util.SplittableRandom;

/**
 * ATA's allocation when some scores are zero (or negative), spec section 3. The argmin of
 * {@code max_i a_i s_i} is then not unique; the rule picks among the minimisers:
 * <ol>
 *   <li>unexplored workers first: {@code min(B, |U|)} of them, uniformly at random, one task each;</li>
 *   <li>the remaining {@code B'} tasks are spread evenly over the explored zero-score workers
 *       ({@code floor(B'/m)} each, {@code B' mod m} random ones get one more);</li>
 *   <li>if no explored zero-score worker exists (round 1 with {@code n < B}), the rest is spread
 *       the same way over the unexplored workers.</li>
 * </ol>
 * One case the paper never meets: a worker joins a fleet whose scores are all positive. Step 3
 * would then hand the whole batch to the newcomer in the round it joins; instead the remaining
 * tasks of that round go to the positive-score workers by the exact solver. In later rounds the
 * rule applies as written: while the newcomer's score is zero it is the only zero-score worker
 * and receives the round's tasks (ATA's absolute and the paper's subtractive scores), which the
 * ratio form of ata-auto avoids since its scores are never zero.
 */
public final class ExplorationRule {
    private ExplorationRule() {}

    /**
     * Adds the exploration allocation of {@code tasks} tasks to {@code plan}. The arrays hold
     * worker indices (unexplored, zero-score) and, for the join case, positive scores with their
     * worker indices; their order is shuffled in place.
     */
    public static void allocate(
            RoundPlan plan,
            int tasks,
            SplittableRandom rng,
            int[] unexplored,
            int unexploredCount,
            int[] zeroScore,
            int zeroScoreCount,
            double[] positiveScores,
            int[] positiveWorkers,
            int positiveCount,
            AllocationSolver solver,
            int[] scratch) {
        int picked = Math.min(tasks, unexploredCount);
        partialShuffle(unexplored, unexploredCount, picked, rng);
        for (int k = 0; k < picked; k++) {
            plan.add(unexplored[k], 1);
        }
        int remaining = tasks - picked;
        if (remaining == 0) {
            return;
        }
        if (zeroScoreCount > 0) {
            spreadEvenly(plan, remaining, zeroScore, zeroScoreCount, rng);
        } else if (positiveCount > 0) {
            solver.solve(positiveScores, positiveCount, remaining, scratch);
            for (int k = 0; k < positiveCount; k++) {
                plan.add(positiveWorkers[k], scratch[k]);
            }
        } else if (unexploredCount > 0) {
            spreadEvenly(plan, remaining, unexplored, unexploredCount, rng);
        } else {
            throw new IllegalStateException("no active worker to allocate " + tasks + " tasks to");
        }
    }

    /** Each of the {@code m} workers gets {@code floor(r/m)}; {@code r mod m} random ones one more. */
    public static void spreadEvenly(RoundPlan plan, int tasks, int[] workers, int m, SplittableRandom rng) {
        int each = tasks / m;
        int extra = tasks % m;
        partialShuffle(workers, m, extra, rng);
        for (int k = 0; k < m; k++) {
            plan.add(workers[k], each + (k < extra ? 1 : 0));
        }
    }

    /** Moves a uniform random sample of {@code picks} of {@code items[0..m)} to the front. */
    public static void partialShuffle(int[] items, int m, int picks, SplittableRandom rng) {
        for (int k = 0; k < picks; k++) {
            int j = k + rng.nextInt(m - k);
            int tmp = items[k];
            items[k] = items[j];
            items[j] = tmp;
        }
    }
}
