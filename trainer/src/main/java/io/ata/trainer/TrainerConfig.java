package io.ata.trainer;

import io.ata.platform.kafka.ClientProperties;
import io.ata.schemas.JobNames;
import io.ata.schemas.Topics;
import io.ata.schemas.chunk.Chunks;
import io.ata.workloads.TaskSeed;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
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
 * <p>A neural network instead of the quadratic problem, with Adam:
 * <pre>{@code
 *         .model("mlp")              // or cnn, or mlp:4096,2048 (NetworkSpec's text)
 *         .data("fashion-mnist")     // or synthetic, a directory of IDX files, a .csv file
 *         .samplesPerTask(32)
 *         .optimizer("adam")
 *         .learningRate(1e-3)
 *         .evalEvery(25)
 * }</pre>
 *
 * <p>Defaults: topic prefix {@code ata.}, no policy (the broker's default), a seed from the job's
 * name ({@link #seedOf(String)}), no round
 * limit, consumer group and transactional id {@code <prefix>trainer-<job>}
 * ({@link Topics#trainerName(String)}, e.g. {@code ata.trainer-quadratic}), the paper's quadratic
 * problem trained by SGD with learning rate {@code 1e-4} ({@link SgdOptimizer#DEFAULT_LEARNING_RATE_QUADRATIC};
 * for a network {@code 0.01} with SGD, and {@code 1e-3} with Adam on either), the mean of the B
 * gradients, 32 samples per task in micro-batches of 16, sample seed 0, an evaluation every 25
 * versions with one thread, slices of {@link Chunks#DEFAULT_CHUNK_BYTES}, the system clock, a
 * meter registry of its own.
 */
public final class TrainerConfig {
    public static final String SGD = SgdOptimizer.DEFINITION.name();
    public static final String ADAM = AdamOptimizer.DEFINITION.name();
    public static final int DEFAULT_SAMPLES_PER_TASK = 32;
    public static final int DEFAULT_MICRO_BATCH = 16;
    public static final long DEFAULT_EVAL_EVERY = 25;

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
    private final long evalEvery;
    private final int evalThreads;
    private final int chunkBytes;

    private TrainerConfig(Builder b) {
        if (b.bootstrapServers == null || b.bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrapServers is required");
        }
        if (b.job == null || b.job.isBlank()) {
            throw new IllegalArgumentException("job is required");
        }
        String jobNameProblem = JobNames.problem(b.job);
        if (jobNameProblem != null) {
            throw new IllegalArgumentException(jobNameProblem);
        }
        if (b.batch < 1) {
            throw new IllegalArgumentException("batch is required and must be >= 1, was " + b.batch);
        }
        new Topics(b.topicPrefix); // rejects prefixes Kafka would refuse
        requirePositive(b.pollTimeout, "pollTimeout");
        requirePositive(b.startupTimeout, "startupTimeout");
        if (b.evalEvery < 0) {
            throw new IllegalArgumentException("evalEvery must be >= 0 (0: never), was " + b.evalEvery);
        }
        Bounds.atLeast(b.evalThreads, 1, "evalThreads");
        Bounds.atLeast(b.chunkBytes, 1, "chunkBytes");
        Model model = modelOf(b);
        this.bootstrapServers = b.bootstrapServers;
        this.clientProperties = b.clientProperties.build();
        this.topicPrefix = b.topicPrefix;
        this.trainingJob = new TrainingJob(
                b.job,
                b.batch,
                b.policy,
                b.seed != null ? b.seed : seedOf(b.job),
                b.maxRounds,
                model,
                optimizerOf(b, model),
                b.aggregator,
                b.normBound);
        String name = new Topics(b.topicPrefix).trainerName(b.job);
        this.groupId = b.groupId != null ? b.groupId : name;
        this.transactionalId = b.transactionalId != null ? b.transactionalId : name;
        this.listener = b.listener;
        this.clock = b.clock;
        this.meterRegistry = b.meterRegistry != null ? b.meterRegistry : new SimpleMeterRegistry();
        this.pollTimeout = b.pollTimeout;
        this.startupTimeout = b.startupTimeout;
        this.evalEvery = b.evalEvery;
        this.evalThreads = b.evalThreads;
        this.chunkBytes = b.chunkBytes;
    }

    /** The model given, or the one named (the quadratic problem by default). */
    private static Model modelOf(Builder b) {
        boolean named = b.modelName != null || b.data != null;
        if (b.model != null) {
            if (named) {
                throw new IllegalArgumentException(
                        "give either a Model (or Objective) or a model name and data, not both");
            }
            return b.model;
        }
        return Models.of(
                b.modelName == null ? Models.QUADRATIC : b.modelName,
                b.data,
                b.samplesPerTask,
                b.microBatch,
                b.sampleSeed);
    }

    /** The optimizer given, or the one described by the settings (SGD by default). */
    private static Optimizer optimizerOf(Builder b, Model model) {
        OptimizerSettings settings = new OptimizerSettings(
                b.learningRate, b.momentum, b.weightDecay, b.beta1, b.beta2, b.epsilon, model instanceof NetworkModel);
        boolean configured = b.optimizerName != null || settings.anyGiven();
        if (b.optimizer != null) {
            if (configured) {
                throw new IllegalArgumentException(
                        "give either an Optimizer or the optimizer's name and settings, not both");
            }
            return b.optimizer;
        }
        return TrainerRules.optimizers()
                .find(b.optimizerName == null ? SGD : b.optimizerName)
                .create(settings);
    }

    private static void requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }

    /**
     * The seed a job gets unless given one: from its name ({@link TaskSeed}'s stable 64-bit hash),
     * so that jobs break ties apart. With one seed for all, every job of {@code B} below the fleet
     * gave its remainder (with {@code B} = 1, its only task) to the same workers in the same round:
     * 100 jobs started together sent all their first tasks to one agent, and each waited its turn
     * there.
     */
    public static long seedOf(String job) {
        return TaskSeed.of(0, job);
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

    /** The job, batch, policy, seed, round limit, model, optimizer and aggregator. */
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

    /**
     * Model versions scored on the test set: every {@code evalEvery}-th (version 0 included) and
     * the job's last; 0: none.
     */
    public long evalEvery() {
        return evalEvery;
    }

    /** Compute threads of the evaluation (PyTorch's, for a network). */
    public int evalThreads() {
        return evalThreads;
    }

    /** The largest payload of one record of a model version or an optimizer state; larger ones are sliced. */
    public int chunkBytes() {
        return chunkBytes;
    }

    /** Builds a {@link TrainerConfig}. */
    public static final class Builder {
        private String bootstrapServers;
        private final ClientProperties.Builder clientProperties = ClientProperties.builder();
        private String topicPrefix = Topics.DEFAULT_PREFIX;
        private String job;
        private int batch;
        private String policy = "";
        private Long seed;
        private long maxRounds = Long.MAX_VALUE;
        private String groupId;
        private String transactionalId;
        private RoundListener listener = RoundListener.NONE;
        private Model model;
        private String modelName;
        private String data;
        private int samplesPerTask = DEFAULT_SAMPLES_PER_TASK;
        private int microBatch = DEFAULT_MICRO_BATCH;
        private long sampleSeed;
        private Optimizer optimizer;
        private String optimizerName;
        private Double learningRate;
        private Double momentum;
        private Double weightDecay;
        private Double beta1;
        private Double beta2;
        private Double epsilon;
        private Aggregator aggregator = MeanAggregator.INSTANCE;
        private NormBound normBound = NormBound.DEFAULT;
        private long evalEvery = DEFAULT_EVAL_EVERY;
        private int evalThreads = 1;
        private int chunkBytes = Chunks.DEFAULT_CHUNK_BYTES;
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

        /**
         * Seed of the policy's tie-breaking, sent in the OPENED event of round 1; default: {@link
         * #seedOf} the job's name.
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /** The job ends when this round closes; default: never. */
        public Builder maxRounds(long maxRounds) {
            this.maxRounds = maxRounds;
            return this;
        }

        /**
         * The consumer group on {@code gradients}; default the topic prefix's
         * {@link Topics#trainerName(String) trainerName(job)}, {@code <prefix>trainer-<job>}.
         */
        public Builder groupId(String groupId) {
            this.groupId = Objects.requireNonNull(groupId, "groupId");
            return this;
        }

        /**
         * The producer's transactional id; default the topic prefix's
         * {@link Topics#trainerName(String) trainerName(job)}, {@code <prefix>trainer-<job>}.
         */
        public Builder transactionalId(String transactionalId) {
            this.transactionalId = Objects.requireNonNull(transactionalId, "transactionalId");
            return this;
        }

        /** Told about every closed round; default: nobody. */
        public Builder listener(RoundListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** A float64 test problem as the model ({@link ObjectiveModel}); default the paper's quadratic problem. */
        public Builder objective(Objective objective) {
            this.model = new ObjectiveModel(Objects.requireNonNull(objective, "objective"));
            return this;
        }

        /** The model itself; instead of {@link #model(String)} and {@link #data(String)}. */
        public Builder model(Model model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /**
         * The model by name ({@link Models}): {@code quadratic} (the default), or a network in
         * NetworkSpec's text ({@code mlp}, {@code cnn}, {@code mlp:4096,2048}, ...), which needs
         * {@link #data(String)}.
         */
        public Builder model(String name) {
            this.modelName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** A network's data set: {@code fashion-mnist}, {@code synthetic[:SEED]}, a directory of IDX files or a .csv file. */
        public Builder data(String data) {
            this.data = Objects.requireNonNull(data, "data");
            return this;
        }

        /** m, the samples of one task (a network's); default 32. */
        public Builder samplesPerTask(int samplesPerTask) {
            this.samplesPerTask = samplesPerTask;
            return this;
        }

        /** Samples per forward/backward pass on the agents (a network's); default 16. */
        public Builder microBatch(int microBatch) {
            this.microBatch = microBatch;
            return this;
        }

        /** Seed of a network's initial parameters and of the tasks' samples; default 0. */
        public Builder sampleSeed(long sampleSeed) {
            this.sampleSeed = sampleSeed;
            return this;
        }

        /** The update rule itself; instead of {@link #optimizer(String)} and its settings. */
        public Builder optimizer(Optimizer optimizer) {
            this.optimizer = Objects.requireNonNull(optimizer, "optimizer");
            return this;
        }

        /** The update rule by name: {@code sgd} (the default; see {@link SgdOptimizer}) or {@code adam} ({@link AdamOptimizer}). */
        public Builder optimizer(String name) {
            this.optimizerName = Objects.requireNonNull(name, "name").trim().toLowerCase(Locale.ROOT);
            return this;
        }

        /**
         * The optimizer's learning rate; default {@code 1e-4} for SGD on the quadratic problem,
         * {@code 0.01} for SGD on a network, {@code 1e-3} for Adam.
         */
        public Builder learningRate(double learningRate) {
            this.learningRate = learningRate;
            return this;
        }

        /** SGD's momentum, in [0, 1); default 0 (plain SGD, no state). */
        public Builder momentum(double momentum) {
            this.momentum = momentum;
            return this;
        }

        /** Weight decay: an L2 term added to the gradient for SGD, decoupled (AdamW) for Adam; default 0. */
        public Builder weightDecay(double weightDecay) {
            this.weightDecay = weightDecay;
            return this;
        }

        /** Adam's beta1; default 0.9. */
        public Builder beta1(double beta1) {
            this.beta1 = beta1;
            return this;
        }

        /** Adam's beta2; default 0.999. */
        public Builder beta2(double beta2) {
            this.beta2 = beta2;
            return this;
        }

        /** Adam's epsilon; default 1e-8. */
        public Builder epsilon(double epsilon) {
            this.epsilon = epsilon;
            return this;
        }

        /** How the round's B gradients become one; default their mean. */
        public Builder aggregator(Aggregator aggregator) {
            this.aggregator = Objects.requireNonNull(aggregator, "aggregator");
            return this;
        }

        /**
         * Which gradients are refused for their L2 norm (dead-lettered, not counted towards B);
         * default {@link NormBound#DEFAULT}: above 10 x the median of the round's accepted ones.
         */
        public Builder normBound(NormBound normBound) {
            this.normBound = Objects.requireNonNull(normBound, "normBound");
            return this;
        }

        /**
         * Score every {@code every}-th model version (version 0 included) and the last on the test
         * set, on a background thread; 0: never. Default 25.
         */
        public Builder evalEvery(long every) {
            this.evalEvery = every;
            return this;
        }

        /** Compute threads of the evaluation; default 1. */
        public Builder evalThreads(int threads) {
            this.evalThreads = threads;
            return this;
        }

        /** The largest payload of one model or optimizer-state record; default {@link Chunks#DEFAULT_CHUNK_BYTES}. */
        public Builder chunkBytes(int chunkBytes) {
            this.chunkBytes = chunkBytes;
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
         * Builds the configuration; a network's data set is loaded here.
         *
         * @throws IllegalArgumentException if a required setting is missing, a value is out of
         *     range, the data set cannot be loaded or does not fit the network
         */
        public TrainerConfig build() {
            return new TrainerConfig(this);
        }
    }
}
