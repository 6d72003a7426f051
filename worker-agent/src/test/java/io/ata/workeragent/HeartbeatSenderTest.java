package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.ata.schemas.DeviceKind;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.testsupport.MockClients;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.junit.jupiter.api.Test;

class HeartbeatSenderTest {

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private final MockProducer<String, byte[]> producer = MockClients.producer();
    private final AtomicReference<ComputeDevice> device =
            new AtomicReference<>(new ComputeDevice(DeviceKind.CPU, "Some CPU @ 3 GHz", 16L << 30, 1));
    private final HeartbeatSender sender = new HeartbeatSender(
            producer,
            new AgentCodec(registry),
            Fixtures.TOPICS.workers(),
            "w1",
            "box",
            device::get,
            () -> List.of(3, 5),
            "ata.workers/ata.agent-node",
            Clock.fixed(Instant.ofEpochMilli(77), ZoneOffset.UTC));

    private WorkerHeartbeat lastSent() {
        byte[] value = producer.history().get(producer.history().size() - 1).value();
        return Fixtures.TOPICS.workers().valueSerde(registry).deserializer().deserialize("t", value);
    }

    @Test
    void everyHeartbeatCarriesTheDeviceAsItIsThen() {
        sender.sendAlive();
        WorkerHeartbeat cpu = lastSent();
        assertEquals(DeviceKind.CPU, cpu.getDevice());
        assertEquals("Some CPU @ 3 GHz", cpu.getDeviceName());
        assertEquals(16L << 30, cpu.getDeviceMemoryBytes());
        assertEquals(1, cpu.getThreads());
        assertEquals(List.of(3, 5), cpu.getPartitions());
        assertEquals("ata.workers/ata.agent-node", cpu.getTaskConsumer(), "the consumer it shares");
        assertEquals(77, cpu.getTimestampMs());

        device.set(new ComputeDevice(DeviceKind.GPU, "A GPU", 24L << 30, 4)); // DJL loaded meanwhile
        sender.sendLeaving();
        WorkerHeartbeat gpu = lastSent();
        assertEquals(WorkerStatus.LEAVING, gpu.getStatus());
        assertEquals(DeviceKind.GPU, gpu.getDevice());
        assertEquals("A GPU", gpu.getDeviceName());
        assertEquals(24L << 30, gpu.getDeviceMemoryBytes());
        assertEquals(4, gpu.getThreads());
    }
}
