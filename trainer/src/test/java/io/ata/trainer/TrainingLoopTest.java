package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.Evaluation;
import io.ata.schemas.ModelVersion;
import io.ata.schemas.OptimizerState;
import io.ata.schemas.RoundEvent;
import io.ata.schemas.RoundEventType;
import io.ata.schemas.TaskResult;
import io.ata.schemas.TensorEncoding;
import io.ata.schemas.chunk.Chunks;
import io.ata.schemas.tensor.TensorCodec;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The loop's newer duties against Kafka's mock clients: results that arrive in slices, sliced
 * model versions, the optimizer's state across a restart, and evaluations.
 */
class TrainingLoopTest extends MockKafkaTrainerTest {
    private static final int B = 2;
    private static final int DIM = 4;

    private final TestClock clock = new TestClock(7_000_000);
    private final List<RoundSummary> rounds = new CopyOnWriteArrayList<>();
    private final List<Evaluation> evaluated = new CopyOnWriteArrayList<>();
    /** System.nanoTime() as the listener heard of each round. */
    private final List<Long> heardAt = new CopyOnWriteArrayList<>();

    private final RoundListener listener = new RoundListener() {
        @Override
        public void roundClosed(RoundSummary summary) {
            heardAt.add(System.nanoTime());
            rounds.add(summary);
        }

        @Override
        public void evaluated(Evaluation evaluation) {
            evaluated.add(evaluation);
        }
    };

    TrainingLoopTest() {
        super("l.");
    }

    private TrainerConfig.Builder config(long maxRounds) {
        return TrainerConfig.builder()
                .bootstrapServers("mock:9092")
                .topicPrefix("l.")
                .job(JOB)
                .batch(B)
                .maxRounds(maxRounds)
                .objective(SMALL)
                .optimizer(new SgdOptimizer(0.1))
                .evalEvery(0)
                .clock(clock)
                .pollTimeout(Duration.ofMillis(5))
                .listener(listener)
                .meterRegistry(meters);
    }

    private TaskResult whole(long round, int index, double... gradient) {
        return Results.of(JOB, round, index, "w" + index, gradient, 10);
    }

    /** Slice {@code chunk} of the result's gradient cut in slices of 12 bytes, with payload id {@code payload}. */
    private TaskResult slice(TaskResult whole, String payload, int chunk) {
        byte[] gradient = new byte[whole.getGradient().remaining()];
        whole.getGradient().duplicate().get(gradient);
        return TaskResult.newBuilder(whole)
                .setGradient(Chunks.slice(gradient, chunk, 12))
                .setChunk(chunk)
                .setChunks(Chunks.count(gradient.length, 12))
                .setPayloadId(payload)
                .build();
    }

    private List<ConsumerRecord<byte[], byte[]>> records(MockKafka kafka, long firstOffset, List<TaskResult> results) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        for (TaskResult r : results) {
            out.add(kafka.gradientRecord(firstOffset + out.size(), JOB, bytes(r)));
        }
        return out;
    }

    private <T> List<T> decoded(
            MockProducer<String, byte[]> producer, io.ata.schemas.TopicDef<?> topic, Class<T> type) {
        var deserializer = topic.valueSerde(registry).deserializer();
        List<T> out = new ArrayList<>();
        for (ProducerRecord<String, byte[]> r : producer.history()) {
            if (r.topic().equals(topic.name())) {
                out.add(type.cast(deserializer.deserialize(r.topic(), r.value())));
            }
        }
        return out;
    }

    /**
     * Two results' slices interleaved, a slice that arrives twice, and a round that closes while a
     * third result is half read: the two complete results make the round, the duplicate slice is a
     * dead letter, the incomplete payloads are dropped at the close, and the half-read result's last
     * slice, read after the close, is stale and counted once.
     */
    @Test
    void resultsInSlicesAreAssembledAndARoundClosingMidPayloadDropsThemHarmlessly() {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = start(kafka, config(2).build());
        TaskResult a = whole(1, 0, 1, 2, 3, 4);
        TaskResult b = whole(1, 1, 9, 9, 9, 9);
        TaskResult c = whole(1, 2, 3, 2, 1, 0);
        TaskResult d = whole(1, 3, 5, 5, 5, 5);
        List<TaskResult> round1 = List.of(
                slice(a, "wa-1", 0),
                slice(b, "wb-1", 0),
                slice(a, "wa-1", 1),
                slice(b, "wb-1", 1),
                slice(b, "wb-1", 1), // twice: refused, and b's payload with it
                slice(a, "wa-1", 2), // a complete: accepted
                slice(b, "wb-1", 2), // b cannot complete any more
                slice(c, "wc-1", 0),
                slice(c, "wc-1", 1),
                slice(c, "wc-1", 2), // c complete: the round is full
                slice(d, "wd-1", 0),
                slice(d, "wd-1", 1)); // d is half read when the round closes
        kafka.assignGradientsPartition();
        kafka.addGradients(records(kafka, 0, round1));
        await(() -> rounds.size() == 1, "round 1");
        kafka.addGradients(records(kafka, 12, List.of(slice(d, "wd-1", 2)))); // d's last slice, after the close
        await(() -> trainer.metrics().stale() == 1, "d's last slice");

        MockProducer<String, byte[]> producer = kafka.producer(0);
        RoundEvent closed = decoded(producer, topics.rounds(), RoundEvent.class).stream()
                .filter(e -> e.getType() == RoundEventType.CLOSED)
                .findFirst()
                .orElseThrow();
        assertEquals(
                List.of("job/1/0:COMPLETED", "job/1/2:COMPLETED"),
                closed.getTimings().stream()
                        .map(t -> t.getTaskId() + ":" + t.getStatus())
                        .toList());
        ModelVersion v1 = decoded(producer, topics.model(), ModelVersion.class).get(1);
        assertArrayEquals(
                new double[] {1 - 0.1 * 2, 1 - 0.1 * 2, 1 - 0.1 * 2, 1 - 0.1 * 2},
                TensorCodec.decode(v1.getParameters(), v1.getEncoding()),
                1e-15,
                "the mean of a and c, each put back together");
        List<DeadLetter> letters = decoded(producer, topics.deadLetters(), DeadLetter.class);
        assertEquals(1, letters.size());
        assertTrue(
                letters.get(0).getReason().contains("chunk 1 of 3 arrived twice"),
                letters.get(0).getReason());
        assertEquals(4, letters.get(0).getOffset());
        assertEquals(
                Map.of(kafka.gradientsPartition, new OffsetAndMetadata(12)),
                producer.consumerGroupOffsetsHistory()
                        .get(1)
                        .values()
                        .iterator()
                        .next(),
                "the close commits the offsets past the half-read result's slices");
        assertEquals(13, count(TrainerMetrics.RESULT_SLICES));
        assertEquals(2, count(TrainerMetrics.INCOMPLETE_RESULTS_DROPPED), "b's last slice and d's first two");
        assertEquals(1, trainer.metrics().stale(), "d counted once, on its last slice");
        assertEquals(2, trainer.metrics().accepted());
        assertEquals(0, trainer.metrics().invalid());
    }

    /**
     * A model version larger than a record goes out in slices, and a successor resumes from them:
     * the start's transaction holds version 0 in three slices keyed job#i; the restarted trainer
     * reads version 1 back whole and steps on from it.
     */
    @Test
    void aClosedRoundSaysWhenItsCommitReturned() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = start(kafka, config(2).build());
        kafka.assignGradientsPartition();
        long before = System.nanoTime();
        kafka.addGradients(records(kafka, 0, List.of(whole(1, 0, 1, 1, 1, 1), whole(1, 1, 3, 3, 3, 3))));
        assertTrue(trainer.awaitRounds(1, WAIT));
        // the close's commit returned after the results came and before the listener heard of it:
        // benches start the next round's clock there, not at the listener
        long committed = rounds.get(0).committedNanos();
        assertTrue(committed - before > 0, "committed " + committed + " before the results came at " + before);
        assertTrue(heardAt.get(0) - committed >= 0, "committed after the listener heard of the close");
        trainer.kill();
    }

    @Test
    void slicedModelVersionsArePublishedAndResumedFrom() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer first = start(kafka, config(5).chunkBytes(12).build());
        kafka.assignGradientsPartition();
        kafka.addGradients(records(kafka, 0, List.of(whole(1, 0, 1, 1, 1, 1), whole(1, 1, 3, 3, 3, 3))));
        assertTrue(first.awaitRounds(1, WAIT));
        first.kill();
        MockProducer<String, byte[]> producer = kafka.producer(0);
        List<ProducerRecord<String, byte[]>> models = producer.history().stream()
                .filter(r -> r.topic().equals(topics.model().name()))
                .toList();
        assertEquals(
                List.of("job#0", "job#1", "job#2", "job#0", "job#1", "job#2"),
                models.stream().map(ProducerRecord::key).toList());
        assertTrue(models.stream().allMatch(r -> r.partition() == 0));

        MockKafka again = new MockKafka(topics, JOB, 0);
        again.storeCommitted(producer);
        Trainer second = start(again, config(5).chunkBytes(12).build());
        await(() -> second.metrics().lastClosedRound() == 1, "the successor to read version 1");
        again.assignGradientsPartition();
        again.addGradients(records(again, 2, List.of(whole(2, 0, 1, 1, 1, 1), whole(2, 1, 1, 1, 1, 1))));
        assertTrue(second.awaitRounds(2, WAIT));
        List<ModelVersion> published = decoded(again.producer(0), topics.model(), ModelVersion.class);
        assertEquals(3, published.size(), "version 2 in three slices");
        ByteBuffer whole = ByteBuffer.allocate(DIM * 8);
        published.forEach(slice -> whole.put(slice.getParameters()));
        whole.flip();
        assertArrayEquals(
                Results.filled(DIM, 1 - 0.1 * 2 - 0.1 * 1),
                TensorCodec.decode(whole, TensorEncoding.FLOAT64_LE),
                1e-15);
    }

    /**
     * Adam across a restart: the first trainer commits versions 0 to 2 with their optimizer states
     * and dies in round 3; its successor starts from version 2's moments (step 2, not 0) and
     * publishes the version 3 and state an uninterrupted trainer would have.
     */
    @Test
    void aRestartedTrainerContinuesWithTheCommittedAdamMoments() throws Exception {
        AdamOptimizer adam = new AdamOptimizer(0.05);
        List<TaskResult> results = List.of(
                whole(1, 0, 1, -2, 3, 0.5),
                whole(1, 1, 2, 2, -1, 0.25),
                whole(2, 0, -1, 0.5, 2, 1),
                whole(2, 1, 0.1, 0.2, 0.3, 0.4),
                whole(3, 0, 4, -4, 1, 1),
                whole(3, 1, 0, 1, 0, 1));
        // the uninterrupted run
        TrainingJob job = new TrainingJob(JOB, B, "", 0, 3, new ObjectiveModel(SMALL), adam);
        TrainerState reference = TrainerState.fresh(job, clock);
        Transition expected = null;
        for (TaskResult r : results) {
            reference.offer(r);
            if (reference.roundComplete()) {
                expected = reference.closeRound();
            }
        }

        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer first = start(kafka, config(3).optimizer(adam).build());
        kafka.assignGradientsPartition();
        kafka.addGradients(records(kafka, 0, results.subList(0, 2)));
        assertTrue(first.awaitRounds(1, WAIT));
        kafka.addGradients(records(kafka, 2, results.subList(2, 4)));
        assertTrue(first.awaitRounds(2, WAIT));
        kafka.addGradients(records(kafka, 4, results.subList(4, 5)));
        await(() -> first.metrics().accepted() == 5, "round 3's first result");
        first.kill();
        MockProducer<String, byte[]> firstProducer = kafka.producer(0);
        List<OptimizerState> states = decoded(firstProducer, topics.optimizer(), OptimizerState.class);
        assertEquals(
                List.of(0L, 1L, 2L),
                states.stream().map(OptimizerState::getVersion).toList());
        assertEquals(
                List.of(0L, 1L, 2L),
                states.stream().map(OptimizerState::getStep).toList());

        MockKafka again = new MockKafka(topics, JOB, 0);
        again.storeCommitted(firstProducer);
        Trainer second = start(again, config(3).optimizer(adam).build());
        await(() -> second.metrics().lastClosedRound() == 2, "the successor to read version 2");
        again.assignGradientsPartition();
        again.addGradients(records(again, 4, results.subList(4, 6)));
        assertTrue(second.awaitRounds(3, WAIT));
        MockProducer<String, byte[]> producer = again.producer(0);
        ModelVersion v3 = decoded(producer, topics.model(), ModelVersion.class).get(0);
        OptimizerState s3 =
                decoded(producer, topics.optimizer(), OptimizerState.class).get(0);
        assertEquals(3, v3.getVersion());
        assertEquals(3, s3.getStep(), "the step count went on from the committed state");
        assertEquals(expected.model().getParameters(), v3.getParameters(), "parameters bit for bit");
        assertEquals(expected.optimizerState().getState(), s3.getState(), "moments bit for bit");
    }

    /**
     * Versions 0 and 1 of a one-round job are scored in the background and published in committed
     * transactions (version 1's in one of its own, after the last close) before the caller waiting
     * for the last round is woken; the listener hears of both, in order.
     */
    @Test
    void evaluationsArePublishedInTransactionsBeforeTheJobCountsAsFinished() throws Exception {
        MockKafka kafka = new MockKafka(topics, JOB, 0);
        Trainer trainer = start(kafka, config(1).evalEvery(1).build());
        await(() -> !kafka.producers.isEmpty() && kafka.producer(0).commitCount() == 1, "the job's start");
        long versionZeroAt = clock.millis();
        clock.advance(1_000);
        kafka.assignGradientsPartition();
        kafka.addGradients(records(kafka, 0, List.of(whole(1, 0, 1, 1, 1, 1), whole(1, 1, 1, 1, 1, 1))));
        assertTrue(trainer.awaitRounds(1, WAIT));

        MockProducer<String, byte[]> producer = kafka.producer(0);
        List<Evaluation> published = decoded(producer, topics.evaluations(), Evaluation.class);
        assertEquals(
                List.of(0L, 1L),
                published.stream().map(Evaluation::getModelVersion).toList());
        assertEquals(SMALL.evaluate(Results.filled(DIM, 1)), published.get(0).getTestLoss());
        assertEquals(SMALL.evaluate(Results.filled(DIM, 0.9)), published.get(1).getTestLoss(), 1e-15);
        assertTrue(Double.isNaN(published.get(1).getTestAccuracy()));
        assertEquals(0, published.get(1).getSamples());
        assertEquals(versionZeroAt, published.get(0).getModelTimestampMs());
        assertEquals(versionZeroAt + 1_000, published.get(1).getModelTimestampMs(), "when version 1 was published");
        // version 1 was scored after the last close committed: a transaction of its own, the last
        List<ProducerRecord<String, byte[]>> history = producer.history();
        ProducerRecord<String, byte[]> last = history.get(history.size() - 1);
        assertEquals(topics.evaluations().name(), last.topic());
        assertEquals(JOB, last.key());
        assertEquals(3, producer.commitCount(), "the start, the close, the last evaluations");
        assertTrue(producer.uncommittedRecords().isEmpty());
        assertEquals(
                List.of(0L, 1L),
                evaluated.stream().map(Evaluation::getModelVersion).toList());
        TrainerMetrics.Snapshot metrics = trainer.metrics(); // the finished trainer's meters left the registry
        assertEquals(2, metrics.evaluations());
        assertEquals(published.get(1).getTestLoss(), metrics.lastTestLoss());
        assertTrue(Double.isNaN(metrics.lastTestAccuracy()));
    }
}
