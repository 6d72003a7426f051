package io.ata.ml.djl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import io.ata.ml.data.Dataset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Computes the mean softmax cross-entropy loss of a {@link DjlNetwork}'s current parameters on
 * some samples of a data set, and its gradient with respect to every parameter, as one flat array
 * in the network's layout order. No optimizer step: the parameters are left as they are.
 *
 * <p>The samples go through in micro-batches of at most {@code microBatch} (memory stays bounded
 * whatever the task size). Before each micro-batch the cancellation check is asked; once it says
 * yes the result covers the samples done so far. Otherwise the result is the mean over all
 * samples: each micro-batch's mean gradient weighted by its size, summed in float64 on the device
 * and divided by the sample count (with one micro-batch, exactly PyTorch's batch gradient).
 *
 * <p>Deterministic: the same parameters and samples (in the same order) give a bitwise identical
 * result with one PyTorch thread on the CPU. Leak-free: each micro-batch's arrays live in a
 * sub-manager closed at its end. The forward and backward pass hold the JVM-wide {@link
 * CollectorLock} (DJL allows one gradient collector per JVM); gathering samples and accumulating
 * gradients run outside it, so agents in one JVM overlap those parts. One thread at a time per
 * instance.
 */
public final class GradientComputer {
    private final DjlNetwork network;
    private final int microBatch;
    private final Loss loss = Loss.softmaxCrossEntropyLoss();

    /**
     * @param network the network whose current parameters are differentiated
     * @param microBatch the largest number of samples in one forward/backward pass (e.g. 8 or 16)
     */
    public GradientComputer(DjlNetwork network, int microBatch) {
        if (microBatch < 1) {
            throw new IllegalArgumentException("micro-batch size must be at least 1, got " + microBatch);
        }
        this.network = network;
        this.microBatch = microBatch;
    }

    public int microBatch() {
        return microBatch;
    }

    /**
     * The mean loss and gradient over {@code samples} (indices into {@code data}).
     *
     * @param cancelled asked before each micro-batch; true stops the computation
     * @throws IllegalArgumentException if the data does not fit the network (features or classes)
     */
    public GradientResult compute(Dataset data, int[] samples, BooleanSupplier cancelled) {
        Checks.requireFits(network.spec(), data);
        List<Parameter> parameters = network.parameterList();
        int featureCount = data.featureCount();
        double lossSum = 0;
        int done = 0;
        try (NDManager call = network.manager().newSubManager()) {
            List<NDArray> sums = new ArrayList<>(parameters.size());
            for (Parameter p : parameters) {
                sums.add(call.zeros(p.getArray().getShape(), DataType.FLOAT64));
            }
            while (done < samples.length && !cancelled.getAsBoolean()) {
                int n = Math.min(microBatch, samples.length - done);
                float[] features = new float[n * featureCount];
                long[] labels = new long[n];
                for (int k = 0; k < n; k++) {
                    int index = samples[done + k];
                    data.copyFeatures(index, features, k * featureCount);
                    labels[k] = data.label(index);
                }
                try (NDManager step = call.newSubManager()) {
                    NDArray input = step.create(features, network.batchShape(n));
                    NDArray label = step.create(labels, new Shape(n));
                    StepStore store = new StepStore(step, parameters);
                    lossSum += n * (double) forwardBackward(store, input, label);
                    for (int i = 0; i < parameters.size(); i++) {
                        try (NDArray gradient = store.leaf(parameters.get(i)).getGradient();
                                NDArray wide = gradient.toType(DataType.FLOAT64, false)) {
                            sums.get(i).addi(wide.muli(n));
                        }
                    }
                }
                done += n;
            }
            float[] gradient = new float[network.layout().totalSize()];
            if (done > 0) {
                for (int i = 0; i < sums.size(); i++) {
                    try (NDArray mean = sums.get(i).div(done);
                            NDArray narrow = mean.toType(DataType.FLOAT32, false)) {
                        float[] values = narrow.toFloatArray();
                        System.arraycopy(values, 0, gradient, network.layout().offset(i), values.length);
                    }
                }
            }
            return new GradientResult(gradient, done > 0 ? lossSum / done : 0, done, samples.length);
        }
    }

    /** One forward and backward pass under the collector lock; returns the batch's mean loss. */
    private float forwardBackward(StepStore store, NDArray input, NDArray label) {
        ReentrantLock lock = CollectorLock.get();
        lock.lock();
        try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
            NDArray logits =
                    network.block().forward(store, new NDList(input), true).singletonOrThrow();
            NDArray value = loss.evaluate(new NDList(label), new NDList(logits));
            collector.backward(value);
            return value.getFloat();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Serves per-step copies of the parameters that record gradients. The master arrays never
     * record any, so nothing accumulates between steps and nothing needs zeroing; the copies die
     * with the step's manager. (DJL's own {@code ParameterStore(manager, true)} does not copy on
     * PyTorch when the device matches: its "copy" would alias the master.)
     */
    private static final class StepStore extends ParameterStore {
        private final Map<String, NDArray> leaves = new HashMap<>();

        StepStore(NDManager step, List<Parameter> parameters) {
            super(step, false);
            for (Parameter p : parameters) {
                NDArray leaf = p.getArray().duplicate();
                leaf.attach(step);
                leaf.setRequiresGradient(true);
                leaves.put(p.getId(), leaf);
            }
        }

        NDArray leaf(Parameter parameter) {
            return leaves.get(parameter.getId());
        }

        @Override
        public NDArray getValue(Parameter parameter, Device device, boolean training) {
            if (parameter == null) {
                return null;
            }
            NDArray leaf = leaves.get(parameter.getId());
            if (leaf == null || !leaf.getDevice().equals(device)) {
                throw new IllegalStateException("no step copy of " + parameter.getName() + " on " + device);
            }
            return leaf;
        }
    }
}
