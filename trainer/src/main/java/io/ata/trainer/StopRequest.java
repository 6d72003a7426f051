package io.ata.trainer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request to stop the trainer, from any thread: clean ({@link Trainer#close()}) or abrupt
 * ({@link Trainer#kill()}). The trainer thread checks it between records and before it commits;
 * so that it need not wait for a poll to time out first, a request also wakes up the consumer (or
 * other source) the thread may be blocked in.
 */
final class StopRequest {
    // the trainer's log, whichever of its parts writes: one logger to configure
    private static final Logger log = LoggerFactory.getLogger(Trainer.class);

    private volatile boolean stop;
    private volatile boolean kill;
    /** Wakes up what the trainer thread may be blocked in, if anything. */
    private volatile Runnable blocking;

    /** Asks for a stop, abrupt (a kill) or not, and wakes the trainer thread up. */
    void request(boolean abrupt) {
        if (abrupt) {
            kill = true;
        } else {
            stop = true;
        }
        Runnable wakeup = blocking;
        if (wakeup != null) {
            try {
                wakeup.run();
            } catch (RuntimeException e) {
                log.debug("waking up the consumer", e);
            }
        }
    }

    /** Whether a stop of either kind was asked for. */
    boolean stopping() {
        return stop || kill;
    }

    /** Whether a kill was asked for: stop before the next record or commit, commit nothing more. */
    boolean killed() {
        return kill;
    }

    /** How to wake up what the trainer thread polls from now on (null: nothing), for a request to call. */
    void blockingIn(Runnable wakeup) {
        this.blocking = wakeup;
    }
}
