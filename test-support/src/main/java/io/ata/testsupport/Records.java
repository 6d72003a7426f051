package io.ata.testsupport;

import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The records the parts exchange, as tests build them: each factory returns the record's own Avro
 * builder with the fields every test sets filled in, so a test sets only what it is about, e.g.
 * {@code Records.heartbeat("w1", now, 0, 1).setStatus(WorkerStatus.LEAVING).build()}. Fields a
 * factory does not name keep their schema defaults.
 */
public final class Records {
    private Records() {}

    /** The id of task {@code index} of {@code round} of {@code job}: {@code job/round/index}. */
    public static String taskId(String job, long round, int index) {
        return job + "/" + round + "/" + index;
    }

    /** An ALIVE heartbeat of {@code worker} at {@code atMs}, owning {@code partitions}. */
    public static WorkerHeartbeat.Builder heartbeat(String worker, long atMs, List<Integer> partitions) {
        return WorkerHeartbeat.newBuilder()
                .setWorkerId(worker)
                .setPartitions(partitions)
                .setStatus(WorkerStatus.ALIVE)
                .setTimestampMs(atMs);
    }

    /** An ALIVE heartbeat of {@code worker} at {@code atMs}, owning {@code partitions}. */
    public static WorkerHeartbeat.Builder heartbeat(String worker, long atMs, int... partitions) {
        return heartbeat(worker, atMs, Arrays.stream(partitions).boxed().toList());
    }

    /** ALIVE heartbeats at {@code atMs} of workers {@code w0 .. w(n-1)}, worker {@code wi} owning partition i. */
    public static List<WorkerHeartbeat> aliveWorkers(int n, long atMs) {
        List<WorkerHeartbeat> heartbeats = new ArrayList<>();
        for (int w = 0; w < n; w++) {
            heartbeats.add(heartbeat("w" + w, atMs, w).build());
        }
        return heartbeats;
    }

    /**
     * {@code worker}'s result of task {@code taskId} of {@code job} round {@code round}, computed on
     * model {@code version} in {@code computeMs}: {@code gradient} as FLOAT64_LE.
     */
    public static TaskResult.Builder result(
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

    /** A valid-looking result of task {@code index} of {@code job} round {@code round}, at model version {@code round - 1}. */
    public static TaskResult.Builder result(
            String job, long round, int index, String worker, double[] gradient, double computeMs) {
        return result(job, round, round - 1, taskId(job, round, index), worker, gradient, computeMs);
    }

    /**
     * Round {@code round} of {@code job} for {@code worker} at model version {@code round - 1}:
     * tasks {@code 0 .. tasks-1} on tasks partition 0, created at 1 ms.
     */
    public static TaskAssignment.Builder assignment(String job, long round, String worker, int tasks) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            ids.add(taskId(job, round, i));
        }
        return TaskAssignment.newBuilder()
                .setJob(job)
                .setRound(round)
                .setModelVersion(round - 1)
                .setWorkerId(worker)
                .setPartition(0)
                .setTaskIds(ids)
                .setBatch(tasks)
                .setCreatedMs(1);
    }

    /** Model {@code version} of {@code job}: {@code parameters} as FLOAT64_LE, written at 1 ms. */
    public static ModelVersion.Builder model(String job, long version, double[] parameters) {
        return ModelVersion.newBuilder()
                .setJob(job)
                .setVersion(version)
                .setParameters(ByteBuffer.wrap(TensorCodec.encode(parameters, TensorEncoding.FLOAT64_LE)))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setTimestampMs(1);
    }
}
