package io.ata.local.kafka;

import io.ata.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates topics through an {@link Admin} client and waits until they can be used. Works with any
 * Kafka cluster, not only {@link EmbeddedKafka}. Topics that already exist are left as they are
 * (their partitions and configs are not changed), so creating the same topics twice is harmless.
 */
public final class TopicAdmin {
    /** How long {@link #createTopics(Admin, Collection)} waits for the topics by default. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    private static final long POLL_MILLIS = 20;

    private TopicAdmin() {}

    /**
     * Creates the project's topics that do not exist yet ({@link Topics#all()}, with their
     * partitions and compaction) and waits until they are ready; existing topics are left unchanged.
     *
     * @return the names of the topics created by this call
     */
    public static List<String> createTopics(Admin admin, Topics topics) {
        return createTopics(admin, TopicSpec.all(topics));
    }

    /** {@link #createTopics(Admin, Collection, Duration)} with {@link #DEFAULT_TIMEOUT}. */
    public static List<String> createTopics(Admin admin, Collection<TopicSpec> topics) {
        return createTopics(admin, topics, DEFAULT_TIMEOUT);
    }

    /**
     * Creates the topics that do not exist yet and waits until every partition of every given topic
     * has a leader, so producers and consumers can use them at once.
     *
     * @return the names of the topics this call created, in the order given (the others existed)
     * @throws TimeoutException if the topics are not ready within {@code timeout}
     * @throws KafkaException   if the cluster refuses a topic (e.g. an invalid config)
     */
    public static List<String> createTopics(Admin admin, Collection<TopicSpec> topics, Duration timeout) {
        Map<String, TopicSpec> byName = new LinkedHashMap<>();
        for (TopicSpec topic : topics) {
            TopicSpec previous = byName.put(topic.name(), topic);
            if (previous != null && !previous.equals(topic)) {
                throw new IllegalArgumentException(
                        "topic " + topic.name() + " given twice, differently: " + previous + " and " + topic);
            }
        }
        if (byName.isEmpty()) {
            return List.of();
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<String> existing = get(
                admin.listTopics(new ListTopicsOptions().listInternal(false)).names(), deadline, "listing topics");
        List<NewTopic> missing = new ArrayList<>();
        for (TopicSpec topic : byName.values()) {
            if (!existing.contains(topic.name())) {
                missing.add(topic.toNewTopic());
            }
        }
        List<String> created = new ArrayList<>();
        if (!missing.isEmpty()) {
            CreateTopicsResult result = admin.createTopics(missing);
            for (NewTopic topic : missing) {
                try {
                    get(result.values().get(topic.name()), deadline, "creating topic " + topic.name());
                    created.add(topic.name());
                } catch (TopicExistsException e) {
                    // created meanwhile by someone else: fine
                }
            }
        }
        awaitLeaders(admin, byName.keySet(), deadline);
        return created;
    }

    /** Waits until every partition of the topics has a leader, as seen by the broker {@code admin} asks. */
    private static void awaitLeaders(Admin admin, Collection<String> names, long deadline) {
        while (true) {
            String notReady;
            try {
                Map<String, TopicDescription> descriptions =
                        get(admin.describeTopics(names).allTopicNames(), deadline, "describing topics " + names);
                notReady = firstWithoutLeader(descriptions);
            } catch (UnknownTopicOrPartitionException e) {
                notReady = "a topic the broker does not know yet";
            }
            if (notReady == null) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TimeoutException("topics " + names + " not ready in time: " + notReady + " has no leader");
            }
            sleep(POLL_MILLIS);
        }
    }

    private static String firstWithoutLeader(Map<String, TopicDescription> descriptions) {
        for (TopicDescription d : descriptions.values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() == null || p.leader().isEmpty()) {
                    return d.name() + "-" + p.partition();
                }
            }
        }
        return null;
    }

    /** The future's value, waiting at most until {@code deadline}; Kafka's exceptions unwrapped. */
    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future, long deadline, String what) {
        long left = Math.max(0, deadline - System.nanoTime());
        try {
            return future.get(left, TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KafkaException k) {
                throw k;
            }
            throw new KafkaException(what + " failed: " + e.getCause(), e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException(what + ": no answer from the cluster in time", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException(what + ": interrupted", e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for topics", e);
        }
    }
}
