package io.ata.workeragent;

import io.ata.ml.data.Dataset;
import io.ata.schemas.ModelVersion;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent computes, chosen by the model version of the task: without a {@code TaskSpec},
 * the quadratic problem ({@link QuadraticWorkload}); with one, its network's gradient
 * ({@link NetworkWorkload}).
 *
 * <p>The network workload, and with it DJL and PyTorch, is created when the first model version
 * with a TaskSpec arrives, never before: an agent that only ever sees the quadratic problem pays
 * neither PyTorch's start-up nor its memory. If creating it fails (PyTorch cannot load, the GPU
 * asked for is not there) the task fails with that reason, and the next TaskSpec tries again.
 */
final class AgentWorkload implements Workload {

    private static final Logger log = LoggerFactory.getLogger(AgentWorkload.class);

    private final Workload quadratic;
    private final Supplier<? extends Workload> networks;
    private volatile Workload network; // written by the task thread only, read by heartbeats

    /**
     * @param quadratic for model versions without a TaskSpec
     * @param networks creates the workload for model versions with a TaskSpec; called on the
     *     first such version (again after a failure)
     */
    AgentWorkload(Workload quadratic, Supplier<? extends Workload> networks) {
        this.quadratic = Objects.requireNonNull(quadratic, "quadratic");
        this.networks = Objects.requireNonNull(networks, "networks");
    }

    /** The agent's default workload, as {@code config} sets it up. */
    static AgentWorkload of(AgentConfig config) {
        Function<String, Dataset> trainingSets = config.data()
                .<Function<String, Dataset>>map(data -> name -> data)
                .orElseGet(NetworkWorkload::standardTrainingSets);
        return new AgentWorkload(
                new QuadraticWorkload(),
                () -> new NetworkWorkload(config.device(), config.threads(), config.gradientEncoding(), trainingSets));
    }

    @Override
    public Optional<TaskOutput> compute(ModelVersion model, String taskId, long seed, BooleanSupplier stop) {
        return (model.getTask() == null ? quadratic : network()).compute(model, taskId, seed, stop);
    }

    @Override
    public void prepare(ModelVersion model) {
        (model.getTask() == null ? quadratic : network()).prepare(model);
    }

    private Workload network() {
        Workload current = network;
        if (current == null) {
            log.info("the first model with a TaskSpec: loading DJL");
            current = networks.get();
            network = current;
        }
        return current;
    }

    /** Whether the network workload (and DJL) has been loaded. */
    boolean networksLoaded() {
        return network != null;
    }

    /** The network workload's device once it is loaded (it computes the heavy tasks), else the quadratic's. */
    @Override
    public ComputeDevice device() {
        Workload current = network;
        return current != null ? current.device() : quadratic.device();
    }

    @Override
    public String describe() {
        Workload current = network;
        return quadratic.describe()
                + (current != null ? " or " + current.describe() : " or networks (DJL, not loaded)");
    }

    @Override
    public void close() {
        Workload current = network;
        if (current != null) {
            current.close();
        }
        quadratic.close();
    }
}
