package io.ata.trainer;

import io.ata.ml.data.DataSplit;
import io.ata.ml.data.Dataset;
import io.ata.ml.net.NetworkSpec;
import io.ata.ml.net.ParameterShape;
import io.ata.schemas.ParameterDescription;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A neural network trained on a data set, as a {@link Model}: float32 parameters in the flat
 * layout of its {@link NetworkSpec}, version 0 from {@link NetworkSpec#initialParameters(long)}
 * (pure Java, no DJL), and a {@link TaskSpec} on every version so every agent builds the same
 * network and draws the same samples.
 *
 * <p>The objective published with a version is the mean training loss the results of the round
 * that made it reported (mini-batch cross-entropy at the previous version): the whole training
 * set's loss would cost a pass over it every round. The held-out score is the evaluation's
 * ({@link #scorer}: loss and accuracy on the test split, with DJL on a background thread).
 */
public final class NetworkModel implements Model {
    /** Test samples per forward pass when scoring. */
    static final int EVALUATION_BATCH = 500;

    private final NetworkSpec spec;
    private final String dataName;
    private final DataSplit data;
    private final int samplesPerTask;
    private final int microBatch;
    private final long sampleSeed;
    private final TaskSpec taskSpec;

    /**
     * @param spec           the network
     * @param dataName       the data set as {@code --data} names it (published in the TaskSpec)
     * @param data           its training set (the agents') and test set (the evaluation's)
     * @param samplesPerTask m, the samples of one task's mini-batch
     * @param microBatch     samples per forward/backward pass on the agents
     * @param sampleSeed     seed of the initial parameters and of the tasks' samples
     * @throws IllegalArgumentException if the network does not fit the data, or m or the
     *     micro-batch is out of range
     */
    public NetworkModel(
            NetworkSpec spec, String dataName, DataSplit data, int samplesPerTask, int microBatch, long sampleSeed) {
        this.spec = Objects.requireNonNull(spec, "spec");
        this.dataName = Objects.requireNonNull(dataName, "dataName");
        this.data = Objects.requireNonNull(data, "data");
        Dataset train = data.train();
        spec.requireFits(train);
        if (samplesPerTask < 1 || samplesPerTask > train.size()) {
            throw new IllegalArgumentException("samples per task must be between 1 and the " + train.size()
                    + " training samples of " + train.name() + ", was " + samplesPerTask);
        }
        this.samplesPerTask = samplesPerTask;
        this.microBatch = Bounds.atLeast(microBatch, 1, "micro-batch");
        this.sampleSeed = sampleSeed;
        this.taskSpec = taskSpecOf();
    }

    private TaskSpec taskSpecOf() {
        List<ParameterDescription> parameters = new ArrayList<>();
        for (ParameterShape p : spec.layout().parameters()) {
            parameters.add(ParameterDescription.newBuilder()
                    .setName(p.name())
                    .setShape(p.shape())
                    .build());
        }
        return TaskSpec.newBuilder()
                .setNetwork(spec.toString())
                .setParameters(parameters)
                .setDtype(spec.dtype())
                .setDataset(dataName)
                .setDatasetSize(data.train().size())
                .setSamplesPerTask(samplesPerTask)
                .setSampleSeed(sampleSeed)
                .setMicroBatch(microBatch)
                .build();
    }

    public NetworkSpec spec() {
        return spec;
    }

    public DataSplit data() {
        return data;
    }

    @Override
    public String describe() {
        return spec + " on " + dataName;
    }

    @Override
    public int dimension() {
        return spec.parameterCount();
    }

    @Override
    public TensorEncoding precision() {
        return TensorEncoding.FLOAT32_LE;
    }

    /** {@link NetworkSpec#initialParameters(long)} with the sample seed. */
    @Override
    public FlatTensor initialParameters() {
        return FlatTensor.of(spec.initialParameters(sampleSeed));
    }

    /** The loss the round's results reported (see the class comment). */
    @Override
    public double objective(FlatTensor parameters, double reportedLoss) {
        return reportedLoss;
    }

    /** A copy of the task description (Avro records are mutable). */
    @Override
    public Optional<TaskSpec> taskSpec() {
        return Optional.of(TaskSpec.newBuilder(taskSpec).build());
    }

    @Override
    public TestScorer scorer(int threads) {
        return new NetworkScorer(spec, data.test(), dataName, threads, EVALUATION_BATCH);
    }

    @Override
    public String toString() {
        return describe();
    }
}
