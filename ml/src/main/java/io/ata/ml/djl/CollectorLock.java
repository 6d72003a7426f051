package io.ata.ml.djl;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The JVM-wide lock around DJL's gradient recording. DJL's PyTorch engine allows one open {@code
 * GradientCollector} per JVM (a static flag; a second one throws), and several agents may run in
 * one JVM (the demo does), so whoever opens a collector holds this lock from before opening it to
 * after closing it. Only the forward and backward pass run under it; preparing inputs and reading
 * gradients stay outside.
 */
public final class CollectorLock {
    private static final ReentrantLock LOCK = new ReentrantLock();

    private CollectorLock() {}

    /** The lock; {@code lock()} it before {@code newGradientCollector()}, unlock after closing. */
    public static ReentrantLock get() {
        return LOCK;
    }
}
