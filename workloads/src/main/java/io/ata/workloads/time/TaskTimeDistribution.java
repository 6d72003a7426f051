package io.ata.workloads.time;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The distribution of one worker's task time. Families are those of the paper's models and of
 * scenario files; every one can be shifted by a constant (a fixed minimum time per task).
 */
public interface TaskTimeDistribution {

    double sample(SplittableRandom rng);

    double mean();

    String describe();

    record Constant(double value) implements TaskTimeDistribution {
        public Constant {
            requireNonNegative("value", value);
        }

        @Override
        public double sample(SplittableRandom rng) {
            return value;
        }

        @Override
        public double mean() {
            return value;
        }

        @Override
        public String describe() {
            return "constant(" + value + ")";
        }
    }

    record Exponential(double mean) implements TaskTimeDistribution {
        public Exponential {
            requirePositive("mean", mean);
        }

        @Override
        public double sample(SplittableRandom rng) {
            return -mean * Math.log(1.0 - rng.nextDouble());
        }

        @Override
        public String describe() {
            return "exponential(mean=" + mean + ")";
        }
    }

    record Uniform(double min, double max) implements TaskTimeDistribution {
        public Uniform {
            requireNonNegative("min", min);
            if (!(max >= min)) {
                throw new IllegalArgumentException("uniform needs max >= min, got " + min + ".." + max);
            }
        }

        @Override
        public double sample(SplittableRandom rng) {
            return min + (max - min) * rng.nextDouble();
        }

        @Override
        public double mean() {
            return 0.5 * (min + max);
        }

        @Override
        public String describe() {
            return "uniform(" + min + ", " + max + ")";
        }
    }

    /** |N(0, sigma^2)|, mean {@code sigma sqrt(2/pi)}. */
    record HalfNormal(double sigma) implements TaskTimeDistribution {
        public HalfNormal {
            requirePositive("sigma", sigma);
        }

        @Override
        public double sample(SplittableRandom rng) {
            return Math.abs(sigma * rng.nextGaussian());
        }

        @Override
        public double mean() {
            return sigma * Math.sqrt(2 / Math.PI);
        }

        @Override
        public String describe() {
            return "half-normal(sigma=" + sigma + ")";
        }
    }

    /** exp(N(mu, sigma^2)). Heavier-tailed than sub-exponential: ATA's constants are only heuristics here. */
    record LogNormal(double mu, double sigma) implements TaskTimeDistribution {
        public LogNormal {
            requirePositive("sigma", sigma);
        }

        /** The log-normal with the given mean and standard deviation. */
        public static LogNormal ofMeanAndSd(double mean, double sd) {
            requirePositive("mean", mean);
            requirePositive("sd", sd);
            double s2 = Math.log(1 + (sd * sd) / (mean * mean));
            return new LogNormal(Math.log(mean) - s2 / 2, Math.sqrt(s2));
        }

        @Override
        public double sample(SplittableRandom rng) {
            return Math.exp(mu + sigma * rng.nextGaussian());
        }

        @Override
        public double mean() {
            return Math.exp(mu + sigma * sigma / 2);
        }

        @Override
        public String describe() {
            return String.format("log-normal(mu=%.4g, sigma=%.4g)", mu, sigma);
        }
    }

    /** Gamma(shape k, scale theta), sampled by Marsaglia and Tsang's method. */
    record Gamma(double shape, double scale) implements TaskTimeDistribution {
        public Gamma {
            requirePositive("shape", shape);
            requirePositive("scale", scale);
        }

        @Override
        public double sample(SplittableRandom rng) {
            if (shape < 1) {
                // boost: Gamma(k) = Gamma(k + 1) * U^(1/k)
                double u = rng.nextDouble();
                return new Gamma(shape + 1, scale).sample(rng) * Math.pow(u, 1 / shape);
            }
            double d = shape - 1.0 / 3;
            double c = 1 / Math.sqrt(9 * d);
            while (true) {
                double x = rng.nextGaussian();
                double v = 1 + c * x;
                if (v <= 0) {
                    continue;
                }
                v = v * v * v;
                double u = rng.nextDouble();
                if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
                    return d * v * scale;
                }
            }
        }

        @Override
        public double mean() {
            return shape * scale;
        }

        @Override
        public String describe() {
            return "gamma(shape=" + shape + ", scale=" + scale + ")";
        }
    }

    /** Resamples recorded durations uniformly (e.g. one worker's column of a timing log). */
    record Empirical(double[] values, String source) implements TaskTimeDistribution {
        public Empirical {
            if (values.length == 0) {
                throw new IllegalArgumentException("empirical distribution from " + source + " has no values");
            }
            for (double v : values) {
                requireNonNegative("duration", v);
            }
            values = values.clone();
        }

        @Override
        public double sample(SplittableRandom rng) {
            return values[rng.nextInt(values.length)];
        }

        @Override
        public double mean() {
            return Arrays.stream(values).average().orElseThrow();
        }

        @Override
        public String describe() {
            return "empirical(" + source + ", " + values.length + " values)";
        }
    }

    /** {@code shift + base}: a fixed minimum time plus a random part. */
    record Shifted(double shift, TaskTimeDistribution base) implements TaskTimeDistribution {
        public Shifted {
            requireNonNegative("shift", shift);
        }

        @Override
        public double sample(SplittableRandom rng) {
            return shift + base.sample(rng);
        }

        @Override
        public double mean() {
            return shift + base.mean();
        }

        @Override
        public String describe() {
            return shift + " + " + base.describe();
        }
    }

    private static void requirePositive(String what, double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(what + " must be finite and > 0, was " + v);
        }
    }

    private static void requireNonNegative(String what, double v) {
        if (!(v >= 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(what + " must be finite and >= 0, was " + v);
        }
    }
}
