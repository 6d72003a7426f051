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
import io.ata.trainer.Model;
import io.ata.trainer.RoundListener;
import io.ata.trainer.RoundSummary;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import io.ata.trainer.TrainerHost;
import io.ata.trainer.TrainerMetrics;
import io.ata.trainer.TrainingJob;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata trainer}: trains one job through the broker (the paper's quadratic problem, or a
 * neural network on a data set; SGD or Adam), printing each closed round and each evaluation on
 * the test set, until its last round closes or Ctrl-C. A trainer started again for the same job
 * resumes it from its last closed round, with the optimizer's state. Several jobs
 * ({@code --job a,b,c}) run in one {@link TrainerHost}.
 */
@Command(
        name = "trainer",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Train one job through the broker, printing every closed round; several (--job a,b,c) in one process.",
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
            split = ",",
            required = true,
            description = "The job's name (its key in every topic). Several, comma-separated (--job a,b,c), run in "
                    + "one trainer host: one reader of the results and one watch of the rounds for all of them, each "
                    + "job with its own transactions, seed (from its name), model and evaluations; every other "
                    + "setting is the same for all.")
    List<String> jobs;

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
        List<TrainerConfig> configs = new ArrayList<>();
        for (String job : jobs) {
            // the first job's model for the others: one copy of a network's data set, not one per job
            configs.add(configure(
                    job,
                    out,
                    meters,
                    configs.isEmpty() ? null : configs.get(0).trainingJob().model()));
        }
        TrainingJob training = configs.get(0).trainingJob();
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
                "ata trainer: %s %s, policy %s, batch %d, %d rounds, on %s (topics %s*)%n",
                jobs.size() == 1 ? "job" : jobs.size() + " jobs in one trainer host:",
                String.join(", ", jobs),
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
        List<Trainer> trainers = new CopyOnWriteArrayList<>(); // the health probe reads it from its own thread
        try (StopSignal stop = StopSignal.install("trainer");
                MeteredKafkaClients clients = new MeteredKafkaClients(meters);
                TrainerHost host = jobs.size() == 1
                        ? null
                        : new TrainerHost(kafka.clientProperties(), topics, registry, clients, meters).start();
                OperationsEndpoints.Server ops = operations.serve(
                        ProcessMetrics.endpoints(
                                meters,
                                () -> running(trainers),
                                () -> host == null
                                        ? clients.groupMember(configs.get(0).groupId())
                                        : running(trainers)),
                        err)) {
            RunFailure failed = null;
            try {
                for (TrainerConfig config : configs) {
                    Trainer trainer = host == null ? new Trainer(config, registry, clients) : host.trainer(config);
                    trainers.add(trainer);
                    trainer.start();
                }
                interrupted = !awaitLastRounds(trainers, stop);
            } catch (RunFailure e) {
                failed = e; // the other jobs stop too, and say where
            } finally {
                Trainer.closeAll(trainers);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            for (Trainer trainer : trainers) {
                printSummary(out, trainer, interrupted || failed != null, seconds);
            }
            if (failed != null) {
                throw failed;
            }
        } catch (InterruptedException e) {
            interrupted = true;
        }
        return interrupted ? DemoCommand.INTERRUPTED : 0;
    }

    /**
     * Waits until every trainer closed its job's last round; false if Ctrl-C came first.
     *
     * @throws RunFailure if a trainer stopped before its job's last round
     */
    private boolean awaitLastRounds(List<Trainer> trainers, StopSignal stop) throws InterruptedException {
        List<Trainer> waiting = new ArrayList<>(trainers);
        while (!waiting.isEmpty()) {
            Trainer next = waiting.get(0);
            if (next.awaitRounds(rounds, Duration.ofMillis(200))) {
                waiting.remove(0);
                continue;
            }
            for (Trainer trainer : waiting) {
                if (!trainer.isRunning() && !trainer.awaitRounds(rounds, Duration.ZERO)) {
                    throw new RunFailure(
                            (jobs.size() == 1 ? "" : "job " + trainer.config().job() + ": ")
                                    + "the trainer stopped at round "
                                    + trainer.metrics().lastClosedRound() + ": "
                                    + trainer.failure().map(Throwable::toString).orElse("no reason given"));
                }
            }
            if (stop.requested()) {
                return false;
            }
        }
        return true;
    }

    /** Healthy while every trainer runs (or has finished its job). */
    private OperationsEndpoints.Probe running(List<Trainer> trainers) {
        List<String> stopped = trainers.stream()
                .filter(t -> !t.isRunning() && t.failure().isPresent())
                .map(t -> t.config().job())
                .toList();
        boolean started = trainers.size() == jobs.size();
        return new OperationsEndpoints.Probe(
                started && stopped.isEmpty(),
                !stopped.isEmpty()
                        ? "the trainer of job(s) " + String.join(", ", stopped) + " failed"
                        : (started ? "trainers of " : "starting the trainers of ") + String.join(", ", jobs));
    }

    private void printSummary(PrintWriter out, Trainer trainer, boolean interrupted, double seconds) {
        TrainerMetrics.Snapshot m = trainer.metrics();
        out.printf(
                Locale.ROOT,
                "job %s %s at round %d: objective %.6g; this trainer closed %d rounds in %.1f s "
                        + "(results: %d accepted, %d late, %d duplicates, %d stale, %d invalid)%n",
                trainer.config().job(),
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
    }

    /**
     * The trainer's settings. Building them resolves the model and loads a network's data set, so
     * a wrong {@code --model} or {@code --data} is reported here, before anything connects.
     */
    TrainerConfig configure(PrintWriter out, PrometheusMeterRegistry meters) {
        return configure(jobs.get(0), out, meters, null);
    }

    /** @param sharedModel the model resolved for another job of the same settings; null: resolve it */
    private TrainerConfig configure(String job, PrintWriter out, PrometheusMeterRegistry meters, Model sharedModel) {
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
                .samplesPerTask(samplesPerTask)
                .microBatch(microBatch)
                .sampleSeed(sampleSeed)
                .evalEvery(evalEvery)
                .evalThreads(evalThreads)
                .listener(new RoundListener() {
                    @Override
                    public void roundClosed(RoundSummary summary) {
                        print(out, linePrefix(job), summary);
                    }

                    @Override
                    public void evaluated(Evaluation evaluation) {
                        print(out, linePrefix(job), evaluation);
                    }
                })
                .meterRegistry(meters);
        OptionValues.ifGiven(seed, builder::seed);
        if (sharedModel != null) {
            builder.model(sharedModel);
        } else {
            builder.model(model);
            OptionValues.ifGiven(data, builder::data);
        }
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

    /** Each job's lines name it when the trainer runs several (an argument of the format: a name may hold a '%'). */
    private String linePrefix(String job) {
        return jobs.size() == 1 ? "" : "job " + job + " ";
    }

    private void print(PrintWriter out, String prefix, RoundSummary s) {
        if (s.round() % printEvery != 0 && s.round() != rounds) {
            return;
        }
        out.printf(
                Locale.ROOT,
                "%sround %d: objective %.6g, round time %.1f ms (accepted %d, late %d, duplicates %d, stale %d)%n",
                prefix,
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
    private static void print(PrintWriter out, String prefix, Evaluation e) {
        if (e.getSamples() == 0) {
            out.printf(
                    Locale.ROOT,
                    "%sevaluation of version %d: suboptimality %.6g%n",
                    prefix,
                    e.getModelVersion(),
                    e.getTestLoss());
        } else {
            out.printf(
                    Locale.ROOT,
                    "%sevaluation of version %d: test loss %.4f, accuracy %.2f%% (%d samples of %s)%n",
                    prefix,
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
        jobs.forEach(job -> requireNotEmpty("--job", job));
        if (jobs.stream().distinct().count() < jobs.size()) {
            throw usageError("Invalid value for option '--job': a job is named twice in " + String.join(",", jobs));
        }
        if (jobs.size() > 1) {
            for (String perJob : new String[] {"--group-id", "--transactional-id", "--seed"}) {
                if (spec.commandLine().getParseResult().hasMatchedOption(perJob)) {
                    throw usageError("Option '" + perJob + "' is one job's; with several jobs each gets its own"
                            + " from its name (give one --job to set it)");
                }
            }
        }
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
