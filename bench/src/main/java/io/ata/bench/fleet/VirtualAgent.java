package io.ata.bench.fleet;

import io.ata.schemas.TaskAssignment;
import io.ata.workloads.time.TimeSchedule;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One worker of a {@link VirtualFleet}: a worker id of its own, the task partitions it announces,
 * its task-time schedule and the assignments waiting for it. Its tasks run one after another, as a
 * real agent's: a task "computes" by waiting its drawn duration, and the next assignment starts
 * once the previous one's offset is committed. Touched only on its {@link SharedClient}'s lane
 * thread, except the fields marked volatile (the heartbeats read them).
 */
final class VirtualAgent {

    /**
     * A record of the tasks topic received and not yet done: an assignment and the next of its tasks
     * to run, or a record to dead-letter and why.
     */
    static final class Work {
        final ConsumerRecord<byte[], byte[]> source;
        final TaskAssignment assignment;
        final String refusal;
        /**
         * When it was first parked, waiting for its model version (System.nanoTime()); -1 before.
         * The wait counts from there, as a real agent's: time queued behind other work is not waiting.
         */
        long parkedNanos = -1;

        int nextTask;

        Work(ConsumerRecord<byte[], byte[]> source, TaskAssignment assignment) {
            this.source = source;
            this.assignment = assignment;
            this.refusal = null;
        }

        Work(ConsumerRecord<byte[], byte[]> source, String refusal) {
            this.source = source;
            this.assignment = null;
            this.refusal = refusal;
        }

        /** How long it has waited for its model version, at {@code nowNanos} (zero if never parked). */
        Duration waited(long nowNanos) {
            return parkedNanos < 0 ? Duration.ZERO : Duration.ofNanos(nowNanos - parkedNanos);
        }
    }

    final String workerId;
    /** Task times in ms by round (joins, leaves, changes and hangs included); null: zero-time tasks. */
    final TimeSchedule schedule;

    final SplittableRandom rng;
    final ArrayDeque<Work> queue = new ArrayDeque<>();

    /** The task partitions it announces now, a share of its client's. */
    volatile List<Integer> partitions = List.of();
    /** The group member that reads its partitions (its client's consumer), announced with them. */
    volatile String taskConsumer = "";
    /** Takes part in the fleet now (joined and not yet left). */
    volatile boolean present;
    /** Left for good, as its schedule says. */
    boolean left;

    /** The task running now (its timer set), or null. */
    Work running;

    ScheduledFuture<?> timer;
    long taskStartNanos;
    long taskStartMs;
    /** The last task of an assignment was handed over and its commit is awaited: nothing runs meanwhile. */
    boolean awaitingCommit;

    /** Results published (completed and cancelled), for the accounting. */
    final AtomicLong results = new AtomicLong();

    VirtualAgent(String workerId, TimeSchedule schedule, long seed) {
        this.workerId = workerId;
        this.schedule = schedule;
        this.rng = new SplittableRandom(seed);
        this.present = schedule == null || schedule.joinAfterRound() == 0;
    }

    /** The duration of its next task of {@code round}, in ms: drawn from its schedule, times {@code scale}. */
    double drawMs(long round, double scale) {
        if (schedule == null || scale == 0) {
            return 0;
        }
        return schedule.timeIn(round).sample(rng) * scale;
    }

    /**
     * Puts {@code work} (a parked assignment whose model version came) first in its queue, after
     * the assignment it is in the middle of, if any: as a real agent runs a parked one as soon as
     * its task thread is free.
     */
    void putNext(Work work) {
        Work current = running != null || (!queue.isEmpty() && queue.peek().nextTask > 0) ? queue.poll() : null;
        queue.addFirst(work);
        if (current != null) {
            queue.addFirst(current);
        }
    }

    /** Whether it is idle: nothing running and no commit awaited. */
    boolean idle() {
        return running == null && !awaitingCommit;
    }
}
