package io.ata.ml.djl;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.training.GradientCollector;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import io.ata.ml.data.Dataset;
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
 * samples: each micro-batch's mean gradient weighted by its share of the samples, accumulated by
 * PyTorch on the device in float32 (with one micro-batch, exactly PyTorch's batch gradient; with
 * several, equal to it up to float32 rounding, about 1e-7 relative).
 *
 * <p>Deterministic: the same parameters and samples (in the same order) give a bitwise identical
 * result with one PyTorch thread on the CPU. Leak-free: the parameter copies and gradients live
 * in a sub-manager closed at the end of the call, each micro-batch's arrays in one closed at the
 * end of the micro-batch. The forward and backward pass hold the JVM-wide {@link
 * CollectorLock} (DJL allows one gradient collector per JVM); gathering samples, copying the
 * parameters and reading the gradient run outside it, so agents in one JVM overlap those parts. One thread at a time per
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
        this.network = network;
        this.microBatch = SampleBatch.requireSize(microBatch, "micro-batch size");
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
        network.spec().requireFits(data);
        List<Parameter> parameters = network.parameterList();
        int total = samples.length;
        double lossSum = 0;
        int done = 0;
        try (NDManager call = network.manager().newSubManager()) {
            CopyStore store = new CopyStore(call, parameters);
            while (done < total && !cancelled.getAsBoolean()) {
                int n = Math.min(microBatch, total - done);
                SampleBatch batch = SampleBatch.copy(data, samples, done, n);
                try (NDManager step = call.newSubManager()) {
                    NDArray input = batch.input(step, network);
                    NDArray label = batch.label(step);
                    // the batch's share of the samples, an array of the step: see forwardBackward
                    NDArray share = n == total ? null : step.create((float) ((double) n / total));
                    lossSum += n * (double) forwardBackward(store, input, label, share);
                }
                done += n;
            }
            float[] gradient = new float[network.layout().totalSize()];
            if (done > 0) {
                // the copies' gradients hold sum_k (n_k / total) * mean gradient of micro-batch k
                double rescale = (double) total / done; // 1 unless cancelled
                for (int i = 0; i < parameters.size(); i++) {
                    try (NDArray sum = store.copy(parameters.get(i)).getGradient()) {
                        float[] values = sum.toFloatArray();
                        if (done < total) {
                            for (int j = 0; j < values.length; j++) {
                                values[j] = (float) (values[j] * rescale);
                            }
                        }
                        System.arraycopy(values, 0, gradient, network.layout().offset(i), values.length);
                    }
                }
            }
            return new GradientResult(gradient, done > 0 ? lossSum / done : 0, done, total);
        }
    }

    /**
     * One forward and backward pass under the collector lock. The backward pass starts from the
     * batch's mean loss times {@code share} ({@code n / total}; null: the batch is all the
     * samples), so PyTorch's accumulation of gradients on the copies adds up the samples-weighted
     * mean. Returns the batch's mean loss.
     *
     * <p>The share must be an array its caller keeps open until after this call, never DJL's
     * {@code mul(Number)}: that makes a scalar array whose native tensor aliases a Java direct
     * buffer (DJL's PyTorch engine does not copy arrays made from Java values) and closes it
     * before returning. PyTorch's graph keeps the tensor for the backward pass, but nothing in
     * Java keeps the buffer, so a garbage collection between the forward and the backward pass
     * freed it, and the backward pass multiplied the whole gradient by whatever the memory then
     * held (seen live: gradients of 1e33 once in thousands of tasks, which spoilt Adam's moments).
     */
    private float forwardBackward(CopyStore store, NDArray input, NDArray label, NDArray share) {
        ReentrantLock lock = CollectorLock.get();
        lock.lock();
        try (GradientCollector collector = DjlRuntime.engine().newGradientCollector()) {
            NDArray logits =
                    network.block().forward(store, new NDList(input), true).singletonOrThrow();
            NDArray mean = loss.evaluate(new NDList(label), new NDList(logits));
            collector.backward(share == null ? mean : mean.mul(share));
            return mean.getFloat();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Serves copies of the parameters, made once per {@link #compute} call, that record gradients.
     * The master arrays never record any, so nothing carries over between calls and nothing needs
     * zeroing; the copies and their gradients die with the call's manager. (DJL's own {@code
     * ParameterStore(manager, true)} does not copy on PyTorch when the device matches: its "copy"
     * would alias the master.)
     */
    private static final class CopyStore extends ParameterStore {
        private final Map<String, NDArray> copies = new HashMap<>();

        CopyStore(NDManager manager, List<Parameter> parameters) {
            super(manager, false);
            for (Parameter p : parameters) {
                NDArray copy = p.getArray().duplicate();
                copy.attach(manager);
                copy.setRequiresGradient(true);
                copies.put(p.getId(), copy);
            }
        }

        NDArray copy(Parameter parameter) {
            return copies.get(parameter.getId());
        }

        @Override
        public NDArray getValue(Parameter parameter, Device device, boolean training) {
            if (parameter == null) {
                return null;
            }
            NDArray copy = copies.get(parameter.getId());
            if (copy == null || !copy.getDevice().equals(device)) {
                throw new IllegalStateException("no copy of " + parameter.getName() + " on " + device);
            }
            return copy;
        }
    }
}
