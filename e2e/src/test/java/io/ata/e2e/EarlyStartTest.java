package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.testsupport.EndToEnd;
import io.ata.testsupport.Records;
import io.ata.workeragent.AssignmentListener;
import io.ata.workeragent.QuadraticWorkload;
import io.ata.workeragent.WorkerAgent;
import io.ata.workloads.QuadraticProblem;
import io.ata.workloads.time.TaskTimeDistribution;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An agent starts a round's tasks on its model version as soon as the trainer's close has written
 * it, before the close commits, on the embedded Kafka broker with the trainer's transactions played
 * by hand. A close that commits confirms the work done meanwhile; a close that aborts (its trainer
 * died) leaves nothing of it: the task runs again on the version that commits in its place, and
 * only that result is published.
 */
@EndToEnd
class EarlyStartTest {
    private static final String JOB = "early";
    private static final String WORKER = "early-agent";
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** Long enough that the test sees the task start and ends the close while it computes. */
    private static final TaskTimeDistribution TASK_TIME = new TaskTimeDistribution.Constant(400);

    private HandPublisher hand;
    private LocalDeployment local;
    private WorkerAgent agent;
    private final Set<Long> started = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void start() {
        hand = HandPublisher.embedded("early.", JOB);
        local = hand.local();
        hand.publishModel(0);
        agent = local.startAgent(local.agentConfig(WORKER)
                .emulatedTime(TASK_TIME)
                .assignmentListener(new AssignmentListener() {
                    @Override
                    public void received(TaskAssignment assignment, long nanoTime) {}

                    @Override
                    public void started(TaskAssignment assignment, long nanoTime) {
                        started.add(assignment.getRound());
                    }
                })
                .build());
        await("the agent owns the tasks partition")
                .atMost(PATIENCE)
                .until(() -> agent.ownedPartitions().equals(List.of(0)));
    }

    @AfterEach
    void stop() {
        hand.close();
    }

    private static ModelVersion model(long version, double shift) {
        double[] p = QuadraticProblem.paper().start();
        p[0] += shift;
        return Records.model(JOB, version, p).build();
    }

    /** The gradient the agent computes for {@code taskId} at {@code model}. */
    private ByteBuffer gradientAt(ModelVersion model, String taskId) {
        return ByteBuffer.wrap(new QuadraticWorkload()
                .compute(model, taskId, agent.config().seed(), () -> false)
                .orElseThrow()
                .gradient());
    }

    private TaskResult awaitResult(String taskId) {
        return await("the result of " + taskId)
                .atMost(PATIENCE)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> TopicContents.values(local, local.topics().gradients()).stream()
                                .filter(r -> r.getTaskId().equals(taskId))
                                .toList(),
                        l -> !l.isEmpty())
                .get(0);
    }

    @Test
    void aTaskStartsBeforeItsVersionCommitsAndItsResultIsPublishedAfter() throws Exception {
        hand.publishAssignment(Records.assignment(JOB, 2, WORKER, 1).build()); // parked: version 1 to come
        ModelVersion v1 = model(1, 0.5);
        hand.openModelTransaction(v1);
        await("round 2 started on the version not committed yet")
                .atMost(PATIENCE)
                .until(() -> started.contains(2L));
        Thread.sleep((long) (TASK_TIME.mean() * 3)); // the task done, its result held
        assertEquals(List.of(), hand.resultTaskIds(), "nothing published before the commit");
        hand.commitOpenTransaction();

        TaskResult r = awaitResult(JOB + "/2/0");
        assertEquals(gradientAt(v1, r.getTaskId()), r.getGradient());
        assertEquals(1, agent.metrics().assignmentsEarlyConfirmed());
        assertEquals(0, agent.metrics().assignmentsEarlyDiscarded());
        assertEquals(0, agent.metrics().deadLetters());
    }

    @Test
    void aTaskStartedOnAVersionWhoseCloseAbortedRunsAgainOnTheOneThatCommits() throws Exception {
        hand.publishAssignment(Records.assignment(JOB, 2, WORKER, 1).build());
        ModelVersion aborted = model(1, 0.5);
        hand.openModelTransaction(aborted);
        await("round 2 started on the version not committed yet")
                .atMost(PATIENCE)
                .until(() -> started.contains(2L));
        hand.abortOpenTransaction(); // the trainer died; its successor closes the round again
        ModelVersion committed = model(1, -1.5);
        hand.publishModel(committed);

        TaskResult r = awaitResult(JOB + "/2/0");
        assertEquals(gradientAt(committed, r.getTaskId()), r.getGradient(), "computed at the version committed");
        assertNotEquals(gradientAt(aborted, r.getTaskId()), r.getGradient());
        assertEquals(List.of(JOB + "/2/0"), hand.resultTaskIds(), "one result, none of the aborted version");
        assertEquals(0, agent.metrics().assignmentsEarlyConfirmed());
        assertEquals(1, agent.metrics().assignmentsEarlyDiscarded());
        assertTrue(agent.isRunning(), agent.failure().toString());
    }
}
