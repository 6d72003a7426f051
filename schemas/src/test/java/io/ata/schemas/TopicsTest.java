package io.ata.schemas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
                        "ata.timings",
                        "ata.gradients",
                        "ata.model",
                        "ata.dead-letters"),
                topics.all().stream().map(TopicDef::name).toList());
        assertEquals(
                List.of("worker_id", "job", "worker_id", "worker_id", "job", "job", "source_topic"),
                topics.all().stream().map(TopicDef::keyField).toList());
        assertEquals(TaskTiming.class, topics.timings().valueClass());
        assertEquals(DeadLetter.class, topics.deadLetters().valueClass());
        assertEquals("ata.timings-value", topics.timings().valueSubject());
        assertTrue(topics.workers().compacted());
        assertTrue(topics.model().compacted());
        assertFalse(topics.tasks().compacted());
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
    }

    @Test
    void illegalPrefixIsRejected() {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> new Topics("my topics/"));
        assertTrue(error.getMessage().contains("my topics/"), error.getMessage());
    }
}
