package io.ata.platform.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.http.JsonHttpServer;
import io.ata.platform.http.RawHttp;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The probes of the stand-alone operations server, a real server on a real port, against clients
 * that hold its connections: {@code /health} must answer while they do, or an orchestrator would
 * restart a healthy part.
 */
class OperationsEndpointsTest {
    /**
     * A liveness bound, generous against a busy machine: a probe's usual timeout is a second or
     * two, and the connections held below would keep it out for the 30 s idle timeout.
     */
    private static final Duration PROBE_ANSWERS_WITHIN = Duration.ofSeconds(5);

    private OperationsEndpoints.Server server;

    @BeforeEach
    void start() {
        server = new OperationsEndpoints(
                        accept -> new OperationsEndpoints.Exposition("text/plain", "up 1\n"),
                        () -> OperationsEndpoints.Probe.up("loop alive"),
                        () -> OperationsEndpoints.Probe.up("partitions assigned"))
                .serve("127.0.0.1", 0);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void healthAnswers() throws Exception {
        RawHttp.Answer health = RawHttp.requestWithin(PROBE_ANSWERS_WITHIN, server.port(), "GET", "/health");
        assertEquals(200, health.status(), health.text());
        assertTrue(health.text().contains("\"UP\""), health.text());
    }

    /**
     * Four clients trickle a body, and as many clients as the server takes connections send half a
     * request line and stall (should the server answer and close a trickling one, a stalled one
     * takes its place): the probe still gets in, as the crowded server closes the silent ones.
     */
    @Test
    void healthAnswersWhileTheConnectionCapIsHeld() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            held.addAll(RawHttp.slowBodies(server.port(), 4, "/health", 1000));
            try (RawHttp.Trickle trickle = RawHttp.trickle(List.copyOf(held), Duration.ofMillis(300))) {
                held.addAll(RawHttp.halfOpen(server.port(), JsonHttpServer.MAX_CONNECTIONS));
                RawHttp.Answer health = RawHttp.requestWithin(PROBE_ANSWERS_WITHIN, server.port(), "GET", "/health");
                assertEquals(200, health.status(), health.text());
                assertTrue(health.text().contains("\"UP\""), health.text());
            }
        } finally {
            RawHttp.closeAll(held);
        }
    }

    /** The cap held by idle keep-alive connections, each of which had its answer: the probe gets in too. */
    @Test
    void healthAnswersWhileIdleKeptAliveConnectionsFillTheCap() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < JsonHttpServer.MAX_CONNECTIONS; i++) {
                Socket s = new Socket("127.0.0.1", server.port());
                idle.add(s);
                s.getOutputStream().write("HEAD /ready HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes());
            }
            RawHttp.Answer health = RawHttp.requestWithin(PROBE_ANSWERS_WITHIN, server.port(), "GET", "/health");
            assertEquals(200, health.status(), health.text());
        } finally {
            RawHttp.closeAll(idle);
        }
    }
}
