package io.ata.bench.fleet;

import io.ata.schemas.DeadLetter;
import io.ata.schemas.DeviceKind;
import io.ata.schemas.TopicDef;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.schemas.decoding.DeadLetters;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The heartbeats of every virtual agent, as a real agent sends them ({@code WorkerHeartbeat}, key
 * its worker id, on the {@code workers} topic): ALIVE with the task partitions it announces, and
 * LEAVING with none when it leaves. One plain idempotent producer carries all of them; the broker
 * sees one heartbeat per worker id, as from that many processes. The same producer carries the
 * dead letters of the model topic, as a real agent's heartbeat producer does.
 */
final class FleetHeartbeats implements AutoCloseable {

    private final Producer<String, byte[]> producer;
    private final TopicDef<WorkerHeartbeat> topic;
    private final Serializer<WorkerHeartbeat> serializer;
    private final String host;
    private final AtomicLong failures = new AtomicLong();

    /**
     * @param clientConfig the cluster's client properties and bootstrap servers
     * @param topic the workers topic
     * @param serializer Avro in the registry's wire format
     * @param host the name written into each heartbeat
     */
    FleetHeartbeats(
            Map<String, Object> clientConfig,
            TopicDef<WorkerHeartbeat> topic,
            Serializer<WorkerHeartbeat> serializer,
            String host) {
        Map<String, Object> c = new java.util.HashMap<>(clientConfig);
        c.put("client.id", "ata-virtual-fleet-heartbeats");
        c.put("enable.idempotence", true);
        c.put("acks", "all");
        // thousands of workers a second: a few ms of batching, where each real agent's producer sends at once
        c.put("linger.ms", 5);
        c.remove("transactional.id");
        this.producer = new KafkaProducer<>(c, new StringSerializer(), new ByteArraySerializer());
        this.topic = topic;
        this.serializer = serializer;
        this.host = host;
    }

    /** Sends {@code agent}'s heartbeat: ALIVE with its partitions while present, else LEAVING with none. */
    void send(VirtualAgent agent) {
        boolean alive = agent.present;
        WorkerHeartbeat heartbeat = WorkerHeartbeat.newBuilder()
                .setWorkerId(agent.workerId)
                .setHost(host)
                .setDevice(DeviceKind.CPU)
                .setDeviceName("virtual")
                .setDeviceMemoryBytes(0)
                .setThreads(1)
                .setCapacity(1)
                .setPartitions(alive ? agent.partitions : List.of())
                .setTaskConsumer(agent.taskConsumer)
                .setStatus(alive ? WorkerStatus.ALIVE : WorkerStatus.LEAVING)
                .setTimestampMs(System.currentTimeMillis())
                .build();
        producer.send(
                new ProducerRecord<>(topic.name(), agent.workerId, serializer.serialize(topic.name(), heartbeat)),
                (metadata, error) -> {
                    if (error != null) {
                        failures.incrementAndGet();
                    }
                });
    }

    /** Sends a dead letter of the model topic: it has no offset to commit, so no transaction (as a real agent's). */
    void sendDeadLetter(TopicDef<DeadLetter> deadLetters, DeadLetter letter, Serializer<DeadLetter> letters) {
        producer.send(new ProducerRecord<>(
                deadLetters.name(), DeadLetters.keyOf(letter), letters.serialize(deadLetters.name(), letter)));
    }

    /** Heartbeats that were not sent. */
    long failures() {
        return failures.get();
    }

    @Override
    public void close() {
        producer.close(java.time.Duration.ofSeconds(5));
    }
}
