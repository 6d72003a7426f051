package io.ata.workeragent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.ml.data.SyntheticDataset;
import io.ata.ml.djl.DeviceChoice;
import io.ata.schemas.TensorEncoding;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AgentConfigTest {

    @Test
    void networksDefaultToAnyDeviceOneThreadAndExactGradients() {
        AgentConfig config = AgentConfig.builder("k:9092").workerId("w").build();

        assertEquals(DeviceChoice.AUTO, config.device());
        assertEquals(1, config.threads());
        assertEquals(TensorEncoding.FLOAT32_LE, config.gradientEncoding());
        assertTrue(config.data().isEmpty());
        assertTrue(config.workload().isEmpty(), "the agent's own workload");
        assertTrue(
                config.toString().contains("networks on auto with 1 thread(s), FLOAT32_LE gradients"),
                config.toString());
    }

    @Test
    void theGroupDefaultsToThePrefixsAgentsGroup() {
        assertEquals("ata.workers", AgentConfig.builder("k:9092").build().groupId());
        assertEquals(
                "x.workers",
                AgentConfig.builder("k:9092").topicPrefix("x.").build().groupId());
        // the prefix decides at build, whatever the order of the calls
        AgentConfig.Builder b = AgentConfig.builder("k:9092");
        b.build();
        assertEquals("y.workers", b.topicPrefix("y.").build().groupId());
        assertEquals(
                "fleet",
                AgentConfig.builder("k:9092")
                        .groupId("fleet")
                        .topicPrefix("x.")
                        .build()
                        .groupId(),
                "a configured group wins");
    }

    @Test
    void takesTheNetworkSettings() {
        AgentConfig config = AgentConfig.builder("k:9092")
                .device(DeviceChoice.parse("gpu:1"))
                .threads(6)
                .gradientEncoding(TensorEncoding.BFLOAT16_LE)
                .data(SyntheticDataset.of("tiny", 1, 0, 10))
                .build();

        assertEquals(DeviceChoice.parse("gpu:1"), config.device());
        assertEquals(6, config.threads());
        assertEquals(TensorEncoding.BFLOAT16_LE, config.gradientEncoding());
        assertEquals("tiny", config.data().orElseThrow().name());
        assertTrue(config.toString().contains("networks on gpu:1 with 6 thread(s), BFLOAT16_LE gradients, data tiny"));
    }

    @Test
    void refusesNoThreadsAndFloat64Gradients() {
        AgentConfig.Builder builder = AgentConfig.builder("k:9092");
        assertEquals(
                "threads must be at least 1, was 0",
                assertThrows(IllegalArgumentException.class, () -> builder.threads(0))
                        .getMessage());
        assertTrue(
                assertThrows(IllegalArgumentException.class, () -> builder.gradientEncoding(TensorEncoding.FLOAT64_LE))
                        .getMessage()
                        .contains("is not one of FLOAT32_LE, FLOAT16_LE, BFLOAT16_LE"));
    }

    @Test
    void theModelRetentionIsADayAndNoShorterThanTheStalledJobWait() {
        assertEquals(Duration.ofDays(1), AgentConfig.builder("k:9092").build().modelRetention());
        AgentConfig.Builder builder = AgentConfig.builder("k:9092").stalledJobWait(Duration.ofMinutes(10));
        assertEquals(
                "the model retention (PT5M) must be at least the stalled-job wait (PT10M)",
                assertThrows(
                                IllegalArgumentException.class,
                                () -> builder.modelRetention(Duration.ofMinutes(5))
                                        .build())
                        .getMessage());
        assertEquals(
                Duration.ofMinutes(10),
                builder.modelRetention(Duration.ofMinutes(10)).build().modelRetention());
    }
}
