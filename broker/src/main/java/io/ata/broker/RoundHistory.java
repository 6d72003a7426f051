package io.ata.broker;

import io.ata.schemas.AllocationEntry;
import io.ata.schemas.RoundEvent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The last rounds of each job this instance hosts, for the live view ({@code /jobs/{job}/history}):
 * how many tasks each worker was given, and once the round closed its round time, the worker time
 * it took (busy) and the part of that whose results were not used (wasted: late and cancelled
 * tasks). At most {@link #capacity()} rounds per job.
 *
 * <p>Kept in memory only, not in the jobs store: it is a window for watching a job, not state the
 * allocation needs, and the rounds topic stays the full record. It starts empty when the instance
 * starts or takes over a job. Thread-safe: the stream threads record, the HTTP queries read.
 */
public final class RoundHistory {
    /** Rounds kept per job when not told otherwise. */
    public static final int DEFAULT_CAPACITY = 50;

    private final int capacity;
    private final Map<String, Deque<Round>> jobs = new HashMap<>();

    public RoundHistory(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be > 0, was " + capacity);
        }
        this.capacity = capacity;
    }

    /**
     * One round of a job. {@code closed} is false while it is open: the times are 0 then.
     *
     * @param tasks tasks allocated per worker (allocation order); empty if the allocation was made
     *              before this instance hosted the job
     */
    public record Round(
            long round,
            Map<String, Integer> tasks,
            boolean closed,
            double roundTimeMs,
            double busyMs,
            double wastedMs) {
        public Round {
            tasks = Map.copyOf(tasks);
        }
    }

    public int capacity() {
        return capacity;
    }

    /** Round {@code round} of {@code job} was allocated {@code allocation}. */
    public synchronized void allocated(String job, long round, List<AllocationEntry> allocation) {
        Map<String, Integer> tasks = new LinkedHashMap<>();
        allocation.forEach(e -> tasks.merge(e.getWorkerId(), e.getTaskIds().size(), Integer::sum));
        Deque<Round> rounds = jobs.computeIfAbsent(job, j -> new ArrayDeque<>());
        rounds.removeIf(r -> r.round() == round);
        append(rounds, new Round(round, tasks, false, 0, 0, 0));
    }

    /** The round of a CLOSED event was folded: its times join its allocation. */
    public synchronized void closed(RoundEvent event) {
        RoundWork work = RoundWork.of(event);
        Deque<Round> rounds = jobs.computeIfAbsent(event.getJob(), j -> new ArrayDeque<>());
        Map<String, Integer> tasks = Map.of();
        for (Round r : rounds) {
            if (r.round() == event.getRound()) {
                tasks = r.tasks();
            }
        }
        rounds.removeIf(r -> r.round() == event.getRound());
        append(
                rounds,
                new Round(event.getRound(), tasks, true, event.getRoundTimeMs(), work.busyMs(), work.wastedMs()));
    }

    private void append(Deque<Round> rounds, Round round) {
        // Rounds arrive in order; a round seen again (re-opened) keeps its place by number.
        List<Round> sorted = new ArrayList<>(rounds);
        sorted.add(round);
        sorted.sort((a, b) -> Long.compare(a.round(), b.round()));
        rounds.clear();
        rounds.addAll(sorted.subList(Math.max(0, sorted.size() - capacity), sorted.size()));
    }

    /** The job's kept rounds, oldest first; empty if none. */
    public synchronized List<Round> recent(String job) {
        Deque<Round> rounds = jobs.get(job);
        return rounds == null ? List.of() : List.copyOf(rounds);
    }

    /** Drops the rounds of jobs this instance no longer hosts. */
    public synchronized void forget(Set<String> gone) {
        jobs.keySet().removeAll(gone);
    }
}
