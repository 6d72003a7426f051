package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.RoundTiming;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TimingStatus;
import io.ata.schemas.tensor.TensorCodec;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;

/** The trainer's Kafka plumbing against Kafka's mock clients: no broker. */
class TrainerTest extends MockKafkaTrainerTest {
    private static final int B = 3;
    private static final int DIM = 4;

    private final TestClock clock = new TestClock(5_000_000);
    private final List<RoundSummary> closedRounds = new CopyOnWriteArrayList<>();

    TrainerTest() {
        super("t.");
    }

    /**
     * What the second transaction, round 1's close, sent: model version 1, {@code CLOSED 1},
     * {@code OPENED 2} and one dead letter, in that order.
     */
    private List<ProducerRecord<String, byte[]>> roundOneClose(MockProducer<String, byte[]> producer) {
        assertEquals(2, producer.commitCount());
        List<ProducerRecord<String, byte[]>> close =
                producer.history().subList(2, producer.history().size());
        assertEquals(
                List.of(
                        topics.model().name(),
                        topics.rounds().name(),
                        topics.rounds().name(),
                        topics.deadLetters().name()),
                close.stream().map(ProducerRecord::topic).toList());
        return close;
    }

    private TrainerConfig config(long maxRounds) {
        return TrainerConfig.builder()
                .bootstrapServers("mock:9092")
                .clientProperty("security.protocol", "SASL_SSL")
                .clientProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted") // overridden
                .topicPrefix("t.")
                .job(JOB)
                .batch(B)
                .policy("ata")
                .seed(7)
                .maxRounds(maxRounds)
                .objective(SMALL)
                .optimizer(new SgdOptimizer(0.1))
                .evalEvery(0) // evaluations have tests of their own
                .clock(clock)
                .pollTimeout(Duration.ofMillis(5))
                .listener(closedRounds::add)
                .meterRegistry(meters)
                .build();
    }

    private Trainer start(MockKafka kafka, long maxRounds) {
        return start(kafka, config(maxRounds));
    }

    /** {@link #start}, then waits for the trainer's first transaction: the job's start. */
    private Trainer startJob(MockKafka kafka, long maxRounds) {
        Trainer trainer = start(kafka, maxRounds);
        awaitJobStart(kafka);
        return trainer;
    }

    private static void awaitJobStart(MockKafka kafka) {
        await(() -> !kafka.producers.isEmpty() && kafka.producer(0).commitCount() == 1, "the job's start");
    }

    private ConsumerRecord<byte[], byte[]> result(
            MockKafka kafka, long offset, long round, int index, String worker, double gradient) {
        TaskResult r = Results.of(JOB, round, index, worker, Results.filled(DIM, gradient), 10 * (index + 1));
        return kafka.gradientRecord(offset, JOB, bytes(r));
    }

    /** Assigns the gradients partition and delivers round 1's three results (gradient 1) at offsets 0 to 2. */
    private void sendRoundOne(MockKafka kafka) {
        kafka.assignGradientsPartition();
        kafka.addGradients(List.of(
                result(kafka, 0, 1, 0, "w1", 1), result(kafka, 1, 1, 1, "w2", 1), result(kafka, 2, 1, 2, "w3", 1)));
    }

    private <T> T decode(ProducerRecord<String, byte[]> record, Class<T> type) {
        Object value = switch (type.getSimpleName()) {
            case "ModelVersion" ->
                topics.model().valueSerde(registry).deserializer().deserialize(record.topic(), record.value());
            case "RoundEvent" ->
                topics.rounds().valueSerde(registry).deserializer().deserialize(record.topic(), record.value());
            case "DeadLetter" ->
                topics.deadLetters().valueSerde(registry).deserializer().deserialize(record.topic(), record.value());
            default -> throw new IllegalArgumentException(type.getName());
        };
        return type.cast(value);
    }

    @Test
    void aNewJobStartsAtVersionZeroThenClosesRoundsInOneTransactionEach() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 42);
        Trainer trainer = startJob(kafka, 100);
        MockProducer<String, byte[]> producer = kafka.producer(0);

        // the start: version 0 and OPENED 1 (policy, seed), and the group starts at the topic's end
        List<ProducerRecord<String, byte[]>> start = producer.history();
        assertEquals(2, start.size());
        assertEquals(topics.model().name(), start.get(0).topic());
        assertEquals(JOB, start.get(0).key());
        assertEquals(0, decode(start.get(0), ModelVersion.class).getVersion());
        RoundEvent opened1 = decode(start.get(1), RoundEvent.class);
        assertEquals(topics.rounds().name(), start.get(1).topic());
        assertEquals(JOB, start.get(1).key());
        assertEquals(RoundEventType.OPENED, opened1.getType());
        assertEquals(1, opened1.getRound());
        assertEquals("ata", opened1.getPolicy());
        assertEquals(7, opened1.getSeed());
        assertEquals(
                Map.of(kafka.gradientsPartition, new OffsetAndMetadata(42)),
                onlyGroup(producer.consumerGroupOffsetsHistory().get(0)));

        // round 1: a record that does not decode, one of another job, results with a duplicate
        kafka.assignGradientsPartition();
        kafka.addGradients(List.of(
                kafka.gradientRecord(42, JOB, new byte[] {'{', '}'}),
                kafka.gradientRecord(43, "other-job", new byte[] {1}),
                result(kafka, 44, 1, 0, "w1", 1),
                result(kafka, 45, 1, 1, "w2", 2),
                result(kafka, 46, 1, 1, "w3", 100), // duplicate of task 1
                result(kafka, 47, 1, 2, "w1", 3), // completes the round
                result(kafka, 48, 1, 3, "w2", 100))); // same poll, before the close: LATE
        assertTrue(trainer.awaitRounds(1, WAIT));
        kafka.addGradients(List.of(result(kafka, 49, 1, 4, "w3", 100))); // after the close: stale for round 2
        await(() -> trainer.metrics().stale() == 1, "the result after the close");

        List<ProducerRecord<String, byte[]>> close = roundOneClose(producer);

        ModelVersion v1 = decode(close.get(0), ModelVersion.class);
        assertEquals(1, v1.getVersion());
        assertArrayEquals(
                Results.filled(DIM, 1 - 0.1 * 2), TensorCodec.decode(v1.getParameters(), v1.getEncoding()), 1e-15);

        RoundEvent closed = decode(close.get(1), RoundEvent.class);
        assertEquals(RoundEventType.CLOSED, closed.getType());
        assertEquals(1, closed.getRound());
        assertEquals(
                List.of("job/1/0:COMPLETED", "job/1/1:COMPLETED", "job/1/1:LATE", "job/1/2:COMPLETED", "job/1/3:LATE"),
                closed.getTimings().stream().map(TrainerTest::describe).toList());
        RoundEvent opened2 = decode(close.get(2), RoundEvent.class);
        assertEquals(RoundEventType.OPENED, opened2.getType());
        assertEquals(2, opened2.getRound());
        assertEquals(1, opened2.getModelVersion());

        DeadLetter letter = decode(close.get(3), DeadLetter.class);
        assertEquals(topics.gradients().name(), close.get(3).key());
        assertEquals("trainer", letter.getComponent());
        assertEquals(topics.gradients().name(), letter.getSourceTopic());
        assertEquals(42, letter.getOffset());
        assertTrue(letter.getReason().contains("magic byte"), letter.getReason());

        // the offsets committed with the close end after the last record processed
        assertEquals(
                Map.of(kafka.gradientsPartition, new OffsetAndMetadata(49)),
                onlyGroup(producer.consumerGroupOffsetsHistory().get(1)));

        TrainerMetrics.Snapshot m = trainer.metrics();
        assertEquals(1, m.roundsClosed());
        assertEquals(1, m.lastClosedRound());
        assertEquals(3, m.accepted());
        assertEquals(1, m.duplicates());
        assertEquals(1, m.late());
        assertEquals(1, m.stale());
        assertEquals(1, m.deadLetters());
        assertEquals(1, m.otherJobs());
        assertEquals(SMALL.evaluate(Results.filled(DIM, 0.8)), m.lastObjective(), 1e-12);
        assertEquals(1, closedRounds.size());
        assertEquals(1, closedRounds.get(0).duplicates());
        assertEquals(1, closedRounds.get(0).late());
        assertEquals(3, results("accepted"));
        assertEquals(1, results("duplicate"));
        assertEquals(1, results("late"));
        assertEquals(1, results("stale"));
        assertEquals(0, results("invalid"));
        assertEquals(1, count(TrainerMetrics.DEAD_LETTERS));
        assertEquals(1, count(TrainerMetrics.OTHER_JOB_RECORDS));
        assertEquals(1, count(TrainerMetrics.ROUNDS_CLOSED));
        assertEquals(
                closedRounds.get(0).roundTimeMs(),
                meters.get(TrainerMetrics.ROUND_TIME).tag("job", JOB).timer().totalTime(TimeUnit.MILLISECONDS),
                1e-6);
        assertEquals(
                1,
                meters.get(TrainerMetrics.MODEL_VERSION).tag("job", JOB).gauge().value());

        trainer.close();
        assertTrue(meters.getMeters().isEmpty(), "a stopped trainer's meters leave the registry");
        assertFalse(trainer.isRunning());
        assertTrue(trainer.failure().isEmpty());
        assertTrue(producer.closed());
        assertTrue(kafka.gradients.closed());
    }

    @Test
    void clientsGetTheSettingsExactlyOnceNeeds() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        startJob(kafka, 100);
        Map<String, Object> producer = kafka.producerProperties.get(0);
        assertEquals(
                "t.trainer-job", producer.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG), "the prefix's trainerName(job)");
        assertEquals("SASL_SSL", producer.get("security.protocol"));
        assertEquals("mock:9092", producer.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
        Map<String, Object> reader = kafka.consumerProperties.get(1);
        assertFalse(reader.containsKey(ConsumerConfig.GROUP_ID_CONFIG));
        assertEquals("read_committed", reader.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
        Map<String, Object> consumer = kafka.consumerProperties.get(0);
        assertEquals("t.trainer-job", consumer.get(ConsumerConfig.GROUP_ID_CONFIG), "the prefix's trainerName(job)");
        assertEquals("read_committed", consumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
        assertEquals(false, consumer.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG));
        assertEquals("SASL_SSL", consumer.get("security.protocol"));
    }

    /**
     * A trainer killed mid-round commits nothing more; its successor resumes from the model
     * version Kafka holds, reads the open round's results again and closes it.
     */
    @Test
    void aRestartedTrainerResumesFromTheLatestModelVersion() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer first = start(kafka, 100);
        sendRoundOne(kafka);
        assertTrue(first.awaitRounds(1, WAIT));
        kafka.addGradients(List.of(result(kafka, 3, 2, 0, "w1", 5), result(kafka, 4, 2, 1, "w2", 5)));
        await(() -> first.metrics().accepted() == 5, "round 2's first results");
        first.kill();
        assertFalse(first.isRunning());
        MockProducer<String, byte[]> firstProducer = kafka.producer(0);
        assertEquals(2, firstProducer.commitCount(), "nothing committed after the close of round 1");
        assertTrue(firstProducer.closed());

        // Kafka now holds model version 1 and the offsets after round 1 (offset 3)
        ProducerRecord<String, byte[]> v1 = firstProducer.history().get(2);
        assertEquals(1, decode(v1, ModelVersion.class).getVersion());
        kafka.latestModel = v1.value();

        MockKafka again = new MockKafka(topics, JOB, 0);
        again.latestModel = v1.value();
        Trainer second = start(again, 100);
        await(() -> second.metrics().lastClosedRound() == 1, "the successor to read model version 1");
        again.assignGradientsPartition();
        again.addGradients(List.of( // read again from the committed offset 3
                result(again, 3, 2, 0, "w1", 5),
                result(again, 4, 2, 1, "w2", 5),
                result(again, 5, 1, 3, "w9", 99), // a late result of round 1: stale
                result(again, 6, 2, 2, "w3", 5)));
        assertTrue(second.awaitRounds(2, WAIT));

        MockProducer<String, byte[]> producer = again.producer(0);
        assertEquals(1, producer.commitCount(), "no new start: the job existed");
        ModelVersion v2 = decode(producer.history().get(0), ModelVersion.class);
        assertEquals(2, v2.getVersion());
        assertArrayEquals(
                Results.filled(DIM, 1 - 0.1 * 1 - 0.1 * 5),
                TensorCodec.decode(v2.getParameters(), v2.getEncoding()),
                1e-15);
        RoundEvent closed2 = decode(producer.history().get(1), RoundEvent.class);
        assertEquals(2, closed2.getRound());
        assertEquals(3, closed2.getTimings().size());
        assertEquals(1, second.metrics().stale());
        assertEquals(1, second.metrics().roundsClosed());
    }

    @Test
    void afterAFailedCommitItAbortsAndReadsTheRoundAgain() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = startJob(kafka, 100);
        MockProducer<String, byte[]> producer = kafka.producer(0);
        producer.commitTransactionException = new KafkaException("the coordinator went away");

        List<ConsumerRecord<byte[], byte[]>> round1 = List.of(
                kafka.gradientRecord(0, JOB, new byte[] {1}), // a dead letter, published with the retried close
                result(kafka, 1, 1, 0, "w1", 1),
                result(kafka, 2, 1, 1, "w2", 2),
                result(kafka, 3, 1, 2, "w3", 3));
        kafka.assignGradientsPartition();
        kafka.addGradients(round1);
        await(() -> trainer.metrics().recoveries() == 1, "the recovery");
        await(producer::transactionAborted, "the abort");
        assertEquals(0, trainer.metrics().lastClosedRound());
        assertEquals(1, producer.commitCount());
        producer.commitTransactionException = null;

        kafka.addGradients(round1); // the consumer was rewound: Kafka delivers the round again
        assertTrue(trainer.awaitRounds(1, WAIT));
        assertEquals(1, kafka.producers.size(), "the same producer: a new one would fence a newer trainer");
        List<ProducerRecord<String, byte[]>> close = roundOneClose(producer);
        ModelVersion v1 = decode(close.get(0), ModelVersion.class);
        assertArrayEquals(
                Results.filled(DIM, 1 - 0.1 * 2),
                TensorCodec.decode(v1.getParameters(), v1.getEncoding()),
                1e-15,
                "each result applied once");
        assertTrue(trainer.failure().isEmpty());
    }

    @Test
    void anOldProducerEpochMeansAnotherTrainerTookOver() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = startJob(kafka, 100);
        kafka.producer(0).commitTransactionException =
                new InvalidProducerEpochException("Producer attempted to produce with an old epoch.");
        sendRoundOne(kafka);
        await(() -> !trainer.isRunning(), "the trainer to stop");
        assertInstanceOf(InvalidProducerEpochException.class, trainer.failure().orElseThrow());
        assertEquals(0, trainer.metrics().recoveries());
        assertEquals(1, kafka.producers.size());
    }

    @Test
    void stopsAfterMaxRoundsWithoutOpeningAnother() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = start(kafka, 1);
        kafka.assignGradientsPartition();
        kafka.addGradients(List.of(
                result(kafka, 0, 1, 0, "w1", 1),
                result(kafka, 1, 1, 1, "w2", 1),
                result(kafka, 2, 1, 2, "w3", 1),
                result(kafka, 3, 1, 3, "w3", 1)));
        assertTrue(trainer.awaitRounds(1, WAIT));
        await(() -> !trainer.isRunning(), "the trainer to stop by itself");
        assertFalse(trainer.awaitRounds(2, WAIT), "returns at once: the trainer stopped");
        List<ProducerRecord<String, byte[]>> history = kafka.producer(0).history();
        RoundEvent last = decode(history.get(history.size() - 1), RoundEvent.class);
        assertEquals(RoundEventType.CLOSED, last.getType());
        assertEquals(1, last.getRound());
        assertEquals(
                List.of(TimingStatus.COMPLETED, TimingStatus.COMPLETED, TimingStatus.COMPLETED, TimingStatus.LATE),
                last.getTimings().stream().map(RoundTiming::getStatus).toList());
        assertTrue(trainer.failure().isEmpty());
        assertEquals(
                Map.of(kafka.gradientsPartition, new OffsetAndMetadata(4)),
                onlyGroup(kafka.producer(0).consumerGroupOffsetsHistory().get(1)));
    }

    @Test
    void closeAllStopsEveryTrainerStartedOrNot() throws Exception {
        Trainer first = startJob(new MockKafka(topics, JOB, 0), 100);
        Trainer second = startJob(new MockKafka(topics, JOB, 0), 100);
        Trainer neverStarted = new Trainer(config(100), registry, new MockKafka(topics, JOB, 0));
        Trainer.closeAll(List.of(first, neverStarted, second));
        assertFalse(first.isRunning());
        assertFalse(second.isRunning());
        assertTrue(first.failure().isEmpty() && second.failure().isEmpty());
        neverStarted.start(); // asked to stop before it ran: it stops at once
        await(() -> !neverStarted.isRunning(), "the trainer asked to stop before it started to stop");
        assertTrue(neverStarted.failure().isEmpty());
    }

    @Test
    void beingFencedByAnotherTrainerStopsIt() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = startJob(kafka, 100);
        kafka.producer(0).fenceProducer();
        sendRoundOne(kafka);
        await(() -> !trainer.isRunning(), "the trainer to stop");
        assertInstanceOf(ProducerFencedException.class, trainer.failure().orElseThrow());
        assertEquals(0, trainer.metrics().recoveries());
    }

    private double results(String outcome) {
        return meters.get(TrainerMetrics.RESULTS)
                .tag(TrainerMetrics.JOB, JOB)
                .tag(TrainerMetrics.OUTCOME, outcome)
                .counter()
                .count();
    }

    private static Map<TopicPartition, OffsetAndMetadata> onlyGroup(
            Map<String, Map<TopicPartition, OffsetAndMetadata>> byGroup) {
        assertEquals(1, byGroup.size());
        return byGroup.values().iterator().next();
    }

    private static String describe(RoundTiming t) {
        return t.getTaskId() + ":" + t.getStatus();
    }
}
