package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.JobState;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.RoundSummary;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 9's fuzz test: every topic a part reads ({@code workers}, {@code membership}, {@code rounds},
 * {@code gradients}, {@code tasks}, {@code model}) gets, in the middle of a running job, an empty
 * value, random bytes, a valid record cut in half, a record naming a schema the registry does not
 * have, a value just under the broker's size limit, and forged records that decode but carry
 * impossible values. Then: every part still runs, the job trains to its end, each bad record has
 * exactly one dead letter with a reason, and no statistic moved (the job's accounting is exactly
 * what the honest rounds say, and no forged worker or round entered any state).
 *
 * <p>One agent, so that a record every agent reads (the model) gets one letter.
 */
@EndToEnd
class HostileRecordsFuzzTest {
    private static final String JOB = "fuzzed";
    private static final int BATCH = 4;
    private static final long ROUNDS = 30;
    private static final String AGENT = "agent-1";
    /** What Kafka accepts at its default {@code message.max.bytes}, with a short key. */
    private static final int OVERSIZE = 1_048_405;
    /** A schema id no registry of this test has. */
    private static final int UNKNOWN_SCHEMA_ID = 987_654;

    private LocalDeployment local;
    private final Random random = new Random(20261123);

    @BeforeEach
    void start() throws Exception {
        local = LocalDeployment.embedded(new Topics("fuzz.").withTaskPartitions(4), LocalDeployment.QUICK_LIVENESS);
        local.startBroker();
        local.startAgent(AGENT, new TaskTimeDistribution.Shifted(20, new TaskTimeDistribution.Exponential(5)));
        local.awaitFleet(Duration.ofSeconds(60));
    }

    @AfterEach
    void stop() {
        local.close();
    }

    /** A bad record to send: where, with what key, and what it is. */
    private record Bad(String topic, Integer partition, String key, byte[] value, String what, String reason) {}

    @Test
    void everyBadRecordOnEveryTopicGetsOneDeadLetterAndNothingElseHappens() throws Exception {
        List<RoundSummary> closed = new CopyOnWriteArrayList<>();
        Trainer trainer = local.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, new RoundListener() {
            @Override
            public void roundClosed(RoundSummary summary) {
                closed.add(summary);
            }
        });
        assertTrue(trainer.awaitRounds(3, Duration.ofSeconds(90)), "rounds before the records");

        List<Bad> bad = badRecords(trainer.config().trainingJob().model().dimension());
        List<RecordMetadata> sent = new ArrayList<>();
        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * OVERSIZE);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (Bad b : bad) {
                sent.add(producer.send(
                                new ProducerRecord<>(b.topic(), b.partition(), HostileBytes.utf8(b.key()), b.value()))
                        .get());
            }
        }
        long closedAtInjection = trainer.metrics().lastClosedRound();

        // every part still runs and the job trains to its end
        assertTrue(trainer.awaitRounds(ROUNDS, Duration.ofSeconds(180)), "the job trains to its end");
        assertTrue(ROUNDS - closedAtInjection > 5, "rounds closed after the records: " + closedAtInjection);
        assertTrue(trainer.failure().isEmpty(), "the trainer did not fail: " + trainer.failure());
        assertTrue(local.agent(AGENT).isRunning(), "the agent is still running");
        assertEquals(KafkaStreams.State.RUNNING, local.broker().state(), "the broker is still running");

        // each bad record has exactly one dead letter, with a reason
        Map<String, List<DeadLetter>> letters = TopicContents.values(
                        local, local.topics().deadLetters())
                .stream()
                .collect(Collectors.groupingBy(l -> l.getSourceTopic() + "@" + l.getPartition() + "@" + l.getOffset()));
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < bad.size(); i++) {
            Bad b = bad.get(i);
            RecordMetadata meta = sent.get(i);
            List<DeadLetter> mine =
                    letters.getOrDefault(meta.topic() + "@" + meta.partition() + "@" + meta.offset(), List.of());
            if (mine.size() != 1) {
                wrong.add(b.topic() + " " + b.what() + ": " + mine.size() + " dead letters");
            } else if (!mine.get(0).getReason().contains(b.reason())) {
                wrong.add(b.topic() + " " + b.what() + ": reason '"
                        + mine.get(0).getReason() + "' lacks '" + b.reason() + "'");
            }
        }
        assertEquals(List.of(), wrong, "one dead letter with its reason per bad record");
        assertEquals(bad.size(), letters.size(), "no other record was dead-lettered: " + letters.keySet());

        // no statistic moved: every round closed once with B honest results, the broker's counts
        // are exactly the CLOSED events', no forged worker or round entered any state
        assertEquals(ROUNDS, closed.size());
        for (RoundSummary round : closed) {
            assertEquals(BATCH, round.accepted(), "round " + round.round());
            assertTrue(Double.isFinite(round.objective()), "round " + round.round() + ": " + round.objective());
        }
        Set<String> forgedRounds = sent.stream()
                .filter(m -> m.topic().equals(local.topics().rounds().name()))
                .map(m -> m.partition() + "@" + m.offset())
                .collect(Collectors.toSet());
        JobAccounting.assertExact(local, JOB, BATCH, ROUNDS, forgedRounds);
        JobState state = local.broker().jobs().get(JOB);
        assertEquals(List.of(AGENT), state.getWorkerIds(), "the broker knows the one real worker only");
        assertNull(local.broker().jobs().get("ghost"), "no job was created by a forged record");
        assertNull(local.broker().membership().get("ghost"), "the forged member never entered");
        assertEquals(List.of(AGENT), memberIds(), "the membership is the one real agent");
        for (ModelVersion version : TopicContents.values(
                local, local.topics().model(), m -> m != null && m.getJob().equals(JOB))) {
            assertEquals(
                    -1,
                    TensorCodec.firstNonFinite(version.getParameters(), version.getEncoding()),
                    "version " + version.getVersion());
            assertTrue(version.getVersion() <= ROUNDS, "version " + version.getVersion());
        }
    }

    /** Empty, random, truncated, unknown-schema and oversize values on every topic, and the forged ones. */
    private List<Bad> badRecords(int dimension) {
        Topics topics = local.topics();
        long now = System.currentTimeMillis();
        WorkerHeartbeat heartbeat = heartbeat(AGENT, List.of(0, 1, 2, 3), now);
        TaskResult result = result(JOB, 2, "x/2/0", "evil", HostileBytes.filled(dimension, 0.5));
        TaskAssignment assignment = assignment("nomodel", 1_000_001, 1_000_000);
        ModelVersion model = model("ghost", 1L << 60, HostileBytes.filled(4, Double.NaN));
        RoundEvent round = roundEvent(RoundEventType.OPENED, 1L << 60);

        List<Bad> bad = new ArrayList<>();
        garbage(bad, topics.workers(), null, AGENT, heartbeat);
        garbage(bad, topics.membership(), null, AGENT, heartbeat);
        garbage(bad, topics.rounds(), null, JOB, round);
        garbage(bad, topics.gradients(), null, JOB, result);
        garbage(bad, topics.tasks(), 0, AGENT, assignment);
        garbage(bad, topics.model(), null, JOB, model);

        // forged: valid records with impossible values, each aimed at what it could derail
        WorkerHeartbeat ghost = heartbeat("ghost", List.of(-1, 5000), now);
        bad.add(forged(topics.workers(), null, "ghost", ghost, "partitions [-1, 5000]", "partition -1"));
        bad.add(forged(topics.membership(), null, "ghost", ghost, "partitions [-1, 5000]", "partition -1"));
        bad.add(forged(
                topics.workers(),
                null,
                AGENT,
                heartbeat(AGENT, List.of(0), now + Duration.ofDays(365).toMillis()),
                "a heartbeat a year ahead",
                "ahead of the broker's clock"));
        bad.add(forged(
                topics.rounds(), null, JOB, roundEvent(RoundEventType.CLOSED, 1L << 60), "CLOSED round 2^60", "round"));
        bad.add(forged(
                topics.rounds(), null, JOB, roundEvent(RoundEventType.OPENED, 1L << 60), "OPENED round 2^60", "round"));
        bad.add(forged(
                topics.rounds(),
                null,
                JOB,
                roundEvent(RoundEventType.OVERDUE, 1L << 60),
                "OVERDUE round 2^60 (a request for backups)",
                "round"));
        bad.add(forged(
                topics.gradients(),
                null,
                JOB,
                result(JOB, 1L << 60, JOB + "/" + (1L << 60) + "/0", "evil", HostileBytes.filled(dimension, 0.5)),
                "a result for round 2^60",
                "round"));
        bad.add(forged(
                topics.gradients(),
                null,
                JOB,
                result(JOB, 2, JOB + "/2/0", "evil", HostileBytes.filled(dimension, Double.NaN)),
                "a NaN gradient",
                ""));
        bad.add(forged(topics.tasks(), 0, AGENT, assignment, "an assignment of a job without a model", "never come"));
        bad.add(forged(topics.model(), null, "ghost", model, "a NaN model at version 2^60", "out of range"));
        bad.add(new Bad(topics.model().name(), null, JOB, null, "a tombstone of the job's model", "tombstone"));
        return bad;
    }

    /** The five kinds of undecodable values on {@code topic}, cut from {@code valid} where they need one. */
    private <V extends SpecificRecord> void garbage(
            List<Bad> bad, TopicDef<V> topic, Integer partition, String key, V valid) {
        byte[] encoded = encode(topic, valid);
        byte[] noise = new byte[64];
        random.nextBytes(noise);
        byte[] unknownSchema = ByteBuffer.allocate(5 + 16)
                .put((byte) 0) // the wire format's magic byte, then a schema id nobody registered
                .putInt(UNKNOWN_SCHEMA_ID)
                .put(Arrays.copyOfRange(encoded, 5, Math.min(encoded.length, 21)))
                .array();
        byte[] oversize = new byte[OVERSIZE];
        random.nextBytes(oversize);
        String name = topic.name();
        bad.add(new Bad(name, partition, key, new byte[0], "empty value", ""));
        bad.add(new Bad(name, partition, key, noise, "64 random bytes", ""));
        bad.add(new Bad(name, partition, key, Arrays.copyOf(encoded, encoded.length / 2), "a truncated record", ""));
        bad.add(new Bad(name, partition, key, unknownSchema, "an unknown schema id", ""));
        bad.add(new Bad(name, partition, key, oversize, "a value of " + OVERSIZE + " bytes", "truncated"));
    }

    private <V extends SpecificRecord> Bad forged(
            TopicDef<V> topic, Integer partition, String key, V value, String what, String reason) {
        return new Bad(topic.name(), partition, key, encode(topic, value), what, reason);
    }

    private List<String> memberIds() {
        List<String> ids = new ArrayList<>();
        try (var all = local.broker().membership().all()) {
            all.forEachRemaining(kv -> ids.add(kv.key));
        }
        return ids;
    }

    private static WorkerHeartbeat heartbeat(String worker, List<Integer> partitions, long timestampMs) {
        return WorkerHeartbeat.newBuilder()
                .setWorkerId(worker)
                .setPartitions(partitions)
                .setTimestampMs(timestampMs)
                .build();
    }

    private static TaskResult result(String job, long round, String taskId, String worker, double[] gradient) {
        return TaskResult.newBuilder()
                .setJob(job)
                .setRound(round)
                .setTaskId(taskId)
                .setWorkerId(worker)
                .setModelVersion(round - 1)
                .setGradient(ByteBuffer.wrap(TensorCodec.encode(gradient, TensorEncoding.FLOAT64_LE)))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setComputeMs(1)
                .build();
    }

    private static TaskAssignment assignment(String job, long round, long version) {
        return TaskAssignment.newBuilder()
                .setJob(job)
                .setRound(round)
                .setModelVersion(version)
                .setWorkerId(AGENT)
                .setPartition(0)
                .setTaskIds(List.of(job + "/" + round + "/0"))
                .setBatch(1)
                .setPolicy("ata")
                .setCreatedMs(System.currentTimeMillis())
                .build();
    }

    private static ModelVersion model(String job, long version, double[] parameters) {
        return ModelVersion.newBuilder()
                .setJob(job)
                .setVersion(version)
                .setParameters(ByteBuffer.wrap(TensorCodec.encode(parameters, TensorEncoding.FLOAT64_LE)))
                .setEncoding(TensorEncoding.FLOAT64_LE)
                .setTimestampMs(System.currentTimeMillis())
                .build();
    }

    private static RoundEvent roundEvent(RoundEventType type, long round) {
        return RoundEvent.newBuilder()
                .setJob(JOB)
                .setRound(round)
                .setType(type)
                .setModelVersion(round - 1)
                .setBatch(BATCH)
                .setTimings(
                        type != RoundEventType.OPENED
                                ? List.of(RoundTiming.newBuilder()
                                        .setWorkerId("evil")
                                        .setTaskId(JOB + "/" + round + "/0")
                                        .setComputeMs(1)
                                        .build())
                                : List.of())
                .setTimestampMs(System.currentTimeMillis())
                .build();
    }

    private <V extends SpecificRecord> byte[] encode(TopicDef<V> topic, V value) {
        return HostileBytes.encode(local, topic, value);
    }
}
