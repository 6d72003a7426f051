package io.ata.e2e;

import io.ata.workloads.time.TaskTimeDistribution;
import io.ata.workloads.time.TimeSchedule;
import java.util.List;

/**
 * The fleet of the live tests of a changing worker ({@link LiveDriftTest}, {@link
 * LiveBackupTest}): agent-1 runs at one speed, then at another after round {@code changeAfter} (as
 * a scenario's {@code changes} would in the simulator); agents 2 and 3 at 12 + Exp(3) ms
 * throughout. On an embedded deployment with 4 task partitions.
 */
final class ChangingFleet {
    /** 4 + Exp(1) ms: the fast speed. */
    static final TaskTimeDistribution FAST =
            new TaskTimeDistribution.Shifted(4, new TaskTimeDistribution.Exponential(1));
    /** 40 + Exp(10) ms: ten times slower. */
    static final TaskTimeDistribution SLOW =
            new TaskTimeDistribution.Shifted(40, new TaskTimeDistribution.Exponential(10));

    private ChangingFleet() {}

    /** The broker and the three agents, every one a member the broker sees. */
    static EmbeddedFleet of(
            String topicPrefix, TaskTimeDistribution before, TaskTimeDistribution after, long changeAfter) {
        TaskTimeDistribution middle = new TaskTimeDistribution.Shifted(12, new TaskTimeDistribution.Exponential(3));
        return EmbeddedFleet.of(topicPrefix, 4)
                .agent(local -> local.agentConfig("agent-1")
                        .emulatedSchedule(new TimeSchedule(
                                before, List.of(new TimeSchedule.Change(changeAfter, after)), 0, TimeSchedule.NEVER))
                        .build())
                .agents(middle, "agent-2", "agent-3");
    }
}
