package io.ata.trainer;

/**
 * A 4-parameter test objective, {@code f(x) = |x|^2} starting at (1, 1, 1, 1), so the models the
 * trainer's tests expect are easy to work out by hand.
 */
final class SquaredNorm implements Objective {
    static final int DIM = 4;
    static final SquaredNorm INSTANCE = new SquaredNorm();

    private SquaredNorm() {}

    @Override
    public int dimension() {
        return DIM;
    }

    @Override
    public double[] initialParameters() {
        return Results.filled(DIM, 1);
    }

    @Override
    public double evaluate(double[] x) {
        double s = 0;
        for (double v : x) {
            s += v * v;
        }
        return s;
    }
}
