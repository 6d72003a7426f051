package io.ata.ml.djl;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.training.ParameterStore;
import ai.djl.training.loss.Loss;
import io.ata.ml.data.Dataset;
import java.util.stream.IntStream;

/**
 * Test loss and accuracy of a {@link DjlNetwork}'s current parameters on a data set: forward
 * passes only, in batches of at most {@code batchSize}, each batch's arrays freed at its end. The
 * loss is the mean softmax cross-entropy, the accuracy the fraction of samples whose largest logit
 * is their label. Needs no gradient collector, so it does not take the {@link CollectorLock}. One
 * thread at a time per instance.
 */
public final class Evaluator {
    private final Loss loss = Loss.softmaxCrossEntropyLoss();
    private final DjlNetwork network;
    private final int batchSize;

    public Evaluator(DjlNetwork network, int batchSize) {
        this.network = network;
        this.batchSize = SampleBatch.requireSize(batchSize, "batch size");
    }

    /** Evaluates on every sample of {@code data}. */
    public Evaluation evaluate(Dataset data) {
        return evaluate(data, IntStream.range(0, data.size()).toArray());
    }

    /** Evaluates on the samples {@code indices} of {@code data}. */
    public Evaluation evaluate(Dataset data, int[] indices) {
        network.spec().requireFits(data);
        double lossSum = 0;
        long correct = 0;
        for (int start = 0; start < indices.length; start += batchSize) {
            int n = Math.min(batchSize, indices.length - start);
            SampleBatch samples = SampleBatch.copy(data, indices, start, n);
            long[] labels = samples.labels();
            try (NDManager batch = network.manager().newSubManager()) {
                NDArray input = samples.input(batch, network);
                NDArray label = samples.label(batch);
                NDArray logits = network.block()
                        .forward(new ParameterStore(batch, false), new NDList(input), false)
                        .singletonOrThrow();
                lossSum += n
                        * (double) loss.evaluate(new NDList(label), new NDList(logits))
                                .getFloat();
                long[] predicted = logits.argMax(1).toLongArray();
                for (int k = 0; k < n; k++) {
                    correct += predicted[k] == labels[k] ? 1 : 0;
                }
            }
        }
        int n = indices.length;
        return new Evaluation(n == 0 ? 0 : lossSum / n, n == 0 ? 0 : (double) correct / n, n);
    }
}
