package io.ata.cli;

import io.ata.bench.fleet.FleetBench;
import io.ata.bench.fleet.FleetReport;
import io.ata.bench.fleet.FleetRestore;
import io.ata.bench.fleet.VirtualFleet;
import io.ata.broker.BrokerSettings;
import io.ata.lab.report.Progress;
import io.ata.lab.sim.Scenario;
import io.ata.lab.sim.ScenarioFile;
import io.ata.local.LocalDeployment;
import io.ata.platform.ops.ProcessMetrics;
import io.ata.schemas.Topics;
import io.ata.workloads.time.TimeSchedule;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata bench-fleet}: the broker under fleets of virtual agents and many concurrent jobs
 * ({@link FleetBench}): one process behaves as N agents on real Kafka clients, so fleet sizes a
 * machine cannot host as one JVM per agent measure the broker, not the machine.
 */
@Command(
        name = "bench-fleet",
        mixinStandardHelpOptions = true,
        description = {
            "Benchmark the broker at fleet scale: N virtual agents in one process (real Kafka clients and records,"
                    + " distinct worker ids, heartbeats with partitions, transactional results, no compute) and J"
                    + " concurrent jobs of the real trainer on the quadratic problem.",
            "For every (agents, jobs, allocation): control overhead per round p50/p90/p99 (trainer's close of round k committed"
                    + " -> last assignment of round k+1 started at its agent, as bench-live), rounds per second, the"
                    + " broker's CPU ms per round (its threads' CPU time), heap, state-store bytes and, with two"
                    + " instances, each one's share of the rounds.",
            "Writes fleet.csv, fleet-rounds.csv (every measured round) and, where a sweep has two or more points,"
                    + " overhead-by-agents.png and overhead-by-jobs.png into --out."
        })
public final class FleetBenchCommand extends ClusterBenchCommand {

    @Option(
            names = "--agents",
            paramLabel = "N",
            split = ",",
            defaultValue = "64,256",
            description = "Fleet sizes, virtual agents (default: ${DEFAULT-VALUE}).")
    int[] agents;

    @Option(
            names = "--jobs",
            paramLabel = "N",
            split = ",",
            defaultValue = "1",
            description = "Concurrent jobs, each with its own trainer (default: ${DEFAULT-VALUE}).")
    int[] jobs;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "30",
            description = "Measured rounds per job (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
            names = "--warmup",
            paramLabel = "N",
            defaultValue = "10",
            description = "Unmeasured rounds per job first (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(
            names = "--instances",
            paramLabel = "N",
            defaultValue = "1",
            description = "Broker instances, one application (default: ${DEFAULT-VALUE}).")
    int instances;

    @Option(
            names = "--rounds-partitions",
            paramLabel = "N",
            defaultValue = "0",
            description = "Partitions of the rounds and model topics of the loads and the restore, as `ata kafka"
                    + " --topics --rounds-partitions` (default: ${DEFAULT-VALUE}: 1 with one instance, 16 with more).")
    int roundsPartitions;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            defaultValue = "uta",
            description = "Every job's policy (default: ${DEFAULT-VALUE}: with B = agents every agent gets a task"
                    + " a round, the full fan-out).")
    String policy;

    @Option(
            names = "--batch",
            paramLabel = "B",
            defaultValue = "0",
            description = "Every job's B; 0: agents / jobs, at least 1, so the fleet's work per round of all jobs"
                    + " stays the same as jobs are added (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(
            names = "--agents-per-client",
            paramLabel = "N",
            defaultValue = "64",
            description = "Virtual agents sharing one consumer-group member and one transactional producer"
                    + " (default: ${DEFAULT-VALUE}).")
    int agentsPerClient;

    @Option(
            names = "--agents-per-partition",
            paramLabel = "N",
            defaultValue = "1",
            description = "Virtual agents of one client sharing one partition of the tasks topic, as the workers of"
                    + " a multi-device node would; the topic then has a partition per N agents (default:"
                    + " ${DEFAULT-VALUE}: each agent its own).")
    int agentsPerPartition;

    @Option(
            names = "--heartbeat-interval",
            paramLabel = "TIME",
            defaultValue = "1s",
            converter = OptionValues.TimeSpan.class,
            description = "How often each virtual agent heartbeats (default: ${DEFAULT-VALUE}, a real agent's): the"
                    + " broker takes agents / interval heartbeats a second, each through its exactly-once membership"
                    + " path. The broker's liveness timeout is 4 intervals, at least its default 10 s.")
    Duration heartbeatInterval;

    @Option(
            names = "--scenario",
            paramLabel = "FILE",
            description = "Task times from this scenario file's workers (agent i follows worker i modulo their count;"
                    + " changes, hangs, joins and leaves included), in ms times --time-scale. Without it every task"
                    + " takes no time.")
    Path scenario;

    @Option(
            names = "--time-scale",
            paramLabel = "X",
            defaultValue = "1",
            description = "Factor on the scenario's times (default: ${DEFAULT-VALUE}).")
    double timeScale;

    @Option(
            names = "--timeout",
            paramLabel = "MINUTES",
            defaultValue = "20",
            description = "Longest time per load; a load cut short reports what closed (default: ${DEFAULT-VALUE}).")
    int timeoutMinutes;

    @Option(
            names = "--restore",
            paramLabel = "JOBS",
            defaultValue = "0",
            description =
                    "Also measure the restore after kill -9: the broker in a process of its own holding JOBS jobs'"
                            + " state (the first --agents value's fleet; the jobs run in waves of at most 50 at once,"
                            + " the last wave across the kill; pipelined allocation, the broker's default), killed with"
                            + " SIGKILL and started again at once; with --instances 2, two broker processes keeping a"
                            + " standby copy of each other's state, one killed and the other taking over"
                            + " (default: ${DEFAULT-VALUE}: not measured).")
    int restoreJobs;

    @Option(
            names = "--class-data-sharing",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "With --restore and one instance: the restarted broker maps a class-data sharing archive"
                    + " of the classes the first broker process loaded, as the container image's broker does"
                    + " (docs/containers.md); --no-class-data-sharing starts a plain JVM. The archive is made"
                    + " before the kill either way, so the two differ in the restarted JVM alone (default: on).")
    boolean classDataSharing;

    @Option(
            names = "--trainers",
            paramLabel = "HOW",
            defaultValue = "host",
            description = "How the jobs' trainers read the gradients topic: host (one trainer host, each record read"
                    + " once) or own (a consumer each, reading every job's results) (default: ${DEFAULT-VALUE}).")
    String trainers;

    @Mixin
    AllocationOption allocation;

    @Option(
            names = "--only",
            paramLabel = "WHAT",
            description = "loads (the table) or restore (only the kill -9 restore of --restore); default: both.")
    String only;

    @Override
    int bench() throws Exception {
        if (Arrays.stream(agents).anyMatch(n -> n < 1) || Arrays.stream(jobs).anyMatch(n -> n < 1)) {
            throw kafka.usageError("--agents and --jobs take whole numbers >= 1");
        }
        if (only != null && !only.equals("loads") && !only.equals("restore")) {
            throw kafka.usageError("--only must be loads or restore, was '" + only + "'");
        }
        if (restoreJobs < 0 || "restore".equals(only) && restoreJobs == 0) {
            throw kafka.usageError("--restore takes a number of jobs >= 1 (with --only restore it is needed)");
        }
        if (restoreJobs > 0 && instances > 2) {
            throw kafka.usageError(
                    "--restore measures one instance restarted or two (a failover), not --instances " + instances);
        }
        if (!trainers.equals("host") && !trainers.equals("own")) {
            throw kafka.usageError("--trainers must be host or own, was '" + trainers + "'");
        }
        List<String> allocations = allocation.modes(spec);
        boolean loads = !"restore".equals(only);
        boolean restore = restoreJobs > 0 && !"loads".equals(only);
        List<TimeSchedule> schedules = List.of();
        if (scenario != null) {
            try {
                Scenario s = ScenarioFile.load(scenario);
                schedules = Arrays.asList(s.schedules());
            } catch (IllegalArgumentException | UncheckedIOException e) {
                throw kafka.usageError("Invalid value for option '--scenario': " + e.getMessage());
            }
        }
        FleetBench.Settings settings;
        try {
            settings = new FleetBench.Settings(
                    rounds,
                    warmup,
                    instances,
                    roundsPartitions,
                    policy,
                    batch,
                    VirtualFleet.Settings.of(1)
                            .withAgentsPerClient(agentsPerClient)
                            .withAgentsPerPartition(agentsPerPartition)
                            .withHeartbeatInterval(heartbeatInterval)
                            .withSchedules(schedules, scenario == null ? 0 : timeScale),
                    Duration.ofMinutes(timeoutMinutes),
                    trainers.equals("host"));
        } catch (IllegalArgumentException e) {
            throw kafka.usageError(e.getMessage());
        }
        Files.createDirectories(out.path());
        MeterRegistry meters = ProcessMetrics.newRegistry();
        // the restore runs under the broker's default allocation, the loads under each mode asked for
        BrokerSettings brokerSettings =
                BrokerSettings.defaults().withLiveness(settings.livenessTimeout(), Duration.ofSeconds(1));
        String where = kafka.clusterNamed() ? reachableCluster() : "embedded KRaft broker, a fresh one per load";
        int[] fleets = loads ? agents : new int[0];
        long roundsPerFleet =
                Arrays.stream(jobs).mapToLong(j -> j * settings.roundsPerJob()).sum();
        long total = (restore ? 3L * restoreJobs : 0) + (long) allocations.size() * fleets.length * roundsPerFleet;
        FleetReport report = new FleetReport(spec.commandLine().getOut());
        try (Progress progress =
                Progress.start("bench-fleet", total, spec.commandLine().getErr())) {
            if (restore) {
                report.restored(new FleetRestore(deployments(brokerSettings, meters), progress, classDataSharing)
                        .run(
                                instances,
                                agents[0],
                                restoreJobs,
                                settings.roundsPartitionsUsed(),
                                Duration.ofMinutes(timeoutMinutes)));
            }
            report.start(where, settings);
            for (int a : fleets) {
                for (int j : jobs) {
                    for (String mode : allocations) {
                        FleetBench bench = new FleetBench(
                                deployments(AllocationOption.settings(brokerSettings, mode), meters), progress);
                        report.add(bench.run(a, j, settings));
                    }
                }
            }
        }
        report.finish(out.path());
        return 0;
    }

    /** A fresh deployment per load: the embedded Kafka, or the cluster named, with {@code settings}. */
    private Function<Topics, LocalDeployment> deployments(BrokerSettings settings, MeterRegistry meters) {
        if (!kafka.clusterNamed()) {
            return t -> LocalDeployment.embedded(t, settings, meters);
        }
        return t -> LocalDeployment.builder(t)
                .existingCluster(kafka.bootstrapServers(), kafka.clientProperties())
                .brokerSettings(settings)
                .meters(meters)
                .start();
    }
}
