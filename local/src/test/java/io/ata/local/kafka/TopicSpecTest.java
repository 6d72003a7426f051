package io.ata.local.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.Topics;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** Topic specs, and the project's topics as specs; no broker needed. */
class TopicSpecTest {

    @Test
    void theProjectsTopicsBecomeSpecsWithTheirPartitionsAndCompaction() {
        Topics topics = new Topics("run-7_", 4, 6);
        List<TopicSpec> specs = TopicSpec.all(topics);
        assertEquals(topics.names(), specs.stream().map(TopicSpec::name).toList());
        TopicSpec tasks = specs.get(2);
        assertEquals(new TopicSpec("run-7_tasks", 4, false, topics.tasks().configs()), tasks);
        assertEquals(new TopicSpec("run-7_rounds", 6, false, topics.rounds().configs()), specs.get(1));
        for (int i = 0; i < specs.size(); i++) {
            assertEquals(topics.all().get(i).configs(), specs.get(i).configs(), "retention and segments as declared");
        }
        assertEquals(
                new TopicSpec(
                        "run-7_allocations", 6, false, topics.allocations().configs()),
                spec(specs, "run-7_allocations"),
                "a job's assignments spread as its rounds");
        for (String name : List.of("workers", "model", "membership", "optimizer")) {
            assertTrue(spec(specs, "run-7_" + name).compacted(), name + " is compacted");
        }
        assertEquals(4, specs.stream().filter(TopicSpec::compacted).count());
        assertEquals(
                TopicSpec.compacted("run-7_membership", 1)
                        .withConfigs(topics.membership().configs()),
                TopicSpec.of(topics.membership()));
    }

    private static TopicSpec spec(List<TopicSpec> specs, String name) {
        return specs.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void saysHowLongATopicIsKept() {
        Topics topics = new Topics();
        assertEquals(
                "kept 1d or 32 MiB a partition",
                TopicSpec.of(topics.gradients()).retention());
        assertEquals(
                "kept 7d or 256 MiB a partition", TopicSpec.of(topics.timings()).retention());
        assertEquals("compacted", TopicSpec.of(topics.model()).retention());
        assertEquals(
                "kept as the cluster's defaults say", TopicSpec.of("plain", 1).retention());
        assertEquals(
                "kept forever or 1 GiB a partition",
                TopicSpec.of("t", 1)
                        .withConfig("retention.ms", "-1")
                        .withConfig("retention.bytes", Long.toString(1L << 30))
                        .retention());
        assertEquals(
                "kept 2h",
                TopicSpec.of("t", 1).withConfig("retention.ms", "7200000").retention());
        assertEquals(
                "kept 90000 ms or 1000 bytes a partition",
                TopicSpec.of("t", 1)
                        .withConfig("retention.ms", "90000")
                        .withConfig("retention.bytes", "1000")
                        .retention());
    }

    @Test
    void topicSpecBuildsTheAdminRequest() {
        NewTopic compacted = TopicSpec.compacted("state", 3)
                .withConfig("segment.ms", "60000")
                .toNewTopic();
        assertEquals("state", compacted.name());
        assertEquals(3, compacted.numPartitions());
        assertEquals(-1, compacted.replicationFactor(), "the cluster's default replication factor");
        assertEquals(Map.of("cleanup.policy", "compact", "segment.ms", "60000"), compacted.configs());
        assertEquals(Map.of(), TopicSpec.of("events", 1).toNewTopic().configs());
    }

    @Test
    void topicSpecRefusesIllegalNames() {
        assertThrows(IllegalArgumentException.class, () -> TopicSpec.of("has space", 1));
        assertThrows(IllegalArgumentException.class, () -> TopicSpec.of("..", 1));
        assertThrows(IllegalArgumentException.class, () -> TopicSpec.of("x".repeat(250), 1));
        assertThrows(IllegalArgumentException.class, () -> TopicSpec.of("ok", 0));
        assertThrows(
                IllegalArgumentException.class, () -> TopicSpec.of("ok", 1).withConfig("cleanup.policy", "compact"));
    }
}
