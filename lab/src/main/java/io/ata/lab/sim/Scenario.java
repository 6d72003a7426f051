package io.ata.lab.sim;

import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeModels;
import io.ata.workloads.time.TimeSchedule;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * A user-defined fleet: one name and one {@link TimeSchedule} per worker, worker {@code i} being
 * {@code workerNames().get(i)} with {@code schedules()[i]}: its task-time distribution, which may
 * change after given rounds, and the rounds it takes part in. Usually loaded with
 * {@link ScenarioFile#load(java.nio.file.Path)}. {@code timeUnit} names the unit of its times
 * (e.g. {@code ms}) for the reports, or is null if the scenario does not say.
 */
public record Scenario(List<String> workerNames, TimeSchedule[] schedules, String timeUnit) {

    /** A stationary scenario: each worker keeps its distribution and takes part throughout. */
    public Scenario(List<String> workerNames, TaskTimeDistribution[] distributions, String timeUnit) {
        this(workerNames, stationary(distributions), timeUnit);
    }

    /** A stationary scenario that does not name its time unit. */
    public Scenario(List<String> workerNames, TaskTimeDistribution[] distributions) {
        this(workerNames, distributions, null);
    }

    public Scenario {
        workerNames = List.copyOf(workerNames);
        schedules = schedules.clone();
        if (workerNames.size() != schedules.length) {
            throw new IllegalArgumentException(
                    "scenario has " + workerNames.size() + " worker names but " + schedules.length + " schedules");
        }
        if (workerNames.isEmpty()) {
            throw new IllegalArgumentException("scenario has no workers");
        }
        for (TimeSchedule s : schedules) {
            Objects.requireNonNull(s, "schedule");
        }
        if (new HashSet<>(workerNames).size() != workerNames.size()) {
            throw new IllegalArgumentException("scenario worker names are not unique: " + workerNames);
        }
    }

    private static TimeSchedule[] stationary(TaskTimeDistribution[] distributions) {
        return Arrays.stream(distributions).map(TimeSchedule::constant).toArray(TimeSchedule[]::new);
    }

    /** A copy of the schedules, so the scenario stays immutable. */
    @Override
    public TimeSchedule[] schedules() {
        return schedules.clone();
    }

    /** Each worker's distribution at the start (before any change). */
    public TaskTimeDistribution[] distributions() {
        return Arrays.stream(schedules).map(TimeSchedule::initial).toArray(TaskTimeDistribution[]::new);
    }

    /** True if no worker's distribution or presence changes over the rounds. */
    public boolean isStationary() {
        return Arrays.stream(schedules).allMatch(TimeSchedule::isStationary);
    }

    public int workerCount() {
        return schedules.length;
    }

    /** Each worker's mean task time at the start. */
    public double[] means() {
        return TimeModels.means(distributions());
    }
}
