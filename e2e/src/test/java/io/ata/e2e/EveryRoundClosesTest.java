package io.ata.e2e;

import static io.ata.e2e.TrainerRounds.awaitRound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.Topics;
import io.ata.schemas.decoding.DeadLetters;
import io.ata.testsupport.EndToEnd;
import io.ata.testsupport.Records;
import io.ata.trainer.AdamOptimizer;
import io.ata.trainer.Trainer;
import io.ata.trainer.TrainerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every round closes, on a real cluster with the real broker, trainer and agents: a flood of forged
 * result slices and results does not freeze the job and each forged record is lettered without
 * waiting for a round to close; a trainer restarts past bad records on {@code model} and {@code
 * optimizer}; and a restarted trainer whose open round's results are gone from {@code gradients}
 * re-drives the round instead of waiting for ever.
 */
@EndToEnd
class EveryRoundClosesTest {
    private static final int BATCH = 4;
    /**
     * The flood's job: 16 tasks a round on the three agents keep a round open for some 100 ms,
     * longer than the trainer takes to read a wave of forged records, so that most waves meet their
     * round open even on an idle machine (with B = 4, a round closed in about 30 ms, and whole waves
     * arrived after their round's close, merely stale).
     */
    private static final int FLOOD_BATCH = 16;

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("closes.", 4).agentsOfMeanMs(20, 25, 30);

    @Test
    void floodsOfForgedSlicesAndResultsNeitherFreezeTheJobNorGoUnlettered(LocalDeployment local) throws Exception {
        String job = "flood";
        long rounds = 40;
        Trainer trainer = local.startTrainer(
                local.trainerConfig(job, "ata-auto", FLOOD_BATCH, rounds).build());
        awaitRound(trainer, 3, Duration.ofSeconds(90));
        Topics topics = local.topics();
        int dimension = trainer.config().trainingJob().model().dimension();

        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(local.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int wave = 0; wave < 3; wave++) {
                long open = trainer.metrics().lastClosedRound() + 1;
                List<byte[]> records = new ArrayList<>();
                // first slices of the open round's real task ids, from workers never assigned them:
                // more than the old 64-slot buffer held
                for (int i = 0; i < 80; i++) {
                    records.add(encode(
                            local,
                            result(job, open, open + "/" + (i % FLOOD_BATCH), "forger-" + i, dimension)
                                    .setChunk(0)
                                    .setChunks(2)
                                    .setPayloadId("forged-" + wave + "-" + i)
                                    .build()));
                }
                // whole results of tasks nobody was assigned
                for (int i = 0; i < 20; i++) {
                    records.add(encode(
                            local,
                            result(job, open, open + "/" + (900 + i), "agent-1", dimension)
                                    .build()));
                }
                // sent at once, so that most arrive while their round is open
                for (byte[] value : records) {
                    sent.add(producer.send(
                            new ProducerRecord<>(topics.gradients().name(), HostileBytes.utf8(job), value)));
                }
                producer.flush();
                awaitRound(trainer, open + 2, Duration.ofSeconds(60));
            }
        }
        List<RecordMetadata> forged = new ArrayList<>();
        for (Future<RecordMetadata> f : sent) {
            forged.add(f.get());
        }
        awaitRound(trainer, rounds, Duration.ofSeconds(180));
        assertTrue(trainer.failure().isEmpty(), "the trainer did not fail");

        // every forged record of a round still open when it arrived has exactly one letter, and
        // the letter did not wait for its round's close (the generous bound is for a loaded machine)
        Map<String, List<DeadLetter>> letters = TopicContents.values(local, topics.deadLetters()).stream()
                .filter(l -> l.getSourceTopic().equals(topics.gradients().name()))
                .collect(Collectors.groupingBy(l -> l.getPartition() + "@" + l.getOffset()));
        int lettered = 0;
        List<Long> delays = new ArrayList<>();
        for (RecordMetadata meta : forged) {
            List<DeadLetter> of = letters.getOrDefault(meta.partition() + "@" + meta.offset(), List.of());
            assertTrue(of.size() <= 1, "lettered once: " + of);
            if (of.size() == 1) {
                lettered++;
                assertTrue(
                        of.get(0).getReason().contains("not counted"), of.get(0).getReason());
                delays.add(of.get(0).getTimestampMs() - meta.timestamp());
            }
        }
        // a record that arrived after its round closed is merely stale: most arrive while it is open
        assertTrue(lettered >= forged.size() / 2, lettered + " of " + forged.size() + " lettered");
        delays.sort(Long::compare);
        assertTrue(delays.get(delays.size() - 1) < 5_000, "letters waited " + delays);

        // the broker folded every round: no CLOSED event of the job was refused
        assertFalse(
                TopicContents.values(local, topics.deadLetters()).stream()
                        .anyMatch(l -> l.getComponent().equals(DeadLetters.BROKER)
                                && l.getSourceTopic().equals(topics.rounds().name())),
                "no round event refused");
        for (RoundEvent close : closes(local, job)) {
            assertEquals(
                    FLOOD_BATCH,
                    close.getTimings().stream()
                            .filter(t -> t.getStatus() == TimingStatus.COMPLETED)
                            .count(),
                    "round " + close.getRound());
            assertTrue(
                    close.getTimings().stream().noneMatch(t -> t.getWorkerId().startsWith("forger")),
                    "round " + close.getRound());
        }
    }

    @Test
    void aTrainerStartsPastABadRecordOnModelAndOnOptimizer(LocalDeployment local) throws Exception {
        String job = "bad-state";
        TrainerConfig config = local.trainerConfig(job, "ata-auto", BATCH, 30)
                .optimizer(new AdamOptimizer(0.01))
                .build();
        Trainer first = local.startTrainer(config);
        awaitRound(first, 8, Duration.ofSeconds(90));
        Topics topics = local.topics();
        RecordMetadata badOptimizer;
        RecordMetadata badModel;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(local.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] truncated = new byte[20]; // a 5-byte header and 15 bytes of nothing
            badOptimizer = sendToTheJobsPartition(producer, topics.optimizer().name(), job, truncated);
            badModel = sendToTheJobsPartition(producer, topics.model().name(), job, truncated);
        }
        first.kill();
        long killedAt = first.metrics().lastClosedRound();

        Trainer second = local.startTrainer(config);
        awaitRound(second, 30, Duration.ofSeconds(120));
        assertTrue(second.failure().isEmpty(), "the successor did not fail");
        for (RecordMetadata bad : List.of(badOptimizer, badModel)) {
            assertTrue(
                    TopicContents.values(local, topics.deadLetters()).stream()
                            .anyMatch(l -> l.getComponent().equals(DeadLetters.TRAINER)
                                    && l.getSourceTopic().equals(bad.topic())
                                    && l.getOffset() == bad.offset()
                                    && l.getReason().contains("does not decode")),
                    "the trainer lettered " + bad.topic() + "@" + bad.offset());
        }
        // no version published twice: the successor went on from the newest good one
        List<Long> versions =
                TopicContents.values(
                                local,
                                topics.model(),
                                m -> m != null && m.getJob().equals(job))
                        .stream()
                        .map(ModelVersion::getVersion)
                        .toList();
        assertEquals(versions.size(), versions.stream().distinct().count(), "versions " + versions);
        assertTrue(versions.contains(killedAt) && versions.contains(30L), versions.toString());
    }

    @Test
    void aRestartedTrainerWhoseRoundsResultsAreGoneReDrivesTheRound(LocalDeployment local) throws Exception {
        String job = "results-gone";
        TrainerConfig config = local.trainerConfig(job, "ata-auto", BATCH, 20).build();
        Trainer first = local.startTrainer(config);
        awaitRound(first, 6, Duration.ofSeconds(90));
        first.kill();
        Thread.sleep(500); // the agents finish the open round's tasks, whose results are then deleted
        deleteEverything(local, local.topics().gradients().name());

        Trainer second = local.startTrainer(config);
        awaitRound(second, 20, Duration.ofSeconds(120));
        assertTrue(second.metrics().roundsStalled() >= 1, "the open round was re-driven");
        assertTrue(
                TopicContents.values(local, local.topics().deadLetters()).stream()
                        .anyMatch(l -> l.getComponent().equals(DeadLetters.TRAINER)
                                && l.getReason().contains("job " + job + " round")
                                && l.getReason().contains("stalled")),
                "a letter says the round stalled and what was done");
    }

    private List<RoundEvent> closes(LocalDeployment local, String job) {
        return TopicContents.values(
                local,
                local.topics().rounds(),
                e -> e != null && e.getJob().equals(job) && e.getType() == RoundEventType.CLOSED);
    }

    private static TaskResult.Builder result(String job, long round, String task, String worker, int dimension) {
        return Records.result(
                job, round, round - 1, job + "/" + task, worker, HostileBytes.filled(dimension, 1e300), 1);
    }

    private byte[] encode(LocalDeployment local, TaskResult result) {
        return HostileBytes.encode(local, local.topics().gradients(), result);
    }

    /** Sends {@code value} keyed {@code job} to the partition of {@code topic} the trainer writes the job's records to. */
    private static RecordMetadata sendToTheJobsPartition(
            KafkaProducer<byte[], byte[]> producer, String topic, String job, byte[] value) throws Exception {
        int partition = Topics.partitionOfJob(job, producer.partitionsFor(topic).size());
        return producer.send(new ProducerRecord<>(topic, partition, HostileBytes.utf8(job), value))
                .get();
    }

    private void deleteEverything(LocalDeployment local, String topic) throws Exception {
        try (Admin admin = Admin.create(local.clientProperties());
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                        local.clientProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            Map<TopicPartition, RecordsToDelete> delete = new HashMap<>();
            consumer.endOffsets(partitions).forEach((tp, end) -> delete.put(tp, RecordsToDelete.beforeOffset(end)));
            admin.deleteRecords(delete).all().get();
        }
    }
}
