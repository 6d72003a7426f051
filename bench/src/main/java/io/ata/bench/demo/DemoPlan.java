package io.ata.bench.demo;

import io.ata.allocation.policy.ConstantConvention;
import io.ata.broker.BrokerSettings;
import io.ata.lab.sim.SubExponentialConstants;
import io.ata.trainer.TrainerConfig;
import io.ata.workloads.time.TaskTimeDistribution;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What one {@code ata demo} runs, settled from its (checked) options: the fleet, one training job
 * per policy, the broker's settings for them, and where the outputs go.
 *
 * @param agents            the fleet's size; agent j behaves like worker j of the time model
 * @param warmupRounds      rounds of an unmeasured {@code uta} job run first, so that no measured
 *                          job pays the fleet's start-up (JIT, PyTorch's first calls); 0 for none
 * @param policies          one job each, in this order
 * @param timeModel         the paper's time model the agents emulate, by name
 * @param timeScale         the factor on every emulated task time
 * @param optimizer         sets every job's optimizer (the same for every policy)
 * @param httpPort          the port of the broker's HTTP queries, 0 for any
 * @param out               the output directory
 * @param runId             the run's time stamp, which tells the jobs of runs on a shared cluster apart
 * @param onExistingCluster whether the demo runs on the user's Kafka rather than an embedded one
 * @param network           the network the jobs train, or null for the paper's quadratic problem
 *                          ({@code --workload quadratic})
 */
public record DemoPlan(
        int agents,
        int batch,
        long rounds,
        long warmupRounds,
        List<String> policies,
        String timeModel,
        double timeScale,
        UnaryOperator<TrainerConfig.Builder> optimizer,
        long seed,
        int httpPort,
        Path out,
        String runId,
        boolean onExistingCluster,
        DemoNetwork network) {

    public DemoPlan {
        policies = List.copyOf(policies);
    }

    /** Whether the jobs train a network (rather than the quadratic problem). */
    public boolean trainsNetwork() {
        return network != null;
    }

    /** {@code agent-01} to {@code agent-12}: zero-padded so that they sort in fleet order. */
    public List<String> agentIds() {
        int width = Integer.toString(agents).length();
        List<String> ids = new ArrayList<>();
        for (int j = 1; j <= agents; j++) {
            ids.add(String.format(Locale.ROOT, "agent-%0" + width + "d", j));
        }
        return ids;
    }

    /** The policy of the warm-up job: every agent gets tasks, whatever its speed. */
    public static final String WARMUP_POLICY = "uta";

    /** The warm-up job's name, like a policy's job. */
    public String warmupJobName() {
        return jobName("warmup");
    }

    /** The job of a policy: {@code demo-POLICY}, with the run's time stamp on a shared cluster. */
    public String jobName(String policy) {
        return "demo-" + (onExistingCluster ? runId + "-" : "") + jobSuffix(policy);
    }

    /** A policy's name as it may appear in a job name (and so in topic keys and file names). */
    public static String jobSuffix(String policy) {
        return policy.replaceAll("[^A-Za-z0-9._-]", "-");
    }

    /** The file a job's timing log is written to, in the output directory. */
    public static String timingsFileName(String job) {
        return "timings-" + job + ".csv";
    }

    /**
     * The broker's settings: the emulated means for the oracle policies, the model's constants for
     * ATA and ATA-Empirical (alpha scales with the time scale, eta does not), when those run.
     *
     * @param model the agents' task time distributions, before the time scale
     */
    public BrokerSettings brokerSettings(TaskTimeDistribution[] model) {
        List<String> ids = agentIds();
        Map<String, Double> means = new LinkedHashMap<>();
        if (policies.contains("fta") || policies.contains("proportional")) {
            for (int j = 0; j < agents; j++) {
                means.put(ids.get(j), model[j].mean() * timeScale);
            }
        }
        double alpha = Double.NaN;
        double eta = Double.NaN;
        if (policies.contains("ata") || policies.contains("ata-empirical")) {
            SubExponentialConstants measured = SubExponentialConstants.of(model, seed);
            alpha = measured.alpha() * timeScale;
            eta = measured.eta();
        }
        return BrokerSettings.builder()
                .knownMeans(means)
                .convention(ConstantConvention.PAPER)
                .alpha(alpha)
                .eta(eta)
                .build();
    }
}
