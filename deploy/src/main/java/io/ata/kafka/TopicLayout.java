package io.ata.kafka;

import io.ata.schemas.Topics;
import java.util.Objects;

/**
 * The project's topics as the demo command still names them.
 *
 * @param topics the topics: names, keys, partitions, compaction
 * @deprecated the topics are declared once, in {@link Topics} (ata-schemas); use it directly. This
 *     wrapper is left only for {@code DemoCommand} and {@code LiveDemo}, which are being changed on
 *     another branch; delete it once they take a {@link Topics}.
 */
@Deprecated
public record TopicLayout(Topics topics) {
    /** {@link Topics#DEFAULT_TASK_PARTITIONS}. */
    public static final int DEFAULT_TASK_PARTITIONS = Topics.DEFAULT_TASK_PARTITIONS;

    public TopicLayout {
        Objects.requireNonNull(topics, "topics");
    }

    /** {@link Topics#prefix()}. */
    public String prefix() {
        return topics.prefix();
    }
}
