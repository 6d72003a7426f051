package io.ata.bench;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.workeragent.ComputeDevice;
import io.ata.workeragent.TaskOutput;
import io.ata.workeragent.Workload;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * Honest outliers: the real workload, whose gradient is scaled by {@code factor} for a fixed subset
 * of task ids (those whose id hashes to 0 modulo {@code every}). A task's samples are a function of
 * its id, so an outlier is the task's own: every run and every backup copy of it computes the same
 * big gradient, and a trainer that refused it, rather than clip it, could never close its round.
 */
public final class OutlierWorkload implements Workload {
    /** How much an outlier task's gradient is scaled: well past the trainer's default norm bound (10 x the median). */
    public static final double DEFAULT_FACTOR = 30;
    /** One task id in this many (by hash) is an outlier. */
    public static final int DEFAULT_EVERY = 40;

    private final Workload real;
    private final double factor;
    private final int every;
    private final AtomicLong outliers = new AtomicLong();

    public OutlierWorkload(Workload real, double factor, int every) {
        this.real = Objects.requireNonNull(real, "real");
        if (!(factor > 0) || every < 1) {
            throw new IllegalArgumentException("need factor > 0 and every >= 1, got " + factor + ", " + every);
        }
        this.factor = factor;
        this.every = every;
    }

    /** Whether task {@code taskId} is one of the outliers: the same answer on every agent. */
    public static boolean isOutlier(String taskId, int every) {
        return Math.floorMod(taskId.hashCode(), every) == 0;
    }

    @Override
    public Optional<TaskOutput> compute(ModelVersion model, String taskId, long seed, BooleanSupplier stop) {
        Optional<TaskOutput> out = real.compute(model, taskId, seed, stop);
        if (out.isEmpty() || !isOutlier(taskId, every)) {
            return out;
        }
        TaskOutput o = out.get();
        double[] gradient = TensorCodec.decode(ByteBuffer.wrap(o.gradient()), o.encoding());
        for (int i = 0; i < gradient.length; i++) {
            gradient[i] *= factor;
        }
        outliers.incrementAndGet();
        return Optional.of(
                new TaskOutput(TensorCodec.encode(gradient, o.encoding()), o.encoding(), o.loss(), o.samples()));
    }

    @Override
    public void prepare(ModelVersion model) {
        real.prepare(model);
    }

    /** Outlier gradients computed so far, by every agent that shares this workload. */
    public long outliers() {
        return outliers.get();
    }

    @Override
    public String describe() {
        return real.describe() + " with outliers x" + factor + " (1 task id in " + every + ")";
    }

    @Override
    public ComputeDevice device() {
        return real.device();
    }

    @Override
    public void close() {
        real.close();
    }
}
