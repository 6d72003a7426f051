package io.ata.cli;

import io.ata.policy.PolicyFactory;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.trainer.RoundSummary;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.trainer.TrainerMetrics;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ata trainer}: trains one job (the paper's quadratic problem, SGD) through the broker,
 * printing each closed round, until its last round closes or Ctrl-C. A trainer started again for
 * the same job resumes it from its last closed round.
 */
@Command(
        name = "trainer",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Train one job through the broker, printing every closed round.",
            "Runs until the job's last round closes (or Ctrl-C); prints each round's objective (suboptimality of "
                    + "the paper's quadratic problem) and round time.",
            "Run again with the same --job to resume it from its last closed round."
        })
public final class TrainerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafka;

    @Option(
            names = "--job",
            paramLabel = "NAME",
            required = true,
            description = "The job's name (its key in every topic).")
    String job;

    @Option(
            names = "--policy",
            paramLabel = "NAME",
            completionCandidates = OptionValues.PolicyNames.class,
            description =
                    "Allocation policy of the job (default: the broker's --policy). Known: ${COMPLETION-CANDIDATES}.")
    String policy;

    @Option(
            names = "--batch",
            paramLabel = "B",
            defaultValue = "23",
            description = "Results per round (gradients per SGD step) (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(
            names = "--rounds",
            paramLabel = "R",
            defaultValue = "1000",
            description = "The job ends when this round closes (default: ${DEFAULT-VALUE}).")
    long rounds;

    @Option(
            names = "--seed",
            paramLabel = "S",
            defaultValue = "5",
            description = "Seed of the policy's tie-breaking (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--print-every",
            paramLabel = "N",
            defaultValue = "1",
            description = "Print every N-th round (default: ${DEFAULT-VALUE}); the last round is always printed.")
    long printEvery;

    @Mixin
    LogOptions logging;

    @Override
    public Integer call() {
        return ErrorReporter.guard(spec, this::train);
    }

    private int train() {
        checkOptions();
        logging.apply();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SchemaRegistryClient registry = kafka.requireRegistry();
        String prefix = kafka.prefix();
        Topics topics = kafka.topics();
        kafka.requireTopics(
                List.of(
                        topics.rounds().name(),
                        topics.gradients().name(),
                        topics.model().name()),
                "; start 'ata broker --create-topics' first (or 'ata kafka --topics')");
        TrainerConfig config = TrainerConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .clientProperties(kafka.kafkaProperties())
                .topicPrefix(prefix)
                .job(job)
                .policy(policy == null ? "" : policy)
                .batch(batch)
                .maxRounds(rounds)
                .seed(seed)
                .listener(summary -> print(out, summary))
                .meterRegistry(ProcessMetrics.newRegistry())
                .build();
        err.printf(
                Locale.ROOT,
                "ata trainer: job %s, policy %s, batch %d, %d rounds, on %s (topics %s*)%n",
                job,
                policy == null ? "(the broker's default)" : policy,
                batch,
                rounds,
                kafka.bootstrapServers(),
                prefix);
        err.flush();
        long start = System.nanoTime();
        boolean interrupted = false;
        try (StopSignal stop = StopSignal.install("trainer");
                Trainer trainer = new Trainer(config, registry)) {
            trainer.start();
            while (!trainer.awaitRounds(rounds, Duration.ofMillis(200))) {
                if (!trainer.isRunning()) {
                    throw new RunFailure(
                            "the trainer stopped at round " + trainer.metrics().lastClosedRound() + ": "
                                    + trainer.failure().map(Throwable::toString).orElse("no reason given"));
                }
                if (stop.requested()) {
                    interrupted = true;
                    break;
                }
            }
            trainer.close();
            TrainerMetrics.Snapshot m = trainer.metrics();
            double seconds = (System.nanoTime() - start) / 1e9;
            out.printf(
                    Locale.ROOT,
                    "job %s %s at round %d: objective %.6g; this trainer closed %d rounds in %.1f s "
                            + "(results: %d accepted, %d late, %d duplicates, %d stale, %d invalid)%n",
                    job,
                    interrupted ? "stopped" : (m.roundsClosed() == 0 ? "was already finished" : "finished"),
                    m.lastClosedRound(),
                    m.lastObjective(),
                    m.roundsClosed(),
                    seconds,
                    m.accepted(),
                    m.late(),
                    m.duplicates(),
                    m.stale(),
                    m.invalid());
            out.flush();
        } catch (InterruptedException e) {
            interrupted = true;
        }
        return interrupted ? DemoCommand.INTERRUPTED : 0;
    }

    private void print(PrintWriter out, RoundSummary s) {
        if (s.round() % printEvery != 0 && s.round() != rounds) {
            return;
        }
        out.printf(
                Locale.ROOT,
                "round %d: objective %.6g, round time %.1f ms (accepted %d, late %d, duplicates %d, " + "stale %d)%n",
                s.round(),
                s.objective(),
                s.roundTimeMs(),
                s.accepted(),
                s.late(),
                s.duplicates(),
                s.stale());
        out.flush();
    }

    private void checkOptions() {
        kafka.bootstrapServers();
        kafka.prefix();
        if (job.isBlank()) {
            throw usageError("Invalid value for option '--job': empty");
        }
        if (batch <= 0) {
            throw usageError("Invalid value for option '--batch': must be > 0, was " + batch);
        }
        if (rounds <= 0) {
            throw usageError("Invalid value for option '--rounds': must be > 0, was " + rounds);
        }
        if (printEvery <= 0) {
            throw usageError("Invalid value for option '--print-every': must be > 0, was " + printEvery);
        }
        if (policy != null) {
            try {
                if (PolicyFactory.parseList(policy).size() != 1) {
                    throw usageError("Invalid value for option '--policy': give one policy");
                }
            } catch (IllegalArgumentException e) {
                throw usageError("Invalid value for option '--policy': " + e.getMessage());
            }
        }
    }

    private ParameterException usageError(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
