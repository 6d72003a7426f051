package io.ata.workeragent;

import ai.djl.Device;
import ai.djl.engine.Engine;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.data.TaskSamples;
import io.ata.ml.djl.DeviceChoice;
import io.ata.ml.djl.DeviceInfo;
import io.ata.ml.djl.DjlRuntime;
import io.ata.ml.djl.GradientResult;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskSpec;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Neural-network tasks, computed with DJL's PyTorch engine (ata-ml): a task is the gradient of
 * the network's mean softmax cross-entropy loss on the task's mini-batch, at the model version's
 * parameters. For a model version of job {@code J} carrying {@link TaskSpec} {@code T}:
 *
 * <ul>
 *   <li><b>Network</b>: {@code NetworkSpec.parse(T.network)}; its parameter layout must be
 *       {@code T.parameters} (names and shapes, in order), and {@code T.dtype} its dtype.</li>
 *   <li><b>Training set</b>: {@code T.dataset} resolved by {@link DatasetResolver#standard()}
 *       (nothing is downloaded), or the agent's own {@code --data}; either way it must have
 *       {@code T.dataset_size} samples.</li>
 *   <li><b>Samples</b>: task {@code J/r/i} uses {@code TaskSamples.of(T.sample_seed, J, r, i,
 *       T.dataset_size, T.samples_per_task)} (the rule is spelled out in {@link TaskSamples}; this
 *       class calls {@link TaskSamples#ofTask} with the task id, the same thing for the trainer's
 *       ids), so anyone can recompute a task's gradient from the topics and the data set. The
 *       deployment's base seed plays no part.</li>
 *   <li><b>Gradient</b>: {@link io.ata.ml.djl.GradientComputer} over those samples in
 *       micro-batches of {@code T.micro_batch}, asking between them whether to stop (the round
 *       closed); the mean over all samples, encoded in the agent's gradient encoding, with the
 *       mean loss and the sample count.</li>
 * </ul>
 *
 * Anything that does not fit (a layout, data set size or parameter count other than the
 * TaskSpec's) is an {@link IllegalArgumentException} naming it, which the agent dead-letters.
 *
 * <p>Caches: per job the network, its gradient computer and its data set ({@link JobNetwork}; at
 * most {@value #MAX_JOBS} jobs, the least recently used is closed), data sets by name, and the
 * parameters of the model version last used (set once per version, not once per task).
 *
 * <p>The constructor starts DJL ({@link DjlRuntime#start(int)}, once per process; later agents
 * of the same JVM share the engine and its thread settings): build one only when the first
 * TaskSpec arrives, as {@link AgentWorkload} does. Confined to the agent's task thread, but
 * {@link #device()} may be called from any.
 */
final class NetworkWorkload implements Workload {

    /** Jobs whose networks are kept at once. */
    static final int MAX_JOBS = 4;

    private static final Logger log = LoggerFactory.getLogger(NetworkWorkload.class);

    private final Device device;
    private final ComputeDevice computeDevice;
    private final TensorEncoding encoding;
    private final Function<String, Dataset> trainingSets;
    private final Map<String, Dataset> datasets = new HashMap<>();
    private final LinkedHashMap<String, JobNetwork> jobs = new LinkedHashMap<>(8, 0.75f, true);

    /**
     * Starts DJL and resolves the device.
     *
     * @param device which device to compute on
     * @param threads PyTorch's threads for this process
     * @param encoding how gradients are encoded (FLOAT32_LE, FLOAT16_LE, BFLOAT16_LE)
     * @param trainingSets the training set of a TaskSpec's {@code dataset} name (may throw
     *     {@link io.ata.ml.data.DatasetException}); asked once per name
     * @throws io.ata.ml.djl.EngineUnavailableException if PyTorch cannot load
     * @throws IllegalArgumentException if a GPU is asked for that PyTorch does not see
     */
    NetworkWorkload(DeviceChoice device, int threads, TensorEncoding encoding, Function<String, Dataset> trainingSets) {
        this.encoding = Objects.requireNonNull(encoding, "encoding");
        this.trainingSets = Objects.requireNonNull(trainingSets, "trainingSets");
        long start = System.nanoTime();
        Engine engine = DjlRuntime.start(threads);
        this.device = device.resolve(engine);
        this.computeDevice = ComputeDevice.of(DeviceInfo.of(this.device), threads);
        log.info(
                "DJL {} with PyTorch {} ready in {} ms: {} ({}), {} thread(s)",
                Engine.getDjlVersion(),
                engine.getVersion(),
                (System.nanoTime() - start) / 1_000_000,
                this.device,
                computeDevice.name(),
                threads);
    }

    /** The training sets the agent finds by name: {@link DatasetResolver#standard()}'s. */
    static Function<String, Dataset> standardTrainingSets() {
        return name -> DatasetResolver.standard().resolve(name).train();
    }

    @Override
    public Optional<TaskOutput> compute(ModelVersion model, String taskId, long seed, BooleanSupplier stop) {
        TaskSpec task = model.getTask();
        if (task == null) {
            throw new IllegalArgumentException("model of job " + model.getJob() + " version " + model.getVersion()
                    + " has no TaskSpec: it is not a neural network");
        }
        JobNetwork job = network(model.getJob(), task);
        job.use(model);
        int[] samples =
                TaskSamples.ofTask(task.getSampleSeed(), taskId, task.getDatasetSize(), task.getSamplesPerTask());
        GradientResult result = job.gradients().compute(job.data(), samples, stop);
        if (result.cancelled()) {
            return Optional.empty();
        }
        return Optional.of(new TaskOutput(
                TensorCodec.encode(result.gradient(), encoding), encoding, result.loss(), result.samples()));
    }

    /** Builds (and warms up) the job's network if needed and makes it hold {@code model}'s parameters. */
    @Override
    public void prepare(ModelVersion model) {
        TaskSpec task = model.getTask();
        if (task != null) {
            network(model.getJob(), task).use(model);
        }
    }

    /**
     * The job's network for {@code task}: the cached one, or a new one if the TaskSpec changed.
     * A new one computes one throw-away gradient first: PyTorch's first passes on a thread set
     * up its kernels and allocator and take far longer than the next ones.
     */
    private JobNetwork network(String job, TaskSpec task) {
        JobNetwork cached = jobs.get(job);
        if (cached != null && cached.isFor(task)) {
            return cached;
        }
        if (cached != null) {
            jobs.remove(job);
            cached.close();
        }
        Dataset data = datasets.computeIfAbsent(task.getDataset(), trainingSets);
        JobNetwork built = JobNetwork.build(job, task, data, device);
        built.gradients()
                .compute(
                        data,
                        TaskSamples.ofTask(
                                task.getSampleSeed(),
                                job + "/warm-up",
                                task.getDatasetSize(),
                                task.getSamplesPerTask()),
                        () -> false);
        jobs.put(job, built);
        log.info("built the network of {}", built);
        for (Iterator<JobNetwork> oldest = jobs.values().iterator(); jobs.size() > MAX_JOBS; ) {
            oldest.next().close();
            oldest.remove();
        }
        return built;
    }

    /** The jobs whose networks are kept, least recently used first (for tests). */
    Map<String, JobNetwork> jobs() {
        return jobs;
    }

    @Override
    public ComputeDevice device() {
        return computeDevice;
    }

    @Override
    public String describe() {
        return "networks on " + device + " (" + computeDevice.threads() + " thread(s), " + encoding + " gradients)";
    }

    @Override
    public void close() {
        for (JobNetwork network : jobs.values()) {
            network.close();
        }
        jobs.clear();
    }
}
