package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.ata.schemas.Topics;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/** The four clients' configurations: the user's properties, overridden where the agent's contract needs it. */
class AgentClientsTest {

    private static AgentConfig.Builder agent() {
        return AgentConfig.builder("kafka:9092").workerId("w7").groupId("fleet");
    }

    @Test
    void theUsersPropertiesReachEveryClientButCannotOverrideTheContract() {
        AgentConfig config = agent().clientProperty("security.protocol", "SASL_SSL")
                .clientProperty(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "elsewhere:9092")
                .clientProperty(CommonClientConfigs.CLIENT_ID_CONFIG, "mine")
                .clientProperty(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted")
                .clientProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, true)
                .clientProperty(ConsumerConfig.GROUP_ID_CONFIG, "other-group")
                .clientProperty(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "shared-id")
                .clientProperty(ProducerConfig.ACKS_CONFIG, "1")
                .build();
        Map<String, Map<String, Object>> clients = Map.of(
                "tasks", AgentClients.taskConsumer(config),
                "model", AgentClients.modelConsumer(config),
                "results", AgentClients.transactionalProducer(config),
                "heartbeats", AgentClients.heartbeatProducer(config));

        clients.forEach((role, c) -> {
            assertEquals("SASL_SSL", c.get("security.protocol"), role);
            assertEquals("kafka:9092", c.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG), role);
            assertEquals("ata-agent-w7-" + role, c.get(CommonClientConfigs.CLIENT_ID_CONFIG), role);
        });
        for (Map<String, Object> consumer : List.of(clients.get("tasks"), clients.get("model"))) {
            assertEquals("read_committed", consumer.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
            assertEquals(false, consumer.get(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG));
        }
        assertEquals("fleet", clients.get("tasks").get(ConsumerConfig.GROUP_ID_CONFIG));
        assertFalse(
                clients.get("model").containsKey(ConsumerConfig.GROUP_ID_CONFIG), "the model reader joins no group");
        assertEquals(
                "ata.agent-w7",
                clients.get("results").get(ProducerConfig.TRANSACTIONAL_ID_CONFIG),
                "the default prefix's agentTransactionalId, not the user's");
        assertFalse(
                clients.get("heartbeats").containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG),
                "heartbeats are not transactional");
        assertEquals("all", clients.get("results").get(ProducerConfig.ACKS_CONFIG));
        assertEquals("all", clients.get("heartbeats").get(ProducerConfig.ACKS_CONFIG));
        // the user's properties themselves are untouched
        assertEquals("read_uncommitted", config.clientProperties().get(ConsumerConfig.ISOLATION_LEVEL_CONFIG));
    }

    /** Agent w7 of a staging deployment must not fence agent w7 of production on the same cluster. */
    @Test
    void theTransactionalIdAndStaticMemberIdFollowTheTopicPrefix() {
        AgentConfig staging = agent().topicPrefix("stg.").build();
        assertEquals(
                "stg.agent-w7",
                AgentClients.transactionalProducer(staging).get(ProducerConfig.TRANSACTIONAL_ID_CONFIG));
        assertEquals("stg.agent-w7", AgentClients.taskConsumer(staging).get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals(new Topics("stg.").agentTransactionalId("w7"), AgentClients.transactionalId(staging));
        AgentConfig production = agent().topicPrefix("ata.").build();
        assertNotEquals(
                AgentClients.transactionalProducer(staging).get(ProducerConfig.TRANSACTIONAL_ID_CONFIG),
                AgentClients.transactionalProducer(production).get(ProducerConfig.TRANSACTIONAL_ID_CONFIG));
        assertEquals(
                "agent-w7", AgentClients.transactionalId(agent().topicPrefix("").build()), "an empty prefix too");
        // client ids are labels, not fenced by: they keep naming the worker only
        assertEquals(
                "ata-agent-w7-results",
                AgentClients.transactionalProducer(staging).get(CommonClientConfigs.CLIENT_ID_CONFIG));
    }

    @Test
    void theTaskConsumerPrefersTheCooperativeAssignorUnderTheClassicProtocolOnly() {
        assertEquals(
                CooperativeStickyAssignor.class.getName(),
                AgentClients.taskConsumer(agent().build()).get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG));
        assertEquals(
                RangeAssignor.class.getName(),
                AgentClients.taskConsumer(agent().clientProperty(
                                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                                        RangeAssignor.class.getName())
                                .build())
                        .get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG),
                "the user's choice stays");
        assertFalse(AgentClients.taskConsumer(agent().clientProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "CONSUMER")
                        .build())
                .containsKey(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG));
    }

    @Test
    void theTaskConsumerIsAStaticMemberWithAShortSessionAndTheUserMayChangeEither() {
        Map<String, Object> tasks = AgentClients.taskConsumer(agent().build());
        assertEquals("ata.agent-w7", tasks.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals(AgentClients.DEFAULT_SESSION_TIMEOUT_MS, tasks.get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(
                AgentClients.DEFAULT_TRANSACTION_TIMEOUT_MS,
                AgentClients.transactionalProducer(agent().build()).get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG));

        AgentConfig mine = agent().clientProperty(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "rack-3-slot-1")
                .clientProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000)
                .clientProperty(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 20_000)
                .build();
        assertEquals("rack-3-slot-1", AgentClients.taskConsumer(mine).get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
        assertEquals(30_000, AgentClients.taskConsumer(mine).get(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals(20_000, AgentClients.transactionalProducer(mine).get(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG));
        // the "consumer" protocol refuses a client-side session timeout: the cluster sets it
        Map<String, Object> kip848 =
                AgentClients.taskConsumer(agent().clientProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer")
                        .build());
        assertFalse(kip848.containsKey(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG));
        assertEquals("ata.agent-w7", kip848.get(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG));
    }

    @Test
    void propertiesFromAFileAreStringsAndBlankNamesAreRefused() {
        Properties file = new Properties();
        file.setProperty("sasl.mechanism", "PLAIN");
        AgentConfig config = agent().clientProperties(file).build();
        assertEquals("PLAIN", AgentClients.heartbeatProducer(config).get("sasl.mechanism"));
        assertThrows(IllegalArgumentException.class, () -> agent().clientProperty(" ", "x"));
        assertThrows(NullPointerException.class, () -> agent().clientProperty("sasl.mechanism", null));
    }
}
