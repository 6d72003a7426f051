package io.ata.trainer;

import io.ata.schemas.OptimizerState;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What an {@link Optimizer} remembers between steps: the number of steps taken and its state
 * vectors (e.g. Adam's first and second moments), each as long as the model and in the model's
 * precision. The trainer publishes it with every model version ({@link #toRecord}) and a
 * restarted trainer reads it back ({@link #restore}), so the next step is the one the crashed
 * trainer would have taken.
 *
 * <p>Record layout: {@code OptimizerState.state} holds the vectors one after another in the order
 * of {@link Optimizer#stateVectors()}, each little-endian in {@code encoding} (the model's
 * precision); {@code step} is the step count and {@code optimizer} the optimizer's
 * {@link Optimizer#describe() text}.
 *
 * <p>Not thread-safe: the trainer thread owns it.
 */
public final class OptimizerMemory {
    private final int dimension;
    private final TensorEncoding precision;
    private final List<FlatTensor> vectors;
    private long step;

    private OptimizerMemory(int dimension, TensorEncoding precision, List<FlatTensor> vectors, long step) {
        this.dimension = dimension;
        this.precision = precision;
        this.vectors = List.copyOf(vectors);
        this.step = step;
    }

    /** No step taken: every state vector of {@code optimizer} zero, in {@code precision}. */
    public static OptimizerMemory fresh(Optimizer optimizer, int dimension, TensorEncoding precision) {
        List<FlatTensor> vectors = new ArrayList<>();
        for (int i = 0; i < optimizer.stateVectors().size(); i++) {
            vectors.add(FlatTensor.zeros(dimension, precision));
        }
        return new OptimizerMemory(dimension, FlatTensor.requireStorable(precision), vectors, 0);
    }

    /**
     * Why {@code state} does not fit what this trainer trains, its version aside (another optimizer
     * text, precision or length, a negative step count), or null if it fits.
     */
    public static String misfit(
            OptimizerState state, Optimizer optimizer, String job, int dimension, TensorEncoding precision) {
        String configured = optimizer.describe();
        if (!configured.equals(state.getOptimizer())) {
            return "the optimizer state of job " + job + " was written by " + state.getOptimizer()
                    + ", but this trainer is configured with " + configured
                    + ": start it with the same optimizer settings, or start a new job";
        }
        if (state.getEncoding() != precision) {
            return "the optimizer state of job " + job + " is " + state.getEncoding() + ", but the model is kept as "
                    + precision;
        }
        if (state.getStep() < 0) {
            return "the optimizer state of job " + job + " has a negative step count " + state.getStep();
        }
        int count = optimizer.stateVectors().size();
        int length = TensorCodec.length(state.getState(), state.getEncoding());
        if (length != (long) count * dimension) {
            return "the optimizer state of job " + job + " holds "
                    + (length < 0 ? "a partial value" : length + " values")
                    + ", but " + configured + " keeps " + count + " vectors " + optimizer.stateVectors() + " of "
                    + dimension + " values";
        }
        return null;
    }

    /**
     * The memory {@code state} holds, checked against what this trainer trains: the optimizer
     * text, the model version, the precision and the length must all match. A stateless optimizer
     * needs nothing: it gets a fresh memory whatever {@code state} is.
     *
     * @param state        the job's latest optimizer state, or null if the topic has none
     * @param modelVersion the version of the model the trainer resumes from
     * @throws IllegalStateException naming the mismatch, if the state is missing or does not fit
     */
    public static OptimizerMemory restore(
            OptimizerState state,
            Optimizer optimizer,
            String job,
            long modelVersion,
            int dimension,
            TensorEncoding precision) {
        if (!optimizer.hasState()) {
            return fresh(optimizer, dimension, precision);
        }
        if (state == null) {
            throw new IllegalStateException("job " + job + " resumes at model version " + modelVersion
                    + " but the optimizer topic holds no state for it; " + optimizer.describe()
                    + " needs its state to continue exactly (if the job was trained with a stateless optimizer,"
                    + " start it again with that one, or start a new job)");
        }
        String misfit = misfit(state, optimizer, job, dimension, precision);
        if (misfit != null) {
            throw new IllegalStateException(misfit);
        }
        if (state.getVersion() != modelVersion) {
            throw new IllegalStateException("the optimizer state of job " + job + " is of model version "
                    + state.getVersion() + ", but the job's latest model version is " + modelVersion
                    + " (both are published in one transaction: these topics do not belong together)");
        }
        int count = optimizer.stateVectors().size();
        int bytesPerVector = dimension * TensorCodec.bytesPerValue(precision);
        ByteBuffer all = state.getState();
        List<FlatTensor> vectors = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ByteBuffer one = all.duplicate();
            one.position(all.position() + i * bytesPerVector);
            one.limit(one.position() + bytesPerVector);
            vectors.add(FlatTensor.decode(one, precision));
        }
        return new OptimizerMemory(dimension, precision, vectors, state.getStep());
    }

    /**
     * This memory as the record published with model version {@code version}: chunk 0 of 1, the
     * whole state (the trainer slices it into records that fit Kafka when it publishes).
     */
    public OptimizerState toRecord(String job, long version, Optimizer optimizer, long timestampMs) {
        int bytesPerVector = dimension * TensorCodec.bytesPerValue(precision);
        ByteBuffer state = ByteBuffer.allocate(Math.multiplyExact(bytesPerVector, vectors.size()));
        for (FlatTensor vector : vectors) {
            state.put(vector.encode());
        }
        state.flip();
        return OptimizerState.newBuilder()
                .setJob(job)
                .setVersion(version)
                .setOptimizer(optimizer.describe())
                .setStep(step)
                .setState(state)
                .setEncoding(precision)
                .setChunk(0)
                .setChunks(1)
                .setTimestampMs(timestampMs)
                .build();
    }

    /** Steps taken. */
    public long step() {
        return step;
    }

    /** Counts one more step; returns the new count. */
    public long advance() {
        return ++step;
    }

    /** State vector {@code i}, in the order of {@link Optimizer#stateVectors()}; updated in place. */
    public FlatTensor vector(int i) {
        return vectors.get(i);
    }

    /** The number of state vectors. */
    public int vectorCount() {
        return vectors.size();
    }

    /** The length of every state vector: the model's. */
    public int dimension() {
        return dimension;
    }

    /** An independent copy. */
    public OptimizerMemory copy() {
        return new OptimizerMemory(
                dimension, precision, vectors.stream().map(FlatTensor::copy).toList(), step);
    }

    /** Same step count and the same values, bit for bit, in every vector. */
    public boolean sameBits(OptimizerMemory other) {
        Objects.requireNonNull(other, "other");
        if (step != other.step || vectors.size() != other.vectors.size()) {
            return false;
        }
        for (int i = 0; i < vectors.size(); i++) {
            if (!vectors.get(i).sameBits(other.vectors.get(i))) {
                return false;
            }
        }
        return true;
    }
}
