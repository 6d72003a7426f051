package io.ata.workeragent;

import io.ata.platform.kafka.KafkaErrors;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life of an agent's poll loop, which {@link WorkerAgent} and {@link MultiDeviceAgent} share:
 * started once (on a thread of its own, or the caller's), it joins the fleet and polls until a stop
 * is requested ({@link #close}, {@link #kill}) or it fails, then releases everything on its own
 * thread; one closed before it ran releases everything at once. Thread-safe.
 */
final class AgentLifecycle {

    private static final Logger log = LoggerFactory.getLogger(AgentLifecycle.class);

    /** One poll and the handling of what came. */
    @FunctionalInterface
    interface Poll {
        void once() throws InterruptedException;
    }

    private enum State {
        NEW,
        STARTING,
        RUNNING,
        STOPPED
    }

    private final String name;
    private final Runnable joinFleet;
    private final Poll poll;
    private final Runnable shutdown;
    private final Runnable interruptOthers;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private State state = State.NEW; // guarded by this
    private Thread pollThread; // guarded by this
    private volatile boolean stopRequested;
    private volatile boolean killed;
    private volatile boolean ran;
    private volatile Throwable failure;

    /**
     * @param name the agent's name, for threads and log lines
     * @param joinFleet joins the fleet: transactions, heartbeats, the model cache, the group
     * @param poll one poll and the handling of what came
     * @param shutdown releases everything; the last step, once, on the poll thread (or the closing
     *     one, if the loop never ran); it ends with {@link #stopped()}
     * @param interruptOthers interrupts the agent's threads other than the poll thread, if any
     */
    AgentLifecycle(String name, Runnable joinFleet, Poll poll, Runnable shutdown, Runnable interruptOthers) {
        this.name = Objects.requireNonNull(name, "name");
        this.joinFleet = Objects.requireNonNull(joinFleet, "joinFleet");
        this.poll = Objects.requireNonNull(poll, "poll");
        this.shutdown = Objects.requireNonNull(shutdown, "shutdown");
        this.interruptOthers = Objects.requireNonNull(interruptOthers, "interruptOthers");
    }

    /** Runs the loop on a new thread {@code threadName}; returns at once. */
    synchronized void start(String threadName) {
        if (state != State.NEW) {
            throw new IllegalStateException("agent " + name + " was already started");
        }
        state = State.STARTING;
        new Thread(this::run, threadName).start();
    }

    /** Runs the loop on the calling thread until a stop or a failure, then shuts down. */
    void run() {
        synchronized (this) {
            if (state == State.STOPPED) {
                return; // closed before the started thread got here
            }
            if (state == State.RUNNING) {
                throw new IllegalStateException("agent " + name + " is already running");
            }
            state = State.RUNNING;
            pollThread = Thread.currentThread();
            ran = true;
        }
        try {
            if (!stopRequested) {
                joinFleet.run();
            }
            while (!stopRequested) {
                poll.once();
            }
        } catch (InterruptedException e) {
            if (!stopRequested) {
                fail(e);
                log.error("agent {} interrupted", name);
            }
        } catch (Throwable e) {
            if (stopRequested) {
                log.debug("agent {} stopping: {}", name, e.toString());
            } else {
                fail(e);
                log.error("agent {} failed", name, e);
            }
        } finally {
            Thread.interrupted(); // closing must not trip over the interrupt that stopped us
            shutdown.run();
        }
    }

    /**
     * Records {@code e} as why the agent stopped (the first failure only; none once a stop was
     * requested) and requests the stop.
     */
    synchronized void fail(Throwable e) {
        if (failure == null && !stopRequested) {
            failure = e;
        }
        stopRequested = true;
    }

    /**
     * Clean shutdown: waits up to {@code timeout} for the loop to stop and shut down, then
     * interrupts its threads and waits as long again. From the poll thread itself, only requests it.
     */
    void close(Duration timeout) {
        if (stopBeforeStart() || isPollThread()) {
            return;
        }
        if (!awaitStopped(timeout)) {
            log.warn("agent {} did not stop within {}: interrupting it", name, timeout);
            interruptAll();
            awaitStopped(timeout);
        }
    }

    /** A crash: marks it, interrupts the threads and waits for the shutdown. */
    void kill(Duration timeout) {
        killed = true;
        if (stopBeforeStart() || isPollThread()) {
            return;
        }
        interruptAll();
        awaitStopped(timeout);
    }

    /** Waits until the agent has stopped; {@code true} if it has. */
    boolean awaitStopped(Duration timeout) {
        try {
            return stopped.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return stopped.getCount() == 0;
        }
    }

    /** The shutdown is done: the agent is stopped. The last call of the shutdown step. */
    void stopped() {
        synchronized (this) {
            state = State.STOPPED;
            pollThread = null;
        }
        stopped.countDown();
    }

    synchronized boolean isRunning() {
        return state == State.STARTING || state == State.RUNNING;
    }

    boolean stopRequested() {
        return stopRequested;
    }

    boolean killed() {
        return killed;
    }

    Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * Whether the shutdown may say goodbye: the loop ran, it was not a crash, and no other agent
     * has taken its ids (fenced).
     */
    boolean maySayGoodbye() {
        return ran && !killed && (failure == null || !KafkaErrors.isFenced(failure));
    }

    synchronized boolean isPollThread() {
        return pollThread == Thread.currentThread();
    }

    /** Interrupts the poll thread, if the loop runs. */
    synchronized void interruptPollThread() {
        if (pollThread != null && state == State.RUNNING) {
            pollThread.interrupt();
        }
    }

    private void interruptAll() {
        interruptOthers.run();
        interruptPollThread();
    }

    /** Requests a stop; if the agent never ran, shuts it down here and returns true. */
    private boolean stopBeforeStart() {
        synchronized (this) {
            stopRequested = true;
            if (state != State.NEW) {
                return false;
            }
            state = State.STOPPED;
        }
        shutdown.run();
        return true;
    }
}
