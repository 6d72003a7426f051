package io.ata.local.security;

import io.ata.broker.BrokerApp;
import io.ata.schemas.TopicDef;
import io.ata.schemas.Topics;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The Kafka ACLs each part needs, and no more: the one table {@code docs/security.md} shows
 * (a test keeps the two equal) and that a secured deployment grants. Read from the code: the
 * topics each part reads and writes ({@link Topics}), the consumer groups, the transactional ids
 * (the trainer's {@code <prefix>trainer-<job>}, {@link Topics#trainerName(String)}, an agent's
 * {@code <prefix>agent-<worker>}, {@link Topics#agentTransactionalId(String)}, Kafka Streams'
 * {@code <application id>-<process>-<thread>} under exactly-once v2) and the Streams application
 * id's internal topics ({@code <application id>-...-changelog}, {@code -repartition}).
 *
 * <p>The topics themselves are created beforehand by an administrator ({@code ata broker
 * --create-topics} run once with admin rights, which creates the embedded registry's
 * {@code <prefix>schemas} topic too): no part needs CREATE on them.
 */
public final class RequiredAcls {
    /** The part a principal runs. */
    public enum Part {
        BROKER,
        TRAINER,
        AGENT
    }

    private static final Set<AclOperation> READ = EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE);
    private static final Set<AclOperation> WRITE = EnumSet.of(AclOperation.WRITE, AclOperation.DESCRIBE);
    private static final Set<AclOperation> WRITE_ALTER =
            EnumSet.of(AclOperation.WRITE, AclOperation.ALTER, AclOperation.DESCRIBE);
    private static final Set<AclOperation> READ_WRITE =
            EnumSet.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE);
    /** What Kafka Streams does to its internal topics: creates, reads, writes, describes, purges them. */
    private static final Set<AclOperation> STREAMS_INTERNAL = EnumSet.of(
            AclOperation.READ,
            AclOperation.WRITE,
            AclOperation.CREATE,
            AclOperation.DELETE,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS);

    private final Topics topics;
    private final String applicationId;
    private final String workerGroup;

    /**
     * The ACLs of a deployment on {@code topics} whose broker and agents keep their default
     * application id ({@link Topics#brokerApplicationId()}) and group ({@link Topics#workerGroup()}).
     */
    public RequiredAcls(Topics topics) {
        this(topics, topics.brokerApplicationId(), topics.workerGroup());
    }

    /**
     * @param topics        the deployment's topics (its prefix)
     * @param applicationId the broker's {@code --application-id}, by default {@code topics.brokerApplicationId()}
     * @param workerGroup   the agents' {@code --group-id}, by default {@code topics.workerGroup()}
     */
    public RequiredAcls(Topics topics, String applicationId, String workerGroup) {
        this.topics = topics;
        this.applicationId = applicationId;
        this.workerGroup = workerGroup;
    }

    /** The ACLs that {@code principal} (e.g. {@code User:ata-broker}) needs to run {@code part}. */
    public List<AclBinding> of(Part part, String principal) {
        List<AclBinding> acls = new ArrayList<>();
        switch (part) {
            case BROKER -> {
                topic(acls, principal, topics.workers(), READ);
                topic(acls, principal, topics.rounds(), READ);
                topic(acls, principal, topics.membership(), READ_WRITE);
                // ALTER: to grow the tasks topic when the fleet outgrows it (TaskPartitionGrowth)
                topic(acls, principal, topics.tasks(), WRITE_ALTER);
                topic(acls, principal, topics.allocations(), WRITE);
                topic(acls, principal, topics.deadLetters(), WRITE);
                // the embedded Schema Registry's log (when the broker serves it)
                add(acls, principal, ResourceType.TOPIC, PatternType.LITERAL, topics.schemas(), READ_WRITE);
                add(acls, principal, ResourceType.TOPIC, PatternType.PREFIXED, applicationId + "-", STREAMS_INTERNAL);
                group(acls, principal, PatternType.LITERAL, applicationId);
                // the group that dead-letters bad membership records (BrokerApp); its transactional id
                // starts with the application id too
                group(acls, principal, PatternType.LITERAL, BrokerApp.membershipAuditGroup(applicationId));
                transactionalIds(acls, principal, applicationId);
            }
            case TRAINER -> {
                topic(acls, principal, topics.rounds(), WRITE);
                topic(acls, principal, topics.gradients(), READ);
                // the watch of the open round (its job's assignments): who may deliver each task, overdue ones
                topic(acls, principal, topics.allocations(), READ);
                topic(acls, principal, topics.model(), READ_WRITE);
                topic(acls, principal, topics.optimizer(), READ_WRITE);
                topic(acls, principal, topics.evaluations(), READ_WRITE);
                topic(acls, principal, topics.deadLetters(), WRITE);
                // the trainer's group and transactional id, <prefix>trainer-<job>: one pattern covers
                // every job of this deployment, none of another prefix's
                group(acls, principal, PatternType.PREFIXED, topics.trainerNamePrefix());
                transactionalIds(acls, principal, topics.trainerNamePrefix());
            }
            case AGENT -> {
                topic(acls, principal, topics.tasks(), READ);
                topic(acls, principal, topics.model(), READ);
                topic(acls, principal, topics.gradients(), WRITE);
                topic(acls, principal, topics.timings(), WRITE);
                topic(acls, principal, topics.workers(), WRITE);
                topic(acls, principal, topics.deadLetters(), WRITE);
                group(acls, principal, PatternType.LITERAL, workerGroup);
                // <prefix>agent-<worker id>, every agent of this deployment's
                transactionalIds(acls, principal, topics.agentTransactionalIdPrefix());
            }
        }
        // Every part's producers are idempotent (transactional or not). Kafka 3.0+ implies this from
        // WRITE on a topic (KIP-679); granted explicitly so that the table holds for any broker.
        add(
                acls,
                principal,
                ResourceType.CLUSTER,
                PatternType.LITERAL,
                "kafka-cluster",
                Set.of(AclOperation.IDEMPOTENT_WRITE));
        return acls;
    }

    /**
     * The Markdown table of every part's ACLs (one row per resource pattern), as
     * {@code docs/security.md} shows it.
     */
    public String markdownTable() {
        StringBuilder out = new StringBuilder("| part | resource | pattern | name | operations |\n");
        out.append("|---|---|---|---|---|\n");
        for (Part part : Part.values()) {
            Map<ResourcePattern, List<String>> byResource = new LinkedHashMap<>();
            for (AclBinding b : of(part, "User:x")) {
                byResource
                        .computeIfAbsent(b.pattern(), p -> new ArrayList<>())
                        .add(b.entry().operation().name());
            }
            byResource.forEach((p, operations) -> out.append("| ")
                    .append(part.name().toLowerCase(Locale.ROOT))
                    .append(" | ")
                    .append(p.resourceType())
                    .append(" | ")
                    .append(p.patternType())
                    .append(" | `")
                    .append(p.name())
                    .append("` | ")
                    .append(String.join(", ", operations))
                    .append(" |\n"));
        }
        return out.toString();
    }

    private static void topic(List<AclBinding> acls, String principal, TopicDef<?> topic, Set<AclOperation> ops) {
        add(acls, principal, ResourceType.TOPIC, PatternType.LITERAL, topic.name(), ops);
    }

    /** READ on a consumer group: {@code name} itself, or every group it starts with. */
    private static void group(List<AclBinding> acls, String principal, PatternType pattern, String name) {
        add(acls, principal, ResourceType.GROUP, pattern, name, Set.of(AclOperation.READ));
    }

    /** WRITE (and DESCRIBE) on every transactional id that starts with {@code prefix}. */
    private static void transactionalIds(List<AclBinding> acls, String principal, String prefix) {
        add(acls, principal, ResourceType.TRANSACTIONAL_ID, PatternType.PREFIXED, prefix, WRITE);
    }

    private static void add(
            List<AclBinding> acls,
            String principal,
            ResourceType type,
            PatternType pattern,
            String name,
            Set<AclOperation> operations) {
        ResourcePattern resource = new ResourcePattern(type, name, pattern);
        for (AclOperation op : operations.stream().sorted().collect(Collectors.toList())) {
            acls.add(new AclBinding(resource, new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW)));
        }
    }
}
