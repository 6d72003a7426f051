package io.ata.bench;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.ml.djl.DeviceChoice;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.AssignmentListener;
import io.ata.workeragent.MultiDeviceAgent;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongConsumer;
import org.apache.kafka.streams.state.KeyValueIterator;

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
        return run(agents, 1, warmup, rounds);
    }

    /**
     * As {@link #run(int, int, int)}, the {@code workers} run as agents of {@code workersPerAgent}
     * workers each ({@link MultiDeviceAgent}s over one consumer each, when more than one).
     *
     * @throws IllegalArgumentException if {@code workersPerAgent} does not divide {@code workers}
     */
    public double[] run(int workers, int workersPerAgent, int warmup, int rounds) throws InterruptedException {
        if (workersPerAgent < 1 || workers % workersPerAgent != 0) {
            throw new IllegalArgumentException(
                    "workers per agent must divide the fleet (" + workers + "), was " + workersPerAgent);
        }
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
        Topics topics = new Topics("bench-" + workers + "-" + System.nanoTime() + ".")
                .withTaskPartitions(Math.max(32, workers));
        try (LocalDeployment local = LocalDeployment.builder(topics)
                .brokerSettings(settings)
                .meters(meters)
                .start()) {
            local.startBroker();
            List<MultiDeviceAgent> shared = new ArrayList<>();
            try {
                if (workersPerAgent == 1) {
                    for (int i = 1; i <= workers; i++) {
                        local.startAgent(userAgent(local, "agent-" + i)
                                .assignmentListener(starts)
                                .build());
                    }
                    local.awaitFleet(Duration.ofSeconds(120));
                } else {
                    for (int i = 1; i <= workers / workersPerAgent; i++) {
                        MultiDeviceAgent agent = new MultiDeviceAgent(
                                userAgent(local, "agent-" + i)
                                        .assignmentListener(starts)
                                        .build(),
                                Collections.nCopies(workersPerAgent, DeviceChoice.CPU),
                                local.registry());
                        shared.add(agent);
                        agent.start();
                    }
                    awaitWorkers(local, workers, Duration.ofSeconds(120));
                }
                local.trainToEnd(
                        local.trainerConfig("overhead", "uta", workers, total)
                                .listener(summary -> {
                                    closedAt[(int) summary.round()] = summary.committedNanos();
                                    progress.accept(1);
                                })
                                .build(),
                        Duration.ofMinutes(10));
            } finally {
                shared.forEach(MultiDeviceAgent::close);
            }
        }
        double[] ms = new double[rounds];
        for (int k = warmup; k < warmup + rounds; k++) {
            // The broker makes the close visible (its commit markers) about when it answers the
            // trainer's commit, so under pipelined allocation, whose assignments are already at
            // the workers, the last agent can start before the trainer's thread is back from the
            // commit: the workers then waited for nothing after the close, an overhead of zero.
            ms[k - warmup] = Math.max(0, lastStart.get((long) k + 1) - closedAt[k]) / 1e6;
        }
        return ms;
    }

    /** Waits until the broker sees {@code workers} workers alive, each reading a task partition. */
    private static void awaitWorkers(LocalDeployment local, int workers, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            int alive = 0;
            try (KeyValueIterator<String, WorkerHeartbeat> it =
                    local.broker().membership().all()) {
                while (it.hasNext()) {
                    WorkerHeartbeat h = it.next().value;
                    if (h.getStatus() == WorkerStatus.ALIVE
                            && !h.getPartitions().isEmpty()) {
                        alive++;
                    }
                }
            }
            if (alive >= workers) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the broker saw " + alive + " of " + workers + " workers alive within " + timeout);
            }
            Thread.sleep(100);
        }
    }

    /**
     * An agent as users run it: the default heartbeat interval, not the test harness's quicker one
     * (the deployment's, for prompt failure detection in tests).
     */
    static AgentConfig.Builder userAgent(LocalDeployment local, String workerId) {
        return local.agentConfig(workerId).heartbeatInterval(AgentConfig.DEFAULT_HEARTBEAT_INTERVAL);
    }
}
