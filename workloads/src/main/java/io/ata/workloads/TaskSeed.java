package io.ata.workloads;

import java.nio.charset.StandardCharsets;

/**
 * The seed of one task's random stream, from the deployment's base seed and the task id.
 *
 * <p>Why from the task id: a task may run twice (its agent crashed before committing, and the
 * partition's next owner re-runs the assignment). Seeding from the id makes both runs draw the
 * same numbers, on any agent, in any order, so the duplicate is identical to the original.
 *
 * <p>The hash is spelled out here (FNV-1a over the UTF-8 bytes, then a 64-bit finalizer) rather
 * than {@code String.hashCode()}, so it is 64 bits wide and stable across JVMs and releases.
 */
public final class TaskSeed {

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private TaskSeed() {}

    /** The seed of task {@code taskId} under base seed {@code seed}. */
    public static long of(long seed, String taskId) {
        long h = FNV_OFFSET;
        for (byte b : taskId.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= FNV_PRIME;
        }
        return mix(h ^ mix(seed));
    }

    /** Stafford's variant 13 of the MurmurHash3 finalizer: spreads every input bit. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
