package io.ata.platform;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ThreadsTest {
    private final CountDownLatch release = new CountDownLatch(1);

    @Test
    void returnsOnceTheThreadHasEnded() {
        Thread worker = startWaitingForRelease();
        release.countDown();
        Threads.awaitEnd(worker, Duration.ofMinutes(1));
        assertFalse(worker.isAlive());
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void anInterruptEndsTheWaitAndStaysSet() throws InterruptedException {
        Thread stuck = startWaitingForRelease();
        try {
            Thread.currentThread().interrupt();
            Threads.awaitEnd(stuck, Duration.ofMinutes(1));
            assertTrue(Thread.interrupted(), "the caller's interrupt is kept");
            assertTrue(stuck.isAlive(), "the wait ended before the thread did");
        } finally {
            release.countDown();
            stuck.join();
        }
    }

    /** A thread that runs until {@link #release} is counted down. */
    private Thread startWaitingForRelease() {
        Thread thread = new Thread(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        thread.start();
        return thread;
    }
}
