package io.ata.cli;

import io.ata.bench.demo.DemoPlan;
import io.ata.bench.demo.DemoReport;
import io.ata.bench.demo.LiveDemo;
import io.ata.broker.BrokerSettings;
import io.ata.lab.export.TimingExport;
import io.ata.lab.report.Progress;
import io.ata.lab.timinglog.TimingLogFormat;
import io.ata.local.LocalDeployment;
import io.ata.local.StopSignal;
import io.ata.platform.ops.ProcessMetrics;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.SchemaRegistryClient;
import io.ata.trainer.TrainerConfig;
import io.ata.workeragent.AgentConfig;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One {@code ata demo} run: Kafka (embedded, or the user's cluster), the Schema Registry, the
 * broker, the fleet, then each policy's training job in turn on that fleet, each job's timings
 * written out for replay. The parts themselves are {@link LiveDemo}'s; this class puts them in
 * order and has {@link DemoReport} say what happens.
 *
 * @param kafka    the cluster to use, if any, and the registry
 * @param settings the broker's settings for the plan's policies
 * @param err      where the jobs' progress bars go
 */
record DemoRun(
        DemoPlan plan, KafkaOptions kafka, Topics topics, BrokerSettings settings, DemoReport report, PrintWriter err) {

    /**
     * Runs the demo and reports; everything is closed before this returns (and before the JVM may exit).
     *
     * @return 0, or {@link DemoCommand#INTERRUPTED} if stopped before the end
     */
    int run(StopSignal stop) {
        long started = System.nanoTime();
        List<LiveDemo.JobOutcome> outcomes = new ArrayList<>();
        boolean interrupted = false;
        try (LocalDeployment local = startKafka();
                LiveDemo demo = new LiveDemo(local, registry(local))) {
            report.brokerQueries(demo.startBroker(settings, plan.httpPort(), stop));
            interrupted = !startFleet(demo, stop) || !warmUp(demo, stop);
            for (String policy : plan.policies()) {
                if (interrupted) {
                    break;
                }
                LiveDemo.JobOutcome outcome = runJob(demo, policy, stop);
                if (outcome == null) {
                    interrupted = true;
                    break;
                }
                outcomes.add(outcome);
                TimingExport.write(
                        plan.out().resolve(DemoPlan.timingsFileName(outcome.job())),
                        TimingLogFormat.CSV,
                        outcome.timings().records());
                report.jobDone(outcome);
            }
            if (interrupted) {
                report.stopping();
            }
        }
        report.finished(outcomes, interrupted, (System.nanoTime() - started) / 1e9);
        return interrupted ? DemoCommand.INTERRUPTED : 0;
    }

    /** Starts every agent and waits for the fleet to join; false if stopped first. */
    private boolean startFleet(LiveDemo demo, StopSignal stop) {
        long fleetStart = System.nanoTime();
        List<String> ids = plan.agentIds();
        for (int j = 1; j <= plan.agents() && !stop.requested(); j++) {
            AgentConfig.Builder agent = demo.agentConfig(ids.get(j - 1))
                    .emulatedTimeModel(plan.timeModel(), j)
                    .timeScale(plan.timeScale())
                    .seed(plan.seed());
            if (plan.trainsNetwork()) {
                plan.network().configure(agent);
            }
            demo.startAgent(agent);
        }
        if (!demo.awaitFleet(stop)) {
            return false;
        }
        report.fleetJoined(topics.workers().name(), (System.nanoTime() - fleetStart) / 1e9);
        return true;
    }

    /**
     * Runs the unmeasured warm-up job, if any: a fresh JVM runs Kafka's, our and PyTorch's code
     * slowly until it is compiled and warm, which would otherwise fall on the first policy alone
     * (and make a learning policy judge the agents by their cold-start times). False if stopped.
     */
    private boolean warmUp(LiveDemo demo, StopSignal stop) {
        if (plan.warmupRounds() == 0) {
            return true;
        }
        TrainerConfig.Builder config =
                trainerConfig(demo, DemoPlan.WARMUP_POLICY, plan.warmupJobName(), plan.warmupRounds());
        if (plan.trainsNetwork()) {
            config.evalEvery(0); // nothing to score: its model is thrown away
        }
        return runJob(demo, "warm-up", DemoPlan.WARMUP_POLICY, plan.warmupJobName(), plan.warmupRounds(), config, stop)
                != null;
    }

    /** Trains with one policy, with a progress bar; null if stopped first. */
    private LiveDemo.JobOutcome runJob(LiveDemo demo, String policy, StopSignal stop) {
        String job = plan.jobName(policy);
        return runJob(demo, policy, policy, job, plan.rounds(), trainerConfig(demo, policy, job, plan.rounds()), stop);
    }

    private LiveDemo.JobOutcome runJob(
            LiveDemo demo,
            String label,
            String policy,
            String job,
            long rounds,
            TrainerConfig.Builder config,
            StopSignal stop) {
        try (Progress progress = Progress.start(label, rounds, err)) {
            return demo.runJob(policy, job, rounds, config, summary -> progress.accept(1), stop);
        }
    }

    /** A job's trainer settings: the plan's optimizer and, for a network, its model and data. */
    private TrainerConfig.Builder trainerConfig(LiveDemo demo, String policy, String job, long rounds) {
        TrainerConfig.Builder config = plan.optimizer()
                .apply(demo.trainerConfig(job, policy, plan.batch(), rounds).seed(plan.seed()));
        if (plan.trainsNetwork()) {
            plan.network().configure(config);
        }
        return config;
    }

    private LocalDeployment startKafka() {
        // the process's registry: every part of the demo puts its meters there
        MeterRegistry meters = ProcessMetrics.newRegistry();
        if (plan.onExistingCluster()) {
            kafka.topicNames(); // a clear message if the cluster cannot be reached
            LocalDeployment local = LocalDeployment.existing(
                    kafka.bootstrapServers(), kafka.kafkaProperties(), topics, settings, meters);
            report.existingKafka(local.bootstrapServers(), topics.prefix());
            return local;
        }
        long start = System.nanoTime();
        LocalDeployment local = LocalDeployment.embedded(topics, settings, meters);
        report.embeddedKafka(local.bootstrapServers(), (System.nanoTime() - start) / 1e9, topics.prefix());
        return local;
    }

    private SchemaRegistryClient registry(LocalDeployment local) {
        // --schema-registry-url, else schema.registry.url in --command-config, as on the other commands
        Optional<String> url = kafka.registryUrl();
        if (url.isPresent()) {
            SchemaRegistryClient client = kafka.registry(url.get());
            report.registry(url.get());
            return client;
        }
        report.embeddedRegistry(local.registryUrl());
        return local.registry();
    }
}
