package io.ata.trainer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trainer's settings: required ones, defaults, and the user's client properties. */
class TrainerConfigTest {

    private static TrainerConfig.Builder job() {
        return TrainerConfig.builder().bootstrapServers("kafka:9092").job("j").batch(4);
    }

    @Test
    void defaultsNameTheGroupAndTransactionalIdAfterThePrefixAndTheJob() {
        TrainerConfig config = job().build();
        assertEquals("ata.trainer-j", config.groupId());
        assertEquals("ata.trainer-j", config.transactionalId());
        assertEquals("ata.", config.topicPrefix());
        assertEquals(Map.of(), config.clientProperties());
    }

    /** Two deployments on one cluster training a job of the same name must not fence each other's trainer. */
    @Test
    void eachJobBreaksTiesWithItsOwnSeedUnlessGivenOne() {
        long a = job().job("job-0001").build().trainingJob().seed();
        long b = job().job("job-0002").build().trainingJob().seed();
        assertNotEquals(a, b, "jobs started together must not tie-break alike");
        assertEquals(a, job().job("job-0001").build().trainingJob().seed(), "the same job, the same seed");
        assertEquals(a, TrainerConfig.seedOf("job-0001"));
        assertEquals(5, job().job("job-0001").seed(5).build().trainingJob().seed());
    }

    @Test
    void theDefaultGroupAndTransactionalIdFollowTheTopicPrefix() {
        TrainerConfig staging = job().topicPrefix("stg.").job("mnist").build();
        assertEquals("stg.trainer-mnist", staging.groupId());
        assertEquals("stg.trainer-mnist", staging.transactionalId());
        assertEquals(new Topics("stg.").trainerName("mnist"), staging.transactionalId());
        TrainerConfig production = job().topicPrefix("ata.").job("mnist").build();
        assertNotEquals(staging.transactionalId(), production.transactionalId());
        assertNotEquals(staging.groupId(), production.groupId());
        assertEquals("trainer-mnist", job().topicPrefix("").job("mnist").build().groupId(), "an empty prefix too");
    }

    @Test
    void aGivenGroupIdOrTransactionalIdWins() {
        TrainerConfig config = job().topicPrefix("stg.")
                .groupId("my-group")
                .transactionalId("my-tx")
                .build();
        assertEquals("my-group", config.groupId());
        assertEquals("my-tx", config.transactionalId());
        assertEquals("my-group", TrainerClients.gradientsConsumer(config).get("group.id"));
        assertEquals("my-tx", TrainerClients.producer(config).get("transactional.id"));
        // each alone: the other keeps the default
        assertEquals(
                "stg.trainer-j", job().topicPrefix("stg.").groupId("g").build().transactionalId());
        assertEquals(
                "stg.trainer-j",
                job().topicPrefix("stg.").transactionalId("t").build().groupId());
    }

    /** Without a registry each trainer counts in one of its own; a process hands one to all its parts. */
    @Test
    void theMeterRegistryIsTheOneGivenElseOneOfItsOwn() {
        SimpleMeterRegistry shared = new SimpleMeterRegistry();
        assertSame(shared, job().meterRegistry(shared).build().meterRegistry());
        assertInstanceOf(SimpleMeterRegistry.class, job().build().meterRegistry());
        assertNotSame(job().build().meterRegistry(), job().build().meterRegistry());
        assertThrows(NullPointerException.class, () -> job().meterRegistry(null));
    }

    @Test
    void clientPropertiesAreCollectedInOrderAndFrozenAtBuild() {
        Map<String, Object> security = new LinkedHashMap<>();
        security.put("security.protocol", "SASL_SSL");
        security.put("sasl.mechanism", "PLAIN");
        TrainerConfig.Builder builder = job().clientProperty("request.timeout.ms", 1000)
                .clientProperties(security)
                .clientProperty("sasl.mechanism", "SCRAM-SHA-512");
        TrainerConfig config = builder.build();
        builder.clientProperty("acks", "1");

        assertEquals(
                List.of("request.timeout.ms", "security.protocol", "sasl.mechanism"),
                List.copyOf(config.clientProperties().keySet()));
        assertEquals("SCRAM-SHA-512", config.clientProperties().get("sasl.mechanism"));
        assertThrows(
                UnsupportedOperationException.class,
                () -> config.clientProperties().put("acks", "0"));
    }

    @Test
    void refusesPropertiesWithoutANameOrValue() {
        assertThrows(IllegalArgumentException.class, () -> job().clientProperty("", "x"));
        assertThrows(NullPointerException.class, () -> job().clientProperty("acks", null));
        Map<String, Object> withNull = new LinkedHashMap<>();
        withNull.put("acks", null);
        assertThrows(NullPointerException.class, () -> job().clientProperties(withNull));
    }

    @Test
    void refusesAJobNameThatCouldBeAnotherJobsModelSliceKey() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder()
                        .bootstrapServers("k:1")
                        .job("sweep#2")
                        .batch(4)
                        .build());
        assertTrue(e.getMessage().contains("contains '#'"), e.getMessage());
    }

    @Test
    void requiresTheBootstrapServersTheJobAndTheBatch() {
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder().job("j").batch(4).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder().bootstrapServers("k:1").batch(4).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> TrainerConfig.builder().bootstrapServers("k:1").job("j").build());
    }

    /** Today's job unless told otherwise: the quadratic, plain SGD with the paper's step, evaluations every 25. */
    @Test
    void defaultsTrainTheQuadraticWithThePapersSgd() {
        TrainingJob job = job().build().trainingJob();
        assertEquals("quadratic(d=100)", job.model().describe());
        assertEquals("sgd(lr=0.0001,momentum=0,wd=0)", job.optimizer().describe());
        assertSame(MeanAggregator.INSTANCE, job.aggregator());
        assertEquals(new NormBound(10, 3, Double.POSITIVE_INFINITY), job.normBound());
        TrainerConfig config = job().build();
        assertEquals(25, config.evalEvery());
        assertEquals(1, config.evalThreads());
        assertEquals(io.ata.schemas.chunk.Chunks.DEFAULT_CHUNK_BYTES, config.chunkBytes());
    }

    @Test
    void theOptimizerByNameWithItsDefaultsPerModel() {
        assertEquals(
                "sgd(lr=0.5,momentum=0.9,wd=0.001)",
                job().learningRate(0.5)
                        .momentum(0.9)
                        .weightDecay(1e-3)
                        .build()
                        .trainingJob()
                        .optimizer()
                        .describe());
        assertEquals(
                "adam(lr=0.001,beta1=0.9,beta2=0.999,eps=1e-08,wd=0)",
                job().optimizer("adam").build().trainingJob().optimizer().describe());
        assertEquals(
                "adam(lr=0.01,beta1=0.8,beta2=0.99,eps=1e-07,wd=0.1)",
                job().optimizer("ADAM")
                        .learningRate(0.01)
                        .beta1(0.8)
                        .beta2(0.99)
                        .epsilon(1e-7)
                        .weightDecay(0.1)
                        .build()
                        .trainingJob()
                        .optimizer()
                        .describe());
        TrainerConfig network = job().model("mlp:8")
                .data("synthetic")
                .samplesPerTask(8)
                .microBatch(4)
                .sampleSeed(3)
                .build();
        assertEquals(
                "sgd(lr=0.01,momentum=0,wd=0)",
                network.trainingJob().optimizer().describe());
        io.ata.schemas.TaskSpec task = network.trainingJob().model().taskSpec().orElseThrow();
        assertEquals(8, task.getSamplesPerTask());
        assertEquals(4, task.getMicroBatch());
        assertEquals(3, task.getSampleSeed());
    }

    @Test
    void refusesContradictoryOrOutOfRangeSettings() {
        assertThrows(
                IllegalArgumentException.class, () -> job().optimizer("rmsprop").build());
        assertThrows(
                IllegalArgumentException.class,
                () -> job().optimizer("adam").momentum(0.9).build());
        assertThrows(IllegalArgumentException.class, () -> job().beta1(0.9).build());
        assertThrows(IllegalArgumentException.class, () -> job().momentum(1.5).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> job().optimizer(new SgdOptimizer(0.1)).learningRate(0.2).build());
        assertThrows(
                IllegalArgumentException.class,
                () -> job().objective(QuadraticObjective.paper()).model("mlp").build());
        assertThrows(IllegalArgumentException.class, () -> job().model("mlp").build()); // no data
        assertThrows(IllegalArgumentException.class, () -> job().evalEvery(-1).build());
        assertThrows(IllegalArgumentException.class, () -> job().evalThreads(0).build());
        assertThrows(IllegalArgumentException.class, () -> job().chunkBytes(0).build());
    }
}
