package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The options several commands share through picocli mixins ({@link KafkaOptions},
 * {@link OutputDirectory}, {@link VerboseOption}, {@link LogOptions}): each command still accepts
 * them, with its own default and help where it has one.
 */
class OptionMixinsTest {
    private static final List<String> KAFKA_COMMANDS =
            List.of("broker", "trainer", "worker", "export-timings", "replay", "demo");

    @TempDir
    Path dir;

    /**
     * Parses {@code ata COMMAND ARGS} as {@code ata} would, without running anything (with the
     * options a command requires); the command's mixin of {@code type} (there is one).
     */
    private static <T> T parse(Class<T> type, String command, String... args) {
        CommandSpec spec = parseResult(command, args).subcommand().commandSpec();
        List<Object> mixins = mixins(spec).filter(type::isInstance).toList();
        assertEquals(1, mixins.size(), command + " mixes in one " + type.getSimpleName());
        return type.cast(mixins.get(0));
    }

    /** The objects of the mixins of {@code spec}, and of theirs. */
    private static Stream<Object> mixins(CommandSpec spec) {
        return spec.mixins().values().stream().flatMap(m -> Stream.concat(Stream.of(m.userObject()), mixins(m)));
    }

    /** The parse result of {@code ata COMMAND ARGS} ({@code ata ARGS} if the command is empty). */
    private static ParseResult parseResult(String command, String... args) {
        List<String> line = new ArrayList<>();
        if (!command.isEmpty()) {
            line.add(command);
        }
        if (command.equals("trainer")) {
            line.addAll(List.of("--job", "j"));
        }
        line.addAll(List.of(args));
        return new CommandLine(new AtaCommand()).parseArgs(line.toArray(String[]::new));
    }

    private static OptionSpec option(String command, String name) {
        return new CommandLine(new AtaCommand())
                .getSubcommands()
                .get(command)
                .getCommandSpec()
                .findOption(name);
    }

    @Test
    void everyCommandOnAClusterTakesTheSameFourKafkaOptions() throws IOException {
        Path config = Files.writeString(dir.resolve("client.properties"), "security.protocol=SSL\n");
        for (String command : KAFKA_COMMANDS) {
            KafkaOptions kafka = parse(
                    KafkaOptions.class,
                    command,
                    "--bootstrap-servers",
                    "k1:9092,k2:9092",
                    "--command-config",
                    config.toString(),
                    "--topic-prefix",
                    "t.",
                    "--schema-registry-url",
                    "http://registry:8081");
            assertEquals("k1:9092,k2:9092", kafka.bootstrapServers(), command);
            assertEquals(config, kafka.commandConfig, command);
            assertEquals("t.", kafka.prefix(), command);
            assertEquals(Optional.of("http://registry:8081"), kafka.registryUrl(), command);
        }
    }

    @Test
    void withoutKafkaOptionsTheDefaultsApply() {
        for (String command : KAFKA_COMMANDS) {
            KafkaOptions kafka = parse(KafkaOptions.class, command);
            assertFalse(kafka.anyGiven(), command);
            assertEquals(Topics.DEFAULT_PREFIX, kafka.prefix(), command);
            assertEquals(Optional.empty(), kafka.registryUrl(), command);
        }
    }

    @Test
    void theCommandConfigFileHoldsKafkasSettingsAndTheRegistrysApart() throws IOException {
        Path config = dir.resolve("client.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "security.protocol = SASL_SSL",
                        "sasl.mechanism=PLAIN",
                        "schema.registry.url=http://from-file:8081",
                        "basic.auth.user.info=user:secret",
                        ""),
                StandardCharsets.UTF_8);
        KafkaOptions kafka = parse(
                KafkaOptions.class, "trainer", "--bootstrap-servers", "k:9092", "--command-config", config.toString());

        assertEquals(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN"), kafka.kafkaProperties());
        assertEquals(
                Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN", "bootstrap.servers", "k:9092"),
                kafka.clientProperties());
        assertEquals(Optional.of("http://from-file:8081"), kafka.registryUrl(), "the file's registry");

        KafkaOptions given = parse(
                KafkaOptions.class,
                "trainer",
                "--bootstrap-servers",
                "k:9092",
                "--command-config",
                config.toString(),
                "--schema-registry-url",
                "http://option:8081");
        assertEquals(Optional.of("http://option:8081"), given.registryUrl(), "the option wins over the file");
    }

    @Test
    void kafkasSpellingAndTheCommandConfigsBootstrapServersAreTakenToo() throws IOException {
        for (String command : List.of("broker", "trainer", "worker", "export-timings", "replay")) {
            assertEquals(
                    "k:9092",
                    parse(KafkaOptions.class, command, "--bootstrap-server", "k:9092")
                            .bootstrapServers(),
                    command);
        }
        Path config = Files.writeString(
                dir.resolve("client.properties"), "bootstrap.servers=f1:9092,f2:9092\nsecurity.protocol=SSL\n");
        KafkaOptions fromFile = parse(KafkaOptions.class, "worker", "--command-config", config.toString());
        assertEquals("f1:9092,f2:9092", fromFile.bootstrapServers());
        assertEquals("f1:9092,f2:9092", fromFile.clientProperties().get("bootstrap.servers"));
        assertEquals("SSL", fromFile.clientProperties().get("security.protocol"));
        KafkaOptions both = parse(
                KafkaOptions.class, "worker", "--bootstrap-servers", "o:9092", "--command-config", config.toString());
        assertEquals("o:9092", both.bootstrapServers(), "the option wins over the file");
        assertEquals("o:9092", both.clientProperties().get("bootstrap.servers"));

        Path none = Files.writeString(dir.resolve("none.properties"), "security.protocol=SSL\n");
        CommandLine.ParameterException missing = org.junit.jupiter.api.Assertions.assertThrows(
                CommandLine.ParameterException.class,
                () -> parse(KafkaOptions.class, "worker", "--command-config", none.toString())
                        .bootstrapServers());
        assertTrue(missing.getMessage().contains("--bootstrap-servers"), missing.getMessage());
        assertTrue(missing.getMessage().contains("bootstrap.servers in --command-config"), missing.getMessage());
        assertTrue(
                String.join(" ", option("worker", "--bootstrap-servers").description())
                        .contains("Required"),
                "the help says it is required");
    }

    /**
     * The synopsis shows {@code --bootstrap-servers} as required where a command cannot run without
     * a cluster (the option list says when --command-config stands in for it), and in brackets where
     * the command runs without one.
     */
    @Test
    void theSynopsisShowsTheServersRequiredWhereACommandNeedsACluster() {
        CommandLine ata = new CommandLine(new AtaCommand());
        for (String command : List.of("broker", "trainer", "worker", "export-timings", "demo", "replay")) {
            String usage = ata.getSubcommands().get(command).getUsageMessage(CommandLine.Help.Ansi.OFF);
            // the synopsis: "Usage: ata COMMAND ..." and its indented continuation lines, joined
            // without white space (picocli may wrap a line inside an option's parameter label)
            String synopsis = usage.lines()
                    .takeWhile(line -> line.startsWith("Usage:") || line.startsWith(" "))
                    .map(line -> line.replaceAll("\\s+", ""))
                    .collect(java.util.stream.Collectors.joining());
            boolean needsCluster = !List.of("demo", "replay").contains(command);
            boolean shown = synopsis.contains("--bootstrap-server=HOST:PORT[,...]");
            boolean optional = synopsis.contains("[--bootstrap-server=HOST:PORT[,...]]");
            assertEquals(needsCluster, shown && !optional, command + " shows the servers required: " + synopsis);
            assertEquals(!needsCluster, optional, command + " shows the servers optional: " + synopsis);
            assertTrue(synopsis.contains("[--command-config=FILE]"), synopsis);
        }
    }

    /**
     * Without {@code --log-level}, the producer's warnings of requests it retries (a transaction's
     * CONCURRENT_TRANSACTIONS while the previous one's markers are written) are left out, and its
     * errors kept.
     */
    @Test
    void theProducersRetriedRequestsAreLeftOutByDefault() {
        String sender = "org.slf4j.simpleLogger.log.org.apache.kafka.clients.producer.internals.Sender";
        String before = System.getProperty(sender);
        try {
            System.clearProperty(sender);
            parse(LogOptions.class, "broker").apply();
            assertEquals("error", System.getProperty(sender), "the quiet default");
        } finally {
            if (before == null) {
                System.clearProperty(sender);
            } else {
                System.setProperty(sender, before);
            }
        }
    }

    @Test
    void theDemoWordsTheKafkaOptionsForItsEmbeddedDefaults() {
        for (String command : List.of("broker", "trainer", "worker", "export-timings", "replay")) {
            assertEquals(
                    List.of("The Kafka cluster (bootstrap.servers). Required, unless --command-config sets "
                            + "bootstrap.servers; --bootstrap-server, Kafka tools' spelling, is the same option."),
                    List.of(option(command, "--bootstrap-servers").description()),
                    command);
            assertTrue(
                    option(command, "--schema-registry-url")
                            .description()[0]
                            .startsWith("The Schema Registry every part shares"),
                    command);
        }
        assertEquals(
                List.of("Run on this Kafka cluster instead of an embedded broker; the topics are created if "
                        + "missing."),
                List.of(option("demo", "--bootstrap-servers").description()));
        assertEquals(
                List.of("Kafka client properties of the cluster to run on (security.protocol, sasl.*, ssl.*, ...), "
                        + "as for Kafka's own tools; its bootstrap.servers names the cluster when "
                        + "--bootstrap-servers does not, and its schema.registry.url the registry when "
                        + "--schema-registry-url does not."),
                List.of(option("demo", "--command-config").description()));
        assertEquals(
                List.of("Prefix of the topic names (default: " + Topics.DEFAULT_PREFIX + " on the embedded "
                        + "broker; on --bootstrap-servers a fresh ata-demo-TIMESTAMP. so runs never mix)."),
                List.of(option("demo", "--topic-prefix").description()));
        assertEquals(
                List.of("Schema Registry to use (http://host:port). Default: an embedded one, served over HTTP "
                        + "on 127.0.0.1 while the demo runs."),
                List.of(option("demo", "--schema-registry-url").description()));
    }

    @ParameterizedTest
    @CsvSource({"simulate, out/simulate", "replay, out/replay", "demo, out/demo"})
    void theOutputDirectoryDefaultsToOneNamedAfterTheCommand(String command, String expected) {
        assertEquals(
                "Output directory, created if missing (default: " + expected + ").",
                option(command, "--out").description()[0]);
        assertEquals(Path.of(expected), parse(OutputDirectory.class, command).path());
        assertEquals(
                Path.of("elsewhere"),
                parse(OutputDirectory.class, command, "--out", "elsewhere").path());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "simulate", "replay", "demo", "broker", "trainer", "worker", "export-timings"})
    void verboseIsAcceptedByTheRootAndEveryCommandThatReportsErrors(String command) {
        for (String spelling : List.of("-v", "--verbose")) {
            ParseResult result = parseResult(command, spelling);
            ParseResult last = result.subcommand() == null ? result : result.subcommand();
            assertTrue(last.hasMatchedOption("--verbose"), command + " " + spelling);
            assertTrue(ErrorReporter.debug(last.commandSpec().commandLine()), command + " " + spelling);
        }
    }

    @Test
    void everyCommandTakesTheLogLevel() {
        for (String command :
                List.of("demo", "broker", "trainer", "worker", "export-timings", "simulate", "replay", "bench")) {
            assertEquals("info", parse(LogOptions.class, command, "--log-level", "info").level, command);
            assertNull(parse(LogOptions.class, command).level, command + ": the quiet default");
        }
    }
}
