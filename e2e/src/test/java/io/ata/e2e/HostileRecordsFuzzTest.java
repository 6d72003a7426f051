package io.ata.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.tensor.TensorCodec;
import io.ata.testsupport.EndToEnd;
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
import java.util.concurrent.Future;
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
 * The fuzz test: every topic a part reads ({@code workers}, {@code membership}, {@code rounds},
 * {@code gradients}, {@code tasks}, {@code allocations}, {@code model}) gets, in the middle of a running job, an empty
 * value, random bytes, a valid record cut in half, a record naming a schema the registry does not
 * have, a value just under the broker's size limit, and forged records that decode but carry
 * impossible values. Then: every part still runs, the job trains to its end, each bad record has
 * exactly one dead letter whose reason names what is wrong with it, and no statistic moved (the
 * job's accounting is exactly what the honest rounds say, and no forged worker or round entered
 * any state).
 *
 * <p>The random values are drawn from each of {@link #SEEDS} in turn, all sent into the one job; a
 * failure names the seeds, and each wrong letter its own. {@code -Data.fuzz.seed=N} runs seed
 * {@code N} alone: {@code ./mvnw -B -pl e2e -am verify -Dtest=NONE
 * -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=HostileRecordsFuzzTest
 * -Dfailsafe.failIfNoSpecifiedTests=false -Data.fuzz.seed=N}.
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
    /** The seeds of the random values, unless {@link #SEED_PROPERTY} names one. */
    private static final List<Long> SEEDS = List.of(1L, 2L, 3L);
    /** The system property that runs one seed alone. */
    private static final String SEED_PROPERTY = "ata.fuzz.seed";

    private final BrokerSettings settings;
    private LocalDeployment local;

    HostileRecordsFuzzTest() {
        settings = brokerSettings();
    }

    /** The broker's settings: {@link HostileRecordsFuzzAtOpenTest} sends the same records with pipelining off. */
    BrokerSettings brokerSettings() {
        return LocalDeployment.QUICK_LIVENESS;
    }

    @BeforeEach
    void start() throws Exception {
        // a field rather than a test's parameter: the record builders below all encode through it
        local = EmbeddedFleet.of("fuzz.", 4)
                .settings(settings)
                .agent(AGENT, new TaskTimeDistribution.Shifted(20, new TaskTimeDistribution.Exponential(5)))
                .start();
    }

    @AfterEach
    void stop() {
        try {
            RoundsPlannedAhead.assertAsSet(local, settings);
        } finally {
            local.close();
        }
    }

    /**
     * A bad record to send: where, with what key, what it is, the words its letter's reason must
     * hold, and the seed it was drawn from (null for a forged record, the same in every run).
     */
    private record Bad(
            String topic, Integer partition, String key, byte[] value, String what, String reason, Long seed) {
        String describe() {
            return (seed == null ? "" : "seed " + seed + ", ") + topic + " " + what;
        }
    }

    /** The seeds of this run: {@link #SEED_PROPERTY}'s alone if set, else {@link #SEEDS}. */
    static List<Long> seeds() {
        String one = System.getProperty(SEED_PROPERTY, "").trim();
        return one.isEmpty() ? SEEDS : List.of(Long.parseLong(one));
    }

    @Test
    void everyBadRecordOnEveryTopicGetsOneDeadLetterAndNothingElseHappens() throws Exception {
        List<Long> seeds = seeds();
        try {
            fuzz(seeds);
        } catch (AssertionError e) {
            throw new AssertionError(
                    "random values of seeds " + seeds + " (rerun one alone with -D" + SEED_PROPERTY + "=N): "
                            + e.getMessage(),
                    e);
        }
    }

    private void fuzz(List<Long> seeds) throws Exception {
        List<RoundSummary> closed = new CopyOnWriteArrayList<>();
        Trainer trainer = local.startTrainer(JOB, "ata-auto", BATCH, ROUNDS, closed::add);
        assertTrue(trainer.awaitRounds(3, Duration.ofSeconds(90)), "rounds before the records");

        int dimension = trainer.config().trainingJob().model().dimension();
        List<Bad> bad = forgedRecords(dimension);
        for (long seed : seeds) {
            bad.addAll(randomRecords(seed, dimension));
        }
        List<RecordMetadata> sent = new ArrayList<>();
        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * OVERSIZE);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            // all sent before the first is awaited: the job must still be running when they come
            List<Future<RecordMetadata>> sending = new ArrayList<>();
            for (Bad b : bad) {
                sending.add(producer.send(
                        new ProducerRecord<>(b.topic(), b.partition(), HostileBytes.utf8(b.key()), b.value())));
            }
            for (Future<RecordMetadata> s : sending) {
                sent.add(s.get());
            }
        }
        long closedAtInjection = trainer.metrics().lastClosedRound();

        // every part still runs and the job trains to its end
        assertTrue(trainer.awaitRounds(ROUNDS, Duration.ofSeconds(180)), "the job trains to its end");
        assertTrue(ROUNDS - closedAtInjection > 5, "rounds closed after the records: " + closedAtInjection);
        assertTrue(trainer.failure().isEmpty(), "the trainer did not fail: " + trainer.failure());
        assertTrue(local.agent(AGENT).isRunning(), "the agent is still running");
        assertEquals(KafkaStreams.State.RUNNING, local.broker().state(), "the broker is still running");

        // each bad record has exactly one dead letter, whose reason says what is wrong with it
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
                wrong.add(b.describe() + ": " + mine.size() + " dead letters");
            } else if (!mine.get(0).getReason().contains(b.reason())) {
                wrong.add(b.describe() + ": reason '" + mine.get(0).getReason() + "' lacks '" + b.reason() + "'");
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

    /** Valid records with impossible values, each aimed at what it could derail; the same in every run. */
    private List<Bad> forgedRecords(int dimension) {
        Topics topics = local.topics();
        long now = System.currentTimeMillis();
        long huge = 1L << 60;
        List<Bad> bad = new ArrayList<>();
        WorkerHeartbeat ghost = heartbeat("ghost", List.of(-1, 5000), now);
        String ghostPartition = "heartbeat of ghost lists partition -1 of the tasks topic";
        bad.add(forged(topics.workers(), null, "ghost", ghost, "partitions [-1, 5000]", ghostPartition));
        bad.add(forged(topics.membership(), null, "ghost", ghost, "partitions [-1, 5000]", ghostPartition));
        long yearAhead = now + Duration.ofDays(365).toMillis();
        bad.add(forged(
                topics.workers(),
                null,
                AGENT,
                heartbeat(AGENT, List.of(0), yearAhead),
                "a heartbeat a year ahead",
                "heartbeat of " + AGENT + " has timestamp_ms " + yearAhead + ", "));
        String roundOutOfRange = "job " + JOB + " round " + huge + ": round " + huge + " is out of range";
        bad.add(forged(
                topics.rounds(),
                null,
                JOB,
                roundEvent(RoundEventType.CLOSED, huge),
                "CLOSED round 2^60",
                roundOutOfRange));
        bad.add(forged(
                topics.rounds(),
                null,
                JOB,
                roundEvent(RoundEventType.OPENED, huge),
                "OPENED round 2^60",
                roundOutOfRange));
        bad.add(forged(
                topics.rounds(),
                null,
                JOB,
                roundEvent(RoundEventType.OVERDUE, huge),
                "OVERDUE round 2^60 (a request for backups)",
                roundOutOfRange));
        bad.add(forged(
                topics.gradients(),
                null,
                JOB,
                result(JOB, huge, JOB + "/" + huge + "/0", "evil", HostileBytes.filled(dimension, 0.5)),
                "a result for round 2^60",
                "invalid result: round " + huge + " at model version " + (huge - 1) + " is ahead of the open round"));
        bad.add(forged(
                topics.gradients(),
                null,
                JOB,
                result(JOB, 2, JOB + "/2/0", "evil", HostileBytes.filled(dimension, Double.NaN)),
                "a NaN gradient of a closed round",
                "invalid result: gradient value 0 is not finite"));
        bad.add(forged(
                topics.tasks(),
                0,
                AGENT,
                assignment("nomodel", 1_000_001, 1_000_000),
                "an assignment of a job without a model",
                "job nomodel round 1000001: model version 1000000 can never come"));
        bad.add(forged(
                topics.model(),
                null,
                "ghost",
                model("ghost", huge, HostileBytes.filled(4, Double.NaN)),
                "a NaN model at version 2^60",
                "job ghost: model version " + huge + " is out of range"));
        bad.add(new Bad(
                topics.model().name(),
                null,
                JOB,
                null,
                "a tombstone of the job's model",
                "tombstone for key '" + JOB + "' on the model topic: models are never deleted",
                null));
        return bad;
    }

    /** Empty, random, truncated, unknown-schema and oversize values on every topic, drawn from {@code seed}. */
    private List<Bad> randomRecords(long seed, int dimension) {
        Random random = new Random(seed);
        Topics topics = local.topics();
        long now = System.currentTimeMillis();
        List<Bad> bad = new ArrayList<>();
        // what each part's decoder calls the record of the topic in its reasons
        WorkerHeartbeat heartbeat = heartbeat(AGENT, List.of(0, 1, 2, 3), now);
        garbage(bad, random, seed, topics.workers(), null, AGENT, "heartbeat", heartbeat);
        garbage(bad, random, seed, topics.membership(), null, AGENT, "membership heartbeat", heartbeat);
        garbage(
                bad,
                random,
                seed,
                topics.rounds(),
                null,
                JOB,
                "round event",
                roundEvent(RoundEventType.OPENED, 1L << 60));
        garbage(
                bad,
                random,
                seed,
                topics.gradients(),
                null,
                JOB,
                "TaskResult",
                result(JOB, 2, "x/2/0", "evil", HostileBytes.filled(dimension, 0.5)));
        garbage(
                bad,
                random,
                seed,
                topics.tasks(),
                0,
                AGENT,
                "task assignment",
                assignment("nomodel", 1_000_001, 1_000_000));
        // the job's view of its assignments: its trainer's watch reads the job's partition
        garbage(bad, random, seed, topics.allocations(), null, JOB, "task assignment", assignment(JOB, 2, 1));
        garbage(
                bad,
                random,
                seed,
                topics.model(),
                null,
                JOB,
                "model version",
                model("ghost", 1L << 60, HostileBytes.filled(4, Double.NaN)));
        return bad;
    }

    /**
     * The five kinds of undecodable values on {@code topic}, cut from {@code valid} where they need
     * one, each with the reason of the part that reads it: {@code "cannot decode <what>: "} and what
     * the deserializer says.
     */
    private <V extends SpecificRecord> void garbage(
            List<Bad> bad,
            Random random,
            long seed,
            TopicDef<V> topic,
            Integer partition,
            String key,
            String what,
            V valid) {
        byte[] encoded = encode(topic, valid);
        byte[] noise = noHeader(random, 1 + random.nextInt(64));
        byte[] truncated = Arrays.copyOf(encoded, encoded.length / 2);
        byte[] unknownSchema = ByteBuffer.allocate(5 + 16)
                .put((byte) 0) // the wire format's magic byte, then a schema id nobody registered
                .putInt(UNKNOWN_SCHEMA_ID)
                .put(Arrays.copyOfRange(encoded, 5, Math.min(encoded.length, 21)))
                .array();
        byte[] oversize = noHeader(random, OVERSIZE);
        String name = topic.name();
        bad.add(new Bad(name, partition, key, new byte[0], "empty value", cannotDecode(what, new byte[0]), seed));
        bad.add(new Bad(name, partition, key, noise, noise.length + " random bytes", cannotDecode(what, noise), seed));
        bad.add(new Bad(
                name,
                partition,
                key,
                truncated,
                "a record cut to its first " + truncated.length + " bytes",
                HostileBytes.cannotDecode(what, HostileBytes.cutBody(valid.getClass(), truncated)),
                seed));
        bad.add(new Bad(
                name, partition, key, unknownSchema, "an unknown schema id", cannotDecode(what, unknownSchema), seed));
        bad.add(new Bad(
                name,
                partition,
                key,
                oversize,
                "a value of " + OVERSIZE + " random bytes",
                HostileBytes.truncatedLetter(HostileBytes.utf8(key), oversize) + cannotDecode(what, oversize),
                seed));
    }

    /** {@code length} random bytes whose header names no schema of the registry (drawn again if it does). */
    private byte[] noHeader(Random random, int length) {
        byte[] bytes = new byte[length];
        do {
            random.nextBytes(bytes);
        } while (length >= 5 && bytes[0] == 0 && HostileBytes.registered(local, HostileBytes.schemaId(bytes)));
        return bytes;
    }

    /** The reason a part gives for {@code value}, whose header is no usable wire format, as its {@code what}. */
    private String cannotDecode(String what, byte[] value) {
        return HostileBytes.cannotDecode(what, HostileBytes.headerProblem(local, value));
    }

    private <V extends SpecificRecord> Bad forged(
            TopicDef<V> topic, Integer partition, String key, V value, String what, String reason) {
        return new Bad(topic.name(), partition, key, encode(topic, value), what, reason, null);
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
