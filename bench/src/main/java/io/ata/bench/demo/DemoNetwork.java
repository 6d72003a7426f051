package io.ata.bench.demo;

import io.ata.trainer.NetworkModel;
import io.ata.trainer.TrainerConfig;
import io.ata.workeragent.AgentConfig;

/**
 * The network {@code ata demo} trains (unless {@code --workload quadratic}): the model with its
 * data set, loaded once and shared by the trainers of every job and by every agent of the fleet,
 * which all run in this one process; and how the jobs are scored on the test set.
 *
 * @param model          the network and its data
 * @param evalEvery      every how many rounds a job's model is scored on the test set
 * @param targetAccuracy the test accuracy whose wall and worker time to reach the reports give
 */
public record DemoNetwork(NetworkModel model, long evalEvery, double targetAccuracy) {
    /**
     * Agents share the machine, so each computes with one PyTorch thread (PyTorch's threads are
     * per process anyway), and all use the one training set already in memory.
     */
    public static final int AGENT_THREADS = 1;

    /** Sets a job's trainer to this network and its evaluations. */
    public TrainerConfig.Builder configure(TrainerConfig.Builder trainer) {
        return trainer.model(model).evalEvery(evalEvery);
    }

    /** Sets an agent to this network's training set. */
    public AgentConfig.Builder configure(AgentConfig.Builder agent) {
        return agent.data(model.data().train()).threads(AGENT_THREADS);
    }

    /** The data set's name, as its files call it (e.g. {@code fashion-mnist-train}). */
    public String dataName() {
        return model.data().train().name();
    }
}
