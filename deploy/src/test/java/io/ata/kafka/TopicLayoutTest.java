package io.ata.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** The project's topic names and settings, and topic specs; no broker needed. */
class TopicLayoutTest {

    @Test
    void defaultLayoutNamesTheProjectsTopics() {
        TopicLayout layout = TopicLayout.defaults();
        assertEquals(
                List.of(
                        "ata.workers",
                        "ata.rounds",
                        "ata.tasks",
                        "ata.timings",
                        "ata.gradients",
                        "ata.model",
                        "ata.dead-letters",
                        "ata.membership"),
                layout.names());
        assertEquals("ata.tasks", layout.tasks());
        assertEquals("ata.dead-letters", layout.deadLetters());
        TopicSpec tasks = layout.topics().get(2);
        assertEquals(32, tasks.partitions());
        assertFalse(tasks.compacted());
        assertTrue(layout.topics().get(0).compacted(), "workers is compacted");
        assertTrue(layout.topics().get(5).compacted(), "model is compacted");
        assertTrue(layout.topics().get(7).compacted(), "membership is compacted");
        assertEquals(3, layout.topics().stream().filter(TopicSpec::compacted).count());
    }

    @Test
    void prefixAndTaskPartitionsAreChosen() {
        TopicLayout layout = new TopicLayout("run-7_", 4);
        assertEquals("run-7_tasks", layout.tasks());
        assertEquals(4, layout.topics().get(2).partitions());
        assertEquals("workers", layout.withPrefix("").workers());
        assertEquals(8, layout.withTaskPartitions(8).topics().get(2).partitions());
        assertEquals(1, layout.topics().get(1).partitions(), "one rounds partition unless told otherwise");
        TopicLayout shared = layout.withRoundsPartitions(6);
        assertEquals("run-7_rounds", shared.topics().get(1).name());
        assertEquals(6, shared.topics().get(1).partitions());
        assertEquals(6, shared.withPrefix("x.").withTaskPartitions(2).roundsPartitions(), "kept by the withers");
    }

    @Test
    void refusesBadPrefixesAndPartitions() {
        assertThrows(IllegalArgumentException.class, () -> new TopicLayout("ata/", 32));
        assertThrows(IllegalArgumentException.class, () -> new TopicLayout("ata.", 0));
        assertThrows(NullPointerException.class, () -> new TopicLayout(null, 1));
        assertThrows(IllegalArgumentException.class, () -> new TopicLayout("ata.", 1, 0));
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
