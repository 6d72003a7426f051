package io.ata.allocation;

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
    /** Time spent on backup copies cancelled because the other copy finished first. */
    private double[] wastedTime;
    /** Tasks of the worker that ran past their deadline and got a backup copy elsewhere. */
    private int[] backedUp;
    /** Of those, how many the backup copy finished first (the worker's own copy lost). */
    private int[] lostToBackup;
    /** The longest the worker had been running its overdue task when one of its backups won. */
    private double[] stuckFor;

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
        wastedTime = new double[capacity];
        backedUp = new int[capacity];
        lostToBackup = new int[capacity];
        stuckFor = new double[capacity];
        listed = new boolean[capacity];
    }

    public void reset(long round, int fleetSize) {
        for (int k = 0; k < workerCount; k++) {
            int w = workers[k];
            completed[w] = 0;
            accepted[w] = 0;
            completedTime[w] = 0;
            cancelledTime[w] = 0;
            wastedTime[w] = 0;
            backedUp[w] = 0;
            lostToBackup[w] = 0;
            stuckFor[w] = 0;
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
            wastedTime = Arrays.copyOf(wastedTime, capacity);
            backedUp = Arrays.copyOf(backedUp, capacity);
            lostToBackup = Arrays.copyOf(lostToBackup, capacity);
            stuckFor = Arrays.copyOf(stuckFor, capacity);
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

    /** A task of {@code worker} ran past its deadline and a backup copy went to another worker. */
    public void addBackedUp(int worker) {
        list(worker);
        backedUp[worker]++;
    }

    /**
     * The backup copy of a task of {@code worker} finished first while {@code worker} was still
     * running the task that went overdue, for {@code stuckFor} since it started: its own copy lost.
     * The backup's result is added with {@link #addCompleted} under the worker that ran it.
     */
    public void addLostToBackup(int worker, double stuckFor) {
        list(worker);
        lostToBackup[worker]++;
        this.stuckFor[worker] = Math.max(this.stuckFor[worker], stuckFor);
    }

    /**
     * A backup copy on {@code worker} was cancelled after {@code elapsed} because the other copy
     * finished first. Worker time spent, but no evidence on this worker's speed (the copy started
     * whenever the worker was free), so it is not folded into the statistics.
     */
    public void addWasted(int worker, double elapsed) {
        list(worker);
        wastedTime[worker] += elapsed;
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

    /** Tasks of {@code worker} that got a backup copy this round. */
    public int backedUp(int worker) {
        return backedUp[worker];
    }

    /** Tasks of {@code worker} whose backup copy finished first this round. */
    public int lostToBackup(int worker) {
        return lostToBackup[worker];
    }

    /** How long {@code worker} had been stuck on its overdue task when a backup of it first won. */
    public double stuckFor(int worker) {
        return stuckFor[worker];
    }

    /** Time {@code worker} spent on backup copies that lost the race. */
    public double wastedTime(int worker) {
        return wastedTime[worker];
    }

    /** Worker time spent in the round: completed tasks, cancelled partial work and lost backup copies. */
    public double busyTime() {
        double total = 0;
        for (int k = 0; k < workerCount; k++) {
            int w = workers[k];
            total += completedTime[w] + cancelledTime[w] + wastedTime[w];
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
