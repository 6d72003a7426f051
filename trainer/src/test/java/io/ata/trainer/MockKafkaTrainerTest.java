package io.ata.trainer;

import io.ata.schemas.TaskResult;
import io.ata.schemas.Topics;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;

/**
 * What the tests of a trainer against Kafka's mock clients (no broker) share: one job's topics, a
 * registry, the meters, and the trainers they start, closed after each test.
 */
abstract class MockKafkaTrainerTest {
    static final String JOB = "job";
    static final Duration WAIT = Duration.ofSeconds(10);

    /** f(x) = |x|^2 from (1, 1, 1, 1), so expected models are easy to compute. */
    static final Objective SMALL = SquaredNorm.INSTANCE;

    final Topics topics;
    final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final List<Trainer> trainers = new ArrayList<>();

    MockKafkaTrainerTest(String topicPrefix) {
        this.topics = new Topics(topicPrefix);
    }

    @AfterEach
    void stopTrainers() {
        trainers.forEach(Trainer::close);
    }

    /** Starts a trainer of {@code config} on {@code kafka}; it is closed after the test. */
    Trainer start(MockKafka kafka, TrainerConfig config) {
        Trainer trainer = new Trainer(config, registry, kafka);
        trainers.add(trainer);
        return trainer.start();
    }

    /** {@code r} as an agent writes it to the gradients topic. */
    byte[] bytes(TaskResult r) {
        return topics.gradients()
                .valueSerde(registry)
                .serializer()
                .serialize(topics.gradients().name(), r);
    }

    /** The count of the job's counter {@code meter}. */
    double count(String meter) {
        return meters.get(meter).tag(TrainerMetrics.JOB, JOB).counter().count();
    }

    /** Waits until {@code condition} holds (the mock clients answer at once); the timeout only bounds a hang. */
    static void await(BooleanSupplier condition, String what) {
        Awaitility.await(what).atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(condition::getAsBoolean);
    }
}
