package io.ata.core;

import java.util.Arrays;

/**
 * What happened in one round: per worker, the tasks it completed and their summed durations,
 * how many of them were accepted into the batch, and the time it spent on a task cancelled at
 * the end of the round. Filled by whoever ran the round (the simulator's executor, or the live
 * trainer's round-close event) and handed to {@code AllocationPolicy.observe}.
 *
 * <p>Only workers listed in {@link #worker(int)} have non-zero entries; arrays are reused.
 */
public final class RoundOutcome {
    private long round;
    private double roundTime;
    private int[] workers = new int[16];
    private int workerCount;
    private int[] completed;
    private int[] accepted;
    private double[] completedTime;
    private double[] cancelledTime;
    private boolean[] listed;
    /** Individual durations of completed tasks, in order, for policies that keep samples. */
    private int[] durationWorker = new int[64];

    private double[] duration = new double[64];
    /** When each completed result reached the trainer, from the round's start; NaN if unknown. */
    private double[] arrival = new double[64];

    private int durationCount;

    public RoundOutcome(int workers) {
        int capacity = Math.max(4, workers);
        completed = new int[capacity];
        accepted = new int[capacity];
        completedTime = new double[capacity];
        cancelledTime = new double[capacity];
        listed = new boolean[capacity];
    }

    public void reset(long round, int fleetSize) {
        for (int k = 0; k < workerCount; k++) {
            int w = workers[k];
            completed[w] = 0;
            accepted[w] = 0;
            completedTime[w] = 0;
            cancelledTime[w] = 0;
            listed[w] = false;
        }
        workerCount = 0;
        durationCount = 0;
        if (completed.length < fleetSize) {
            int capacity = Math.max(fleetSize, completed.length * 2);
            completed = Arrays.copyOf(completed, capacity);
            accepted = Arrays.copyOf(accepted, capacity);
            completedTime = Arrays.copyOf(completedTime, capacity);
            cancelledTime = Arrays.copyOf(cancelledTime, capacity);
            listed = Arrays.copyOf(listed, capacity);
        }
        this.round = round;
        this.roundTime = 0;
    }

    private void list(int worker) {
        if (!listed[worker]) {
            listed[worker] = true;
            if (workerCount == workers.length) {
                workers = Arrays.copyOf(workers, workerCount * 2);
            }
            workers[workerCount++] = worker;
        }
    }

    /** A task of {@code worker} finished after {@code time}; {@code inBatch} if it was accepted. */
    public void addCompleted(int worker, double time, boolean inBatch) {
        addCompleted(worker, time, inBatch, Double.NaN);
    }

    /**
     * As {@link #addCompleted(int, double, boolean)}, for a result that reached whoever collects
     * the round {@code arrivedAfter} after the round's start (the live trainer knows it; the simulator,
     * which has no transport, does not). Results must be added in the order they arrived.
     */
    public void addCompleted(int worker, double time, boolean inBatch, double arrivedAfter) {
        list(worker);
        completed[worker]++;
        if (inBatch) {
            accepted[worker]++;
        }
        completedTime[worker] += time;
        if (durationCount == duration.length) {
            duration = Arrays.copyOf(duration, durationCount * 2);
            durationWorker = Arrays.copyOf(durationWorker, durationCount * 2);
            arrival = Arrays.copyOf(arrival, durationCount * 2);
        }
        durationWorker[durationCount] = worker;
        arrival[durationCount] = arrivedAfter;
        duration[durationCount++] = time;
    }

    /** A task of {@code worker} was cancelled when the round ended, after running {@code elapsed}. */
    public void addCancelled(int worker, double elapsed) {
        list(worker);
        cancelledTime[worker] += elapsed;
    }

    public void setRoundTime(double roundTime) {
        this.roundTime = roundTime;
    }

    public long round() {
        return round;
    }

    /** Wall time of the round: from its start to the arrival of the last accepted result. */
    public double roundTime() {
        return roundTime;
    }

    public int workerCount() {
        return workerCount;
    }

    public int worker(int k) {
        return workers[k];
    }

    public int completed(int worker) {
        return completed[worker];
    }

    public int accepted(int worker) {
        return accepted[worker];
    }

    public double completedTime(int worker) {
        return completedTime[worker];
    }

    public double cancelledTime(int worker) {
        return cancelledTime[worker];
    }

    /** Worker time spent in the round: every completed task plus the cancelled partial work. */
    public double busyTime() {
        double total = 0;
        for (int k = 0; k < workerCount; k++) {
            int w = workers[k];
            total += completedTime[w] + cancelledTime[w];
        }
        return total;
    }

    /** Completed task durations of this round, in completion order per worker. */
    public int durationCount() {
        return durationCount;
    }

    public int durationWorker(int k) {
        return durationWorker[k];
    }

    public double duration(int k) {
        return duration[k];
    }

    /** When completed task {@code k}'s result arrived, from the round's start; NaN if unknown. */
    public double arrival(int k) {
        return arrival[k];
    }

    /** Folds this round into {@code stats}: every completed duration, and the cancelled time. */
    public void foldInto(WorkerStats stats) {
        for (int k = 0; k < durationCount; k++) {
            stats.record(durationWorker[k], duration[k]);
        }
        for (int k = 0; k < workerCount; k++) {
            int w = workers[k];
            if (cancelledTime[w] > 0) {
                stats.recordCensored(w, cancelledTime[w]);
            }
        }
    }
}
