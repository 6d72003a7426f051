package io.ata.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code ata} command: its subcommands simulate a fleet, replay a recorded one, run the live system
 * on Kafka (a demo on one machine, or the broker, trainers and workers as separate processes), export
 * its timings, or benchmark.
 * Exit codes: 0 success, 2 usage error, 1 error while running (one line on stderr; the stack
 * trace with {@code --verbose} or {@code ATA_DEBUG=1}).
 */
@Command(
        name = "ata",
        mixinStandardHelpOptions = true,
        version = {
            "ata 0.1.0-SNAPSHOT: Adaptive Task Allocation (ICML 2025)",
            "Java ${java.version}, ${java.vm.name} ${java.vm.version}"
        },
        description =
                "Adaptive Task Allocation: learn each worker's task-time distribution and allocate each round's tasks.",
        subcommands = {
            SimulateCommand.class,
            ReplayCommand.class,
            BenchCommand.class,
            LiveBenchCommand.class,
            TransportBenchCommand.class,
            SoakBenchCommand.class,
            FleetBenchCommand.class,
            DemoCommand.class,
            BrokerCommand.class,
            TrainerCommand.class,
            WorkerCommand.class,
            ExportTimingsCommand.class,
            KafkaCommand.class,
            HelpCommand.class
        })
public final class AtaCommand implements Runnable {

    static {
        // Charts are drawn off-screen: never look for a display, also when used from code or tests.
        System.setProperty("java.awt.headless", "true");
    }

    @Spec
    CommandSpec spec;

    @Mixin
    VerboseOption verbose;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(commandLine().execute(args));
    }

    /** The command line with the short error reporting used by {@link #main}. */
    public static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new AtaCommand());
        ErrorReporter errors = new ErrorReporter();
        commandLine.setExecutionExceptionHandler(errors);
        commandLine.setParameterExceptionHandler(errors);
        return commandLine;
    }

    /** {@code ata} without a subcommand is a usage error. */
    @Override
    public void run() {
        throw new ParameterException(
                spec.commandLine(),
                "Missing command: give one of "
                        + String.join(", ", spec.subcommands().keySet()));
    }
}
