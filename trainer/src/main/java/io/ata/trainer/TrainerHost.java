package io.ata.trainer;

import io.ata.platform.Threads;
import io.ata.platform.kafka.KafkaClientFactory;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.Producer;

/**
 * Many jobs' trainers in one process over one reader of {@code gradients}, one reader of
 * {@code allocations} that watches every job's open round, and one producer of the OVERDUE events
 * those watches send. A trainer alone reads
 * every partition of {@code gradients} as a member of its job's group and keeps its job's results:
 * with many jobs in a process, each result is read once per job (a thousand jobs, a thousand
 * times), and each trainer is one more group member. A host reads each record once and hands it
 * to the trainer of the job its key names; each trainer keeps its own transactions, offsets
 * (committed to its job's group, as before), model, optimizer and evaluations, so each job stays
 * exactly once on its own and a trainer can be stopped, killed or started again while the others
 * run. Alone, a trainer also watches its open round with a thread and a reader of its own
 * ({@link AssignmentWatch}); the host watches every job's on one thread ({@link SharedAllocationsReader}).
 *
 * <pre>{@code
 * try (TrainerHost host = new TrainerHost(clientConfig, topics, registry).start()) {
 *     List<Trainer> trainers = jobs.stream().map(job -> host.trainer(configOf(job)).start()).toList();
 *     ...
 *     Trainer.closeAll(trainers);
 * }
 * }</pre>
 *
 * <p>Threads: one reader of each topic; each trainer runs on its own, as ever. {@link #close()}
 * stops the readers: close the trainers first (a trainer still running then stops, failed).
 */
public final class TrainerHost implements AutoCloseable {
    private static final String PREFIX = "ata.trainer.host.";
    /** Records of {@code gradients} read by the host, by outcome: handed to a job's trainer, or of no job here. */
    public static final String RECORDS = PREFIX + "records";
    /** The jobs whose trainers read through the host now. */
    public static final String JOBS = PREFIX + "jobs";

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final Topics topics;
    private final SchemaRegistryClient registry;
    private final KafkaClientFactory clients;
    private final SharedGradientsReader reader;
    private final Thread readerThread;
    private final SharedAllocationsReader allocationsReader;
    private final Thread allocationsThread;
    /** The trainers' producer of OVERDUE round events: idempotent, thread-safe. */
    private final Producer<String, byte[]> overdueProducer;

    private final AtomicBoolean started = new AtomicBoolean();

    /**
     * @param clientConfig   the Kafka clients' settings: {@code bootstrap.servers} and the user's
     *                       client properties (security and the like)
     * @param topics       the topics of its trainers' jobs (every job of a host has the same)
     */
    public TrainerHost(Map<String, Object> clientConfig, Topics topics, SchemaRegistryClient registry) {
        this(clientConfig, topics, registry, KafkaClientFactory.KAFKA, null);
    }

    /** With other Kafka clients (tests hand in mock ones), and {@code meters} for its meters (null: none). */
    public TrainerHost(
            Map<String, Object> clientConfig,
            Topics topics,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            MeterRegistry meters) {
        this.topics = Objects.requireNonNull(topics, "topics");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clients = Objects.requireNonNull(clients, "clients");
        String gradientsTopic = topics.gradients().name();
        this.reader = new SharedGradientsReader(
                clients.consumer(TrainerClients.hostReader(clientConfig)), gradientsTopic, Duration.ofMinutes(1));
        this.allocationsReader = new SharedAllocationsReader(
                clients.consumer(TrainerClients.hostWatcher(clientConfig, "")),
                clients.consumer(TrainerClients.hostWatcher(clientConfig, "-catch-up")),
                topics.allocations().name());
        this.overdueProducer = clients.producer(TrainerClients.hostOverdueProducer(clientConfig));
        this.readerThread = new Thread(reader, "ata-trainer-host-gradients");
        readerThread.setDaemon(true);
        this.allocationsThread = new Thread(allocationsReader, "ata-trainer-host-deadlines");
        allocationsThread.setDaemon(true);
        if (meters != null) {
            FunctionCounter.builder(RECORDS, reader, SharedGradientsReader::routed)
                    .tag(TrainerMetrics.OUTCOME, "handed")
                    .description("records of gradients the trainer host read, by outcome")
                    .register(meters);
            FunctionCounter.builder(RECORDS, reader, SharedGradientsReader::unrouted)
                    .tag(TrainerMetrics.OUTCOME, "no_job")
                    .description("records of gradients the trainer host read, by outcome")
                    .register(meters);
            Gauge.builder(JOBS, reader, SharedGradientsReader::jobs)
                    .description("jobs whose trainers read gradients through the trainer host")
                    .register(meters);
        }
    }

    /** Starts the readers, from the current ends of their topics; returns at once. */
    public TrainerHost start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the trainer host was already started");
        }
        readerThread.start();
        allocationsThread.start();
        return this;
    }

    /**
     * A trainer of {@code config}'s job reading {@code gradients} through this host; not started
     * ({@link Trainer#start()}). One trainer per job at a time, as ever.
     *
     * @throws IllegalArgumentException if the job has other topics than the host
     */
    public Trainer trainer(TrainerConfig config) {
        if (!config.topics().prefix().equals(topics.prefix())) { // the names; partition counts are the broker's
            throw new IllegalArgumentException("job " + config.job() + " has the topics of prefix '"
                    + config.topics().prefix() + "'; this trainer host reads those of prefix '" + topics.prefix()
                    + "'");
        }
        RoundWatches watches = (c, schemas, kafka, assignments, metrics, readFromMs) ->
                allocationsReader.attach(new JobWatch(c, schemas, overdueProducer, assignments, metrics), readFromMs);
        return new Trainer(
                config,
                registry,
                clients,
                new SharedClients((c, kafka) -> new HostedGradients(c, kafka, reader), watches));
    }

    /** Stops the readers and closes the shared producer. Close the trainers first. */
    @Override
    public void close() {
        try {
            if (started.compareAndSet(false, true)) {
                reader.closeUnstarted(); // never started: no thread to close its consumers
                allocationsReader.closeUnstarted();
                return;
            }
            reader.stop();
            allocationsReader.stop();
            Threads.awaitEnd(readerThread, STOP_TIMEOUT);
            Threads.awaitEnd(allocationsThread, STOP_TIMEOUT);
        } finally {
            overdueProducer.close(STOP_TIMEOUT);
        }
    }
}
