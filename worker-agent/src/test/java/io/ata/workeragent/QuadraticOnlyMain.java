package io.ata.workeragent;

/**
 * Runs quadratic tasks through the agent's own workload and prints what it reports, for
 * {@link AgentWorkloadTest}'s check, in a JVM of its own, that no PyTorch engine class is loaded.
 */
public final class QuadraticOnlyMain {
    private QuadraticOnlyMain() {}

    public static void main(String[] args) {
        try (AgentWorkload workload =
                AgentWorkload.of(AgentConfig.builder("x:9092").workerId("w").build())) {
            for (int i = 0; i < 3; i++) {
                workload.compute(Fixtures.model("q", 0), "q/1/" + i, 0, () -> false)
                        .orElseThrow();
            }
            System.out.println(
                    "device " + workload.device().kind() + ", networks loaded: " + workload.networksLoaded());
        }
    }
}
