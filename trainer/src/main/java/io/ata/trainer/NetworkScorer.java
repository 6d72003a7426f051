package io.ata.trainer;

import ai.djl.Device;
import io.ata.ml.data.Dataset;
import io.ata.ml.djl.DjlNetwork;
import io.ata.ml.djl.DjlRuntime;
import io.ata.ml.djl.Evaluation;
import io.ata.ml.djl.Evaluator;
import io.ata.ml.net.NetworkSpec;

/**
 * Scores versions of a network on its test set with DJL on the CPU: the engine is started (with
 * {@code threads} PyTorch threads, set again on each thread that scores) and the network built on
 * the first score; later versions only overwrite the parameters. Closing frees the network's native memory.
 */
final class NetworkScorer implements TestScorer {
    private final NetworkSpec spec;
    private final Dataset test;
    private final String dataName;
    private final int threads;
    private final int batch;
    private DjlNetwork network;
    private Evaluator evaluator;

    NetworkScorer(NetworkSpec spec, Dataset test, String dataName, int threads, int batch) {
        this.spec = spec;
        this.test = test;
        this.dataName = dataName;
        this.threads = Bounds.atLeast(threads, 1, "evaluation threads");
        this.batch = batch;
    }

    @Override
    public TestScore score(FlatTensor parameters) {
        if (!(parameters instanceof FlatTensor.Float32 floats)) {
            throw new IllegalArgumentException("a network's parameters are float32, got " + parameters.precision());
        }
        DjlRuntime.start(threads); // on every scoring thread: PyTorch's thread count is the calling thread's
        if (network == null) {
            network = DjlNetwork.build(spec, Device.cpu());
            evaluator = new Evaluator(network, batch);
        }
        network.setParameters(floats.floats());
        Evaluation e = evaluator.evaluate(test);
        return new TestScore(e.loss(), e.accuracy(), e.samples(), dataName);
    }

    @Override
    public void close() {
        if (network != null) {
            network.close();
            network = null;
        }
    }
}
