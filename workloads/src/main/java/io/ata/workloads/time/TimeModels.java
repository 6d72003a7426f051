package io.ata.workloads.time;

import io.ata.workloads.time.TaskTimeDistribution.Exponential;
import io.ata.workloads.time.TaskTimeDistribution.Gamma;
import io.ata.workloads.time.TaskTimeDistribution.HalfNormal;
import io.ata.workloads.time.TaskTimeDistribution.LogNormal;
import io.ata.workloads.time.TaskTimeDistribution.Shifted;
import io.ata.workloads.time.TaskTimeDistribution.Uniform;
import java.util.Locale;
import java.util.function.IntToDoubleFunction;

/**
 * The paper's time models for workers {@code j = 1..n}. Each worker's time is half a fixed
 * minimum and half a random part with the model's mean {@code m_j}:
 * <ul>
 *   <li>{@code linear}: {@code X_j = 29 j + Exp(mean 29 j)}, so {@code m_j = 58 j} (the main model);</li>
 *   <li>{@code log}, {@code sqrt}, {@code quadratic}: the same with {@code m_j = 58 ln(j+1)},
 *       {@code 58 sqrt(j)}, {@code 58 j^2};</li>
 *   <li>{@code gamma}: {@code X_j = 29 j + Gamma(shape 2, scale 14.5 j)}, {@code m_j = 58 j};</li>
 *   <li>{@code mixture}: workers in groups of five share a mean ({@code 58 (5g - 2)} for group
 *       {@code g}, the group's average under the linear model), and the five use the families
 *       exponential, uniform, half-normal, log-normal (sigma 1) and gamma (shape 2), each for the
 *       random half and shifted by half the mean.</li>
 * </ul>
 * The paper names the Gamma and mixture models without all their parameters; the choices above
 * keep every worker's mean on the linear model's scale.
 */
public final class TimeModels {
    public static final String[] NAMES = {"linear", "log", "sqrt", "quadratic", "gamma", "mixture"};

    private TimeModels() {}

    public static TaskTimeDistribution[] byName(String name, int workers) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "linear" -> shiftedExponential(workers, j -> 58.0 * j);
            case "log" -> shiftedExponential(workers, j -> 58.0 * Math.log(j + 1));
            case "sqrt" -> shiftedExponential(workers, j -> 58.0 * Math.sqrt(j));
            case "quadratic" -> shiftedExponential(workers, j -> 58.0 * j * j);
            case "gamma" -> gamma(workers);
            case "mixture" -> mixture(workers);
            default ->
                throw new IllegalArgumentException(
                        "unknown time model '" + name + "'; known: " + String.join(", ", NAMES));
        };
    }

    /** {@code X_j = m_j/2 + Exp(mean m_j/2)}. */
    public static TaskTimeDistribution[] shiftedExponential(int workers, IntToDoubleFunction meanOfWorker) {
        TaskTimeDistribution[] d = new TaskTimeDistribution[workers];
        for (int j = 1; j <= workers; j++) {
            double half = meanOfWorker.applyAsDouble(j) / 2;
            d[j - 1] = new Shifted(half, new Exponential(half));
        }
        return d;
    }

    private static TaskTimeDistribution[] gamma(int workers) {
        TaskTimeDistribution[] d = new TaskTimeDistribution[workers];
        for (int j = 1; j <= workers; j++) {
            d[j - 1] = new Shifted(29.0 * j, new Gamma(2, 14.5 * j));
        }
        return d;
    }

    private static TaskTimeDistribution[] mixture(int workers) {
        TaskTimeDistribution[] d = new TaskTimeDistribution[workers];
        for (int j = 1; j <= workers; j++) {
            int group = (j + 4) / 5;
            double half = 58.0 * (5 * group - 2) / 2; // shift, and mean of the random part
            TaskTimeDistribution random = switch ((j - 1) % 5) {
                case 0 -> new Exponential(half);
                case 1 -> new Uniform(0, 2 * half);
                case 2 -> new HalfNormal(half * Math.sqrt(Math.PI / 2));
                case 3 -> new LogNormal(Math.log(half) - 0.5, 1.0);
                default -> new Gamma(2, half / 2);
            };
            d[j - 1] = new Shifted(half, random);
        }
        return d;
    }

    public static double[] means(TaskTimeDistribution[] distributions) {
        double[] m = new double[distributions.length];
        for (int i = 0; i < m.length; i++) {
            m[i] = distributions[i].mean();
        }
        return m;
    }
}
