package io.ata.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TopicsTest {

    @Test
    void defaultNamesKeysAndValueClasses() {
        Topics topics = new Topics();
        assertEquals("ata.", topics.prefix());
        assertEquals(
                List.of(
                        "ata.workers",
                        "ata.rounds",
                        "ata.tasks",
                        "ata.allocations",
                        "ata.timings",
                        "ata.gradients",
                        "ata.model",
                        "ata.dead-letters",
                        "ata.membership",
                        "ata.optimizer",
                        "ata.evaluations"),
                topics.names());
        assertEquals(topics.names(), topics.all().stream().map(TopicDef::name).toList());
        assertEquals(
                List.of(
                        "worker_id",
                        "job",
                        "worker_id",
                        "job",
                        "worker_id",
                        "job",
                        "job",
                        "source_topic",
                        "worker_id",
                        "job",
                        "job"),
                topics.all().stream().map(TopicDef::keyField).toList());
        assertEquals(TaskTiming.class, topics.timings().valueClass());
        assertEquals(DeadLetter.class, topics.deadLetters().valueClass());
        assertEquals(WorkerHeartbeat.class, topics.membership().valueClass());
        assertEquals("ata.timings-value", topics.timings().valueSubject());
        assertTrue(topics.workers().compacted());
        assertTrue(topics.model().compacted());
        assertTrue(topics.membership().compacted());
        assertTrue(topics.optimizer().compacted());
        assertFalse(topics.tasks().compacted());
        assertFalse(topics.allocations().compacted());
        assertEquals(topics.tasks().valueClass(), topics.allocations().valueClass(), "the same assignments");
        assertFalse(topics.evaluations().compacted());
        assertEquals(4, topics.all().stream().filter(TopicDef::compacted).count());
    }

    @Test
    void defaultPartitions() {
        Topics topics = new Topics();
        assertEquals(32, topics.tasks().partitions());
        assertEquals(32, topics.taskPartitions());
        assertEquals(1, topics.rounds().partitions(), "one rounds partition unless told otherwise");
        assertEquals(
                List.of(1, 1, 32, 1, 1, 32, 1, 1, 1, 1, 1),
                topics.all().stream().map(TopicDef::partitions).toList());
        assertEquals(topics.taskPartitions(), topics.gradients().partitions(), "a gradients partition per tasks one");
    }

    @Test
    void keyFieldsExistInTheValueSchemas() {
        for (TopicDef<?> topic : new Topics().all()) {
            assertTrue(
                    org.apache.avro.specific.SpecificData.get()
                                    .getSchema(topic.valueClass())
                                    .getField(topic.keyField())
                            != null,
                    topic.name() + " key field " + topic.keyField());
        }
    }

    @Test
    void customAndEmptyPrefix() {
        assertEquals("test-7.tasks", new Topics("test-7.").tasks().name());
        assertEquals("tasks", new Topics("").tasks().name());
        assertEquals("test-7.membership", new Topics("test-7.").membership().name());
    }

    @Test
    void prefixAndPartitionsAreChosen() {
        Topics topics = new Topics("run-7_", 4, 1);
        assertEquals("run-7_tasks", topics.tasks().name());
        assertEquals(4, topics.tasks().partitions());
        assertEquals("workers", topics.withPrefix("").workers().name());
        assertEquals(8, topics.withTaskPartitions(8).tasks().partitions());
        assertEquals(8, topics.withTaskPartitions(8).gradients().partitions());
        Topics shared = topics.withRoundsPartitions(6);
        assertEquals("run-7_rounds", shared.rounds().name());
        assertEquals(6, shared.rounds().partitions());
        assertEquals(
                6,
                shared.model().partitions(),
                "a job's model versions spread as its rounds: jobs do not wait on " + "each other's open transactions");
        assertEquals(6, shared.allocations().partitions(), "a job's assignments in its rounds' partition count");
        assertEquals(1, topics.model().partitions());
        assertEquals(6, shared.withPrefix("x.").withTaskPartitions(2).roundsPartitions(), "kept by the withers");
        assertEquals(4, shared.withPrefix("x.").taskPartitions(), "kept by the withers");
        assertEquals(new Topics("run-7_", 4, 6), shared);
        assertNotEquals(topics, shared);
    }

    @Test
    void theAgentsGroupFollowsThePrefix() {
        assertEquals("ata.workers", new Topics().workerGroup());
        assertEquals("x.workers", new Topics("x.").workerGroup());
        assertEquals("workers", new Topics("").workerGroup());
        assertEquals("x.workers", new Topics("run-7_", 4, 6).withPrefix("x.").workerGroup());
    }

    @Test
    void theBrokersApplicationIdFollowsThePrefix() {
        assertEquals("ata.broker", new Topics().brokerApplicationId());
        assertEquals("x.broker", new Topics("x.").brokerApplicationId());
        assertEquals("broker", new Topics("").brokerApplicationId());
    }

    @Test
    void theTrainersGroupAndTransactionalIdFollowThePrefix() {
        assertEquals("ata.trainer-quadratic", new Topics().trainerName("quadratic"));
        assertEquals("stg.trainer-mnist", new Topics("stg.").trainerName("mnist"));
        assertEquals("trainer-mnist", new Topics("").trainerName("mnist"));
        assertEquals("x.trainer-j", new Topics("run-7_", 4, 6).withPrefix("x.").trainerName("j"));
        assertNotEquals(new Topics("ata.").trainerName("mnist"), new Topics("stg.").trainerName("mnist"));
        assertEquals("ata.trainer-", new Topics().trainerNamePrefix());
        assertEquals("stg.trainer-", new Topics("stg.").trainerNamePrefix());
        assertTrue(new Topics("stg.").trainerName("mnist").startsWith(new Topics("stg.").trainerNamePrefix()));
        assertThrows(NullPointerException.class, () -> new Topics().trainerName(null));
    }

    @Test
    void theAgentsTransactionalIdFollowsThePrefix() {
        assertEquals("ata.agent-agent-1", new Topics().agentTransactionalId("agent-1"));
        assertEquals("stg.agent-w7", new Topics("stg.").agentTransactionalId("w7"));
        assertEquals("agent-w7", new Topics("").agentTransactionalId("w7"));
        assertNotEquals(new Topics("ata.").agentTransactionalId("w"), new Topics("stg.").agentTransactionalId("w"));
        assertEquals("ata.agent-", new Topics().agentTransactionalIdPrefix());
        assertEquals("stg.agent-", new Topics("stg.").agentTransactionalIdPrefix());
        assertTrue(new Topics("stg.")
                .agentTransactionalId("w7")
                .startsWith(new Topics("stg.").agentTransactionalIdPrefix()));
        assertThrows(NullPointerException.class, () -> new Topics().agentTransactionalId(null));
    }

    @Test
    void illegalPrefixIsRejected() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> new Topics("my topics/"));
        assertEquals(
                "illegal topic prefix 'my topics/': use at most 200 letters, digits, '.', '_' or '-'",
                error.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Topics("x".repeat(201)));
        assertThrows(NullPointerException.class, () -> new Topics(null));
    }

    @Test
    void partitionCountsBelowOneAreRejected() {
        IllegalArgumentException tasks = assertThrows(IllegalArgumentException.class, () -> new Topics("ata.", 0, 1));
        assertEquals("task partitions must be at least 1, not 0", tasks.getMessage());
        IllegalArgumentException rounds = assertThrows(IllegalArgumentException.class, () -> new Topics("ata.", 1, 0));
        assertEquals("rounds partitions must be at least 1, not 0", rounds.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Topics().withTaskPartitions(-1));
    }
}
