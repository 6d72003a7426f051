package io.ata.sim;

import io.ata.timemodel.TaskTimeDistribution;
import io.ata.timemodel.TimeModels;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;

/**
 * A user-defined fleet: one name and one task-time distribution per worker, worker {@code i}
 * being {@code workerNames().get(i)} with {@code distributions()[i]}. Usually loaded with
 * {@link ScenarioFile#load(java.nio.file.Path)}. {@code timeUnit} names the unit of its times
 * (e.g. {@code ms}) for the reports, or is null if the scenario does not say.
 */
public record Scenario(List<String> workerNames, TaskTimeDistribution[] distributions, String timeUnit) {

    /** A scenario that does not name its time unit. */
    public Scenario(List<String> workerNames, TaskTimeDistribution[] distributions) {
        this(workerNames, distributions, null);
    }

    public Scenario {
        workerNames = List.copyOf(workerNames);
        distributions = distributions.clone();
        if (workerNames.size() != distributions.length) {
            throw new IllegalArgumentException("scenario has " + workerNames.size() + " worker names but "
                    + distributions.length + " distributions");
        }
        if (workerNames.isEmpty()) {
            throw new IllegalArgumentException("scenario has no workers");
        }
        for (TaskTimeDistribution d : distributions) {
            Objects.requireNonNull(d, "distribution");
        }
        if (new HashSet<>(workerNames).size() != workerNames.size()) {
            throw new IllegalArgumentException("scenario worker names are not unique: " + workerNames);
        }
    }

    /** A copy of the distributions, so the scenario stays immutable. */
    @Override
    public TaskTimeDistribution[] distributions() {
        return distributions.clone();
    }

    public int workerCount() {
        return distributions.length;
    }

    /** Each worker's mean task time. */
    public double[] means() {
        return TimeModels.means(distributions);
    }
}
