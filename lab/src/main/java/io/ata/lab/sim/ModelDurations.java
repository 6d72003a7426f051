package io.ata.lab.sim;

import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeSchedule;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Durations drawn from per-worker time models, each worker with its own seeded random stream.
 * With {@link TimeSchedule}s the model of each worker follows the round ({@link #startRound}),
 * and a worker's stream is the same whatever its model, so runs stay reproducible per seed.
 */
public final class ModelDurations implements DurationSource {
    private final TimeSchedule[] schedules;
    private final TaskTimeDistribution[] current;
    private final SplittableRandom[] streams;
    private final boolean stationary;

    public ModelDurations(TaskTimeDistribution[] distributions, long seed) {
        this(Arrays.stream(distributions).map(TimeSchedule::constant).toArray(TimeSchedule[]::new), seed);
    }

    public ModelDurations(TimeSchedule[] schedules, long seed) {
        this.schedules = schedules.clone();
        this.current = new TaskTimeDistribution[schedules.length];
        this.streams = new SplittableRandom[schedules.length];
        SplittableRandom master = new SplittableRandom(seed);
        boolean allStationary = true;
        for (int i = 0; i < streams.length; i++) {
            streams[i] = master.split();
            current[i] = schedules[i].initial();
            allStationary &= schedules[i].isStationary();
        }
        this.stationary = allStationary;
    }

    @Override
    public void startRound(long round) {
        if (!stationary) {
            for (int i = 0; i < schedules.length; i++) {
                current[i] = schedules[i].timeIn(round);
            }
        }
    }

    @Override
    public boolean isPresent(int worker, long round) {
        return stationary || schedules[worker].presentIn(round);
    }

    @Override
    public boolean isStationary() {
        return stationary;
    }

    @Override
    public double next(int worker) {
        return current[worker].sample(streams[worker]);
    }
}
