package io.ata.sim;

import io.ata.timemodel.TaskTimeDistribution;
import java.util.SplittableRandom;

/** Durations drawn from per-worker time models, each worker with its own seeded random stream. */
public final class ModelDurations implements DurationSource {
    private final TaskTimeDistribution[] distributions;
    private final SplittableRandom[] streams;

    public ModelDurations(TaskTimeDistribution[] distributions, long seed) {
        this.distributions = distributions.clone();
        this.streams = new SplittableRandom[distributions.length];
        SplittableRandom master = new SplittableRandom(seed);
        for (int i = 0; i < streams.length; i++) {
            streams[i] = master.split();
        }
    }

    @Override
    public double next(int worker) {
        return distributions[worker].sample(streams[worker]);
    }
}
