package io.ata.workeragent;

import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeSchedule;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Emulated heterogeneity: makes each task take a duration drawn from a time model, so a fleet of
 * identical machines behaves like the paper's heterogeneous workers (worker {@code j} of the
 * {@code linear} model takes {@code 29 j + Exp(29 j)} ms per task, and so on).
 *
 * <p>A task is computed, then the agent sleeps for the rest of its drawn duration; if the
 * computation alone took longer, there is no sleep (real slowness is never hidden). Without a
 * distribution tasks run at their natural speed.
 *
 * <p>A task stops early when its {@link Cancellation} says so (the agent's: the round has closed, so
 * under GTA the work in flight is discarded, as the spec has it): a stretch stops waiting, and a
 * {@link Computation} that can stop part-way (a neural network's, between micro-batches) is asked
 * as it goes. The partial time is then reported as a censored observation. Emulation works on top
 * of real computation: a task is stretched from its measured time to its drawn duration.
 *
 * <p>The reported compute time is measured on the monotonic clock ({@code System.nanoTime})
 * around computation and stretch, and nothing else: Kafka transport is outside it. That is the
 * time ATA's statistics learn from.
 *
 * <p>The clock and the sleep are injectable so tests can check exactly what the pacer asks for,
 * without timing assertions.
 */
public final class TaskPacer {

    /** Sleeps for a number of nanoseconds; may return early (the pacer then sleeps again). */
    @FunctionalInterface
    public interface Sleeper {
        void sleepNanos(long nanos) throws InterruptedException;
    }

    /** Tells a task being stretched that it should stop (its round closed). */
    @FunctionalInterface
    public interface Cancellation {
        /**
         * Waits up to {@code nanos} nanoseconds, returning {@code true} as soon as the task should
         * stop, {@code false} when the time is up (it may return early, then the pacer asks again).
         */
        boolean awaitCancelled(long nanos) throws InterruptedException;

        /**
         * Whether the task should stop now, without waiting. An interrupt counts as yes (the agent
         * is being stopped); the interrupt stays set for the caller to see.
         */
        default boolean isCancelled() {
            try {
                return awaitCancelled(0);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return true;
            }
        }
    }

    /** A task's computation, which may stop part-way when asked. */
    @FunctionalInterface
    public interface Computation<T> {
        /**
         * Computes the task, asking {@code stop} as often as it can stop (e.g. between
         * micro-batches).
         *
         * @return the value, or empty if it stopped part-way because {@code stop} said so
         */
        Optional<T> compute(BooleanSupplier stop);
    }

    /**
     * A paced task's value and times.
     *
     * @param value what the computation returned
     * @param computeMs measured milliseconds, computation plus stretch (until cancelled, if it was)
     * @param targetMs the drawn duration in milliseconds, or {@code NaN} at natural speed
     * @param cancelled whether the task stopped before its drawn duration or in the middle of its
     *     computation: {@code computeMs} is then only the time worked, and the value must not be
     *     used (it is {@code null} when the computation itself stopped)
     */
    public record Paced<T>(T value, double computeMs, double targetMs, boolean cancelled) {}

    private static final double NANOS_PER_MS = 1e6;
    private static final long NANOS_PER_MILLI = 1_000_000L;

    private final TimeSchedule schedule; // null: natural speed
    private final double scale;
    private final SplittableRandom rng;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;

    /**
     * @param schedule task time in milliseconds by round, or {@code null} for natural speed
     * @param scale factor applied to every drawn time (e.g. 0.1 runs a model 10 times faster)
     * @param rng the stream durations are drawn from
     * @param nanoClock a monotonic clock in nanoseconds
     * @param sleeper how to wait
     */
    TaskPacer(TimeSchedule schedule, double scale, SplittableRandom rng, LongSupplier nanoClock, Sleeper sleeper) {
        if (!(scale >= 0) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException("time scale must be finite and >= 0, was " + scale);
        }
        this.schedule = schedule;
        this.scale = scale;
        this.rng = Objects.requireNonNull(rng, "rng");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    /** With one distribution for every round; {@code distribution == null}: natural speed. */
    TaskPacer(
            TaskTimeDistribution distribution,
            double scale,
            SplittableRandom rng,
            LongSupplier nanoClock,
            Sleeper sleeper) {
        this(distribution == null ? null : TimeSchedule.constant(distribution), scale, rng, nanoClock, sleeper);
    }

    /** Tasks at their natural speed, measured on {@code System.nanoTime}. */
    public static TaskPacer natural() {
        return new TaskPacer((TimeSchedule) null, 1.0, new SplittableRandom(0), System::nanoTime, TaskPacer::parkNanos);
    }

    /**
     * Tasks stretched to durations drawn from {@code distribution} (milliseconds) times
     * {@code scale}, from a stream seeded with {@code seed}; {@code distribution == null} means
     * natural speed.
     */
    public static TaskPacer emulated(TaskTimeDistribution distribution, double scale, long seed) {
        return emulated(distribution == null ? null : TimeSchedule.constant(distribution), scale, seed);
    }

    /**
     * Tasks stretched to durations drawn from the distribution {@code schedule} gives each task's
     * round (milliseconds) times {@code scale}; {@code schedule == null} means natural speed. The
     * simulator's fleets change the same way ({@code changes: [{after_round, time}]}), so a live run
     * can be replayed offline. Joins and leaves of a schedule are the agent's to act out (start and
     * stop it), not the pacer's.
     */
    public static TaskPacer emulated(TimeSchedule schedule, double scale, long seed) {
        return new TaskPacer(schedule, scale, new SplittableRandom(seed), System::nanoTime, TaskPacer::parkNanos);
    }

    /**
     * Sleeps {@code nanos} to within the scheduler's precision: Java 17's {@code Thread.sleep(ms, ns)}
     * sleeps whole milliseconds, rounding up, which made an emulated task half a millisecond slower
     * than its drawn duration on average. May return early; the pacer then sleeps again.
     */
    private static void parkNanos(long nanos) throws InterruptedException {
        LockSupport.parkNanos(nanos);
        if (Thread.interrupted()) {
            throw new InterruptedException("interrupted while stretching a task");
        }
    }

    /** Whether tasks are stretched to drawn durations. */
    public boolean isEmulated() {
        return schedule != null;
    }

    /**
     * Runs {@code compute}, stretched to the next drawn duration, and measures it.
     *
     * @throws InterruptedException if interrupted while stretching (the agent is being stopped)
     */
    public <T> Paced<T> run(Supplier<T> compute) throws InterruptedException {
        return run(compute, null);
    }

    /**
     * Runs {@code compute}, stretched to the next drawn duration unless {@code cancellation}
     * (may be {@code null}: never) stops the stretch first, and measures it. The computation
     * itself is not stopped: at natural speed such a task always completes.
     *
     * @throws InterruptedException if interrupted while stretching (the agent is being stopped)
     */
    public <T> Paced<T> run(Supplier<T> compute, Cancellation cancellation) throws InterruptedException {
        return run(stop -> Optional.of(compute.get()), cancellation);
    }

    /**
     * Runs {@code compute}, which stops part-way once {@code cancellation} (may be {@code null}:
     * never) says so or the thread is interrupted, then stretches it to the next drawn duration
     * unless {@code cancellation} stops the stretch first, and measures it.
     *
     * @throws InterruptedException if interrupted while computing or stretching (the agent is
     *     being stopped): a task stopped that way is not a cancellation, it did not happen
     */
    public <T> Paced<T> run(Computation<T> compute, Cancellation cancellation) throws InterruptedException {
        return run(compute, cancellation, 1);
    }

    /**
     * As {@link #run(Computation, Cancellation)}, for a task of {@code round}: its duration is
     * drawn from the distribution the schedule gives that round.
     */
    public <T> Paced<T> run(Computation<T> compute, Cancellation cancellation, long round) throws InterruptedException {
        double targetMs = schedule == null ? Double.NaN : schedule.timeIn(round).sample(rng) * scale;
        BooleanSupplier stop =
                () -> Thread.currentThread().isInterrupted() || (cancellation != null && cancellation.isCancelled());
        long start = nanoClock.getAsLong();
        Optional<T> value = compute.compute(stop);
        if (value.isEmpty()) {
            if (Thread.interrupted()) {
                throw new InterruptedException("the task's computation was interrupted");
            }
            return new Paced<>(null, (nanoClock.getAsLong() - start) / NANOS_PER_MS, targetMs, true);
        }
        boolean cancelled = false;
        if (schedule != null) {
            long targetNanos = Math.round(targetMs * NANOS_PER_MS);
            long remaining = targetNanos - (nanoClock.getAsLong() - start);
            while (remaining > 0 && !cancelled) {
                // the cancellation waits whole milliseconds, the sleeper the rest: Java 17 rounds a
                // timed wait's fraction of a millisecond up to a whole one (Object.wait, Thread.sleep)
                long wholeMillis = remaining - remaining % NANOS_PER_MILLI;
                if (cancellation != null && wholeMillis > 0) {
                    cancelled = cancellation.awaitCancelled(wholeMillis);
                } else {
                    sleeper.sleepNanos(remaining);
                }
                remaining = targetNanos - (nanoClock.getAsLong() - start);
                cancelled &= remaining > 0; // a round that closed as the task ended did not stop it
            }
        }
        double computeMs = (nanoClock.getAsLong() - start) / NANOS_PER_MS;
        return new Paced<>(value.get(), computeMs, targetMs, cancelled);
    }

    /** For logs. */
    public String describe() {
        if (schedule == null) {
            return "natural speed";
        }
        return schedule.describe() + (scale == 1.0 ? "" : " x " + scale) + " ms";
    }
}
