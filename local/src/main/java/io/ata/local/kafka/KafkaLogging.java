package io.ata.local.kafka;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The log level of Kafka's own loggers (broker, controller and clients: {@code org.apache.kafka.*},
 * {@code kafka.*}, {@code state.change.logger}) when SLF4J logs through slf4j-simple, as in the
 * {@code ata} command. Kafka logs a lot at INFO, so {@link EmbeddedKafka} lowers it to WARN unless
 * the user chose otherwise, e.g. with {@code -Dorg.slf4j.simpleLogger.log.org.apache.kafka=info}
 * (see slf4j-simple's {@code SimpleLogger}).
 *
 * <p>slf4j-simple looks a logger's level up when the logger is created, which Kafka's classes do
 * once, when they are first used: set the level before the first broker or client is created.
 * The levels are JVM-wide system properties. At WARN, the controller's routine warnings (it
 * "activates" on every start) are left out too.
 */
public final class KafkaLogging {
    /** The level used unless told otherwise. */
    public static final String DEFAULT_LEVEL = "warn";

    /** The names of Kafka's loggers, as prefixes. */
    public static final List<String> LOGGERS = List.of("org.apache.kafka", "kafka", "state.change.logger");

    private static final String PROPERTY_PREFIX = "org.slf4j.simpleLogger.log.";
    private static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");

    private KafkaLogging() {}

    /**
     * Loggers that warn about routine events of a single-node cluster (the controller activating on
     * every start): at WARN they are set to ERROR.
     */
    private static final List<String> ROUTINE_WARNINGS = List.of("org.apache.kafka.controller.QuorumController");

    /** Sets Kafka's loggers to {@link #DEFAULT_LEVEL}, except those whose level the user has set. */
    public static void useQuietDefault() {
        for (String logger : LOGGERS) {
            if (System.getProperty(PROPERTY_PREFIX + logger) == null) {
                System.setProperty(PROPERTY_PREFIX + logger, DEFAULT_LEVEL);
            }
        }
        for (String logger : ROUTINE_WARNINGS) {
            if (System.getProperty(PROPERTY_PREFIX + logger) == null
                    && DEFAULT_LEVEL.equals(System.getProperty(PROPERTY_PREFIX + "org.apache.kafka"))) {
                System.setProperty(PROPERTY_PREFIX + logger, "error");
            }
        }
    }

    /**
     * Sets Kafka's loggers to {@code level}: one of trace, debug, info, warn, error, off.
     *
     * @throws IllegalArgumentException for another level
     */
    public static void setLevel(String level) {
        String l = checkLevel(level);
        for (String logger : LOGGERS) {
            System.setProperty(PROPERTY_PREFIX + logger, l);
        }
        for (String logger : ROUTINE_WARNINGS) {
            System.setProperty(PROPERTY_PREFIX + logger, l.equals("warn") ? "error" : l);
        }
    }

    /** {@code level} in lower case if it is one of slf4j-simple's levels. */
    static String checkLevel(String level) {
        String l = level == null ? "" : level.trim().toLowerCase(Locale.ROOT);
        if (!LEVELS.contains(l)) {
            throw new IllegalArgumentException(
                    "unknown log level '" + level + "': use one of trace, debug, info, " + "warn, error, off");
        }
        return l;
    }
}
