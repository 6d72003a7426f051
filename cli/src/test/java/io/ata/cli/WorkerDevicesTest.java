package io.ata.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.local.LocalDeployment;
import io.ata.schemas.Topics;
import io.ata.schemas.WorkerHeartbeat;
import io.ata.schemas.WorkerStatus;
import io.ata.testsupport.EndToEnd;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ata worker --device cpu,cpu}: one process, a worker per device, beside a deployment's
 * broker. The broker sees both workers alive on the partitions of one consumer, a job whose every
 * round gives each of them tasks trains to its end, and the process counts each worker's tasks.
 */
@EndToEnd
class WorkerDevicesTest {
    private static final String PREFIX = "devices.";
    private static final List<String> WORKERS = List.of("node-0", "node-1");

    private LocalDeployment local;
    private RunningCommand worker;

    @AfterEach
    void stop() throws InterruptedException {
        if (worker != null) {
            worker.stop();
        }
        if (local != null) {
            local.close();
        }
    }

    @Test
    void aWorkerPerDeviceOverOneConsumer() throws Exception {
        local = LocalDeployment.embedded(new Topics(PREFIX).withTaskPartitions(2), LocalDeployment.QUICK_LIVENESS);
        local.startBroker();
        worker = RunningCommand.against(
                local,
                PREFIX,
                "worker",
                "--worker-id",
                "node",
                "--device",
                "cpu,cpu",
                "--heartbeat-interval",
                "250ms",
                "--metrics-port",
                "0",
                "--log-level",
                "warn");
        String metrics = worker.awaitLine(worker.err, Pattern.compile("metrics: (\\S+)/metrics"));
        Awaitility.await("both workers alive on the same partitions of one named consumer")
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .failFast("ata worker stopped", () -> !worker.isRunning())
                .until(() -> {
                    Map<String, WorkerHeartbeat> seen = heartbeats();
                    return WORKERS.stream()
                            .allMatch(w -> seen.containsKey(w)
                                    && seen.get(w).getStatus() == WorkerStatus.ALIVE
                                    && seen.get(w).getPartitions().equals(List.of(0, 1))
                                    && seen.get(w)
                                            .getTaskConsumer()
                                            .equals(PREFIX + "workers/" + PREFIX + "agent-node"));
                });

        // uta: every round gives each worker B / 2 tasks
        local.trainToEnd(local.trainerConfig("two-devices", "uta", 4, 10).build(), Duration.ofSeconds(120));

        String exposition = scrape(metrics);
        for (String w : WORKERS) {
            double completed = OperationsEndpointsEndToEndTest.value(
                    exposition, "ata_agent_tasks_total", "worker=\"" + w + "\"", "outcome=\"completed\"");
            assertTrue(completed > 0, w + " ran tasks: " + exposition);
        }
    }

    private Map<String, WorkerHeartbeat> heartbeats() {
        Map<String, WorkerHeartbeat> all = new HashMap<>();
        try (KeyValueIterator<String, WorkerHeartbeat> it =
                local.broker().membership().all()) {
            it.forEachRemaining(kv -> all.put(kv.key, kv.value));
        }
        return all;
    }

    private static String scrape(String url) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(url + "/metrics"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return r.body();
    }
}
