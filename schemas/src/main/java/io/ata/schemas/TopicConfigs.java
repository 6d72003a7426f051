package io.ata.schemas;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How much of a topic Kafka keeps: the topic configs ATA's topics are created with, so that the
 * disk a deployment uses stays bounded while it trains. Kafka's defaults (7 days, no byte limit,
 * 1 GiB segments) kept every record of a run: segments are deleted or compacted only once closed,
 * and a 1 GiB segment of one partition did not close within a run. {@link Topics} gives each of
 * its topics one of these; the embedded Schema Registry's topic and the broker's Kafka Streams
 * changelogs get {@link #compacted()}. {@code docs/operations.md} has the table and the reasons.
 *
 * <p>Every config here is a topic config, so a cluster's broker defaults do not matter, and each
 * can be overridden when the topics are created ({@code --topic-config}) or altered later with
 * Kafka's {@code kafka-configs.sh}.
 */
public final class TopicConfigs {
    /** One mebibyte. */
    public static final long MIB = 1024L * 1024L;

    /**
     * How often a segment closes at the latest, even on a quiet partition, so that time retention
     * and compaction act within an hour of being due.
     */
    public static final Duration SEGMENT_TIME = Duration.ofHours(1);

    /** A compacted topic's segment: the cleaner compacts closed segments only. */
    public static final long COMPACTED_SEGMENT_BYTES = 16 * MIB;

    /**
     * How often the segment of a topic in {@link #compactedRewritten()} closes at the latest: its
     * log holds about this long of writes beyond one record per key.
     */
    public static final Duration REWRITTEN_SEGMENT_TIME = Duration.ofMinutes(1);

    /**
     * How long a deleted segment's files stay on disk (Kafka's default: a minute, in which a job
     * at full speed, 55 MB/s, leaves another 3 GB of deleted segments behind). A read of the
     * segment under way has that long to finish; one that takes longer fails and is retried at the
     * next offset kept, as if it had started a moment later.
     */
    public static final Duration FILE_DELETE_DELAY = Duration.ofSeconds(2);

    /**
     * The largest size of a segment's offset and time index. Kafka preallocates both at this size
     * (default 10 MiB each) for the open segment of every partition: sparse files, but counted at
     * full length by tools that report apparent sizes, 1.6 GB for ATA's 80 partitions. 256 KiB
     * indexes 128 MiB of log at Kafka's index interval (4 KiB), more than any segment here; a
     * full index would merely close its segment early.
     */
    public static final long INDEX_BYTES = 256 * 1024L;

    private TopicConfigs() {}

    /**
     * A topic whose records are deleted once older than {@code retention} or once a partition
     * holds more than {@code bytesPerPartition} (whichever comes first), in segments of
     * {@code segmentBytes} that close after {@link #SEGMENT_TIME} at the latest. Kafka deletes
     * whole closed segments only, so a partition holds at least {@code bytesPerPartition} (if
     * that much is younger than {@code retention}) and at most about that plus one segment.
     *
     * @throws IllegalArgumentException if a size is below Kafka's 1 MiB segment minimum, or the
     *     segment is larger than the retained bytes
     */
    public static Map<String, String> deleted(Duration retention, long bytesPerPartition, long segmentBytes) {
        Objects.requireNonNull(retention, "retention");
        if (retention.compareTo(SEGMENT_TIME) < 0) {
            throw new IllegalArgumentException(
                    "retention " + retention + " is shorter than a segment's " + SEGMENT_TIME);
        }
        if (segmentBytes < MIB || segmentBytes > bytesPerPartition) {
            throw new IllegalArgumentException("segment of " + segmentBytes + " bytes: at least 1 MiB (Kafka's "
                    + "minimum) and at most the " + bytesPerPartition + " bytes retained");
        }
        Map<String, String> configs = common(segmentBytes);
        configs.put("retention.ms", Long.toString(retention.toMillis()));
        configs.put("retention.bytes", Long.toString(bytesPerPartition));
        return configs;
    }

    /**
     * A compacted topic's configs (besides {@code cleanup.policy=compact}): segments of
     * {@link #COMPACTED_SEGMENT_BYTES} that close after {@link #SEGMENT_TIME} at the latest, so
     * the cleaner compacts during a run. Compaction keeps the latest record of every key, whatever
     * these say. Kafka's defaults stay for the rest: the cleaner takes a log once half of it is
     * dirty ({@code min.cleanable.dirty.ratio} 0.5; what stays after a pass is one record per key,
     * so a log of large values is dirty as soon as a segment closes), and tombstones and
     * transaction markers stay a day ({@code delete.retention.ms}).
     */
    public static Map<String, String> compacted() {
        return common(COMPACTED_SEGMENT_BYTES);
    }

    /**
     * A compacted topic whose keys are written again every few seconds, that a reader reads from
     * the beginning at every start: the broker's {@code membership}, which restores its global
     * store at each start before anything else runs, refreshed by each worker every quarter of the
     * liveness timeout. {@link #compacted()}'s 16 MiB segments held some 80,000 refreshes of 1,000
     * workers unread by the cleaner (the open segment is never compacted), all read back by each
     * start. Here Kafka's smallest segment (1 MiB), closed every {@link #REWRITTEN_SEGMENT_TIME}:
     * the log stays near one record per key and a minute's refreshes.
     */
    public static Map<String, String> compactedRewritten() {
        Map<String, String> configs = common(MIB);
        configs.put("segment.ms", Long.toString(REWRITTEN_SEGMENT_TIME.toMillis()));
        return configs;
    }

    private static Map<String, String> common(long segmentBytes) {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put("segment.bytes", Long.toString(segmentBytes));
        configs.put("segment.ms", Long.toString(SEGMENT_TIME.toMillis()));
        configs.put("segment.index.bytes", Long.toString(INDEX_BYTES));
        configs.put("file.delete.delay.ms", Long.toString(FILE_DELETE_DELAY.toMillis()));
        return configs;
    }
}
