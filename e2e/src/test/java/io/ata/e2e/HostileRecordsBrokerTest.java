package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.DeadLetter;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import io.ata.workloads.time.TaskTimeDistribution;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The records that once stopped the broker for good in a fuzz run, on a real cluster: garbage
 * on the internal membership topic (read by the global store thread, at start too) and a value of
 * nearly the broker's size limit on workers (whose dead letter was too large to write). The
 * membership's bad records are dead-lettered once each, even though every start reads them again,
 * each with the reason that names what is wrong with it.
 */
@EndToEnd
class HostileRecordsBrokerTest {
    private static final int HUGE = 1_048_405; // what Kafka accepts at its default message.max.bytes

    @RegisterExtension
    final EmbeddedFleet fleet = EmbeddedFleet.of("hostile.", 4)
            .agents(new TaskTimeDistribution.Shifted(2, new TaskTimeDistribution.Exponential(2)), "agent-1", "agent-2");

    @Test
    void garbageOnMembershipAndAHugeHeartbeatStopNothingEvenAcrossARestart(LocalDeployment local) throws Exception {
        Topics topics = local.topics();
        Trainer trainer = local.startTrainer("hostile", "ata-auto", 4, 12, RoundListener.NONE);
        assertTrue(trainer.awaitRounds(2, Duration.ofSeconds(90)), "rounds before the records");

        byte[] random = new byte[64];
        new Random(9).nextBytes(random);
        byte[] huge = new byte[HUGE];
        new Random(1).nextBytes(huge);
        WorkerHeartbeat forged = WorkerHeartbeat.newBuilder()
                .setWorkerId("ghost")
                .setPartitions(List.of(-1, 5000))
                .setTimestampMs(System.currentTimeMillis())
                .build();
        byte[] forgedBytes = topics.membership()
                .valueSerde(local.registry())
                .serializer()
                .serialize(topics.membership().name(), forged);
        Map<Long, String> reasons = new HashMap<>(); // by offset on the membership topic
        Properties props = new Properties();
        props.putAll(local.clientProperties());
        props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * HUGE);
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            String membership = topics.membership().name();
            long empty = producer.send(new ProducerRecord<>(membership, HostileBytes.utf8("ghost"), new byte[0]))
                    .get()
                    .offset();
            reasons.put(
                    empty,
                    HostileBytes.cannotDecode("membership heartbeat", HostileBytes.headerProblem(local, new byte[0])));
            long noise = producer.send(new ProducerRecord<>(membership, HostileBytes.utf8("ghost"), random))
                    .get()
                    .offset();
            reasons.put(
                    noise,
                    HostileBytes.cannotDecode("membership heartbeat", HostileBytes.headerProblem(local, random)));
            long ghost = producer.send(new ProducerRecord<>(membership, HostileBytes.utf8("ghost"), forgedBytes))
                    .get()
                    .offset();
            reasons.put(ghost, "heartbeat of ghost lists partition -1 of the tasks topic");
            producer.send(new ProducerRecord<>(topics.workers().name(), HostileBytes.utf8("agent-9"), huge))
                    .get();
        }

        assertTrue(trainer.awaitRounds(6, Duration.ofSeconds(90)), "rounds after the records");
        // the rounds may have passed 6 before the global thread read the records: wait for it
        awaitRefused(local, "refused while running");
        assertEquals(KafkaStreams.State.RUNNING, local.broker().state());

        // a restarted broker rebuilds its membership store from the topic, garbage included
        local.stopBroker();
        local.startBroker();
        awaitRefused(local, "skipped on restore too");
        assertTrue(trainer.awaitRounds(12, Duration.ofSeconds(90)), "the job finishes");
        assertEquals(KafkaStreams.State.RUNNING, local.broker().state());
        assertTrue(local.broker().membership().get("ghost") == null, "the forged member never entered");

        List<DeadLetter> fromWorkers = TopicContents.read(local, topics.deadLetters()).stream()
                .map(r -> r.value())
                .filter(l -> l.getSourceTopic().equals(topics.workers().name()))
                .toList();
        assertEquals(1, fromWorkers.size(), "one dead letter for the huge heartbeat");
        // the membership's three bad records: one letter each, not one more per restart
        List<DeadLetter> fromMembership = TopicContents.read(local, topics.deadLetters()).stream()
                .map(r -> r.value())
                .filter(l -> l.getSourceTopic().equals(topics.membership().name()))
                .toList();
        assertEquals(
                3,
                fromMembership.stream().map(DeadLetter::getOffset).distinct().count(),
                "a letter for each bad membership record: " + fromMembership);
        assertEquals(3, fromMembership.size(), "and only one each, across the restart: " + fromMembership);
        for (DeadLetter letter : fromMembership) {
            String reason = reasons.getOrDefault(letter.getOffset(), "(no record sent at " + letter.getOffset() + ")");
            assertTrue(letter.getReason().contains(reason), "'" + letter.getReason() + "' lacks '" + reason + "'");
        }
        assertTrue(fromWorkers.get(0).getTruncated());
        assertEquals(HUGE, fromWorkers.get(0).getValueSize());
        String hugeReason = HostileBytes.truncatedLetter(HostileBytes.utf8("agent-9"), huge)
                + HostileBytes.cannotDecode("heartbeat", HostileBytes.headerProblem(local, huge));
        assertTrue(
                fromWorkers.get(0).getReason().contains(hugeReason),
                "'" + fromWorkers.get(0).getReason() + "' lacks '" + hugeReason + "'");
    }

    /** Waits until the running broker has refused the three bad membership records, no more. */
    private static void awaitRefused(LocalDeployment local, String what) {
        await(what)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> local.broker().metrics().snapshot().get("membership-refused"), n -> n != null && n >= 3);
        assertEquals(3L, local.broker().metrics().snapshot().get("membership-refused"), what);
    }
}
