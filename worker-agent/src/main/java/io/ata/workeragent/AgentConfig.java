package io.ata.workeragent;

import io.ata.ml.data.Dataset;
import io.ata.ml.djl.DeviceChoice;
import io.ata.platform.kafka.ClientProperties;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.Topics;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

/**
 * Everything a {@link WorkerAgent} is configured with. Immutable; build one with
 * {@link #builder(String)}:
 * <pre>
 *   AgentConfig config = AgentConfig.builder("localhost:9092")
 *       .workerId("w3")
 *       .emulatedTimeModel("linear", 3)      // behave like worker 3 of the paper's linear model
 *       .timeScale(0.1)                      // ... ten times faster
 *       .build();
 * </pre>
 * This is also the options object behind {@code ata worker}.
 *
 * <p>Neural networks (model versions with a {@code TaskSpec}) are computed with DJL on
 * {@link #device()} with {@link #threads()} PyTorch threads; none of these settings loads DJL, which
 * happens only when the first such model arrives.
 */
public final class AgentConfig {

    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    /**
     * How long an assignment waits for the model version it names before it is dead-lettered
     * (longer while the version's slices arrive): of the order of a slow round, so that an
     * assignment of a job without a model holds the agent briefly, not for good.
     */
    public static final Duration DEFAULT_MODEL_WAIT = Duration.ofSeconds(5);
    /**
     * How long an assignment planned a round or two ahead waits while its job's model is quiet
     * before it is dead-lettered as the work of a stopped job: far longer than a round, so a live
     * job's is given up only if its round takes longer than this with no model record in between
     * (the trainer's backup tasks then cover it), and short enough that a stopped job's does not
     * hold its partition's committed offset for good.
     */
    public static final Duration DEFAULT_STALLED_JOB_WAIT = Duration.ofMinutes(10);
    /**
     * How long a job's model is kept while nothing of it is read ({@link ModelCache#DEFAULT_RETENTION}):
     * then it is forgotten, and read again if the job comes back.
     */
    public static final Duration DEFAULT_MODEL_RETENTION = ModelCache.DEFAULT_RETENTION;
    /** The pause before an assignment that failed on a transient error is run again. */
    public static final Duration DEFAULT_RETRY_BACKOFF = Duration.ofSeconds(1);
    /**
     * PyTorch threads unless configured: one, because several agents often share a JVM (the demo,
     * {@code LocalDeployment}, the tests) and PyTorch's threads are per process, so one thread per
     * agent keeps them from fighting over the cores. {@code ata worker}, one agent per process,
     * defaults to all cores instead.
     */
    public static final int DEFAULT_THREADS = 1;
    /** How neural-network gradients are encoded unless configured: exactly, as computed. */
    public static final TensorEncoding DEFAULT_GRADIENT_ENCODING = TensorEncoding.FLOAT32_LE;
    /** The encodings a network's (float32) gradient may be sent in. */
    public static final Set<TensorEncoding> GRADIENT_ENCODINGS =
            Set.of(TensorEncoding.FLOAT32_LE, TensorEncoding.FLOAT16_LE, TensorEncoding.BFLOAT16_LE);

    private final String bootstrapServers;
    private final ClientProperties clientProperties;
    private final String topicPrefix;
    private final String workerId;
    private final String host;
    private final DeviceChoice device;
    private final int threads;
    private final Dataset data;
    private final TensorEncoding gradientEncoding;
    private final String groupId;
    private final Duration heartbeatInterval;
    private final TaskTimeDistribution emulatedTime;
    private final TimeSchedule emulatedSchedule;
    private final double timeScale;
    private final Workload workload;
    private final long seed;
    private final Duration modelWait;
    private final Duration stalledJobWait;
    private final Duration modelRetention;
    private final boolean earlyStart;
    private final Duration retryBackoff;
    private final AssignmentListener assignmentListener;
    private final MeterRegistry meterRegistry;

    private AgentConfig(Builder b) {
        this.bootstrapServers = b.bootstrapServers;
        this.clientProperties = b.clientProperties.build();
        this.topicPrefix = b.topicPrefix;
        this.host = b.host != null ? b.host : localHostName();
        this.workerId = b.workerId != null
                ? b.workerId
                : this.host + "-" + ProcessHandle.current().pid();
        this.device = b.device;
        this.threads = b.threads;
        this.data = b.data;
        this.gradientEncoding = b.gradientEncoding;
        this.groupId = b.groupId != null ? b.groupId : new Topics(b.topicPrefix).workerGroup();
        this.heartbeatInterval = b.heartbeatInterval;
        this.emulatedTime = b.emulatedTime;
        this.emulatedSchedule = b.emulatedSchedule;
        this.timeScale = b.timeScale;
        this.workload = b.workload;
        this.seed = b.seed;
        this.modelWait = b.modelWait;
        this.stalledJobWait = b.stalledJobWait;
        this.modelRetention = b.modelRetention;
        this.earlyStart = b.earlyStart;
        this.retryBackoff = b.retryBackoff;
        this.assignmentListener = b.assignmentListener;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
    }

    /** This configuration for another worker: {@code workerId} computing on {@code device}, all else the same. */
    public AgentConfig forWorker(String workerId, DeviceChoice device) {
        return new AgentConfig(this, workerId, device);
    }

    private AgentConfig(AgentConfig base, String workerId, DeviceChoice device) {
        this.bootstrapServers = base.bootstrapServers;
        this.clientProperties = base.clientProperties;
        this.topicPrefix = base.topicPrefix;
        this.host = base.host;
        this.workerId = Builder.requireText(workerId, "worker id");
        this.device = Objects.requireNonNull(device, "device");
        this.threads = base.threads;
        this.data = base.data;
        this.gradientEncoding = base.gradientEncoding;
        this.groupId = base.groupId;
        this.heartbeatInterval = base.heartbeatInterval;
        this.emulatedTime = base.emulatedTime;
        this.emulatedSchedule = base.emulatedSchedule;
        this.timeScale = base.timeScale;
        this.workload = base.workload;
        this.seed = base.seed;
        this.modelWait = base.modelWait;
        this.stalledJobWait = base.stalledJobWait;
        this.modelRetention = base.modelRetention;
        this.earlyStart = base.earlyStart;
        this.retryBackoff = base.retryBackoff;
        this.assignmentListener = base.assignmentListener;
        this.meterRegistry = base.meterRegistry;
    }

    /** A builder for an agent of the cluster at {@code bootstrapServers} ({@code host:port,...}). */
    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    /** Kafka's {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Extra Kafka client properties given to every client of the agent, e.g. {@code security.protocol},
     * {@code sasl.*}, {@code ssl.*}, {@code session.timeout.ms}. The settings the agent's
     * correctness rests on (isolation level, auto commit, transactional id, ...) override them.
     */
    public Map<String, Object> clientProperties() {
        return clientProperties.asMap();
    }

    /**
     * The configuration of one of the agent's clients: the user's {@link #clientProperties()}, then
     * the bootstrap servers, then {@code fixed}, which override both (see {@link AgentClients}).
     */
    Map<String, Object> clientConfig(Map<String, ?> fixed) {
        return clientProperties.forClient(bootstrapServers, fixed);
    }

    /** Prefix of every topic name, default {@value Topics#DEFAULT_PREFIX}. */
    public String topicPrefix() {
        return topicPrefix;
    }

    /** This agent's id in heartbeats, results and timings; default {@code hostname-pid}. */
    public String workerId() {
        return workerId;
    }

    /** This machine's name, reported in heartbeats. */
    public String host() {
        return host;
    }

    /** Where neural networks are computed: auto (a GPU if PyTorch sees one, else the CPU), cpu, gpu:N. */
    public DeviceChoice device() {
        return device;
    }

    /**
     * PyTorch's threads for neural networks (intra- and inter-op), default {@value #DEFAULT_THREADS}.
     * They are per process: agents sharing a JVM should agree on them (the first agent to load DJL
     * fixes the inter-op count).
     */
    public int threads() {
        return threads;
    }

    /**
     * The training set for every model with a TaskSpec, if given (the command line's {@code --data});
     * otherwise each TaskSpec's {@code dataset} is resolved by name. Either way its size must be
     * the TaskSpec's {@code dataset_size}.
     */
    public Optional<Dataset> data() {
        return Optional.ofNullable(data);
    }

    /** How neural-network gradients are encoded; the quadratic problem's are always FLOAT64_LE. */
    public TensorEncoding gradientEncoding() {
        return gradientEncoding;
    }

    /**
     * The consumer group on the tasks topic, by default the topic prefix's
     * {@linkplain Topics#workerGroup() agents' group}, {@code <prefix>workers}.
     */
    public String groupId() {
        return groupId;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    /** The task time model (milliseconds) tasks are stretched to, if emulating heterogeneity. */
    public Optional<TaskTimeDistribution> emulatedTime() {
        return Optional.ofNullable(emulatedTime);
    }

    /**
     * The task times (milliseconds) by round tasks are stretched to, if emulating: the schedule
     * given, else the one distribution of {@link #emulatedTime()} for every round.
     */
    public Optional<TimeSchedule> emulatedSchedule() {
        if (emulatedSchedule != null) {
            return Optional.of(emulatedSchedule);
        }
        return emulatedTime().map(TimeSchedule::constant);
    }

    /** Factor on every emulated duration (1 = as drawn). */
    public double timeScale() {
        return timeScale;
    }

    /**
     * A workload that replaces the agent's own, if given. The agent's own computes the quadratic
     * problem for models without a TaskSpec and a network's gradient for models with one.
     */
    public Optional<Workload> workload() {
        return Optional.ofNullable(workload);
    }

    /** Base seed of the tasks' random streams and of the emulated durations. */
    public long seed() {
        return seed;
    }

    public AssignmentListener assignmentListener() {
        return assignmentListener;
    }

    /** How long an assignment waits for the model version it names. */
    public Duration modelWait() {
        return modelWait;
    }

    /** How long an assignment planned ahead waits while its job's model is quiet ({@link AssignmentRunner#stalled}). */
    public Duration stalledJobWait() {
        return stalledJobWait;
    }

    /** How long a job's model is kept while nothing of it is read ({@link ModelCache#setRetention}). */
    public Duration modelRetention() {
        return modelRetention;
    }

    /**
     * Whether a round's tasks start on their model version as soon as its record is written, before
     * the trainer's transaction commits it, their results held until it does ({@link EarlyStart});
     * on by default.
     */
    public boolean earlyStart() {
        return earlyStart;
    }

    /** The pause before an assignment that failed on a transient error is run again. */
    public Duration retryBackoff() {
        return retryBackoff;
    }

    /** Where the agent's meters go ({@link AgentMetrics}), tagged with its worker id. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    @Override
    public String toString() {
        return "worker " + workerId + " on " + bootstrapServers + " (group " + groupId + ", topics " + topicPrefix
                + "*, " + (workload != null ? workload.describe() : networksText()) + ", time "
                + emulatedSchedule().map(t -> t.describe() + " x " + timeScale).orElse("natural") + ")";
    }

    /** The agent's own workload, as configured. */
    private String networksText() {
        return "quadratic or networks on " + device + " with " + threads + " thread(s), " + gradientEncoding
                + " gradients" + (data != null ? ", data " + data.name() : "");
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String env = System.getenv("HOSTNAME");
            return env != null && !env.isBlank() ? env : "localhost";
        }
    }

    /** Builds an {@link AgentConfig}; every setting but the bootstrap servers has a default. */
    public static final class Builder {
        private final String bootstrapServers;
        private final ClientProperties.Builder clientProperties = ClientProperties.builder();
        private AssignmentListener assignmentListener = AssignmentListener.NONE;
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private String workerId;
        private String host;
        private DeviceChoice device = DeviceChoice.AUTO;
        private int threads = DEFAULT_THREADS;
        private Dataset data;
        private TensorEncoding gradientEncoding = DEFAULT_GRADIENT_ENCODING;
        /** Null: the prefix's agents' group, {@link Topics#workerGroup()}. */
        private String groupId;

        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private TaskTimeDistribution emulatedTime;
        private TimeSchedule emulatedSchedule;
        private double timeScale = 1.0;
        private Workload workload;
        private long seed;
        private Duration modelWait = DEFAULT_MODEL_WAIT;
        private Duration stalledJobWait = DEFAULT_STALLED_JOB_WAIT;
        private Duration modelRetention = DEFAULT_MODEL_RETENTION;
        private boolean earlyStart = true;
        private Duration retryBackoff = DEFAULT_RETRY_BACKOFF;
        private MeterRegistry meterRegistry;

        private Builder(String bootstrapServers) {
            this.bootstrapServers = requireText(bootstrapServers, "bootstrap servers");
        }

        /** Adds Kafka client properties (see {@link AgentConfig#clientProperties()}). */
        public Builder clientProperties(Map<String, ?> properties) {
            clientProperties.putAll(properties);
            return this;
        }

        /** Adds Kafka client properties, e.g. loaded from a {@code client.properties} file. */
        public Builder clientProperties(Properties properties) {
            clientProperties.putAll(properties);
            return this;
        }

        /**
         * Adds one Kafka client property.
         *
         * @throws IllegalArgumentException if {@code name} is blank
         */
        public Builder clientProperty(String name, Object value) {
            clientProperties.put(name, value);
            return this;
        }

        public Builder topicPrefix(String prefix) {
            new Topics(prefix); // validates
            this.topicPrefix = prefix;
            return this;
        }

        /**
         * This agent's id; must be unique in the fleet (it is also the suffix of the transactional
         * id, {@code <prefix>agent-<worker id>}, {@link Topics#agentTransactionalId(String)}).
         */
        public Builder workerId(String workerId) {
            this.workerId = requireText(workerId, "worker id");
            return this;
        }

        public Builder host(String host) {
            this.host = requireText(host, "host");
            return this;
        }

        /** Where neural networks are computed (see {@link AgentConfig#device()}); default auto. */
        public Builder device(DeviceChoice device) {
            this.device = Objects.requireNonNull(device, "device");
            return this;
        }

        /** PyTorch's threads (see {@link AgentConfig#threads()}); default {@value AgentConfig#DEFAULT_THREADS}. */
        public Builder threads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("threads must be at least 1, was " + threads);
            }
            this.threads = threads;
            return this;
        }

        /** The training set for every model with a TaskSpec (see {@link AgentConfig#data()}); null: by name. */
        public Builder data(Dataset trainingSet) {
            this.data = trainingSet;
            return this;
        }

        /** How neural-network gradients are encoded: FLOAT32_LE (default), FLOAT16_LE or BFLOAT16_LE. */
        public Builder gradientEncoding(TensorEncoding encoding) {
            if (encoding == null || !GRADIENT_ENCODINGS.contains(encoding)) {
                throw new IllegalArgumentException("gradient encoding " + encoding
                        + " is not one of FLOAT32_LE, FLOAT16_LE, BFLOAT16_LE (networks compute in float32)");
            }
            this.gradientEncoding = encoding;
            return this;
        }

        /**
         * The fleet's consumer group on the tasks topic, instead of {@code <prefix>workers}
         * ({@link Topics#workerGroup()}); every agent of the deployment must use the same.
         */
        public Builder groupId(String groupId) {
            this.groupId = requireText(groupId, "group id");
            return this;
        }

        public Builder heartbeatInterval(Duration interval) {
            if (interval.isNegative() || interval.isZero() || interval.toMillis() == 0) {
                throw new IllegalArgumentException("heartbeat interval must be at least 1 ms, was " + interval);
            }
            this.heartbeatInterval = interval;
            return this;
        }

        /** Stretches every task to a duration drawn from {@code time} (milliseconds); null: natural speed. */
        public Builder emulatedTime(TaskTimeDistribution time) {
            this.emulatedTime = time;
            return this;
        }

        /**
         * Stretches every task to a duration drawn from the distribution {@code schedule} gives the
         * task's round (milliseconds), e.g. 10 times slower after round 50; it takes precedence
         * over {@link #emulatedTime}. Null: none.
         */
        public Builder emulatedSchedule(TimeSchedule schedule) {
            this.emulatedSchedule = schedule;
            return this;
        }

        /**
         * Behaves like worker {@code workerIndex} (1-based) of one of the paper's time models
         * ({@link TimeModels#NAMES}: linear, log, sqrt, quadratic, gamma, mixture).
         */
        public Builder emulatedTimeModel(String model, int workerIndex) {
            if (workerIndex < 1) {
                throw new IllegalArgumentException("worker index is 1-based, was " + workerIndex);
            }
            // worker j's distribution does not depend on the fleet size, so j workers suffice
            this.emulatedTime = TimeModels.byName(model, workerIndex)[workerIndex - 1];
            return this;
        }

        /** Factor on every emulated duration, e.g. 0.1 for ten times faster; default 1. */
        public Builder timeScale(double scale) {
            if (!(scale >= 0) || Double.isInfinite(scale)) {
                throw new IllegalArgumentException("time scale must be finite and >= 0, was " + scale);
            }
            this.timeScale = scale;
            return this;
        }

        /**
         * Replaces what tasks compute; by default the quadratic problem (the paper's, d = 100) for
         * models without a TaskSpec and the TaskSpec's network for models with one.
         */
        public Builder workload(Workload workload) {
            this.workload = Objects.requireNonNull(workload, "workload");
            return this;
        }

        /** Base seed (default 0); agents of one deployment should share it, so re-runs agree. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        public Builder modelWait(Duration wait) {
            if (wait.isNegative()) {
                throw new IllegalArgumentException("model wait must be >= 0, was " + wait);
            }
            this.modelWait = wait;
            return this;
        }

        /** See {@link #DEFAULT_STALLED_JOB_WAIT}; must be positive. */
        public Builder stalledJobWait(Duration wait) {
            if (wait.isNegative() || wait.isZero()) {
                throw new IllegalArgumentException("stalled job wait must be > 0, was " + wait);
            }
            this.stalledJobWait = wait;
            return this;
        }

        /** See {@link #DEFAULT_MODEL_RETENTION}; at least the stalled-job wait (checked by {@link #build}). */
        public Builder modelRetention(Duration retention) {
            this.modelRetention = Objects.requireNonNull(retention, "retention");
            return this;
        }

        /** See {@link AgentConfig#earlyStart()}. */
        public Builder earlyStart(boolean on) {
            this.earlyStart = on;
            return this;
        }

        public Builder retryBackoff(Duration backoff) {
            if (backoff.isNegative()) {
                throw new IllegalArgumentException("retry backoff must be >= 0, was " + backoff);
            }
            this.retryBackoff = backoff;
            return this;
        }

        /** Told of every valid assignment on arrival (for benchmarks); default none. */
        public Builder assignmentListener(AssignmentListener listener) {
            this.assignmentListener = java.util.Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Where the agent's meters go; default a {@link SimpleMeterRegistry} of its own. A process
         * that runs several parts gives them all one registry: the meters' tags tell them apart.
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /**
         * @throws IllegalArgumentException if the model retention is shorter than the stalled-job
         *     wait: a round planned ahead must be given up before its job's model is forgotten
         */
        public AgentConfig build() {
            if (modelRetention.compareTo(stalledJobWait) < 0) {
                throw new IllegalArgumentException("the model retention (" + modelRetention
                        + ") must be at least the stalled-job wait (" + stalledJobWait + ")");
            }
            return new AgentConfig(this);
        }

        private static String requireText(String value, String what) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank");
            }
            return value;
        }
    }
}
