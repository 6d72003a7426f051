package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The live-system commands' usage errors (exit 2, a message naming the problem, no stack trace)
 * and runtime errors (exit 1, one line), all found before any part starts.
 */
class LiveCommandsUsageTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "demo --agents 0                                              | '--agents': must be > 0",
                "demo --rounds -1                                             | '--rounds': must be > 0",
                "demo --policies ata-auto,nope                                | '--policies'",
                "demo --policies gta,gta                                      | listed twice",
                "demo --time-scale 0                                          | '--time-scale'",
                "demo --time-model cubic                                      | unknown time model 'cubic'",
                "demo --http-port 70000                                       | '--http-port'",
                "demo --log-level loud                                        | unknown log level 'loud'",
                "demo --workload cubic                                        | unknown workload 'cubic'",
                "demo --workload quadratic --model cnn                        | --model applies to --workload network only",
                "demo --workload quadratic --data synthetic                   | --data applies to --workload network only",
                "demo --target-accuracy 1.5                                   | '--target-accuracy'",
                "demo --eval-every 0                                          | '--eval-every': must be > 0",
                "demo --optimizer rmsprop                                     | unknown optimizer 'rmsprop'",
                "demo --model mlp:0 --data synthetic                          | '--model'",
                "demo --data /nonexistent                                     | '--data'",
                "broker                                                       | --bootstrap-servers",
                "broker --bootstrap-servers x:9092 --application-id=          | Invalid value for option '--application-id': empty",
                "broker --bootstrap-servers x:9092 --policy ata,gta           | give one policy",
                "broker --bootstrap-servers x:9092 --liveness-timeout soon    | not a length of time",
                "broker --bootstrap-servers x:9092 --liveness-timeout 0s      | must be a positive length of time",
                "broker --bootstrap-servers x:9092 --job-retention 0s         | must be a positive length of time",
                "broker --bootstrap-servers x:9092 --job-retention forever    | not a length of time",
                "broker --bootstrap-servers x:9092 --job-retention 5m         | '--job-retention': at least 10m",
                "broker --bootstrap-servers x:9092 --constants experiments --alpha 2 | apply to --constants paper only",
                "broker --bootstrap-servers x:9092 --topic-prefix a/b         | '--topic-prefix'",
                "trainer --bootstrap-servers x:9092                           | --job",
                "trainer --job j --bootstrap-servers x:9092 --group-id=       | Invalid value for option '--group-id': empty",
                "trainer --job j --bootstrap-servers x:9092 --transactional-id= | Invalid value for option '--transactional-id': empty",
                "trainer --job j --bootstrap-servers x:9092 --batch 0         | '--batch'",
                "trainer --job j --bootstrap-servers x:9092                   | --schema-registry-url",
                "trainer --job j --bootstrap-servers x:9092 --policy nope     | '--policy'",
                "trainer --job j#1 --bootstrap-servers x:9092                 | Invalid value for option '--job': job name 'j#1' contains '#'",
                "trainer --job a,b#1 --bootstrap-servers x:9092               | Invalid value for option '--job': job name 'b#1' contains '#'",
                "trainer --job a,b,a --bootstrap-servers x:9092               | a job is named twice in a,b,a",
                "trainer --job ,a --bootstrap-servers x:9092                  | Invalid value for option '--job': empty",
                "trainer --job a,b --bootstrap-servers x:9092 --seed 3        | Option '--seed' is one job's",
                "trainer --job a,b --bootstrap-servers x:9092 --group-id g    | Option '--group-id' is one job's",
                "trainer --job a,b --bootstrap-servers x:9092 --transactional-id t | Option '--transactional-id' is one job's",
                "trainer --job j --bootstrap-servers x:9092 --model mlp       | needs a data set: --data",
                "trainer --job j --bootstrap-servers x:9092 --model resnet    | unknown network kind 'resnet'",
                "trainer --job j --bootstrap-servers x:9092 --data synthetic  | --data applies to network models only",
                "trainer --job j --bootstrap-servers x:9092 --model mlp --data /no/such/dir | no such file or directory",
                "trainer --job j --bootstrap-servers x:9092 --model mlp:8,in=20 --data synthetic | takes 20 input features",
                "trainer --job j --bootstrap-servers x:9092 --samples-per-task 0 | '--samples-per-task'",
                "trainer --job j --bootstrap-servers x:9092 --optimizer rmsprop | unknown optimizer 'rmsprop'",
                "trainer --job j --bootstrap-servers x:9092 --optimizer adam --momentum 0.9 | momentum applies to the sgd optimizer only",
                "trainer --job j --bootstrap-servers x:9092 --beta1 0.8       | apply to the adam optimizer only",
                "trainer --job j --bootstrap-servers x:9092 --momentum 1      | momentum must be in [0, 1)",
                "trainer --job j --bootstrap-servers x:9092 --learning-rate 0 | '--learning-rate'",
                "trainer --job j --bootstrap-servers x:9092 --eval-every -1   | '--eval-every'",
                "trainer --job j --bootstrap-servers x:9092 --aggregator median | --aggregator: unknown aggregator 'median'; known: mean, trimmed-mean",
                "trainer --job j --bootstrap-servers x:9092 --aggregator trimmed-mean --trim-fraction 0.5 | trim fraction must be in [0, 0.5)",
                "trainer --job j --bootstrap-servers x:9092 --norm-factor 1    | norm factor must be > 1",
                "trainer --job j --bootstrap-servers x:9092 --max-gradient-norm 0 | max gradient norm must be > 0",
                "trainer --job j --bootstrap-servers x:9092 --metrics-port 70000 | '--metrics-port': must be between 0 and 65535",
                "worker --bootstrap-servers x:9092 --metrics-port -1          | '--metrics-port': must be between 0 and 65535",
                "worker --bootstrap-servers x:9092 --group-id=                | Invalid value for option '--group-id': empty",
                "worker --bootstrap-servers x:9092 --time-model linear        | needs --worker-index",
                "worker --bootstrap-servers x:9092 --worker-index 3           | apply to --time-model or --scenario only",
                "worker --bootstrap-servers x:9092 --scenario ../deploy/examples/slowdown.yaml | --scenario needs --worker-id",
                "worker --bootstrap-servers x:9092 --scenario ../deploy/examples/slowdown.yaml --worker-id w9 | has no worker named 'w9'",
                "worker --bootstrap-servers x:9092 --scenario ../deploy/examples/slowdown.yaml --worker-id 1 --time-model linear | leave out --time-model",
                "worker --bootstrap-servers x:9092 --scenario no/such.yaml --worker-id 1 | '--scenario'",
                "worker --bootstrap-servers x:9092 --device tpu               | device 'tpu': expected auto, cpu, gpu or gpu:N",
                "worker --bootstrap-servers x:9092 --device gpu:x             | device 'gpu:x'",
                "worker --bootstrap-servers x:9092 --device cpu,auto          | name each device of a list (cpu, gpu:N), not auto",
                "worker --bootstrap-servers x:9092 --threads 0                | '--threads': at least 1",
                "worker --bootstrap-servers x:9092 --stalled-job-wait 0s      | must be a positive length of time",
                "worker --bootstrap-servers x:9092 --stalled-job-wait soon    | not a length of time",
                "worker --bootstrap-servers x:9092 --model-retention 5m       | at least --stalled-job-wait (PT10M)",
                "worker --bootstrap-servers x:9092 --model-retention never    | not a length of time",
                "worker --bootstrap-servers x:9092 --gradient-encoding float64 | unknown gradient encoding 'float64'",
                "worker --bootstrap-servers x:9092 --data /no/such/dir        | '--data': --data /no/such/dir: no such file",
                "worker --time-model linear --worker-index 1                  | --bootstrap-servers",
                "export-timings --bootstrap-servers x:9092                    | --schema-registry-url",
                "export-timings --bootstrap-servers x:9092 --out t.txt        | '--out'",
                "replay --batch 4                                             | --log",
                "replay --log t.csv --from-topic                              | mutually exclusive",
                "replay --log t.csv --job j                                   | apply to --from-topic only",
                "replay --from-topic                                          | --bootstrap-servers",
                "replay --from-topic --bootstrap-servers x:9092               | --schema-registry-url",
            })
    void usageErrorsExitWith2(String commandLine, String expected) {
        CliRun run = CliRun.line(commandLine);
        assertEquals(2, run.exitCode(), run.transcript());
        assertTrue(run.err().contains(expected), run.transcript());
        assertTrue(run.err().contains("--help"), run.transcript());
        assertFalse(run.err().contains("\tat "), "no stack trace: " + run.transcript());
    }

    /** {@code ata WORDS DIR/FILE}, which must fail while running: exit code 1, not a usage error's 2. */
    private CliRun failsWhileRunning(String words, String file) {
        CliRun run = CliRun.line(words, dir.resolve(file).toString());
        assertEquals(1, run.exitCode(), run.transcript());
        return run;
    }

    @Test
    void anUnreachableRegistryIsAOneLineError() {
        CliRun run = failsWhileRunning(
                "export-timings --bootstrap-servers 127.0.0.1:1 --schema-registry-url http://127.0.0.1:1 --out",
                "t.csv");
        assertTrue(
                run.err().startsWith("ata export-timings: error: cannot use the Schema Registry at http://127.0.0.1:1"),
                run.transcript());
        assertEquals(1, run.err().lines().count(), run.transcript());
    }

    /** No Kafka client is made before the cluster answers: one line with the cause, no client warnings. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "broker --bootstrap-servers 127.0.0.1:1                     | 127.0.0.1:1: connection refused",
                "broker --bootstrap-servers no-such-host.invalid:9092       | cannot resolve host no-such-host.invalid",
                "broker --bootstrap-servers no-such-host.invalid:9092,127.0.0.1:1 | cannot resolve host no-such-host.invalid; 127.0.0.1:1: connection refused",
                "demo --bootstrap-servers 127.0.0.1:1 --rounds 1            | 127.0.0.1:1: connection refused",
            })
    void anUnreachableKafkaIsAOneLineErrorNamingTheCause(String commandLine, String cause) {
        CliRun run = CliRun.line(commandLine);
        assertEquals(1, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("error: cannot reach Kafka at "), run.transcript());
        assertTrue(run.err().contains(cause), run.transcript());
        assertEquals(1, run.err().lines().count(), run.transcript());
    }

    /**
     * {@code ata demo --command-config FILE} runs on the cluster that the file's bootstrap.servers
     * names, as the other commands do (here one that does not answer, so the run stops at once,
     * naming it), not on an embedded broker; a file that names none is a usage error.
     */
    @Test
    void theDemoRunsOnTheClusterItsCommandConfigNames() throws java.io.IOException {
        Path named = java.nio.file.Files.writeString(
                dir.resolve("client.properties"), "bootstrap.servers=127.0.0.1:1\nclient.id=demo\n");
        CliRun run = CliRun.line("demo --rounds 1 --command-config", named.toString());
        assertEquals(1, run.exitCode(), run.transcript());
        assertTrue(run.err().contains("error: cannot reach Kafka at 127.0.0.1:1"), run.transcript());
        assertEquals(1, run.err().lines().count(), run.transcript());

        Path unnamed = java.nio.file.Files.writeString(dir.resolve("security.properties"), "client.id=demo\n");
        CliRun missing = CliRun.line("demo --rounds 1 --command-config", unnamed.toString());
        assertEquals(2, missing.exitCode(), missing.transcript());
        assertTrue(
                missing.err()
                        .contains("Missing required option: '--bootstrap-servers=HOST:PORT[,...]' "
                                + "(or bootstrap.servers in --command-config)"),
                missing.transcript());
    }

    @Test
    void everyCommandTakesTheSameLoggingOptions() {
        for (var command : AtaCommand.commandLine().getSubcommands().entrySet()) {
            if (command.getKey().equals("help")) {
                continue;
            }
            var options = command.getValue().getCommandSpec();
            for (String name : new String[] {"-v", "--verbose", "--log-level"}) {
                assertTrue(options.findOption(name) != null, "ata " + command.getKey() + " takes " + name);
            }
        }
    }

    @Test
    void helpListsTheCommandsAndHelpCommandShowsOne() {
        CliRun all = CliRun.of("help");
        assertEquals(0, all.exitCode(), all.transcript());
        assertTrue(all.out().contains("  trainer"), all.out());
        CliRun trainer = CliRun.of("help", "trainer");
        assertEquals(0, trainer.exitCode(), trainer.transcript());
        assertTrue(trainer.out().startsWith("Usage: ata trainer"), trainer.out());
        assertTrue(trainer.out().contains("--learning-rate"), trainer.out());
    }

    @Test
    void aMissingCommandConfigIsAOneLineError() {
        CliRun run = failsWhileRunning(
                "trainer --job j --bootstrap-servers 127.0.0.1:1 --command-config", "missing.properties");
        assertTrue(run.err().contains("cannot read --command-config"), run.transcript());
        assertTrue(run.err().contains("no such file"), run.transcript());
    }

    /**
     * Every command's help names each option's value (no picocli placeholder such as
     * {@code --only=<only>}), carries no dated history, and says a default once.
     */
    @Test
    void everyHelpNamesItsValuesAndCarriesNoDates() {
        for (String command : AtaCommand.commandLine().getSubcommands().keySet()) {
            String help = CliRun.helpText(command);
            assertFalse(help.matches(".*=<[^>]+>.*"), command + ": a placeholder in " + help);
            assertFalse(help.matches(".*\\b20\\d\\d-\\d\\d-\\d\\d\\b.*"), command + ": a date in " + help);
        }
        String demo = CliRun.helpText("demo");
        assertTrue(
                demo.contains(
                        "--rounds=R Rounds per policy (default: 150, for a network and the quadratic problem alike)."),
                demo);
    }

    @Test
    void theWorkersNetworkOptionsAreAcceptedAndDocumented() {
        CliRun run = CliRun.line("worker --bootstrap-servers 127.0.0.1:1 --schema-registry-url http://127.0.0.1:1 "
                + "--device cpu --threads 3 --data synthetic:4 --gradient-encoding BFloat16");
        // past the options: the next thing checked is the registry, which is not there
        assertEquals(1, run.exitCode(), run.transcript());
        assertTrue(run.err().startsWith("ata worker: error: cannot use the Schema Registry"), run.transcript());

        CliRun help = CliRun.of("worker", "--help");
        assertEquals(0, help.exitCode(), help.transcript());
        for (String option : new String[] {
            "--device=auto|cpu|gpu[:N]", "--threads=N", "--data=DATA", "--gradient-encoding=float32|float16|bfloat16"
        }) {
            assertTrue(help.out().contains(option), option + " in " + help.out());
        }
        assertTrue(help.out().contains("(default: auto)"), help.out());
        assertTrue(help.out().contains("(default: float32)"), help.out());
    }

    @Test
    void theLiveCommandsAreListedInTheHelp() {
        CliRun run = CliRun.of("--help");
        assertEquals(0, run.exitCode(), run.transcript());
        for (String command : new String[] {"demo", "broker", "trainer", "worker", "export-timings", "bench-live"}) {
            assertTrue(run.out().contains("  " + command), command + " in " + run.out());
        }
    }

    @ParameterizedTest
    @CsvSource({"trainer, --job, j", "worker, --worker-id, w", "export-timings, --job, j"})
    void verboseAddsTheStackTraceOnEveryLiveCommand(String command, String option, String value) {
        String[] base = {
            command, option, value, "--bootstrap-servers", "127.0.0.1:1", "--schema-registry-url", "http://127.0.0.1:1"
        };
        CliRun quiet = CliRun.of(base);
        assertEquals(1, quiet.exitCode(), quiet.transcript());
        assertFalse(quiet.err().contains("\tat io.ata."), quiet.transcript());
        String[] verbose = java.util.Arrays.copyOf(base, base.length + 1);
        verbose[base.length] = "--verbose";
        CliRun loud = CliRun.of(verbose);
        assertEquals(1, loud.exitCode(), loud.transcript());
        assertTrue(loud.err().contains("\tat io.ata."), "stack trace with --verbose: " + loud.transcript());
    }
}
