package io.ata.trainer;

import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Task results for tests. */
final class Results {
    private Results() {}

    /** A valid-looking result of {@code job} round {@code round} at model version {@code round - 1}. */
    static TaskResult of(String job, long round, int index, String worker, double[] gradient, double computeMs) {
        return builder(job, round, round - 1, job + "/" + round + "/" + index, worker, gradient, computeMs)
                .build();
    }

    static TaskResult.Builder builder(
            String job, long round, long version, String taskId, String worker, double[] gradient, double computeMs) {
        return TaskResult.newBuilder()
                .setJob(job)
                .setRound(round)
                .setTaskId(taskId)
                .setWorkerId(worker)
                .setModelVersion(version)
                .setGradient(ByteBuffer.wrap(TensorCodec.encode(gradient, TensorEncoding.FLOAT64_LE)))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setComputeMs(computeMs);
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
