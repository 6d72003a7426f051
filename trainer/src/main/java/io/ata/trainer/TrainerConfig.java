package io.ata.trainer;

import io.ata.schemas.Topics;
import io.ata.schemas.kafka.ClientProperties;
import io.ata.workload.QuadraticProblem;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Everything a {@link Trainer} is started with. Build one with {@link #builder()}; only the
 * bootstrap servers, the job and the batch are required:
 * <pre>{@code
 * TrainerConfig config = TrainerConfig.builder()
 *         .bootstrapServers("localhost:9092")
 *         .job("quadratic")
 *         .batch(64)
 *         .policy("ata")
 *         .maxRounds(1000)
 *         .build();
 * }</pre>
 *
 * <p>Defaults: topic prefix {@code ata.}, no policy (the broker's default), seed 0, no round
 * limit, consumer group and transactional id {@code ata-trainer-<job>}, the paper's quadratic
 * problem trained by SGD with step {@code 1e-4}, the system clock, a meter registry of its own.
 */
public final class TrainerConfig {
    private final String bootstrapServers;
    private final ClientProperties clientProperties;
    private final String topicPrefix;
    private final TrainingJob trainingJob;
    private final String groupId;
    private final String transactionalId;
    private final RoundListener listener;
    private final Clock clock;
    private final MeterRegistry meterRegistry;
    private final Duration pollTimeout;
    private final Duration startupTimeout;

    private TrainerConfig(Builder b) {
        if (b.bootstrapServers == null || b.bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrapServers is required");
        }
        if (b.job == null || b.job.isBlank()) {
            throw new IllegalArgumentException("job is required");
        }
        if (b.batch < 1) {
            throw new IllegalArgumentException("batch is required and must be >= 1, was " + b.batch);
        }
        new Topics(b.topicPrefix); // rejects prefixes Kafka would refuse
        requirePositive(b.pollTimeout, "pollTimeout");
        requirePositive(b.startupTimeout, "startupTimeout");
        this.bootstrapServers = b.bootstrapServers;
        this.clientProperties = b.clientProperties.build();
        this.topicPrefix = b.topicPrefix;
        this.trainingJob = new TrainingJob(
                b.job,
                b.batch,
                b.policy,
                b.seed,
                b.maxRounds,
                b.objective != null ? b.objective : QuadraticObjective.paper(),
                b.optimizer != null ? b.optimizer : new SgdOptimizer(QuadraticProblem.DEFAULT_STEP));
        this.groupId = b.groupId != null ? b.groupId : defaultName(b.job);
        this.transactionalId = b.transactionalId != null ? b.transactionalId : defaultName(b.job);
        this.listener = b.listener;
        this.clock = b.clock;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
        this.pollTimeout = b.pollTimeout;
        this.startupTimeout = b.startupTimeout;
    }

    private static String defaultName(String job) {
        return "ata-trainer-" + job;
    }

    private static void requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code bootstrap.servers} of the Kafka cluster. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * Extra client properties given to every Kafka client of the trainer (security settings such
     * as {@code security.protocol}, {@code sasl.jaas.config}, timeouts). The settings exactly-once
     * depends on cannot be overridden here: bootstrap servers, transactional id, idempotence,
     * {@code acks=all}, group id, {@code isolation.level=read_committed}, no auto commit,
     * {@code auto.offset.reset=earliest}, (de)serializers.
     */
    public Map<String, Object> clientProperties() {
        return clientProperties.asMap();
    }

    /**
     * The start of every trainer client's configuration: the user's {@link #clientProperties()},
     * then the bootstrap servers (a new, modifiable map; the trainer adds its fixed settings).
     */
    Map<String, Object> clientConfig() {
        return clientProperties.forClient(bootstrapServers());
    }

    public String topicPrefix() {
        return topicPrefix;
    }

    /** The topics, named with {@link #topicPrefix()}. */
    Topics topics() {
        return new Topics(topicPrefix);
    }

    /** The job, batch, policy, seed, round limit, model and optimizer. */
    public TrainingJob trainingJob() {
        return trainingJob;
    }

    public String job() {
        return trainingJob.job();
    }

    public int batch() {
        return trainingJob.batch();
    }

    /** The consumer group on {@code gradients}, whose committed offsets mark where the last closed round ended. */
    public String groupId() {
        return groupId;
    }

    /** The producer's {@code transactional.id}: a restarted trainer with the same id fences the old one. */
    public String transactionalId() {
        return transactionalId;
    }

    public RoundListener listener() {
        return listener;
    }

    public Clock clock() {
        return clock;
    }

    /** Where the trainer's meters go ({@link TrainerMetrics}), tagged with its job. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** How long one poll of {@code gradients} waits for records. */
    public Duration pollTimeout() {
        return pollTimeout;
    }

    /** How long reading the latest model version may take at start. */
    public Duration startupTimeout() {
        return startupTimeout;
    }

    /** Builds a {@link TrainerConfig}. */
    public static final class Builder {
        private String bootstrapServers;
        private final ClientProperties.Builder clientProperties = ClientProperties.builder();
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private String job;
        private int batch;
        private String policy = "";
        private long seed;
        private long maxRounds = Long.MAX_VALUE;
        private String groupId;
        private String transactionalId;
        private RoundListener listener = RoundListener.NONE;
        private Objective objective;
        private Optimizer optimizer;
        private Clock clock = Clock.systemUTC();
        private MeterRegistry meterRegistry;
        private Duration pollTimeout = Duration.ofMillis(100);
        private Duration startupTimeout = Duration.ofSeconds(60);

        private Builder() {}

        /** Required: {@code bootstrap.servers}. */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
            return this;
        }

        /** Adds client properties (security, timeouts), see {@link TrainerConfig#clientProperties()}. */
        public Builder clientProperties(Map<String, ?> properties) {
            clientProperties.putAll(properties);
            return this;
        }

        /**
         * Adds one client property, see {@link TrainerConfig#clientProperties()}.
         *
         * @throws IllegalArgumentException if {@code name} is blank
         */
        public Builder clientProperty(String name, Object value) {
            clientProperties.put(name, value);
            return this;
        }

        /** Prefix of every topic name; default {@code ata.}. */
        public Builder topicPrefix(String topicPrefix) {
            this.topicPrefix = Objects.requireNonNull(topicPrefix, "topicPrefix");
            return this;
        }

        /** Required: the job name. */
        public Builder job(String job) {
            this.job = job;
            return this;
        }

        /** Required: B, the results each round needs. */
        public Builder batch(int batch) {
            this.batch = batch;
            return this;
        }

        /** The allocation policy, sent in the OPENED event of round 1; default: the broker's. */
        public Builder policy(String policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** Seed of the policy's tie-breaking, sent in the OPENED event of round 1; default 0. */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** The job ends when this round closes; default: never. */
        public Builder maxRounds(long maxRounds) {
            this.maxRounds = maxRounds;
            return this;
        }

        /** The consumer group on {@code gradients}; default {@code ata-trainer-<job>}. */
        public Builder groupId(String groupId) {
            this.groupId = Objects.requireNonNull(groupId, "groupId");
            return this;
        }

        /** The producer's transactional id; default {@code ata-trainer-<job>}. */
        public Builder transactionalId(String transactionalId) {
            this.transactionalId = Objects.requireNonNull(transactionalId, "transactionalId");
            return this;
        }

        /** Told about every closed round; default: nobody. */
        public Builder listener(RoundListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** The model; default the paper's quadratic problem. */
        public Builder objective(Objective objective) {
            this.objective = Objects.requireNonNull(objective, "objective");
            return this;
        }

        /** The update rule; default SGD with step {@code 1e-4}. */
        public Builder optimizer(Optimizer optimizer) {
            this.optimizer = Objects.requireNonNull(optimizer, "optimizer");
            return this;
        }

        /** The wall clock of round times and record timestamps; default the system clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where the trainer's meters go; default a {@link SimpleMeterRegistry} of its own. A process
         * that runs several parts gives them all one registry: the meters' tags tell them apart.
         */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** How long one poll waits; default 100 ms. */
        public Builder pollTimeout(Duration pollTimeout) {
            this.pollTimeout = pollTimeout;
            return this;
        }

        /** How long reading the latest model version may take at start; default 60 s. */
        public Builder startupTimeout(Duration startupTimeout) {
            this.startupTimeout = startupTimeout;
            return this;
        }

        /**
         * @throws IllegalArgumentException if a required setting is missing or a value is out of range
         */
        public TrainerConfig build() {
            return new TrainerConfig(this);
        }
    }
}
