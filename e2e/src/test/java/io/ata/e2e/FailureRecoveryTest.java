package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.JobState;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Workers joining and dying, the broker and the trainer restarting, bad records: training goes on. */
@EndToEnd
class FailureRecoveryTest {
    /** How long a round may take to close before the test fails. */
    private static final Duration ROUND_WAIT = Duration.ofSeconds(90);

    private static final int BATCH = 6;

    @RegisterExtension
    final EmbeddedFleet fleet;

    FailureRecoveryTest() {
        fleet = EmbeddedFleet.of("fail.", 8).settings(brokerSettings()).checkingAllocation();
    }

    /** The broker's settings: {@link FailureRecoveryAtOpenTest} runs the same failures without pipelined allocation. */
    BrokerSettings brokerSettings() {
        return LocalDeployment.QUICK_LIVENESS;
    }

    /**
     * Whether the broker's restart finds its state directory as {@code kill -9} leaves it (no task
     * checkpointed, which under exactly-once means restoring every store from its changelog) rather
     * than as a clean stop does; {@link FailureRecoveryAtOpenTest} restarts it cleanly.
     */
    boolean restartsUncleanly() {
        return true;
    }

    /**
     * Leaves the stopped broker's state directory as {@code kill -9} would: without the mark of its
     * clean stop. Returns its tasks' directories, whose state exactly-once would now discard.
     */
    private static List<String> asAfterKill9(LocalDeployment local) throws IOException {
        Path stateDir = local.workDirectory().resolve("broker-state");
        String app = local.topics().brokerApplicationId();
        assertTrue(Files.deleteIfExists(stateDir.resolve(app + ".clean-stop")), "the broker's stop was marked clean");
        try (Stream<Path> dirs = Files.list(stateDir.resolve(app))) {
            List<String> tasks = dirs.map(d -> d.getFileName().toString())
                    .filter(name -> name.matches("[0-9]+_[0-9]+"))
                    .sorted()
                    .toList();
            assertFalse(tasks.isEmpty(), "the stopped broker left its tasks' state");
            return tasks;
        }
    }

    private String state(LocalDeployment local, Trainer trainer) {
        List<String> reasons = TopicContents.read(local, local.topics().deadLetters()).stream()
                .map(r -> r.value().getSourceTopic() + ": " + r.value().getReason())
                .toList();
        return "trainer " + trainer.failure() + "; dead letters " + reasons;
    }

    private JobState awaitFolded(LocalDeployment local, String job, long round) {
        return await("the broker to fold round " + round)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(
                        () -> local.broker() == null
                                ? null
                                : local.broker().jobs().get(job),
                        state -> state != null && state.getLastClosedRound() >= round);
    }

    /** The job's assignments of {@code round} on the tasks topic. */
    private List<TaskAssignment> assignments(LocalDeployment local, String job, long round) {
        return TopicContents.values(
                local, local.topics().tasks(), a -> a.getJob().equals(job) && a.getRound() == round);
    }

    private List<RoundEvent> closes(LocalDeployment local, String job) {
        return TopicContents.values(
                local, local.topics().rounds(), e -> e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED);
    }

    /** Each round 1..rounds closed exactly once, with B distinct accepted tasks of that round. */
    private void assertRoundsExactlyOnce(LocalDeployment local, String job, long rounds) {
        Map<Long, Integer> seen = new HashMap<>();
        for (RoundEvent e : closes(local, job)) {
            seen.merge(e.getRound(), 1, Integer::sum);
            Set<String> ids = new HashSet<>();
            e.getTimings().stream()
                    .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                    .forEach(t -> assertTrue(
                            ids.add(t.getTaskId()) && t.getTaskId().startsWith(job + "/" + e.getRound() + "/")));
            assertEquals(BATCH, ids.size(), "round " + e.getRound());
        }
        for (long k = 1; k <= rounds; k++) {
            assertEquals(1, seen.getOrDefault(k, 0), "round " + k + " closed once");
        }
    }

    @Test
    void aJoiningAgentIsExploredAndAKilledAgentDoesNotStallTraining(LocalDeployment local) throws Exception {
        local.startFleet(Duration.ofSeconds(60), 8, 4, 12);
        String job = "join-and-kill";
        // longer than the test waits for: how many rounds pass while the newcomer joins depends on the machine
        Trainer trainer = local.startTrainer(job, "ata-auto", BATCH, 1_000, RoundListener.NONE);
        awaitRound(trainer, 15, ROUND_WAIT, () -> state(local, trainer));
        long joinedAt = trainer.metrics().lastClosedRound();
        local.startAgent("agent-4", LocalDeployment.aboutMs(2));
        local.awaitFleet(Duration.ofSeconds(60)); // a member owning task partitions, as the broker sees it
        long memberAt = trainer.metrics().lastClosedRound();
        awaitRound(trainer, memberAt + 25, ROUND_WAIT, () -> state(local, trainer));
        local.killAgent("agent-2");
        long killedAt = trainer.metrics().lastClosedRound();
        long endAt = killedAt + 40;
        awaitRound(trainer, endAt, ROUND_WAIT, () -> state(local, trainer));
        trainer.close();
        assertRoundsExactlyOnce(local, job, endAt);

        List<TaskAssignment> assignments = TopicContents.values(
                local, local.topics().tasks(), a -> a.getJob().equals(job));
        long firstForNewcomer = assignments.stream()
                .filter(a -> a.getWorkerId().equals("agent-4"))
                .mapToLong(TaskAssignment::getRound)
                .min()
                .orElse(-1);
        assertTrue(
                firstForNewcomer > joinedAt && firstForNewcomer <= memberAt + 10,
                "agent-4 was explored once it joined (rounds " + joinedAt + "-" + memberAt + "), first in round "
                        + firstForNewcomer);
        // the newcomer is the fastest: once explored, ATA keeps it busy
        long newcomerRounds = assignments.stream()
                .filter(a -> a.getWorkerId().equals("agent-4"))
                .count();
        assertTrue(newcomerRounds > 20, "agent-4 got tasks in " + newcomerRounds + " rounds");
        // after the kill (and its liveness timeout) the dead agent gets nothing, and its last tasks ran elsewhere
        long lastForDead = assignments.stream()
                .filter(a -> a.getWorkerId().equals("agent-2"))
                .mapToLong(TaskAssignment::getRound)
                .max()
                .orElse(-1);
        assertTrue(
                lastForDead < endAt,
                "agent-2 stopped receiving tasks after it died in round " + killedAt + " (last round " + lastForDead
                        + ")");
        Set<String> computedBy = new HashSet<>();
        for (RoundEvent e : closes(local, job)) {
            if (e.getRound() > killedAt + 1) {
                e.getTimings().forEach(t -> computedBy.add(t.getWorkerId()));
            }
        }
        assertTrue(!computedBy.contains("agent-2"), "no result of the dead agent after it died: " + computedBy);
    }

    @Test
    void restartingTheBrokerAndTheTrainerLosesNothingAndCountsNothingTwice(LocalDeployment local) throws Exception {
        local.startFleet(Duration.ofSeconds(60), 4, 8, 12);
        String job = "restarts";
        TrainerConfig config = local.trainerConfig(job, "ata-auto", BATCH, 45).build();
        Trainer trainer = local.startTrainer(config);
        awaitRound(trainer, 10, ROUND_WAIT, () -> state(local, trainer));
        local.stopBroker();
        // The trainer goes on until it waits for a round that the stopped broker never allocated.
        await("the trainer to open a round while the broker is down")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> assignments(local, job, trainer.metrics().lastClosedRound() + 1)
                        .isEmpty());
        List<String> crashed = restartsUncleanly() ? asAfterKill9(local) : List.of();
        local.startBroker(); // same application id and state directory: restores and resumes
        assertEquals(crashed, local.broker().deletedTaskStates(), "the task state exactly-once would discard");
        if (restartsUncleanly()) {
            assertTrue(
                    local.broker().restores().stream().anyMatch(r -> r.store().equals("jobs") && r.records() > 0),
                    "the jobs were restored from the changelog: "
                            + local.broker().restores());
        }
        awaitRound(trainer, 20, ROUND_WAIT, () -> state(local, trainer));
        trainer.kill(); // crash: its open transaction is aborted
        Trainer restarted = local.startTrainer(config);
        awaitRound(restarted, 45, ROUND_WAIT, () -> state(local, restarted));
        assertRoundsExactlyOnce(local, job, 45);

        JobState state = awaitFolded(local, job, 45);
        Map<String, Long> completedPerWorker = new HashMap<>();
        for (RoundEvent e : closes(local, job)) {
            for (RoundTiming t : e.getTimings()) {
                if (t.getStatus() != TimingStatus.CANCELLED) {
                    completedPerWorker.merge(t.getWorkerId(), 1L, Long::sum);
                }
            }
        }
        for (int i = 0; i < state.getWorkerIds().size(); i++) {
            assertEquals(
                    completedPerWorker.getOrDefault(state.getWorkerIds().get(i), 0L),
                    state.getObserved().get(i),
                    "tasks folded for " + state.getWorkerIds().get(i) + ": exactly those of the closed rounds");
        }
        assertModelVersionsOnceEachUpTo(local, job, 45);
    }

    /**
     * An upgrade that renames the trainer's group and transactional id, from the prefix-less
     * {@code ata-trainer-<job>} of earlier versions to {@code <prefix>trainer-<job>}
     * ({@link Topics#trainerName}): the new trainer's group has no committed offsets on
     * {@code gradients}, so it reads them from their beginning. It resumes from the model topic,
     * counts every result of the closed rounds as stale, and each round still closes exactly once.
     */
    @Test
    void aTrainerWhoseGroupHasNoCommittedOffsetsResumesTheJob(LocalDeployment local) throws Exception {
        local.startFleet(Duration.ofSeconds(60), 4, 8, 12);
        String job = "renamed";
        long rounds = 30;
        String legacy = "ata-trainer-" + job;
        Trainer old = local.startTrainer(local.trainerConfig(job, "ata-auto", BATCH, rounds)
                .groupId(legacy)
                .transactionalId(legacy)
                .build());
        awaitRound(old, 10, ROUND_WAIT, () -> state(local, old));
        old.kill();
        long closedByOld = closes(local, job).size();
        assertTrue(closedByOld >= 10, "rounds closed before the upgrade: " + closedByOld);

        TrainerConfig upgraded =
                local.trainerConfig(job, "ata-auto", BATCH, rounds).build();
        assertEquals("fail.trainer-" + job, upgraded.groupId());
        assertEquals("fail.trainer-" + job, upgraded.transactionalId());
        try (Admin admin = local.kafka().admin()) {
            assertTrue(
                    admin.listConsumerGroupOffsets(legacy)
                                    .partitionsToOffsetAndMetadata()
                                    .get()
                                    .size()
                            > 0,
                    "the old group committed offsets");
            assertEquals(
                    Map.of(),
                    admin.listConsumerGroupOffsets(upgraded.groupId())
                            .partitionsToOffsetAndMetadata()
                            .get(),
                    "the new group has none");
        }
        Trainer restarted = local.startTrainer(upgraded);
        awaitRound(restarted, rounds, ROUND_WAIT, () -> state(local, restarted));
        assertTrue(restarted.failure().isEmpty(), restarted.failure().toString());
        assertRoundsExactlyOnce(local, job, rounds);
        // it read the closed rounds' results again (from the beginning) and used none of them
        long stale = restarted.metrics().stale();
        assertTrue(stale >= closedByOld * BATCH, "stale results read again: " + stale + ", rounds " + closedByOld);
        assertModelVersionsOnceEachUpTo(local, job, rounds);
    }

    @Test
    void malformedRecordsOnEveryInputTopicLandInTheDeadLetterTopicAndTrainingContinues(LocalDeployment local)
            throws Exception {
        local.startFleet(Duration.ofSeconds(60), 4, 8);
        Properties props = new Properties();
        props.putAll(local.clientProperties());
        Topics topics = local.topics();
        List<String> inputs = Stream.of(
                        topics.workers(), topics.rounds(), topics.tasks(), topics.gradients(), topics.model())
                .map(TopicDef::name)
                .toList();
        String job = "after-garbage";
        Trainer trainer = local.startTrainer(job, "ata-auto", BATCH, 10, RoundListener.NONE);
        awaitRound(trainer, 2, ROUND_WAIT, () -> state(local, trainer));
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (String topic : inputs) {
                // keyed to the running job: on gradients only records of its own job are the trainer's to judge
                byte[] key = (topic.equals(topics.gradients().name()) ? job : "bad").getBytes();
                producer.send(new ProducerRecord<>(topic, key, "{\"not\": \"avro\"}".getBytes()))
                        .get();
                // the wire format's magic byte and an id no registry has
                producer.send(new ProducerRecord<>(topic, key, new byte[] {0, 0, 0, 0x7f, 0x10, 1, 2, 3}))
                        .get();
            }
        }
        awaitRound(trainer, 10, ROUND_WAIT, () -> state(local, trainer));
        assertRoundsExactlyOnce(local, job, 10);

        Map<String, List<DeadLetter>> bySource = await("two dead letters from every input topic")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> deadLettersBySource(local),
                        letters -> inputs.stream()
                                .allMatch(
                                        t -> letters.getOrDefault(t, List.of()).size() >= 2));
        for (String topic : inputs) {
            List<DeadLetter> letters = bySource.getOrDefault(topic, List.of());
            assertTrue(letters.size() >= 2, "dead letters from " + topic + ": " + letters.size());
            assertTrue(
                    letters.stream().allMatch(l -> !l.getReason().isBlank() && l.getValue() != null),
                    "every dead letter carries its reason and the raw record");
        }
        assertTrue(bySource.get(topics.rounds().name()).stream()
                .allMatch(l -> l.getComponent().equals("broker")));
        assertTrue(bySource.get(topics.gradients().name()).stream()
                .allMatch(l -> l.getComponent().equals("trainer")));
        assertTrue(bySource.get(topics.tasks().name()).stream()
                .allMatch(l -> l.getComponent().equals("worker-agent")));
    }

    /** The dead letters so far, by the topic they came from. */
    private Map<String, List<DeadLetter>> deadLettersBySource(LocalDeployment local) {
        Map<String, List<DeadLetter>> bySource = new HashMap<>();
        for (ConsumerRecord<String, DeadLetter> r :
                TopicContents.read(local, local.topics().deadLetters())) {
            bySource.computeIfAbsent(r.value().getSourceTopic(), k -> new java.util.ArrayList<>())
                    .add(r.value());
        }
        return bySource;
    }

    /** The job's model topic holds no version twice, and versions up to {@code last}. */
    private void assertModelVersionsOnceEachUpTo(LocalDeployment local, String job, long last) {
        List<Long> versions = TopicContents.read(local, local.topics().model()).stream()
                .map(ConsumerRecord::value)
                .filter(v -> v.getJob().equals(job))
                .map(ModelVersion::getVersion)
                .toList();
        assertEquals(versions.size(), new HashSet<>(versions).size(), "no model version published twice");
        assertEquals(last, versions.stream().mapToLong(Long::longValue).max().orElse(-1));
    }
}
