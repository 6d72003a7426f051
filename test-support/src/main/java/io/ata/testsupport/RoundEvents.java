package io.ata.testsupport;

import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleBiFunction;

/** Round events and their timings as a trainer writes them. */
public final class RoundEvents {
    /** The seed every test job is opened with. */
    public static final long SEED = 7;

    private RoundEvents() {}

    /** The OPENED event of {@code round}, computed on the model version before it. */
    public static RoundEvent opened(String job, long round, int batch, String policy, long atMs) {
        return RoundEvent.newBuilder()
                .setJob(job)
                .setRound(round)
                .setType(RoundEventType.OPENED)
                .setModelVersion(round - 1)
                .setBatch(batch)
                .setPolicy(policy)
                .setSeed(SEED)
                .setTimestampMs(atMs)
                .build();
    }

    /**
     * The CLOSED event of {@code round} with these timings. Its round time (1 ms) only reaches the
     * policies' outcome, which none of them reads: the broker learns from the timings.
     */
    public static RoundEvent closed(String job, long round, int batch, List<RoundTiming> timings, long atMs) {
        return RoundEvent.newBuilder()
                .setJob(job)
                .setRound(round)
                .setType(RoundEventType.CLOSED)
                .setModelVersion(round)
                .setBatch(batch)
                .setTimings(timings)
                .setRoundTimeMs(1)
                .setTimestampMs(atMs)
                .build();
    }

    /**
     * The trainer's OVERDUE event of {@code round}: {@code worker}'s {@code tasks} have had no
     * result for {@code quietMs}, noticed {@code sinceOpenMs} after the round opened.
     */
    public static RoundEvent overdue(
            String job, long round, String worker, List<String> tasks, double quietMs, double sinceOpenMs, long atMs) {
        List<RoundTiming> missing = new ArrayList<>();
        for (String t : tasks) {
            missing.add(RoundTiming.newBuilder()
                    .setWorkerId(worker)
                    .setTaskId(t)
                    .setComputeMs(quietMs)
                    .setStatus(TimingStatus.CANCELLED)
                    .setArrivalMs(sinceOpenMs)
                    .build());
        }
        return RoundEvent.newBuilder()
                .setJob(job)
                .setRound(round)
                .setType(RoundEventType.OVERDUE)
                .setModelVersion(round - 1)
                .setBatch(0)
                .setTimings(missing)
                .setTimestampMs(atMs)
                .build();
    }

    /**
     * The timings of a round whose {@code stuck} worker's tasks were run by {@code copies}: every
     * other worker's tasks and every copy done in 15 ms, the copies' results arriving at 260 ms.
     */
    public static List<RoundTiming> timingsWithCopies(
            List<TaskAssignment> round, String stuck, List<TaskAssignment> copies) {
        List<RoundTiming> timings = new ArrayList<>();
        for (TaskAssignment a : round) {
            if (!a.getWorkerId().equals(stuck)) {
                a.getTaskIds().forEach(t -> timings.add(completed(a.getWorkerId(), t, 15)));
            }
        }
        for (TaskAssignment copy : copies) {
            copy.getTaskIds()
                    .forEach(t -> timings.add(RoundTiming.newBuilder(completed(copy.getWorkerId(), t, 15))
                            .setArrivalMs(260)
                            .build()));
        }
        return timings;
    }

    /** A task accepted into the batch after {@code computeMs} on {@code worker}. */
    public static RoundTiming completed(String worker, String taskId, double computeMs) {
        return timing(worker, taskId, computeMs, TimingStatus.COMPLETED);
    }

    /** {@code worker}'s timing of {@code taskId}: {@code computeMs}, with {@code status}. */
    public static RoundTiming timing(String worker, String taskId, double computeMs, TimingStatus status) {
        return RoundTiming.newBuilder()
                .setWorkerId(worker)
                .setTaskId(taskId)
                .setComputeMs(computeMs)
                .setStatus(status)
                .build();
    }

    /**
     * One completed timing per task of {@code assignments}, in their order, each taking
     * {@code computeMs(worker, taskId)}.
     */
    public static List<RoundTiming> completed(
            List<TaskAssignment> assignments, ToDoubleBiFunction<String, String> computeMs) {
        List<RoundTiming> timings = new ArrayList<>();
        for (TaskAssignment a : assignments) {
            for (String task : a.getTaskIds()) {
                timings.add(completed(a.getWorkerId(), task, computeMs.applyAsDouble(a.getWorkerId(), task)));
            }
        }
        return timings;
    }
}
