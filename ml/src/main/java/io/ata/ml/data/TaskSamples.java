package io.ata.ml.data;

import io.ata.workloads.TaskIds;
import io.ata.workloads.TaskSeed;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Which samples of a data set a task uses: a deterministic function of the deployment seed, the
 * task (job, round, index) and the data set size, so a re-run of the task, on any agent, uses the
 * same samples, and anyone can recompute them.
 *
 * <p>The rule, for a data set of {@code n} samples and a task of {@code m <= n} samples:
 *
 * <ol>
 *   <li>The task id is {@code job + "/" + round + "/" + index} (e.g. {@code fmnist/3/7}), as
 *       {@link TaskIds} spells every task id.
 *   <li>{@code h = TaskSeed.of(seed, taskId)}: FNV-1a 64 over the id's UTF-8 bytes (offset {@code
 *       0xcbf29ce484222325}, prime {@code 0x100000001b3}), then {@code mix(fnv ^ mix(seed))} with
 *       {@code mix(z)}: {@code z = (z ^ z>>>30) * 0xbf58476d1ce4e5b9; z = (z ^ z>>>27) *
 *       0x94d049bb133111eb; z ^ z>>>31} (64-bit wrap-around).
 *   <li>{@code r = new java.util.SplittableRandom(h)}. Its {@code nextInt(bound)}: the state
 *       advances by {@code 0x9e3779b97f4a7c15}; {@code x = int(mix32(state))} with {@code
 *       mix32(z)}: {@code z = (z ^ z>>>33) * 0x62a9d9ed799705f5; (int) (((z ^ z>>>28) *
 *       0xcb24d0a5c88c35b3) >>> 32)}; if {@code bound} is a power of two, {@code x & (bound-1)};
 *       else {@code u = x>>>1}, {@code v = u % bound}, drawing a fresh {@code u = next x >>> 1}
 *       while {@code u + bound - 1 - v} overflows a signed 32-bit int.
 *   <li>Partial Fisher–Yates shuffle of {@code a = [0, 1, ..., n-1]}: for {@code i = 0 .. m-1},
 *       {@code j = i + r.nextInt(n - i)}, swap {@code a[i]} and {@code a[j]}. The samples are
 *       {@code a[0], ..., a[m-1]}, in that order (distinct).
 * </ol>
 *
 * A reference implementation in Python is {@code ml/src/test/python/reference_rules.py}.
 */
public final class TaskSamples {

    private TaskSamples() {}

    /** The {@code count} sample indices of task {@code (job, round, taskIndex)}. */
    public static int[] of(long seed, String job, long round, int taskIndex, int datasetSize, int count) {
        return ofTask(seed, TaskIds.of(job, round, taskIndex), datasetSize, count);
    }

    /** The {@code count} sample indices of the task with id {@code taskId} ({@code job/round/index}). */
    public static int[] ofTask(long seed, String taskId, int datasetSize, int count) {
        if (count < 0 || count > datasetSize) {
            throw new IllegalArgumentException(
                    "a task of " + count + " samples does not fit a data set of " + datasetSize);
        }
        SplittableRandom random = new SplittableRandom(TaskSeed.of(seed, taskId));
        // the shuffle touches only m positions: keep the displaced values in a map, not an n-array
        Map<Integer, Integer> displaced = new HashMap<>();
        int[] samples = new int[count];
        for (int i = 0; i < count; i++) {
            int j = i + random.nextInt(datasetSize - i);
            int atI = displaced.getOrDefault(i, i);
            samples[i] = displaced.getOrDefault(j, j);
            displaced.put(j, atI); // position i is never read again
        }
        return samples;
    }
}
