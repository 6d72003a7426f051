package io.ata.cli;

import io.ata.lab.sim.Scenario;
import io.ata.lab.sim.ScenarioFile;
import io.ata.local.RunFailure;
import io.ata.local.StopSignal;
import io.ata.ml.data.Dataset;
import io.ata.ml.data.DatasetException;
import io.ata.ml.data.DatasetResolver;
import io.ata.ml.djl.DeviceChoice;
import io.ata.platform.kafka.MeteredKafkaClients;
import io.ata.platform.ops.OperationsEndpoints;
import io.ata.platform.ops.ProcessMetrics;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.workeragent.Agent;
import io.ata.workeragent.AgentConfig;
import io.ata.workeragent.MultiDeviceAgent;
import io.ata.workeragent.SupervisedAgent;
import io.ata.workeragent.WorkerAgent;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ata worker}: one worker agent, until Ctrl-C, which it answers by finishing its running
 * task, leaving the consumer group and saying LEAVING to the broker.
 */
@Command(
        name = "worker",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Run a worker agent until Ctrl-C.",
            "It joins the fleet (the consumer group on the tasks topic), computes the tasks the broker gives it "
                    + "and publishes their results and timings. A task is a gradient of the paper's quadratic "
                    + "problem, or, when the job's model names a neural network, the network's gradient on the "
                    + "task's samples, computed with PyTorch (loaded only then) on --device with --threads.",
            "With --time-model it emulates worker --worker-index of one of the paper's time models (task time in "
                    + "ms, times --time-scale), so identical machines behave like a heterogeneous fleet; without, "
                    + "tasks run at their natural speed."
        })
public final class WorkerCommand extends ClusterCommand {

    @Option(
            names = "--worker-id",
            paramLabel = "ID",
            description = "This worker's id, unique in the fleet (default: HOSTNAME-PID).")
    String workerId;

    @Option(
            names = "--device",
            paramLabel = "auto|cpu|gpu[:N][,...]",
            defaultValue = "auto",
            split = ",",
            converter = Device.class,
            description = "Where neural networks are computed: auto (the first GPU PyTorch sees, else the CPU), "
                    + "cpu, or GPU N (gpu = gpu:0) (default: ${DEFAULT-VALUE}). The quadratic problem always "
                    + "runs on the CPU. Several, comma-separated (gpu:0,gpu:1,...): a worker per device in this "
                    + "process, named <worker-id>-0, <worker-id>-1, ..., over one consumer and one copy of each "
                    + "job's model.")
    List<DeviceChoice> devices;

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "PyTorch threads for neural networks (default: all cores of this machine, as this "
                    + "process runs one agent).")
    Integer threads;

    @Option(
            names = "--data",
            paramLabel = "DATA",
            description = "Training data for neural networks, instead of the data set each job names: "
                    + "fashion-mnist, synthetic[:SEED], a directory of IDX files or a .csv file. It must have as "
                    + "many samples as the job's. Nothing is downloaded (default: the job's, found by name).")
    String data;

    @Option(
            names = "--gradient-encoding",
            paramLabel = "float32|float16|bfloat16",
            defaultValue = "float32",
            converter = GradientEncoding.class,
            description = "How neural-network gradients are sent: float32 (as computed), or float16 or bfloat16 "
                    + "(half the bytes, rounded to nearest) (default: ${DEFAULT-VALUE}). Quadratic-problem "
                    + "gradients are always float64.")
    TensorEncoding gradientEncoding;

    @Option(
            names = "--time-model",
            paramLabel = "MODEL",
            converter = OptionValues.TimeModel.class,
            completionCandidates = OptionValues.TimeModelNames.class,
            description = "Emulate worker --worker-index of this time model: ${COMPLETION-CANDIDATES} "
                    + "(linear: 29 j + Exp(29 j) ms). Default: natural speed.")
    String timeModel;

    @Option(
            names = "--scenario",
            paramLabel = "FILE",
            description = "Emulate this worker's schedule in a scenario file of 'ata simulate' (the worker whose "
                    + "name is --worker-id; times in ms): its distribution, and its changes after given rounds, "
                    + "so a live run follows the fleet the simulator runs. Not with --time-model.")
    Path scenario;

    @Option(
            names = "--worker-index",
            paramLabel = "J",
            description = "Which worker of --time-model to emulate, 1-based (slower as J grows in most models).")
    Integer workerIndex;

    @Option(
            names = "--time-scale",
            paramLabel = "S",
            description = "Factor on every emulated task time, e.g. 0.1 for ten times faster (default: 1).")
    Double timeScale;

    @Option(
            names = "--group-id",
            paramLabel = "GROUP",
            description = "Consumer group of the fleet on the tasks topic; every agent of the deployment must share "
                    + "it, or its tasks run twice (default: <topic-prefix>workers, e.g. ata.workers, the group "
                    + "of the agents 'ata demo' starts).")
    String groupId;

    @Option(
            names = "--heartbeat-interval",
            paramLabel = "TIME",
            defaultValue = "1s",
            converter = OptionValues.TimeSpan.class,
            description = "How often to tell the broker this worker is alive; keep it well under the broker's "
                    + "--liveness-timeout (default: ${DEFAULT-VALUE}).")
    Duration heartbeatInterval;

    @Option(
            names = "--stalled-job-wait",
            paramLabel = "TIME",
            defaultValue = "10m",
            converter = OptionValues.TimeSpan.class,
            description = "How long a task planned a round or two ahead waits while its job's model stays quiet (no "
                    + "version, no slice) before it is dead-lettered as the work of a stopped job, so it no longer "
                    + "holds back its partition's committed offset (default: ${DEFAULT-VALUE}).")
    Duration stalledJobWait;

    @Option(
            names = "--model-retention",
            paramLabel = "TIME",
            defaultValue = "24h",
            converter = OptionValues.TimeSpan.class,
            description = "How long a job's model is kept in memory while nothing of it is read; then it is dropped, "
                    + "and read again from the model topic if the job comes back. At least --stalled-job-wait "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration modelRetention;

    @Option(
            names = "--early-start",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "Start a round's tasks on its model version as soon as the trainer writes it, before its "
                    + "transaction commits, and publish their results once it has (computed again if another "
                    + "version committed instead): the commit's hop leaves the round's critical path (default: on; "
                    + "--no-early-start waits for the commit).")
    boolean earlyStart;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "0",
            description = "Base seed of the tasks' random streams and emulated times (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    OperationsOptions operations;

    @Mixin
    LogOptions logging;

    @Override
    int execute() {
        operations.check();
        PrometheusMeterRegistry meters = ProcessMetrics.newRegistry();
        AgentConfig config = config(meters);
        logging.apply();
        PrintWriter err = spec.commandLine().getErr();
        SchemaRegistryClient registry = kafka.requireRegistry();
        Topics topics = kafka.topics();
        kafka.requireTopics(
                List.of(
                        topics.tasks().name(),
                        topics.workers().name(),
                        topics.model().name(),
                        topics.gradients().name(),
                        topics.timings().name(),
                        topics.deadLetters().name()),
                "; start 'ata broker --create-topics' first");
        try (MeteredKafkaClients clients = new MeteredKafkaClients(meters)) {
            List<DeviceChoice> devices = devices();
            SupervisedAgent<? extends Agent> agent = devices.size() == 1
                    ? new SupervisedAgent<>(
                            config,
                            workerMeters -> new WorkerAgent(
                                    config, registry, clients, Clock.systemUTC(), workerMeters.of(config.workerId())),
                            Clock.systemUTC())
                    : new SupervisedAgent<>(
                            config,
                            workerMeters -> new MultiDeviceAgent(
                                    config, devices, registry, clients, Clock.systemUTC(), workerMeters::of),
                            Clock.systemUTC());
            try (StopSignal stop = StopSignal.install("worker");
                    OperationsEndpoints.Server ops = operations.serve(
                            ProcessMetrics.endpoints(
                                    meters,
                                    () -> new OperationsEndpoints.Probe(
                                            agent.isRunning(), "worker agent " + agent.workerId()),
                                    () -> clients.groupMember(config.groupId())),
                            err)) {
                return work(agent, config, stop, err);
            }
        }
    }

    /**
     * The fleet's consumer group: {@code --group-id}, else the topic prefix's agents' group
     * ({@link Topics#workerGroup()}, {@code <prefix>workers}), the one rule the embedded deployment
     * follows too.
     */
    String groupId() {
        if (groupId == null) {
            return kafka.topics().workerGroup();
        }
        requireNotEmpty("--group-id", groupId);
        return groupId;
    }

    /**
     * Runs the agent until stopped; it is closed before this returns (and before the JVM may exit).
     * An agent that lost its producer (its epoch, after a pause past its transaction timeout, say)
     * starts over with new clients ({@link SupervisedAgent}); any other stop ends the command.
     */
    private int work(SupervisedAgent<? extends Agent> agent, AgentConfig config, StopSignal stop, PrintWriter err) {
        try {
            agent.start();
            err.println("ata worker: " + config
                    + (devices().size() > 1
                            ? "; a worker per device: " + devices() + " as " + config.workerId() + "-0 to "
                                    + config.workerId() + "-" + (devices().size() - 1)
                            : ""));
            err.println("Press Ctrl-C to stop.");
            err.flush();
            while (!stop.await(Duration.ofMillis(500))) {
                if (!agent.isRunning()) {
                    throw new RunFailure("worker " + agent.workerId() + " stopped: "
                            + agent.failure().map(Throwable::toString).orElse("no reason given"));
                }
            }
            err.println("ata worker: stopping (finishing the running task)...");
            err.flush();
            agent.close();
            err.println("ata worker " + agent.workerId() + " stopped: " + agent.meters());
            err.flush();
            return 0;
        } finally {
            agent.close(Duration.ofSeconds(10));
        }
    }

    /** The devices of {@code --device}: one, or several named ones (auto names no single device). */
    List<DeviceChoice> devices() {
        if (devices.size() > 1 && devices.contains(DeviceChoice.AUTO)) {
            throw usageError("Invalid value for option '--device': name each device of a list (cpu, gpu:N), not auto");
        }
        return devices;
    }

    /** The agent's configuration from the options (package-private for tests: it connects to nothing). */
    AgentConfig config(PrometheusMeterRegistry meters) {
        AgentConfig.Builder b = AgentConfig.builder(kafka.bootstrapServers())
                .clientProperties(kafka.kafkaProperties())
                .topicPrefix(kafka.prefix())
                .device(devices().get(0))
                .gradientEncoding(gradientEncoding)
                .seed(seed)
                .meterRegistry(meters);
        if (workerId != null) {
            requireNotEmpty("--worker-id", workerId);
            b.workerId(workerId);
        }
        b.groupId(groupId());
        if (heartbeatInterval.toMillis() < 1) {
            throw usageError("Invalid value for option '--heartbeat-interval': at least 1ms");
        }
        b.heartbeatInterval(heartbeatInterval);
        if (stalledJobWait.toMillis() < 1) {
            throw usageError("Invalid value for option '--stalled-job-wait': at least 1ms");
        }
        b.stalledJobWait(stalledJobWait);
        if (modelRetention.compareTo(stalledJobWait) < 0) {
            throw usageError("Invalid value for option '--model-retention': at least --stalled-job-wait ("
                    + stalledJobWait + "), was " + modelRetention);
        }
        b.modelRetention(modelRetention);
        b.earlyStart(earlyStart);
        if (threads != null && threads < 1) {
            throw usageError("Invalid value for option '--threads': at least 1, was " + threads);
        }
        b.threads(threads != null ? threads : Runtime.getRuntime().availableProcessors());
        if (data != null) {
            b.data(trainingSet(data));
        }
        if (scenario != null) {
            return emulateScenarioWorker(b);
        }
        if (timeModel == null) {
            if (workerIndex != null || timeScale != null) {
                throw usageError("--worker-index and --time-scale apply to --time-model or --scenario only");
            }
            return b.build();
        }
        if (workerIndex == null) {
            throw usageError("--time-model needs --worker-index J: which of the model's workers to emulate");
        }
        if (workerIndex < 1) {
            throw usageError("Invalid value for option '--worker-index': 1-based, was " + workerIndex);
        }
        double scale = emulatedTimeScale();
        b.emulatedTimeModel(timeModel, workerIndex).timeScale(scale);
        double mean = TimeModels.byName(timeModel, workerIndex)[workerIndex - 1].mean() * scale;
        spec.commandLine()
                .getErr()
                .printf(
                        Locale.ROOT,
                        "ata worker: emulating worker %d of the %s model, mean task " + "time %.1f ms%n",
                        workerIndex,
                        timeModel,
                        mean);
        return b.build();
    }

    /** Emulates the worker of {@code --scenario} named by {@code --worker-id}, changes included. */
    private AgentConfig emulateScenarioWorker(AgentConfig.Builder b) {
        if (timeModel != null || workerIndex != null) {
            throw usageError("--scenario names the worker by --worker-id: leave out --time-model and --worker-index");
        }
        if (workerId == null) {
            throw usageError("--scenario needs --worker-id: which of the scenario's workers to emulate");
        }
        Scenario s;
        try {
            s = ScenarioFile.load(scenario);
        } catch (IllegalArgumentException | UncheckedIOException e) {
            throw usageError("Invalid value for option '--scenario': " + e.getMessage());
        }
        int index = s.workerNames().indexOf(workerId);
        if (index < 0) {
            throw usageError("--scenario " + scenario + " has no worker named '" + workerId + "' (it has "
                    + String.join(", ", s.workerNames()) + ")");
        }
        double scale = emulatedTimeScale();
        TimeSchedule schedule = s.schedules()[index];
        b.emulatedSchedule(schedule).timeScale(scale);
        spec.commandLine()
                .getErr()
                .printf(
                        Locale.ROOT,
                        "ata worker: emulating %s of %s: %s, in ms%s%n",
                        workerId,
                        scenario,
                        schedule.describe(),
                        s.timeUnit() == null || s.timeUnit().equals("ms")
                                ? ""
                                : " (the scenario's unit is '" + s.timeUnit() + "')");
        return b.build();
    }

    /** {@code --time-scale}, 1 if not given: a finite number > 0, for either way of emulating. */
    private double emulatedTimeScale() {
        double scale = timeScale == null ? 1.0 : timeScale;
        if (!(scale > 0) || Double.isInfinite(scale)) {
            throw usageError("Invalid value for option '--time-scale': must be a finite number > 0, was " + scale);
        }
        return scale;
    }

    /** The training set {@code --data} names, loaded now, so a bad value stops the worker before it joins. */
    private Dataset trainingSet(String value) {
        try {
            return DatasetResolver.standard().resolve(value).train();
        } catch (DatasetException e) {
            throw usageError("Invalid value for option '--data': " + e.getMessage());
        }
    }

    /** {@code --device auto|cpu|gpu|gpu:N}, ata-ml's parser (no PyTorch needed). */
    static final class Device extends OptionValues.ParsedBy<DeviceChoice> {
        Device() {
            super(DeviceChoice::parse);
        }
    }

    /** {@code --gradient-encoding float32|float16|bfloat16}, in any case. */
    static final class GradientEncoding implements ITypeConverter<TensorEncoding> {
        @Override
        public TensorEncoding convert(String text) {
            return switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "float32" -> TensorEncoding.FLOAT32_LE;
                case "float16" -> TensorEncoding.FLOAT16_LE;
                case "bfloat16" -> TensorEncoding.BFLOAT16_LE;
                default ->
                    throw new TypeConversionException(
                            "unknown gradient encoding '" + text + "'; known: float32, float16, bfloat16");
            };
        }
    }
}
