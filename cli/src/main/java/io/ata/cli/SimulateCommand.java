package io.ata.cli;

import io.ata.lab.report.ExperimentRunner;
import io.ata.lab.report.RunInfo;
import io.ata.lab.sim.Experiment;
import io.ata.lab.sim.ModelDurations;
import io.ata.lab.sim.Scenario;
import io.ata.lab.sim.ScenarioFile;
import io.ata.lab.sim.SubExponentialConstants;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ata simulate}: compares policies on a simulated fleet whose task times follow one of the
 * paper's time models or a scenario file, all policies facing the same per-worker durations, while
 * the paper's quadratic problem is trained by SGD so the objective panels can be drawn.
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Simulate a fleet and compare allocation policies, as in the paper's experiments.",
            "Writes summary.csv, series.csv, runs.csv, run.txt and charts into --out."
        })
public final class SimulateCommand extends GuardedCommand {
    /** The workers the paper simulates. */
    static final int DEFAULT_WORKERS = 51;

    @Mixin
    TimeModelOption timeModel;

    @Option(
            names = "--scenario",
            paramLabel = "FILE",
            description = "A YAML or JSON file defining the fleet's workers and their task-time distributions, "
                    + "instead of --time-model. It fixes the number of workers.")
    Path scenario;

    @Option(
            names = "--workers",
            paramLabel = "N",
            defaultValue = "" + DEFAULT_WORKERS,
            description = "Number of workers n for --time-model (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(
            names = "--rounds",
            paramLabel = "R",
            defaultValue = "750000",
            description = "Rounds to simulate per policy and seed (default: ${DEFAULT-VALUE}).")
    long rounds;

    @Mixin
    ExperimentOptions common;

    @Override
    int execute() {
        common.logging.apply();
        checkOptions();
        Fleet fleet = fleet();
        TaskTimeDistribution[] distributions = fleet.distributions();
        TimeSchedule[] schedules = fleet.schedules();
        double[] trueMeans = TimeModels.means(distributions);
        AtaConstants constants = AtaConstants.choose(
                common,
                () -> SubExponentialConstants.of(distributions, common.seed),
                "time model",
                "psi_1 norm of centred task times, 4000 draws per worker, seed " + common.seed);
        QuadraticProblem problem = QuadraticProblem.paper();
        Experiment.Setup setup =
                common.setup(constants, trueMeans, rounds, seed -> new ModelDurations(schedules, seed), problem);
        return new ExperimentRunner(
                        spec.qualifiedName(),
                        spec.commandLine().getOut(),
                        spec.commandLine().getErr())
                .run(setup, () -> runInfo(fleet, constants, problem), common.out.path(), !common.noCharts);
    }

    private void checkOptions() {
        common.validate();
        common.requirePositive("--rounds", rounds);
        boolean modelGiven = spec.commandLine().getParseResult().hasMatchedOption("--time-model");
        if (scenario != null && modelGiven) {
            throw common.usageError("--time-model and --scenario are mutually exclusive: give one of them");
        }
        if (scenario == null) {
            common.requirePositive("--workers", workers);
        }
    }

    /**
     * The workers to simulate, with their task-time schedules (a paper model's never change);
     * {@code timeUnit} null: abstract time units (the paper's models).
     */
    private record Fleet(String description, List<String> names, TimeSchedule[] schedules, String timeUnit) {
        /** Each worker's distribution at the start: what fta and the constants know. */
        TaskTimeDistribution[] distributions() {
            return Arrays.stream(schedules).map(TimeSchedule::initial).toArray(TaskTimeDistribution[]::new);
        }
    }

    private Fleet fleet() {
        if (scenario == null) {
            List<String> names = new ArrayList<>();
            for (int j = 1; j <= workers; j++) {
                names.add(Integer.toString(j));
            }
            TimeSchedule[] schedules = Arrays.stream(TimeModels.byName(timeModel.name, workers))
                    .map(TimeSchedule::constant)
                    .toArray(TimeSchedule[]::new);
            return new Fleet("time model " + timeModel.name, names, schedules, null);
        }
        Scenario s = ScenarioFile.load(scenario);
        if (spec.commandLine().getParseResult().hasMatchedOption("--workers") && workers != s.workerCount()) {
            throw common.usageError("--workers " + workers + " disagrees with scenario " + scenario + ", which defines "
                    + s.workerCount() + " workers; leave out --workers (the scenario fixes it)");
        }
        return new Fleet("scenario " + scenario.getFileName(), s.workerNames(), s.schedules(), s.timeUnit());
    }

    private RunInfo runInfo(Fleet fleet, AtaConstants constants, QuadraticProblem problem) {
        TaskTimeDistribution[] d = fleet.distributions();
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("command", "simulate");
        settings.put(
                "time model",
                scenario == null
                        ? timeModel.name
                        : "scenario file " + scenario.toAbsolutePath().normalize());
        settings.put("workers", Integer.toString(d.length));
        settings.put("batch", Integer.toString(common.batch));
        settings.put("rounds", Long.toString(rounds));
        common.describeSeedsInto(settings);
        settings.put("policies", String.join(",", common.policyNames()));
        settings.put("statistics", common.statistics);
        constants.describeInto(settings);
        settings.put(
                "true means",
                "the time model's means (used by fta, proportional, proxy regret, experiments constants)"
                        + (Arrays.stream(fleet.schedules()).allMatch(TimeSchedule::isStationary)
                                ? ""
                                : "; the fleet changes over time, and these are the means at the start"));
        settings.put(
                "problem",
                "paper's quadratic: dimension " + problem.dimension() + ", SGD step "
                        + RunInfo.number(QuadraticProblem.DEFAULT_STEP) + ", gradient noise "
                        + RunInfo.number(QuadraticProblem.DEFAULT_NOISE));
        settings.put("threads", Integer.toString(common.threads));
        settings.put("charts", common.noCharts ? "no" : "yes");
        settings.put("output", common.out.path().toAbsolutePath().normalize().toString());

        List<String> workerLines = new ArrayList<>();
        TimeSchedule[] schedules = fleet.schedules();
        for (int i = 0; i < d.length; i++) {
            String changes = schedules[i].isStationary() ? "" : "; " + schedules[i].describeChanges();
            workerLines.add(fleet.names().get(i) + ": " + d[i].describe() + " (mean " + RunInfo.number(d[i].mean())
                    + ")" + changes);
        }
        String title = String.format(
                Locale.ROOT,
                "ata simulate: %s, n=%d, B=%d, %d rounds, %s",
                fleet.description(),
                d.length,
                common.batch,
                rounds,
                common.seedLabel());
        return new RunInfo(
                common.invocation(), title, settings, common.constants, null, List.of(), workerLines, fleet.timeUnit());
    }
}
