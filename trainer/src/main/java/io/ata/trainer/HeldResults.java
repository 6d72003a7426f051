package io.ata.trainer;

import io.ata.schemas.TaskResult;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Results of the open round whose task the trainer cannot yet tell was assigned to their worker:
 * the watch of the {@code tasks} topic has not read that far yet ({@link RoundAssignments}). They
 * wait here, in arrival order, until it has.
 *
 * <p>Bounded, so that a flood of forged records cannot fill the trainer's memory: at most
 * {@link #MAX_PER_WORKER} records of one worker and {@link #MAX_RECORDS} records or {@link
 * #MAX_BYTES} bytes in all. A record that would break a bound pushes out the oldest one (of its
 * worker, or of all), which the caller dead-letters. Honest records wait only as long as the watch
 * lags, milliseconds; one pushed out is a task the round re-drives.
 *
 * <p>Not thread-safe: the trainer thread owns it.
 */
final class HeldResults {
    static final int MAX_PER_WORKER = 256;
    static final int MAX_RECORDS = 4096;
    static final long MAX_BYTES = 64L << 20;

    /** A result waiting, with its record and when it was read (System.nanoTime). */
    record Held(ConsumerRecord<byte[], byte[]> record, TaskResult result, String worker, long readNanos) {
        long bytes() {
            return record.value() == null ? 0 : record.value().length;
        }
    }

    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private final Map<String, Integer> perWorker = new HashMap<>();
    private long bytes;

    /** Holds {@code h}; returns the records pushed out to stay within the bounds (oldest first). */
    List<Held> hold(Held h) {
        List<Held> out = new ArrayList<>();
        if (perWorker.getOrDefault(h.worker(), 0) >= MAX_PER_WORKER) {
            out.add(removeFirst(x -> x.worker().equals(h.worker())));
        }
        while (!held.isEmpty() && (held.size() >= MAX_RECORDS || bytes + h.bytes() > MAX_BYTES)) {
            out.add(removeFirst(x -> true));
        }
        held.addLast(h);
        perWorker.merge(h.worker(), 1, Integer::sum);
        bytes += h.bytes();
        return out;
    }

    /**
     * Removes and returns, in arrival order, the records {@code decidable} says can be judged now,
     * up to the first that cannot: results are judged in the order they arrived, so which ones are
     * the round's first B does not depend on how quickly the watch read their assignments.
     */
    List<Held> release(Predicate<Held> decidable) {
        List<Held> out = new ArrayList<>();
        while (!held.isEmpty() && decidable.test(held.peekFirst())) {
            Held h = held.removeFirst();
            forget(h);
            out.add(h);
        }
        return out;
    }

    /** Removes and returns every record held, in arrival order. */
    List<Held> releaseAll() {
        return release(h -> true);
    }

    boolean isEmpty() {
        return held.isEmpty();
    }

    int size() {
        return held.size();
    }

    private Held removeFirst(Predicate<Held> which) {
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (which.test(h)) {
                it.remove();
                forget(h);
                return h;
            }
        }
        throw new IllegalStateException("nothing held matches");
    }

    private void forget(Held h) {
        perWorker.computeIfPresent(h.worker(), (w, n) -> n == 1 ? null : n - 1);
        bytes -= h.bytes();
    }
}
