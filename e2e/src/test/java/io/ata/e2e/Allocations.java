package io.ata.e2e;

import io.ata.local.LocalDeployment;
import io.ata.schemas.TaskAssignment;
import java.util.List;

/** What the broker allocated to whom, read from the tasks topic, for assertions on a live job. */
final class Allocations {
    private Allocations() {}

    /** The task assignments of {@code job} on {@code local}'s tasks topic. */
    static List<TaskAssignment> of(LocalDeployment local, String job) {
        return TopicContents.values(
                local, local.topics().tasks(), a -> a != null && a.getJob().equals(job));
    }

    /** Tasks allocated to {@code worker} per round, over rounds {@code from..to} (backup copies not counted). */
    static double tasksPerRound(List<TaskAssignment> assignments, String worker, long from, long to) {
        return assignments.stream()
                        .filter(a -> a.getWorkerId().equals(worker) && a.getRound() >= from && a.getRound() <= to)
                        .filter(a -> a.getBackupOf().isEmpty())
                        .mapToInt(a -> a.getTaskIds().size())
                        .sum()
                / (double) (to - from + 1);
    }

    /** {@code worker}'s tasks per round over rounds 1..{@code rounds} in windows of {@code step}, for messages. */
    static String profile(List<TaskAssignment> assignments, String worker, long rounds, long step) {
        StringBuilder out = new StringBuilder();
        for (long from = 1; from <= rounds; from += step) {
            long to = Math.min(rounds, from + step - 1);
            out.append(out.isEmpty() ? "" : ", ")
                    .append(from)
                    .append('-')
                    .append(to)
                    .append(": ")
                    .append(tasksPerRound(assignments, worker, from, to));
        }
        return out.toString();
    }
}
