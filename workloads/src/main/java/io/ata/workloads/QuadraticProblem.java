package io.ata.workloads;

import java.util.SplittableRandom;

/**
 * The paper's test problem: {@code f(x) = 1/2 x^T A x - b^T x} with {@code A = 1/4 tridiag(-1, 2, -1)},
 * {@code b = (-1/4, 0, ..., 0)}, {@code x0 = (sqrt d, 0, ..., 0)}, trained by minibatch SGD with
 * step {@code gamma} on the mean of {@code B} stochastic gradients
 * {@code grad f(x) + sigma * xi * (1, ..., 1)}, one scalar {@code xi ~ N(0,1)} per gradient.
 *
 * <p>The mean of {@code B} such gradients is {@code grad f(x) + sigma * zeta * 1} with
 * {@code zeta ~ N(0, 1/B)}, which is how a step is drawn here (the same law, one draw).
 */
public final class QuadraticProblem {
    public static final int DEFAULT_DIMENSION = 100;
    public static final double DEFAULT_STEP = 1e-4;
    public static final double DEFAULT_NOISE = 1e-3;

    private final int dimension;
    private final double step;
    private final double noise;
    private final double optimalValue;

    public QuadraticProblem(int dimension, double step, double noise) {
        if (dimension < 2) {
            throw new IllegalArgumentException("dimension must be >= 2");
        }
        this.dimension = dimension;
        this.step = step;
        this.noise = noise;
        this.optimalValue = value(solveOptimum());
    }

    public static QuadraticProblem paper() {
        return new QuadraticProblem(DEFAULT_DIMENSION, DEFAULT_STEP, DEFAULT_NOISE);
    }

    public int dimension() {
        return dimension;
    }

    public double[] start() {
        double[] x = new double[dimension];
        x[0] = Math.sqrt(dimension);
        return x;
    }

    private double b(int i) {
        return i == 0 ? -0.25 : 0;
    }

    /** {@code (A x)_i} for the tridiagonal {@code A}. */
    private double ax(double[] x, int i) {
        double v = 0.5 * x[i];
        if (i > 0) {
            v -= 0.25 * x[i - 1];
        }
        if (i < dimension - 1) {
            v -= 0.25 * x[i + 1];
        }
        return v;
    }

    public double value(double[] x) {
        double v = 0;
        for (int i = 0; i < dimension; i++) {
            v += 0.5 * x[i] * ax(x, i) - b(i) * x[i];
        }
        return v;
    }

    public double suboptimality(double[] x) {
        return value(x) - optimalValue;
    }

    /** The exact gradient {@code A x - b} into {@code out}. */
    public void gradient(double[] x, double[] out) {
        for (int i = 0; i < dimension; i++) {
            out[i] = ax(x, i) - b(i);
        }
    }

    /** One stochastic gradient {@code A x - b + sigma xi 1} into {@code out} (what a worker computes). */
    public void stochasticGradient(double[] x, SplittableRandom rng, double[] out) {
        gradient(x, out);
        double shift = noise * rng.nextGaussian();
        for (int i = 0; i < dimension; i++) {
            out[i] += shift;
        }
    }

    /** One SGD step on the mean of {@code batch} stochastic gradients, in place. */
    public void step(double[] x, int batch, SplittableRandom rng, double[] scratch) {
        gradient(x, scratch);
        double shift = noise * rng.nextGaussian() / Math.sqrt(batch);
        for (int i = 0; i < dimension; i++) {
            x[i] -= step * (scratch[i] + shift);
        }
    }

    /** Thomas algorithm for {@code A x = b}. */
    private double[] solveOptimum() {
        int n = dimension;
        double[] c = new double[n];
        double[] d = new double[n];
        double lower = -0.25;
        double diag = 0.5;
        double upper = -0.25;
        c[0] = upper / diag;
        d[0] = b(0) / diag;
        for (int i = 1; i < n; i++) {
            double m = diag - lower * c[i - 1];
            c[i] = upper / m;
            d[i] = (b(i) - lower * d[i - 1]) / m;
        }
        double[] x = new double[n];
        x[n - 1] = d[n - 1];
        for (int i = n - 2; i >= 0; i--) {
            x[i] = d[i] - c[i] * x[i + 1];
        }
        return x;
    }

    /**
     * Runs SGD for {@code rounds} rounds and returns the suboptimality after each sampled round.
     * Every policy collects {@code B} gradients at the same model per round, so this curve is
     * shared by all policies of one seed; only their time axes differ.
     */
    public double[] objectiveCurve(long[] sampledRounds, int batch, long seed) {
        double[] result = new double[sampledRounds.length];
        double[] x = start();
        double[] scratch = new double[dimension];
        SplittableRandom rng = new SplittableRandom(seed);
        long round = 0;
        for (int s = 0; s < sampledRounds.length; s++) {
            while (round < sampledRounds[s]) {
                step(x, batch, rng, scratch);
                round++;
            }
            result[s] = suboptimality(x);
        }
        return result;
    }
}
