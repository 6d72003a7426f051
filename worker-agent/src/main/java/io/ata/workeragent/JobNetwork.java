package io.ata.workeragent;

import ai.djl.Device;
import io.ata.ml.data.Dataset;
import io.ata.ml.djl.DjlNetwork;
import io.ata.ml.djl.GradientComputer;
import io.ata.ml.net.LayoutMismatchException;
import io.ata.ml.net.NetworkSpec;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.tensor.TensorCodec;

/**
 * One job's network on this agent, built from the job's {@link TaskSpec} and checked against it:
 * the DJL network, its gradient computer, the training set, and the model version whose
 * parameters the network holds. Built once per job and kept while the job's TaskSpec stays the
 * same; the parameters are set once per model version, not once per task.
 *
 * <p>Not thread-safe (the agent's task thread uses it). Close it to free the network's native
 * memory.
 */
final class JobNetwork implements AutoCloseable {

    private final String job;
    private final TaskSpec task;
    private final DjlNetwork network;
    private final GradientComputer gradients;
    private final Dataset data;
    private ModelVersion current; // whose parameters the network holds; null: none (yet)

    private JobNetwork(String job, TaskSpec task, DjlNetwork network, Dataset data) {
        this.job = job;
        this.task = task;
        this.network = network;
        this.gradients = new GradientComputer(network, task.getMicroBatch());
        this.data = data;
    }

    /**
     * Checks {@code task} and {@code data} against each other, then builds the network on
     * {@code device} ({@link io.ata.ml.djl.DjlRuntime} started).
     *
     * @throws IllegalArgumentException saying what does not fit: a network that does not parse,
     *     whose parameter layout differs from the TaskSpec's ({@link LayoutMismatchException}),
     *     a data set of another size, a task larger than the data set, a micro-batch below 1
     */
    static JobNetwork build(String job, TaskSpec task, Dataset data, Device device) {
        NetworkSpec spec = check(job, task, data);
        return new JobNetwork(job, task, DjlNetwork.build(spec, device), data);
    }

    /** The network the TaskSpec names, after checking the TaskSpec and the data set against each other. */
    static NetworkSpec check(String job, TaskSpec task, Dataset data) {
        String where = "job " + job + ": ";
        NetworkSpec spec;
        try {
            spec = NetworkSpec.parse(task.getNetwork());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + e.getMessage(), e);
        }
        if (!spec.dtype().equals(task.getDtype())) {
            throw new IllegalArgumentException(where + "the TaskSpec's dtype is " + task.getDtype() + ", the network "
                    + spec + " computes in " + spec.dtype());
        }
        try {
            TaskSpecLayout.of(task).requireSame(spec.layout(), "the network " + spec + " built here");
        } catch (LayoutMismatchException e) {
            throw new LayoutMismatchException(where + "the TaskSpec's parameters do not fit: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + "the TaskSpec's parameters: " + e.getMessage(), e);
        }
        if (data.size() != task.getDatasetSize()) {
            throw new IllegalArgumentException(where + "the data set " + data.name() + " here has " + data.size()
                    + " training samples, the job's " + task.getDataset() + " has " + task.getDatasetSize()
                    + " (another version of it, or --data names another one)");
        }
        if (task.getSamplesPerTask() < 1 || task.getSamplesPerTask() > task.getDatasetSize()) {
            throw new IllegalArgumentException(where + "a task of " + task.getSamplesPerTask()
                    + " samples does not fit a data set of " + task.getDatasetSize());
        }
        if (task.getMicroBatch() < 1) {
            throw new IllegalArgumentException(where + "micro-batch " + task.getMicroBatch() + " is below 1");
        }
        return spec;
    }

    /** Whether this network was built for {@code other} (the job's TaskSpec has not changed). */
    boolean isFor(TaskSpec other) {
        return task.equals(other);
    }

    TaskSpec task() {
        return task;
    }

    Dataset data() {
        return data;
    }

    GradientComputer gradients() {
        return gradients;
    }

    /**
     * Makes the network hold {@code model}'s parameters: decoded and copied once per model
     * version, a no-op for the version it already holds.
     *
     * @return whether the parameters were copied (false: the network held them already)
     * @throws IllegalArgumentException if the parameters are not as many as the network's
     */
    boolean use(ModelVersion model) {
        if (model == current) {
            return false;
        }
        float[] values = TensorCodec.decodeFloats(model.getParameters(), model.getEncoding());
        int expected = network.layout().totalSize();
        if (values.length != expected) {
            throw new IllegalArgumentException("model of job " + job + " version " + model.getVersion() + " has "
                    + values.length + " parameters, its network " + network.spec() + " has " + expected);
        }
        current = null; // a failure half-way leaves no version claimed
        network.setParameters(values);
        current = model;
        return true;
    }

    /** The model version whose parameters the network holds, if any. */
    ModelVersion current() {
        return current;
    }

    @Override
    public void close() {
        network.close();
    }

    @Override
    public String toString() {
        return "job " + job + ": " + network.spec() + " on " + network.device() + ", " + data.name();
    }
}
