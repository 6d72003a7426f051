package io.ata.local.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code --topic-config [TOPIC:]KEY=VALUE}: parsed, and applied over the project's defaults. */
class TopicConfigOverridesTest {
    private final Topics topics = new Topics("p.", 4, 1);

    @Test
    void noOverridesGiveTheProjectsTopicsAsDeclared() {
        assertSame(TopicConfigOverrides.NONE, TopicConfigOverrides.parse(List.of()));
        List<TopicSpec> specs = TopicConfigOverrides.NONE.specs(topics);
        assertEquals(topics.all().stream().map(TopicSpec::of).toList(), specs);
    }

    @Test
    void aTopicsOwnOverrideWinsOverOneForEveryTopicWhichWinsOverTheDefault() {
        TopicConfigOverrides overrides = TopicConfigOverrides.parse(List.of(
                "retention.ms=3600000", "timings:retention.ms=-1", " gradients : retention.bytes = 1073741824 "));
        Map<String, TopicSpec> specs = byName(overrides.specs(topics));
        assertEquals("-1", specs.get("p.timings").configs().get("retention.ms"));
        assertEquals("3600000", specs.get("p.gradients").configs().get("retention.ms"));
        assertEquals("1073741824", specs.get("p.gradients").configs().get("retention.bytes"));
        assertEquals("3600000", specs.get("p.model").configs().get("retention.ms"), "every topic");
        assertTrue(specs.get("p.model").compacted());
        // the rest as declared
        TopicDef<?> gradients = topics.gradients();
        assertEquals(
                gradients.configs().get("segment.bytes"),
                specs.get("p.gradients").configs().get("segment.bytes"));
        assertEquals(4, specs.get("p.gradients").partitions());
        assertEquals(
                "TopicConfigOverrides[retention.ms=3600000, timings:retention.ms=-1, gradients:retention.bytes=1073741824]",
                overrides.toString());
    }

    @Test
    void laterEntriesWin() {
        TopicConfigOverrides overrides =
                TopicConfigOverrides.parse(List.of("timings:retention.ms=1", "timings:retention.ms=2"));
        assertEquals(
                "2", byName(overrides.specs(topics)).get("p.timings").configs().get("retention.ms"));
    }

    @Test
    void refusesMalformedEntriesTheCleanupPolicyAndUnknownTopics() {
        for (String bad : List.of("retention.ms", "=1", "retention.ms=", ":retention.ms=1", "timings:=1")) {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> TopicConfigOverrides.parse(List.of(bad)), bad);
            assertTrue(e.getMessage().contains("[TOPIC:]KEY=VALUE"), e.getMessage());
        }
        IllegalArgumentException policy = assertThrows(
                IllegalArgumentException.class,
                () -> TopicConfigOverrides.parse(List.of("model:cleanup.policy=delete")));
        assertTrue(policy.getMessage().contains("cleanup.policy"), policy.getMessage());
        TopicConfigOverrides unknown = TopicConfigOverrides.parse(List.of("p.timings:retention.ms=1"));
        IllegalArgumentException name = assertThrows(IllegalArgumentException.class, () -> unknown.specs(topics));
        assertTrue(name.getMessage().contains("'p.timings': no such topic"), name.getMessage());
        assertTrue(name.getMessage().contains("gradients"), name.getMessage());
    }

    private static Map<String, TopicSpec> byName(List<TopicSpec> specs) {
        return specs.stream().collect(java.util.stream.Collectors.toMap(TopicSpec::name, s -> s));
    }
}
