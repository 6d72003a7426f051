package io.ata.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class TaskSeedTest {

    /**
     * Expected values computed once, independently of this code, by this Python script (Python's
     * integers do not overflow, hence the explicit 64-bit masks):
     *
     * <pre>
     * M = (1 &lt;&lt; 64) - 1
     * def mix(z):
     *     z = ((z ^ (z &gt;&gt; 30)) * 0xbf58476d1ce4e5b9) &amp; M
     *     z = ((z ^ (z &gt;&gt; 27)) * 0x94d049bb133111eb) &amp; M
     *     return z ^ (z &gt;&gt; 31)
     * def of(seed, task_id):
     *     h = 0xcbf29ce484222325
     *     for b in task_id.encode('utf-8'):
     *         h ^= b
     *         h = (h * 0x100000001b3) &amp; M
     *     return mix(h ^ mix(seed &amp; M))   # printed as a signed 64-bit value
     * </pre>
     *
     * If one of these fails, every task's random stream (and every ML task's samples) has changed.
     */
    @Test
    void matchesTheSpelledOutAlgorithm() {
        assertEquals(-780787492076525413L, TaskSeed.of(0, ""));
        assertEquals(5284200588122786577L, TaskSeed.of(0, "job/0/0"));
        assertEquals(-3499491824426177886L, TaskSeed.of(42, "job/4/0"));
        assertEquals(6894080649735550939L, TaskSeed.of(-1, "exp-7/123/45"));
        assertEquals(-3947782459374125936L, TaskSeed.of(7, "pacer/worker-3"));
        assertEquals(-7578256038324918299L, TaskSeed.of(0, "\u00e9/1/2"));
    }

    @Test
    void seedAndTaskIdBothMatter() {
        assertNotEquals(TaskSeed.of(0, "job/1/0"), TaskSeed.of(0, "job/1/1"));
        assertNotEquals(TaskSeed.of(0, "job/1/0"), TaskSeed.of(1, "job/1/0"));
        assertEquals(TaskSeed.of(3, "job/1/0"), TaskSeed.of(3, "job/1/0"));
    }
}
