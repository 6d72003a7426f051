package io.ata.workeragent;

import io.ata.schemas.TopicDef;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the broker that this agent is alive and which task partitions it owns
 * ({@link WorkerHeartbeat}, key worker id, on the compacted {@code workers} topic): periodically,
 * on every rebalance, and once more with status LEAVING on a clean shutdown. The broker allocates
 * only to workers whose last heartbeat is recent, ALIVE, and lists a partition.
 *
 * <p>Heartbeats go through a plain (non-transactional) producer, so they flow while a task runs
 * and are never held back by a task's transaction. Sending is serialized, so heartbeats leave in
 * the order their partition lists were taken.
 *
 * <p>Each heartbeat says what computes the agent's tasks ({@link ComputeDevice}: kind, name,
 * memory, threads), as it is at that moment: the CPU thread of the quadratic problem until the
 * first neural network loads DJL, then DJL's device and PyTorch's threads.
 */
final class HeartbeatSender implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatSender.class);

    private final Producer<String, byte[]> producer;
    private final AgentCodec codec;
    private final TopicDef<WorkerHeartbeat> topic;
    private final String workerId;
    private final String host;
    private final Supplier<ComputeDevice> device;
    private final Supplier<List<Integer>> partitions;
    private final String taskConsumer;
    private final Clock clock;

    private volatile ScheduledExecutorService scheduler;
    private volatile boolean silenced;

    /**
     * @param producer a non-transactional producer
     * @param codec Avro encoding
     * @param topic the workers topic
     * @param workerId this agent's id (also the record key)
     * @param host this machine's name, informational
     * @param device what computes this agent's tasks now (asked for every heartbeat, from any thread)
     * @param partitions the currently owned task partitions
     * @param taskConsumer the name of the consumer that reads them, unique across groups, when
     *     several workers share it ({@link MultiDeviceAgent}); empty for a consumer of the worker's own
     * @param clock wall clock for the heartbeat's timestamp
     */
    HeartbeatSender(
            Producer<String, byte[]> producer,
            AgentCodec codec,
            TopicDef<WorkerHeartbeat> topic,
            String workerId,
            String host,
            Supplier<ComputeDevice> device,
            Supplier<List<Integer>> partitions,
            String taskConsumer,
            Clock clock) {
        this.producer = Objects.requireNonNull(producer, "producer");
        this.codec = Objects.requireNonNull(codec, "codec");
        this.topic = Objects.requireNonNull(topic, "topic");
        this.workerId = Objects.requireNonNull(workerId, "workerId");
        this.host = Objects.requireNonNull(host, "host");
        this.device = Objects.requireNonNull(device, "device");
        this.partitions = Objects.requireNonNull(partitions, "partitions");
        this.taskConsumer = Objects.requireNonNull(taskConsumer, "taskConsumer");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** Sends an ALIVE heartbeat now and then every {@code interval}, on a daemon thread. */
    synchronized void start(Duration interval) {
        if (scheduler != null || silenced) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "ata-heartbeat-" + workerId);
            t.setDaemon(true);
            return t;
        });
        long ms = interval.toMillis();
        scheduler.scheduleAtFixedRate(this::sendAliveQuietly, 0, ms, TimeUnit.MILLISECONDS);
        if (silenced) { // silence() ran meanwhile, before it could see the scheduler
            scheduler.shutdownNow();
        }
    }

    /** Sends an ALIVE heartbeat with the current partitions, unless silenced. */
    synchronized void sendAlive() {
        if (!silenced) {
            send(WorkerStatus.ALIVE);
        }
    }

    /**
     * Stops every heartbeat, without a goodbye (a crash, or another agent now has our id). Takes
     * no lock, so it is immediate even while a send is blocked.
     */
    void silence() {
        silenced = true;
        ScheduledExecutorService running = scheduler;
        if (running != null) {
            running.shutdownNow();
        }
    }

    /** Stops the periodic heartbeats and sends a last one, LEAVING with no partitions, and waits until it is sent. */
    synchronized void sendLeaving() {
        silence();
        send(WorkerStatus.LEAVING);
        producer.flush();
    }

    @Override
    public void close() {
        silence();
    }

    /** The heartbeat this agent would send now with {@code status}. */
    WorkerHeartbeat heartbeat(WorkerStatus status) {
        ComputeDevice computing = device.get();
        return WorkerHeartbeat.newBuilder()
                .setWorkerId(workerId)
                .setHost(host)
                .setDevice(computing.kind())
                .setDeviceName(computing.name())
                .setDeviceMemoryBytes(computing.memoryBytes())
                .setThreads(computing.threads())
                .setCapacity(1)
                .setPartitions(status == WorkerStatus.ALIVE ? partitions.get() : List.of())
                .setTaskConsumer(taskConsumer)
                .setStatus(status)
                .setTimestampMs(clock.millis())
                .build();
    }

    private void send(WorkerStatus status) {
        WorkerHeartbeat heartbeat = heartbeat(status);
        producer.send(
                new ProducerRecord<>(topic.name(), workerId, codec.encode(topic, heartbeat)), (metadata, error) -> {
                    if (error != null) {
                        log.warn("heartbeat {} not sent: {}", status, error.toString());
                    }
                });
    }

    private void sendAliveQuietly() {
        try {
            sendAlive();
        } catch (RuntimeException e) {
            log.warn("heartbeat failed: {}", e.toString());
        }
    }
}
