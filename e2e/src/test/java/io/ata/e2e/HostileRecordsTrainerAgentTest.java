package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundSummary;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Forged but well-formed records aimed at the trainer and the agents, on a real cluster: a finite
 * gradient of 1e300 for a task of the open round nobody was assigned, a tombstone of the job's model, a NaN model of a
 * nonexistent job at version 2^60, and an assignment of a job without a model. Each gets exactly
 * one dead letter with its reason, the job trains on to its end with every round closing with B
 * honest results, and no model version the trainer publishes is touched by them.
 */
@EndToEnd
class HostileRecordsTrainerAgentTest {
    private static final String JOB = "guarded";
    private static final int BATCH = 4;
    private static final long ROUNDS = 30;

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("hostile-ta.", 4)
            // one agent: every model record is refused by each agent that reads it live, so one agent
            // gives one letter per bad model record. Tasks of about 40 ms keep a round open ~160 ms.
            .agent("agent-1", new TaskTimeDistribution.Shifted(35, new TaskTimeDistribution.Exponential(5)));

    @Test
    void forgedGradientsModelsAndAssignmentsAreDeadLetteredOnceAndTrainingGoesOn(LocalDeployment local)
            throws Exception {
        Topics topics = local.topics();
        List<RoundSummary> closed = new CopyOnWriteArrayList<>();
        Trainer trainer = local.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, closed::add);
        assertTrue(trainer.awaitRounds(3, Duration.ofSeconds(90)), "rounds before the records");
        int dimension = trainer.config().trainingJob().model().dimension();

        List<RecordMetadata> sent = new ArrayList<>();
        List<String> expectedReasons = new ArrayList<>();
        RecordMetadata outlier;
        String outlierReason = null;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(local.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
            // 1. a huge but finite gradient for the open round, from a worker nobody knows, for a
            // task nobody was assigned. The round may close before it arrives (then it is merely
            // stale): try again until the trainer has judged one for its open round. Its letter
            // does not wait for the round's close.
            outlier = null;
            for (int attempt = 0; attempt < 10 && outlier == null; attempt++) {
                long open = trainer.metrics().lastClosedRound() + 1;
                TaskResult forged = TaskResult.newBuilder()
                        .setJob(JOB)
                        .setRound(open)
                        .setTaskId(JOB + "/" + open + "/" + (900 + attempt))
                        .setWorkerId("evil")
                        .setModelVersion(open - 1)
                        .setGradient(ByteBuffer.wrap(
                                TensorCodec.encode(HostileBytes.filled(dimension, 1e300), TensorEncoding.FLOAT64_LE)))
                        .setEncoding(TensorEncoding.FLOAT64_LE)
                        .setComputeMs(1)
                        .build();
                RecordMetadata meta = send(local, producer, topics.gradients(), null, JOB, forged);
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (letterOf(local, meta) == null && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                if (letterOf(local, meta) != null) {
                    outlier = meta;
                    outlierReason = "result not counted: task " + forged.getTaskId() + " of round " + open
                            + " was never assigned (to evil or anyone)";
                }
            }
            assertTrue(outlier != null, "a forged gradient reached an open round and was lettered within 5 s");
            sent.add(outlier);
            expectedReasons.add(outlierReason);

            // 2. a tombstone of the job's model
            sent.add(producer.send(new ProducerRecord<>(topics.model().name(), HostileBytes.utf8(JOB), null))
                    .get());
            expectedReasons.add("tombstone for key '" + JOB + "' on the model topic: models are never deleted");

            // 3. a NaN model of a job that does not exist, at version 2^60
            ModelVersion ghost = ModelVersion.newBuilder()
                    .setJob("ghost")
                    .setVersion(1L << 60)
                    .setParameters(ByteBuffer.wrap(
                            TensorCodec.encode(HostileBytes.filled(4, Double.NaN), TensorEncoding.FLOAT64_LE)))
                    .setEncoding(TensorEncoding.FLOAT64_LE)
                    .setTimestampMs(System.currentTimeMillis())
                    .build();
            sent.add(send(local, producer, topics.model(), null, "ghost", ghost));
            expectedReasons.add("job ghost: model version " + (1L << 60) + " is out of range");

            // 4. an assignment of a job without a model, at a version that can never come
            TaskAssignment orphan = TaskAssignment.newBuilder()
                    .setJob("nomodel")
                    .setRound(1_000_001)
                    .setModelVersion(1_000_000)
                    .setWorkerId("agent-1")
                    .setPartition(0)
                    .setTaskIds(List.of("nomodel/1000001/0"))
                    .setBatch(1)
                    .setPolicy("ata")
                    .setCreatedMs(System.currentTimeMillis())
                    .build();
            sent.add(send(local, producer, topics.tasks(), 0, "agent-1", orphan));
            expectedReasons.add("job nomodel round 1000001: model version 1000000 can never come");
        }
        long closedAtInjection = trainer.metrics().lastClosedRound();

        assertTrue(trainer.awaitRounds(ROUNDS, Duration.ofSeconds(180)), "the job trains to its end");
        assertTrue(trainer.failure().isEmpty(), "the trainer did not fail");
        assertTrue(local.agent("agent-1").isRunning(), "the agent is still running");
        assertTrue(ROUNDS - closedAtInjection > 5, "rounds closed after the records: " + closedAtInjection);

        // exactly one dead letter with its reason for each forged record, none twice
        for (int i = 0; i < sent.size(); i++) {
            RecordMetadata meta = sent.get(i);
            List<DeadLetter> letters = lettersOf(local, meta);
            assertEquals(1, letters.size(), meta.topic() + "@" + meta.offset() + ": " + letters);
            String reason = letters.get(0).getReason();
            assertTrue(
                    reason.contains(expectedReasons.get(i)), "'" + reason + "' lacks '" + expectedReasons.get(i) + "'");
        }

        // the forged result never counted: every round closed with B honest results, the
        // objective stayed finite, and no CLOSED event names the forged worker
        assertEquals(ROUNDS, closed.size());
        assertEquals(0, closed.stream().mapToInt(RoundSummary::clipped).sum(), "the forged result was never offered");
        for (RoundSummary round : closed) {
            assertEquals(BATCH, round.accepted(), "round " + round.round());
            assertTrue(Double.isFinite(round.objective()), "round " + round.round() + ": " + round.objective());
        }
        List<RoundEvent> closes = TopicContents.values(
                local,
                topics.rounds(),
                e -> e != null && e.getJob().equals(JOB) && e.getType() == RoundEventType.CLOSED);
        assertEquals(ROUNDS, closes.size());
        for (RoundEvent close : closes) {
            long completed = close.getTimings().stream()
                    .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                    .count();
            assertEquals(BATCH, completed, "round " + close.getRound());
            assertFalse(
                    close.getTimings().stream().map(RoundTiming::getWorkerId).anyMatch("evil"::equals),
                    "round " + close.getRound());
        }
        // every model version the trainer published is finite and of the job
        for (ModelVersion version : TopicContents.values(
                local, topics.model(), m -> m != null && m.getJob().equals(JOB))) {
            assertEquals(
                    -1,
                    TensorCodec.firstNonFinite(version.getParameters(), version.getEncoding()),
                    "version " + version.getVersion());
        }
        // the agent ran the job's tasks after the orphan assignment rather than waiting on it
        assertTrue(local.agent("agent-1").metrics().tasksRun() >= ROUNDS * BATCH / 2, "tasks ran");
    }

    /**
     * Sends {@code value}, encoded for {@code topic} and keyed {@code key}, to {@code partition}
     * (null: the key's) and waits until it is written.
     */
    private static <V extends SpecificRecord> RecordMetadata send(
            LocalDeployment local,
            KafkaProducer<byte[], byte[]> producer,
            TopicDef<V> topic,
            Integer partition,
            String key,
            V value)
            throws Exception {
        return producer.send(new ProducerRecord<>(
                        topic.name(), partition, HostileBytes.utf8(key), HostileBytes.encode(local, topic, value)))
                .get();
    }

    /** The dead letters of the record {@code meta} names (by source topic, partition and offset). */
    private List<DeadLetter> lettersOf(LocalDeployment local, RecordMetadata meta) {
        return TopicContents.values(
                local,
                local.topics().deadLetters(),
                l -> l != null
                        && l.getSourceTopic().equals(meta.topic())
                        && l.getPartition() == meta.partition()
                        && l.getOffset() == meta.offset());
    }

    private DeadLetter letterOf(LocalDeployment local, RecordMetadata meta) {
        List<DeadLetter> letters = lettersOf(local, meta);
        return letters.isEmpty() ? null : letters.get(0);
    }
}
