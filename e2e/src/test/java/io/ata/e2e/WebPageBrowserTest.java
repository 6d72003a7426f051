package io.ata.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ata.broker.BrokerHttpServer;
import io.ata.broker.BrokerSettings;
import io.ata.local.LocalDeployment;
import io.ata.testsupport.EndToEnd;
import io.ata.trainer.RoundListener;
import io.ata.trainer.Trainer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The broker's live web page in a real browser: headless Chromium (Debian's {@code chromium} and
 * {@code chromium-driver}) driven by Selenium loads {@code /} from a broker that has just run a
 * small live job (embedded Kafka, real agents and trainer, the quadratic workload), and the numbers
 * it shows must be the JSON API's: the jobs list, every worker's row, every cell of the allocation
 * picture, the points of the time charts and the wasted total. The job has ended before the page is
 * read, so the API answers the same throughout. Saves a screenshot to {@code target/web-page.png}.
 * Skipped, saying why, where Chromium or its driver is not installed.
 */
@EndToEnd
class WebPageBrowserTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SCREENSHOT = Path.of("target", "web-page.png");
    private static final String JOB = "web-job";
    /** ATA with two hedge tasks a round: a lower bound per worker, and some wasted work to show. */
    private static final String POLICY = "ata-hedge:2";

    private static final int BATCH = 8;
    private static final long ROUNDS = 25;
    private static final Duration AWAIT = Duration.ofSeconds(60);

    private final ObjectMapper json = new ObjectMapper();
    private final HttpClient client =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private LocalDeployment local;
    private BrokerHttpServer server;
    private ChromeDriver browser;

    @AfterEach
    void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
        if (local != null) {
            local.close();
        }
    }

    @Test
    void thePageShowsWhatTheApiSays() throws Exception {
        assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium is not installed (" + CHROMIUM + ", " + CHROMEDRIVER
                        + "): apt-get install chromium chromium-driver to run the web page's browser test");

        BrokerSettings settings =
                BrokerSettings.defaults().withLiveness(Duration.ofSeconds(10), Duration.ofMillis(500));
        local = EmbeddedFleet.of("web.", 4)
                .settings(settings)
                .agentsOfMeanMs(3, 6, 12, 24) // four agents, each twice as slow as the one before
                .start();
        server = new BrokerHttpServer("127.0.0.1", 0).start(local.broker());
        Trainer trainer = local.startTrainer(JOB, POLICY, BATCH, ROUNDS, RoundListener.NONE);
        assertTrue(
                trainer.awaitRounds(ROUNDS, Duration.ofSeconds(120)), "the job did not finish: " + trainer.failure());
        await("the broker folds the last round")
                .atMost(AWAIT)
                .ignoreExceptions()
                .until(() ->
                        api("/jobs/" + JOB + "/stats").get("last_closed_round").asLong() == ROUNDS);

        browser = chromium();
        browser.get(server.url() + "/#job=" + JOB);
        await("the page shows the job's last round")
                .atMost(AWAIT)
                .ignoreExceptions()
                .until(() -> browser.findElement(By.id("job-round")).getText().equals(String.valueOf(ROUNDS)));

        JsonNode jobs = api("/jobs");
        JsonNode stats = api("/jobs/" + JOB + "/stats");
        JsonNode history = api("/jobs/" + JOB + "/history");
        JsonNode page = shown();
        assertJobsList(jobs, page);
        assertWorkerTable(stats, page);
        assertCharts(history, page);
        assertAllocationLegend(history, page);
        assertGaugesMatch(stats);

        Files.createDirectories(SCREENSHOT.getParent());
        Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOT, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(Files.size(SCREENSHOT) > 10_000, "the screenshot is nearly empty");
    }

    /** Chromium, headless, offline: the driver is named, so Selenium Manager never looks for one. */
    private static ChromeDriver chromium() {
        ChromeOptions options = new ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments(
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--disable-dev-shm-usage",
                        "--window-size=1300,1500");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    private JsonNode api(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = client.send(
                HttpRequest.newBuilder(URI.create(server.url() + path))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), path + ": " + r.body());
        return json.readTree(r.body());
    }

    /**
     * What the page shows, read in one script: the page redraws itself every 1.5 s, and a script
     * runs between two redraws, so every value comes from the same drawing.
     */
    private JsonNode shown() throws IOException {
        String script = """
                const fields = tr => Object.fromEntries([...tr.querySelectorAll("td[data-field]")]
                    .map(td => [td.dataset.field, td.textContent]));
                const rows = selector => [...document.querySelectorAll(selector)].map(fields);
                return JSON.stringify({
                  jobs: rows("#jobs tbody tr"),
                  workers: rows("#workers tbody tr"),
                  cells: [...document.querySelectorAll("#allocation rect.cell")]
                    .map(r => ({round: r.dataset.round, worker: r.dataset.worker, tasks: r.dataset.tasks,
                                fill: r.getAttribute("fill")})),
                  legend: [...document.querySelectorAll("#allocation-legend rect.swatch")]
                    .map(r => ({tasks: r.dataset.tasks, fill: r.getAttribute("fill")})),
                  timePoints: document.querySelectorAll("#times circle").length,
                  wastedPoints: document.querySelectorAll("#wasted circle").length,
                  wastedTotal: document.getElementById("wasted-total").textContent,
                });
                """;
        return json.readTree((String) browser.executeScript(script));
    }

    private void assertJobsList(JsonNode jobs, JsonNode page) {
        assertEquals(1, jobs.size(), jobs.toString());
        assertEquals(1, page.get("jobs").size(), page.toString());
        JsonNode row = page.get("jobs").get(0);
        for (String field : List.of("job", "policy", "batch", "workers", "last_opened_round", "last_closed_round")) {
            assertEquals(jobs.get(0).get(field).asText(), row.get(field).asText(), "jobs list, " + field);
        }
    }

    /** Every worker of the API has its row, with the same numbers (the page rounds times to 0.01 ms). */
    private void assertWorkerTable(JsonNode stats, JsonNode page) {
        JsonNode rows = page.get("workers");
        assertEquals(stats.get("workers").size(), rows.size(), "one row per worker: " + page);
        int withBound = 0;
        for (int i = 0; i < rows.size(); i++) {
            JsonNode w = stats.get("workers").get(i);
            JsonNode row = rows.get(i);
            String worker = w.get("worker").asText();
            assertEquals(worker, row.get("worker").asText());
            assertEquals(w.get("tasks").asText(), row.get("tasks").asText(), worker + " tasks");
            assertTrue(w.get("tasks").asLong() > 0, worker + " never ran a task: " + stats);
            assertEquals(
                    w.get("tasks_this_round").asText(),
                    row.get("tasks_this_round").asText(),
                    worker);
            assertShowsMs(w.get("mean_ms").asDouble(), row.get("mean_ms").asText(), worker + " mean");
            if (w.has("lower_bound_ms")) {
                assertShowsMs(
                        w.get("lower_bound_ms").asDouble(),
                        row.get("lower_bound_ms").asText(),
                        worker);
                withBound++;
            }
            assertTrue(row.get("status").asText().startsWith(w.get("status").asText()), worker + " status");
            assertTrue(row.get("device").asText().startsWith(w.get("device").asText()), worker + " device");
        }
        assertEquals(
                stats.get("workers").size(), withBound, POLICY + " keeps a lower bound for every worker: " + stats);
    }

    /** The broker's per-worker gauges (what Prometheus scrapes) say what the stats query says. */
    private void assertGaugesMatch(JsonNode stats) {
        for (JsonNode w : stats.get("workers")) {
            String worker = w.get("worker").asText();
            assertEquals(
                    w.get("mean_ms").asDouble() / 1e3,
                    local.meters()
                            .get("ata.broker.worker.task.time.mean")
                            .tags("training_job", JOB, "worker", worker)
                            .gauge()
                            .value(),
                    1e-9,
                    worker + " mean gauge");
            assertEquals(
                    w.get("tasks_this_round").asDouble(),
                    local.meters()
                            .get("ata.broker.worker.tasks.allocated")
                            .tags("training_job", JOB, "worker", worker)
                            .gauge()
                            .value(),
                    worker + " tasks gauge");
        }
    }

    /**
     * The allocation picture has a colour legend with a swatch for every task count from 0 to the
     * most any cell holds, each colour distinct, and every cell has its count's colour.
     */
    private void assertAllocationLegend(JsonNode history, JsonNode page) {
        int most = 0;
        for (JsonNode r : history.get("rounds")) {
            for (JsonNode n : r.get("tasks")) {
                most = Math.max(most, n.asInt());
            }
        }
        JsonNode legend = page.get("legend");
        assertEquals(most + 1, legend.size(), "a legend swatch for 0 to " + most + " tasks: " + legend);
        Map<String, String> fillOf = new HashMap<>();
        for (int n = 0; n <= most; n++) {
            JsonNode swatch = legend.get(n);
            assertEquals(String.valueOf(n), swatch.get("tasks").asText(), "legend in order: " + legend);
            assertNull(
                    fillOf.put(swatch.get("fill").asText(), swatch.get("tasks").asText()),
                    "two task counts share a colour: " + legend);
        }
        for (JsonNode cell : page.get("cells")) {
            assertEquals(
                    cell.get("tasks").asText(),
                    fillOf.get(cell.get("fill").asText()),
                    "the legend's count for the colour of " + cell);
        }
    }

    private static void assertShowsMs(double expected, String shown, String what) {
        assertEquals(expected, Double.parseDouble(shown), 0.005 + 1e-9, what + " shown as " + shown);
    }

    /**
     * The allocation picture has one cell per worker and round, each with the API's task count;
     * the charts a point per closed round; the wasted total is the API's sum.
     */
    private void assertCharts(JsonNode history, JsonNode page) {
        JsonNode rounds = history.get("rounds");
        JsonNode workers = history.get("workers");
        assertEquals(ROUNDS, rounds.size(), "the history keeps every round of this short job: " + history);
        JsonNode cells = page.get("cells");
        assertEquals(rounds.size() * workers.size(), cells.size(), "cells of the allocation picture");
        int c = 0;
        double wasted = 0;
        for (JsonNode r : rounds) {
            assertTrue(r.get("closed").asBoolean(), r.toString());
            int allocated = 0;
            for (int i = 0; i < workers.size(); i++) {
                JsonNode cell = cells.get(c++);
                assertEquals(r.get("round").asText(), cell.get("round").asText());
                assertEquals(workers.get(i).asText(), cell.get("worker").asText());
                assertEquals(r.get("tasks").get(i).asText(), cell.get("tasks").asText(), "round " + r);
                allocated += r.get("tasks").get(i).asInt();
            }
            assertTrue(allocated >= BATCH, "round " + r + " allocated fewer than B tasks");
            wasted += r.get("wasted_ms").asDouble();
        }
        assertEquals(2 * rounds.size(), page.get("timePoints").asInt(), "round time and busy time of every round");
        assertEquals(rounds.size(), page.get("wastedPoints").asInt(), "wasted work of every round");
        assertEquals(wasted, page.get("wastedTotal").asDouble(), 0.05 + 1e-9, "wasted total");
    }
}
