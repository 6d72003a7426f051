package io.ata.bench;

import io.ata.bench.demo.DemoPlan;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.trainer.TrainerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * Live mean round time of several policies on the demo's fleet: {@code n} agents emulating the
 * paper's linear model scaled by 0.2 (agent j: {@code 5.8 j + Exp(5.8 j)} ms), the quadratic
 * problem, {@code B} = 8, the jobs one after another on one fleet after an unmeasured warm-up job.
 * It measures what a user of the demo sees per policy, including every cost the simulator leaves
 * out (delivery, publication, a busy machine), so overhead-aware allocation is measured here.
 *
 * <p>With {@code busyCore} a second process keeps one core busy for the whole run (a shell busy
 * loop, {@code sh -c 'while :; do :; done'}), as on a machine shared with other work.
 */
public final class FleetPolicyBench {
    /** The demo's fleet. */
    public static final int AGENTS = 12;

    public static final int BATCH = 8;
    public static final double TIME_SCALE = 0.2;

    private final MeterRegistry meters;
    private final LongConsumer progress;

    public FleetPolicyBench(MeterRegistry meters, LongConsumer progress) {
        this.meters = meters;
        this.progress = progress;
    }

    /** Each policy's live round times in ms, in the order given; the warm-up job's are not kept. */
    public Map<String, double[]> run(List<String> policies, int rounds, int warmupRounds, boolean busyCore)
            throws Exception {
        Process busy = busyCore ? startBusyLoop() : null;
        try {
            return measure(policies, rounds, warmupRounds);
        } finally {
            if (busy != null) {
                busy.destroyForcibly().waitFor();
            }
        }
    }

    private Map<String, double[]> measure(List<String> policies, int rounds, int warmupRounds) throws Exception {
        Map<String, double[]> roundTimes = new LinkedHashMap<>();
        Topics topics = new Topics("fleet-" + System.nanoTime() + ".").withTaskPartitions(32);
        try (LocalDeployment local = LocalDeployment.embedded(topics, BrokerSettings.defaults(), meters)) {
            local.startBroker();
            for (int j = 1; j <= AGENTS; j++) {
                local.startAgent(ControlOverheadBench.userAgent(local, String.format(Locale.ROOT, "agent-%02d", j))
                        .emulatedTimeModel("linear", j)
                        .timeScale(TIME_SCALE)
                        .build());
            }
            local.awaitFleet(Duration.ofSeconds(120));
            if (warmupRounds > 0) {
                run(local, "warmup", "uta", warmupRounds, new double[warmupRounds]);
            }
            for (String policy : policies) {
                double[] times = new double[rounds];
                run(local, "fleet-" + DemoPlan.jobSuffix(policy), policy, rounds, times);
                roundTimes.put(policy, times);
            }
        }
        return roundTimes;
    }

    private void run(LocalDeployment local, String job, String policy, int rounds, double[] times)
            throws InterruptedException {
        TrainerConfig config = local.trainerConfig(job, policy, BATCH, rounds)
                .listener(s -> {
                    times[(int) s.round() - 1] = s.roundTimeMs();
                    progress.accept(1);
                })
                .build();
        local.trainToEnd(config, Duration.ofMinutes(10));
    }

    /** A process that keeps one core busy until destroyed. */
    private static Process startBusyLoop() throws IOException {
        return new ProcessBuilder("sh", "-c", "while :; do :; done")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
    }

    /** The mean of {@code values}. */
    public static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    /** The median of {@code values} (not modified). */
    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    }

    /** Rows for the output CSV: {@code policy,round,round_ms}. */
    public static List<String> csvRows(Map<String, double[]> roundTimes, String condition) {
        List<String> rows = new ArrayList<>();
        roundTimes.forEach((policy, times) -> {
            for (int k = 0; k < times.length; k++) {
                rows.add(condition + "," + policy + "," + (k + 1) + "," + times[k]);
            }
        });
        return rows;
    }
}
