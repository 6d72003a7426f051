package io.ata.schemas;

import static io.ata.schemas.TopicConfigs.MIB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How much of each topic Kafka keeps: the definitions, and the bounds they promise. */
class TopicConfigsTest {
    private final Topics topics = new Topics();

    @Test
    void everyTopicThatDeletesIsBoundedInTimeAndInBytesPerPartition() {
        for (TopicDef<?> topic : topics.all()) {
            if (topic.compacted()) {
                continue;
            }
            Map<String, String> c = topic.configs();
            long retentionMs = Long.parseLong(c.get("retention.ms"));
            long retentionBytes = Long.parseLong(c.get("retention.bytes"));
            long segmentBytes = Long.parseLong(c.get("segment.bytes"));
            long segmentMs = Long.parseLong(c.get("segment.ms"));
            assertTrue(retentionMs >= Duration.ofDays(1).toMillis(), topic.name() + ": a day at least");
            assertTrue(retentionBytes > 0, topic.name() + ": a byte limit");
            // retention acts on closed segments only: they must close well within both limits
            assertTrue(segmentBytes >= MIB && segmentBytes <= retentionBytes / 4, topic.name() + " segment bytes");
            assertTrue(segmentMs <= retentionMs / 24, topic.name() + " segment time");
            assertFalse(c.containsKey("cleanup.policy"), "the compacted flag says it");
        }
    }

    @Test
    void everyCompactedTopicClosesItsSegmentsWithinARunAndKeepsNoByteLimit() {
        assertEquals(4, topics.all().stream().filter(TopicDef::compacted).count());
        for (TopicDef<?> topic : topics.all()) {
            if (topic.compacted() && !topic.equals(topics.membership())) {
                assertEquals(TopicConfigs.compacted(), topic.configs(), topic.name());
            }
        }
        Map<String, String> c = TopicConfigs.compacted();
        assertEquals(Long.toString(16 * MIB), c.get("segment.bytes"));
        assertEquals("3600000", c.get("segment.ms"));
        // compaction keeps the latest record of every key: no retention may delete it
        assertFalse(c.containsKey("retention.ms") || c.containsKey("retention.bytes"), c.toString());
        assertFalse(c.containsKey("min.compaction.lag.ms"), "a record is compacted as soon as its segment closes");
    }

    @Test
    void theMembershipReadAtEveryBrokerStartKeepsNearOneRecordAWorker() {
        Map<String, String> c = topics.membership().configs();
        assertEquals(TopicConfigs.compactedRewritten(), c);
        assertEquals(Long.toString(MIB), c.get("segment.bytes"), "Kafka's smallest segment");
        assertEquals("60000", c.get("segment.ms"), "closed, so compacted, within a minute");
        assertFalse(c.containsKey("retention.ms") || c.containsKey("retention.bytes"), c.toString());
        assertFalse(c.containsKey("min.compaction.lag.ms"), c.toString());
    }

    @Test
    void everyTopicDeletesSoonAndPreallocatesSmallIndexes() {
        for (TopicDef<?> topic : topics.all()) {
            assertEquals("2000", topic.configs().get("file.delete.delay.ms"), topic.name());
            assertEquals(Long.toString(256 * 1024), topic.configs().get("segment.index.bytes"), topic.name());
        }
    }

    @Test
    void gradientsKeepAnOpenRoundForARestartedTrainer() {
        Map<String, String> c = topics.gradients().configs();
        assertEquals(Long.toString(Duration.ofDays(1).toMillis()), c.get("retention.ms"), "hours beyond any round");
        // the demo's mlp: 235,146 float32 parameters, 0.94 MB a gradient; a round writes one per
        // partition of each of its workers, so a partition keeps dozens of rounds
        long gradient = 235_146L * 4;
        assertTrue(Long.parseLong(c.get("retention.bytes")) >= 32 * gradient, c.toString());
        assertEquals(Long.toString(32 * MIB), c.get("retention.bytes"));
        assertEquals(Long.toString(8 * MIB), c.get("segment.bytes"));
    }

    @Test
    void timingsKeepAWeekAsTheReplayLog() {
        Map<String, String> c = topics.timings().configs();
        assertEquals(Long.toString(Duration.ofDays(7).toMillis()), c.get("retention.ms"));
        assertEquals(Long.toString(256 * MIB), c.get("retention.bytes"));
    }

    @Test
    void atTheDefaultPartitionsTheTopicsThatDeleteHoldAtMostTwoGibibytes() {
        // a partition holds at most its retention.bytes and an open segment (between the
        // broker's retention checks, what is written meanwhile)
        long bound = 0;
        for (TopicDef<?> topic : topics.all()) {
            if (!topic.compacted()) {
                Map<String, String> c = topic.configs();
                bound += topic.partitions()
                        * (Long.parseLong(c.get("retention.bytes")) + Long.parseLong(c.get("segment.bytes")));
            }
        }
        assertEquals(
                2046 * MIB,
                bound,
                "gradients 1280 MiB, tasks 320, timings 272, rounds 72, dead letters 72, evaluations 20, allocations 10");
        assertTrue(bound <= 2048 * MIB);
    }

    @Test
    void deletedRefusesSegmentsKafkaRefusesOrRetentionCannotReach() {
        assertEquals(
                Map.of(
                        "segment.bytes", "1048576",
                        "segment.ms", "3600000",
                        "segment.index.bytes", "262144",
                        "file.delete.delay.ms", "2000",
                        "retention.ms", "7200000",
                        "retention.bytes", "2097152"),
                TopicConfigs.deleted(Duration.ofHours(2), 2 * MIB, MIB));
        assertThrows(IllegalArgumentException.class, () -> TopicConfigs.deleted(Duration.ofHours(2), 2 * MIB, 1000));
        assertThrows(IllegalArgumentException.class, () -> TopicConfigs.deleted(Duration.ofHours(2), MIB, 2 * MIB));
        assertThrows(IllegalArgumentException.class, () -> TopicConfigs.deleted(Duration.ofMinutes(30), 2 * MIB, MIB));
    }

    @Test
    void aTopicDefRefusesTheCleanupPolicyAmongItsConfigs() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new TopicDef<>("t", "job", TaskTiming.class, 1, false, Map.of("cleanup.policy", "compact")));
        assertEquals(Map.of(), new TopicDef<>("t", "job", TaskTiming.class, 1, false).configs());
    }
}
