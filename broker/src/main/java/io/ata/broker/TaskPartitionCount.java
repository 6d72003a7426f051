package io.ata.broker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition count of the tasks topic, as the cluster describes it: the bound of the partitions
 * a heartbeat may list. Asked for when first needed and again at most every {@link #REFRESH} (the
 * topic may be created after the broker starts, or grow); 0 while it cannot be told.
 */
final class TaskPartitionCount implements IntSupplier, AutoCloseable {
    static final Duration REFRESH = Duration.ofSeconds(30);
    /** The least time between two counts asked for by {@link #recount()}. */
    static final Duration RECOUNT_GAP = Duration.ofSeconds(1);

    private static final Logger LOG = LoggerFactory.getLogger(TaskPartitionCount.class);

    private final Admin admin;
    private final String topic;
    private int count;
    private long askedAtNanos;
    private boolean asked;

    TaskPartitionCount(Map<String, Object> adminConfig, String topic) {
        this.admin = Admin.create(adminConfig);
        this.topic = topic;
    }

    /**
     * The count asked for again now, unless it was asked for less than {@link #RECOUNT_GAP} ago:
     * for a heartbeat listing a partition past the known end, which the topic may have grown.
     */
    synchronized int recount() {
        return countIfOlderThan(RECOUNT_GAP);
    }

    /**
     * Grows the topic to {@code target} partitions (Kafka never shrinks one) and returns the count
     * after: {@code target}, or more if another broker instance grew it further first.
     *
     * @throws ExecutionException if the cluster refuses, e.g. without ALTER on the topic
     */
    synchronized int growTo(int target) throws ExecutionException, InterruptedException, TimeoutException {
        try {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(target)))
                    .all()
                    .get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof InvalidPartitionsException)) {
                throw e;
            }
            // already that large or larger: another instance grew it
        }
        asked = false;
        return getAsInt();
    }

    @Override
    public synchronized int getAsInt() {
        return countIfOlderThan(REFRESH);
    }

    /** The count, asked for again if it was last asked for at least {@code age} ago. */
    private int countIfOlderThan(Duration age) {
        long now = System.nanoTime();
        if (!asked || now - askedAtNanos >= age.toNanos()) {
            asked = true;
            askedAtNanos = now;
            count = describe();
        }
        return count;
    }

    private int describe() {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(5, TimeUnit.SECONDS)
                    .get(topic);
            return d.partitions().size();
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn(
                    "cannot describe {} ({}): partitions in heartbeats are checked for sign only", topic, e.toString());
            return count; // keep what was known
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return count;
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(5));
    }
}
