package io.ata.cli;

import io.ata.allocation.policy.PolicyFactory;
import io.ata.local.RunFailure;
import io.ata.local.StopSignal;
import io.ata.platform.kafka.MeteredKafkaClients;
import io.ata.platform.ops.OperationsEndpoints;
import io.ata.platform.ops.ProcessMetrics;
import io.ata.schemas.Evaluation;
import io.ata.schemas.JobNames;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.trainer.RoundListener;
import io.ata.trainer.RoundSummary;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.trainer.TrainerMetrics;
import io.ata.trainer.TrainingJob;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata trainer}: trains one job through the broker (the paper's quadratic problem, or a
 * neural network on a data set; SGD or Adam), printing each closed round and each evaluation on
 * the test set, until its last round closes or Ctrl-C. A trainer started again for the same job
 * resumes it from its last closed round, with the optimizer's state.
 */
@Command(
        name = "trainer",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Train one job through the broker, printing every closed round.",
            "Runs until the job's last round closes (or Ctrl-C); prints each round's objective (suboptimality of "
                    + "the paper's quadratic problem; a network's mean training loss of the round) and round time, "
                    + "and every evaluation of a model version on the test set.",
            "Run again with the same --job (and the same model and optimizer settings) to resume it from its last "
                    + "closed round."
        })
public final class TrainerCommand extends ClusterCommand {

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
            description = "Seed of the policy's tie-breaking (default: one from the job's name, so that jobs break"
                    + " ties apart).")
    Long seed;

    @Option(
            names = "--model",
            paramLabel = "MODEL",
            defaultValue = "quadratic",
            description = "What to train: quadratic (the paper's problem, no data), mlp (784-256-128-10), cnn, or a "
                    + "network such as mlp:4096,2048 or cnn:8,16 (input and classes from --data) "
                    + "(default: ${DEFAULT-VALUE}).")
    String model;

    @Option(
            names = "--data",
            paramLabel = "DATA",
            description = "A network's data set: fashion-mnist, synthetic[:SEED], a directory of IDX files or a "
                    + ".csv file; its test split scores the model versions.")
    String data;

    @Option(
            names = "--samples-per-task",
            paramLabel = "M",
            defaultValue = "32",
            description = "Training samples in one task's mini-batch, for a network (default: ${DEFAULT-VALUE}).")
    int samplesPerTask;

    @Option(
            names = "--micro-batch",
            paramLabel = "N",
            defaultValue = "16",
            description = "Samples per forward/backward pass on the agents, for a network (default: ${DEFAULT-VALUE}).")
    int microBatch;

    @Option(
            names = "--sample-seed",
            paramLabel = "S",
            defaultValue = "0",
            description =
                    "Seed of a network's initial parameters and of the tasks' samples (default: ${DEFAULT-VALUE}).")
    long sampleSeed;

    @Mixin
    OptimizerOptions optimizer;

    @Mixin
    AggregationOptions aggregation;

    @Option(
            names = "--eval-every",
            paramLabel = "N",
            defaultValue = "25",
            description = "Score every N-th model version (version 0 included) and the last on the test set, in the "
                    + "background; 0: never (default: ${DEFAULT-VALUE}).")
    long evalEvery;

    @Option(
            names = "--eval-threads",
            paramLabel = "N",
            defaultValue = "1",
            description = "Compute threads of the evaluation (default: ${DEFAULT-VALUE}).")
    int evalThreads;

    @Option(
            names = "--print-every",
            paramLabel = "N",
            defaultValue = "1",
            description = "Print every N-th round (default: ${DEFAULT-VALUE}); the last round is always printed.")
    long printEvery;

    @Option(
            names = "--group-id",
            paramLabel = "GROUP",
            description = "Consumer group of the trainer on the gradients topic (default: <topic-prefix>trainer-<job>, "
                    + "e.g. ata.trainer-quadratic; earlier builds used ata-trainer-<job>).")
    String groupId;

    @Option(
            names = "--transactional-id",
            paramLabel = "ID",
            description = "Transactional id of the trainer's producer: one per job; a second trainer with the same id "
                    + "fences the first (default: <topic-prefix>trainer-<job>; earlier builds used ata-trainer-<job>).")
    String transactionalId;

    @Mixin
    OperationsOptions operations;

    @Mixin
    LogOptions logging;

    @Override
    int execute() {
        checkOptions();
        logging.apply();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // the policy on every meter, so that dashboards compare round times by policy
        PrometheusMeterRegistry meters =
                ProcessMetrics.newRegistry("policy", policy == null ? "broker-default" : policy);
        TrainerConfig config = configure(out, meters);
        TrainingJob training = config.trainingJob();
        SchemaRegistryClient registry = kafka.requireRegistry();
        String prefix = kafka.prefix();
        Topics topics = kafka.topics();
        List<String> required = new ArrayList<>(List.of(
                topics.rounds().name(),
                topics.allocations().name(),
                topics.gradients().name(),
                topics.model().name()));
        if (training.optimizer().hasState()) {
            required.add(topics.optimizer().name());
        }
        if (evalEvery > 0) {
            required.add(topics.evaluations().name());
        }
        kafka.requireTopics(required, "; start 'ata broker --create-topics' first (or 'ata kafka --topics')");
        err.printf(
                Locale.ROOT,
                "ata trainer: job %s, policy %s, batch %d, %d rounds, on %s (topics %s*)%n",
                job,
                policy == null ? "(the broker's default)" : policy,
                batch,
                rounds,
                kafka.bootstrapServers(),
                prefix);
        err.printf(
                Locale.ROOT,
                "ata trainer: model %s, optimizer %s, %s%n",
                training.model().describe(),
                training.optimizer().describe(),
                evalEvery > 0 ? "evaluated every " + evalEvery + " versions" : "not evaluated");
        err.flush();
        long start = System.nanoTime();
        boolean interrupted = false;
        try (StopSignal stop = StopSignal.install("trainer");
                MeteredKafkaClients clients = new MeteredKafkaClients(meters);
                Trainer trainer = new Trainer(config, registry, clients);
                OperationsEndpoints.Server ops = operations.serve(
                        ProcessMetrics.endpoints(
                                meters,
                                () -> new OperationsEndpoints.Probe(trainer.isRunning(), "trainer of job " + job),
                                () -> clients.groupMember(config.groupId())),
                        err)) {
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

    /**
     * The trainer's settings. Building them resolves the model and loads a network's data set, so
     * a wrong {@code --model} or {@code --data} is reported here, before anything connects.
     */
    TrainerConfig configure(PrintWriter out, PrometheusMeterRegistry meters) {
        String name = JobNames.problem(job);
        if (name != null) {
            throw usageError("Invalid value for option '--job': " + name);
        }
        TrainerConfig.Builder builder = TrainerConfig.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .clientProperties(kafka.kafkaProperties())
                .topicPrefix(kafka.prefix())
                .job(job)
                .policy(policy == null ? "" : policy)
                .batch(batch)
                .maxRounds(rounds)
                .model(model)
                .samplesPerTask(samplesPerTask)
                .microBatch(microBatch)
                .sampleSeed(sampleSeed)
                .evalEvery(evalEvery)
                .evalThreads(evalThreads)
                .listener(new RoundListener() {
                    @Override
                    public void roundClosed(RoundSummary summary) {
                        print(out, summary);
                    }

                    @Override
                    public void evaluated(Evaluation evaluation) {
                        print(out, evaluation);
                    }
                })
                .meterRegistry(meters);
        OptionValues.ifGiven(seed, builder::seed);
        OptionValues.ifGiven(data, builder::data);
        OptionValues.ifGiven(groupId, builder::groupId);
        OptionValues.ifGiven(transactionalId, builder::transactionalId);
        optimizer.applyTo(builder);
        try {
            aggregation.applyTo(builder);
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw usageError("Invalid model, optimizer or aggregation settings: " + e.getMessage());
        }
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

    /**
     * One evaluation: test loss and accuracy for a network, the suboptimality for the quadratic
     * problem (which has no test samples).
     */
    private static void print(PrintWriter out, Evaluation e) {
        if (e.getSamples() == 0) {
            out.printf(
                    Locale.ROOT,
                    "evaluation of version %d: suboptimality %.6g%n",
                    e.getModelVersion(),
                    e.getTestLoss());
        } else {
            out.printf(
                    Locale.ROOT,
                    "evaluation of version %d: test loss %.4f, accuracy %.2f%% (%d samples of %s)%n",
                    e.getModelVersion(),
                    e.getTestLoss(),
                    100 * e.getTestAccuracy(),
                    e.getSamples(),
                    e.getDataset());
        }
        out.flush();
    }

    private void checkOptions() {
        operations.check();
        kafka.bootstrapServers();
        kafka.prefix();
        requireNotEmpty("--job", job);
        requireNotEmpty("--group-id", groupId);
        requireNotEmpty("--transactional-id", transactionalId);
        requirePositive("--batch", batch);
        requirePositive("--rounds", rounds);
        requirePositive("--print-every", printEvery);
        requirePositive("--samples-per-task", samplesPerTask);
        requirePositive("--micro-batch", microBatch);
        if (evalEvery < 0) {
            throw usageError("Invalid value for option '--eval-every': must be >= 0 (0: never), was " + evalEvery);
        }
        requirePositive("--eval-threads", evalThreads);
        optimizer.check();
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
}
