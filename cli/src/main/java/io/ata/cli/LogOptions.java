package io.ata.cli;

import io.ata.local.kafka.KafkaLogging;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code --log-level}: how much ATA's parts and Kafka's clients log on stderr (and {@code --verbose}:
 * stack traces of errors). The commands that run the live system default to warnings only, so
 * their own output stays readable.
 */
final class LogOptions extends CheckedOptions {
    private static final String PROPERTY_PREFIX = "org.slf4j.simpleLogger.log.";
    private static final String ATA_LOGGER = PROPERTY_PREFIX + "io.ata";
    /**
     * Loggers that report routine events of the live system, and the level that keeps them quiet
     * unless the user chose one: the consumer noticing a partition moved in a rebalance, Kafka
     * Streams suggesting a setting the broker leaves at its default, DJL loading PyTorch (the
     * platform, its thread counts, no CUDA driver on a CPU machine), Jetty starting and stopping
     * each HTTP server (its version, "Started Server@..."), and the embedded broker
     * logging at ERROR what its clients retry: with transactions v2 a producer's first batch after
     * each commit's epoch bump must carry sequence 0, and a pipelined batch that arrives before it
     * was appended is refused as a retriable OutOfOrderSequenceException (KAFKA-18202) and sent again.
     * And the producer's sender thread warning of each produce request it retries: with transactions
     * v2 a write to a partition whose previous transaction's markers are still being written is
     * refused with CONCURRENT_TRANSACTIONS ("Got error produce response ... retrying ... Error:
     * CONCURRENT_TRANSACTIONS", about 5 to 15 per 300 rounds in the broker) and succeeds when sent
     * again once that transaction has completed. Only warnings of retried requests are left out: a
     * send that finally fails still surfaces as an exception to the part that sent it (Kafka Streams'
     * handler, the trainer's and agents' commits), and the sender's own errors stay at ERROR.
     */
    private static final Map<String, String> ROUTINE_LOGGERS = Map.of(
            "org.apache.kafka.clients.consumer.internals.OffsetFetcherUtils", "error",
            "org.apache.kafka.clients.producer.internals.Sender", "error",
            "org.apache.kafka.streams.StreamsConfig", "error",
            "ai.djl", "error",
            "org.eclipse.jetty", "warn",
            "kafka.server.ReplicaManager", "off");

    /** Read by {@link ErrorReporter} from the parse result; comes with the log level on every live command. */
    @Mixin
    VerboseOption verbose;

    @Option(
            names = "--log-level",
            paramLabel = "LEVEL",
            description = "Log level of ATA's parts and of Kafka on stderr: trace, debug, info, warn, error, off "
                    + "(default: warn; 'ata demo': warn for ATA's parts, error for its embedded Kafka).")
    String level;

    /** Sets the levels (ATA's parts at warn, Kafka's loggers at warn); call before the first Kafka client or part is created. */
    void apply() {
        apply(KafkaLogging.DEFAULT_LEVEL);
    }

    /**
     * Sets the levels: the user's, else ATA's parts at warn and Kafka's loggers at
     * {@code kafkaDefault}, leaving alone any level set by a system property.
     */
    void apply(String kafkaDefault) {
        if (level == null) {
            for (String logger : KafkaLogging.LOGGERS) {
                System.getProperties().putIfAbsent(PROPERTY_PREFIX + logger, kafkaDefault);
            }
            KafkaLogging.useQuietDefault();
            System.getProperties().putIfAbsent(ATA_LOGGER, KafkaLogging.DEFAULT_LEVEL);
            ROUTINE_LOGGERS.forEach(
                    (logger, quiet) -> System.getProperties().putIfAbsent(PROPERTY_PREFIX + logger, quiet));
            return;
        }
        try {
            KafkaLogging.setLevel(level);
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid value for option '--log-level': " + e.getMessage());
        }
        System.setProperty(ATA_LOGGER, level.trim().toLowerCase(Locale.ROOT));
    }
}
