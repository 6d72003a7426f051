package io.ata.trainer;

import io.ata.platform.Threads;
import io.ata.platform.kafka.KafkaClientFactory;
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
 * Many jobs' trainers in one process over one reader of {@code gradients} (and one producer of
 * the OVERDUE events their watches send). A trainer alone reads
 * every partition of {@code gradients} as a member of its job's group and keeps its job's results:
 * with many jobs in a process, each result is read once per job (a thousand jobs, a thousand
 * times), and each trainer is one more group member. A host reads each record once and hands it
 * to the trainer of the job its key names; each trainer keeps its own transactions, offsets
 * (committed to its job's group, as before), model, optimizer and evaluations, so each job stays
 * exactly once on its own and a trainer can be stopped, killed or started again while the others
 * run.
 *
 * <pre>{@code
 * try (TrainerHost host = new TrainerHost(clientConfig, topics.gradients().name(), registry).start()) {
 *     List<Trainer> trainers = jobs.stream().map(job -> host.trainer(configOf(job)).start()).toList();
 *     ...
 *     Trainer.closeAll(trainers);
 * }
 * }</pre>
 *
 * <p>Threads: one reader thread; each trainer runs on its own, as ever. {@link #close()} stops the
 * reader: close the trainers first (a trainer still running then stops, failed).
 */
public final class TrainerHost implements AutoCloseable {
    private static final String PREFIX = "ata.trainer.host.";
    /** Records of {@code gradients} read by the host, by outcome: handed to a job's trainer, or of no job here. */
    public static final String RECORDS = PREFIX + "records";
    /** The jobs whose trainers read through the host now. */
    public static final String JOBS = PREFIX + "jobs";

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

    private final String gradientsTopic;
    private final SchemaRegistryClient registry;
    private final KafkaClientFactory clients;
    private final SharedGradientsReader reader;
    private final Thread readerThread;
    /** The trainers' producer of OVERDUE round events: idempotent, thread-safe. */
    private final Producer<String, byte[]> overdueProducer;

    private final AtomicBoolean started = new AtomicBoolean();

    /**
     * @param clientConfig   the Kafka clients' settings: {@code bootstrap.servers} and the user's
     *                       client properties (security and the like)
     * @param gradientsTopic the {@code gradients} topic its trainers read
     */
    public TrainerHost(Map<String, Object> clientConfig, String gradientsTopic, SchemaRegistryClient registry) {
        this(clientConfig, gradientsTopic, registry, KafkaClientFactory.KAFKA, null);
    }

    /** With other Kafka clients (tests hand in mock ones), and {@code meters} for its meters (null: none). */
    public TrainerHost(
            Map<String, Object> clientConfig,
            String gradientsTopic,
            SchemaRegistryClient registry,
            KafkaClientFactory clients,
            MeterRegistry meters) {
        this.gradientsTopic = Objects.requireNonNull(gradientsTopic, "gradientsTopic");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.clients = Objects.requireNonNull(clients, "clients");
        this.reader = new SharedGradientsReader(
                clients.consumer(TrainerClients.hostReader(clientConfig)), gradientsTopic, Duration.ofMinutes(1));
        this.overdueProducer = clients.producer(TrainerClients.hostOverdueProducer(clientConfig));
        this.readerThread = new Thread(reader, "ata-trainer-host-gradients");
        readerThread.setDaemon(true);
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

    /** Starts the reader, from the current end of {@code gradients}; returns at once. */
    public TrainerHost start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the trainer host was already started");
        }
        readerThread.start();
        return this;
    }

    /**
     * A trainer of {@code config}'s job reading {@code gradients} through this host; not started
     * ({@link Trainer#start()}). One trainer per job at a time, as ever.
     *
     * @throws IllegalArgumentException if the job reads another {@code gradients} topic
     */
    public Trainer trainer(TrainerConfig config) {
        if (!config.topics().gradients().name().equals(gradientsTopic)) {
            throw new IllegalArgumentException("job " + config.job() + " reads "
                    + config.topics().gradients().name() + "; this trainer host reads " + gradientsTopic);
        }
        return new Trainer(
                config,
                registry,
                clients,
                new SharedClients((c, kafka) -> new HostedGradients(c, kafka, reader), overdueProducer));
    }

    /** Stops the reader and closes the shared producer. Close the trainers first. */
    @Override
    public void close() {
        try {
            if (started.compareAndSet(false, true)) {
                reader.closeUnstarted(); // never started: no thread to close its consumer
                return;
            }
            reader.stop();
            Threads.awaitEnd(readerThread, STOP_TIMEOUT);
        } finally {
            overdueProducer.close(STOP_TIMEOUT);
        }
    }
}
