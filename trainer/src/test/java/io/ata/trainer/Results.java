package io.ata.trainer;

import io.ata.schemas.TaskResult;
import io.ata.testsupport.Records;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Task results for tests. */
final class Results {
    private Results() {}

    /** A valid-looking result of {@code job} round {@code round} at model version {@code round - 1}. */
    static TaskResult of(String job, long round, int index, String worker, double[] gradient, double computeMs) {
        return Records.result(job, round, index, worker, gradient, computeMs).build();
    }

    static ByteBuffer float32(double[] values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            b.putFloat((float) v);
        }
        b.flip();
        return b;
    }

    static double[] filled(int n, double value) {
        double[] v = new double[n];
        java.util.Arrays.fill(v, value);
        return v;
    }
}
