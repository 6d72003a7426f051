package io.ata.bench;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.AssignmentListener;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongConsumer;

/**
 * The broker's control overhead per round, as {@code ata bench-live --only overhead} measures it:
 * from the trainer's close of round k (committed) to the moment the last agent of round k+1 can
 * start it (its assignment and model version k both there), with an exactly-once broker,
 * transactional trainer and agents, and zero-work tasks, so that only the control path is timed.
 * Allocating at open, the assignment comes last; under pipelined allocation it is there before the
 * close, and the model version comes last. One fresh embedded deployment per fleet size.
 */
public final class ControlOverheadBench {
    private final MeterRegistry meters;
    private final LongConsumer progress;
    private final BrokerSettings settings;

    /**
     * @param meters   where every part's meters go
     * @param progress told about each round closed
     * @param settings the broker's settings
     */
    public ControlOverheadBench(MeterRegistry meters, LongConsumer progress, BrokerSettings settings) {
        this.meters = meters;
        this.progress = progress;
        this.settings = settings;
    }

    /** Rounds one job runs: the warm-up, the measured ones, and one more whose assignments end the last. */
    public static long roundsRun(int warmup, int rounds) {
        return warmup + rounds + 1L;
    }

    /**
     * Runs one job of {@code uta} with {@code B} = {@code agents} on a fleet of {@code agents}.
     *
     * @return the overhead of each measured round (after {@code warmup}), in ms, in round order
     */
    public double[] run(int agents, int warmup, int rounds) throws InterruptedException {
        int total = (int) roundsRun(warmup, rounds);
        long[] closedAt = new long[total + 2];
        ConcurrentMap<Long, Long> lastStart = new ConcurrentHashMap<>();
        AssignmentListener starts = new AssignmentListener() {
            @Override
            public void received(TaskAssignment assignment, long nanoTime) {}

            @Override
            public void started(TaskAssignment assignment, long nanoTime) {
                lastStart.merge(assignment.getRound(), nanoTime, Math::max);
            }
        };
        Topics topics =
                new Topics("bench-" + agents + "-" + System.nanoTime() + ".").withTaskPartitions(Math.max(32, agents));
        try (LocalDeployment local = LocalDeployment.builder(topics)
                .brokerSettings(settings)
                .meters(meters)
                .start()) {
            local.startBroker();
            for (int i = 1; i <= agents; i++) {
                local.startAgent(userAgent(local, "agent-" + i)
                        .assignmentListener(starts)
                        .build());
            }
            local.awaitFleet(Duration.ofSeconds(120));
            local.trainToEnd(
                    local.trainerConfig("overhead", "uta", agents, total)
                            .listener(summary -> {
                                closedAt[(int) summary.round()] = summary.committedNanos();
                                progress.accept(1);
                            })
                            .build(),
                    Duration.ofMinutes(10));
        }
        double[] ms = new double[rounds];
        for (int k = warmup; k < warmup + rounds; k++) {
            // The broker makes the close visible (its commit markers) about when it answers the
            // trainer's commit, so under pipelined allocation, whose assignments are already at
            // the agents, the last agent can start before the trainer's thread is back from the
            // commit: the agents then waited for nothing after the close, an overhead of zero.
            ms[k - warmup] = Math.max(0, lastStart.get((long) k + 1) - closedAt[k]) / 1e6;
        }
        return ms;
    }

    /**
     * An agent as users run it: the default heartbeat interval, not the test harness's quicker one
     * (the deployment's, for prompt failure detection in tests).
     */
    static AgentConfig.Builder userAgent(LocalDeployment local, String workerId) {
        return local.agentConfig(workerId).heartbeatInterval(AgentConfig.DEFAULT_HEARTBEAT_INTERVAL);
    }
}
