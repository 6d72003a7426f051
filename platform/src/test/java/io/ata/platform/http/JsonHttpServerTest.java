package io.ata.platform.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shared server's limits, tried with a hostile client on raw sockets: stalled connections,
 * a 100 KB URL, HEAD, malformed requests and a failing handler, each answered in JSON.
 */
class JsonHttpServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Two request threads; many more half-open connections than that. */
    private static final int THREADS = 2;
    /** A generous bound on an answer that must not wait for slow clients (they would hold it 30 s). */
    private static final Duration LIVELY = Duration.ofSeconds(5);

    private JsonHttpServer server;

    @BeforeEach
    void start() {
        server = JsonHttpServer.bind(
                        "test-http",
                        new InetSocketAddress("127.0.0.1", 0),
                        THREADS,
                        ErrorFormat.ERROR_FIELD,
                        this::handle)
                .start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /**
     * {@code /ok}: a JSON answer; {@code /echo}: the length of the request body; {@code /boom}: the
     * handler fails; else 404 that repeats the path, bounded.
     */
    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        if (path.equals("/boom")) {
            throw new IllegalStateException("the handler failed");
        }
        boolean ok = path.equals("/ok") || path.equals("/echo");
        byte[] body = (path.equals("/echo")
                        ? "{\"bytes\":" + exchange.getRequestBody().readAllBytes().length + "}"
                        : ok
                                ? "{\"method\":\"" + exchange.getRequestMethod() + "\"}"
                                : "{\"error\":\"not found: " + Echo.bounded(path) + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(ok ? 200 : 404, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Test
    void halfOpenConnectionsDoNotHoldUpOtherRequests() throws Exception {
        List<Socket> stalled = RawHttp.halfOpen(server.port(), 8 * THREADS + 16);
        try {
            RawHttp.Answer answer = RawHttp.request(server.port(), "GET", "/ok");
            assertEquals(200, answer.status(), answer.text());
            RawHttp.assertAllStillOpen(stalled); // answered while they all still wait
        } finally {
            RawHttp.closeAll(stalled);
        }
    }

    /** Bodies that stall after a byte are read without a thread: a normal request is answered meanwhile. */
    @Test
    void stalledBodiesHoldNoThread() throws Exception {
        List<Socket> stalled = RawHttp.slowBodies(server.port(), 4 * THREADS, "/echo", 100);
        try {
            RawHttp.Answer answer = RawHttp.requestWithin(LIVELY, server.port(), "GET", "/ok");
            assertEquals(200, answer.status(), answer.text());
            RawHttp.assertAllStillOpen(stalled); // still waited for, not cut off
        } finally {
            RawHttp.closeAll(stalled);
        }
    }

    /** A body that trickles in is cut off (408, or the connection closed) long before it is whole. */
    @Test
    void aTricklingBodyIsCutOff() throws Exception {
        List<Socket> slow = RawHttp.slowBodies(server.port(), 4 * THREADS, "/echo", 100);
        try (RawHttp.Trickle trickle = RawHttp.trickle(slow, Duration.ofMillis(300))) {
            assertEquals(200, RawHttp.request(server.port(), "GET", "/ok").status());
            for (Socket s : slow) {
                // whole, the body would take 30 s
                RawHttp.Answer answer = RawHttp.answerOrClose(s, Duration.ofSeconds(10));
                assertTrue(answer.status() == 408 || answer.status() == 0, answer.status() + " " + answer.text());
                if (answer.status() == 408) {
                    assertTrue(assertJsonError(answer).path("error").asText().contains("slower than"), answer.text());
                }
            }
        } finally {
            RawHttp.closeAll(slow);
        }
    }

    @Test
    void aBodyThatArrivesWholeIsRead() throws Exception {
        String body = "x".repeat(100_000);
        RawHttp.Answer answer = RawHttp.post(server.port(), "/echo", body);
        assertEquals(200, answer.status(), answer.text());
        assertEquals("{\"bytes\":100000}", answer.text());
    }

    @Test
    void aBodyOverTheLimitIs413InJson() throws Exception {
        int over = JsonHttpServer.MAX_REQUEST_BODY_BYTES + 1;
        RawHttp.Answer announced = RawHttp.request(server.port(), "POST", "/echo", "Content-Length: " + over);
        assertEquals(413, announced.status(), announced.text());
        assertJsonError(announced);

        String chunk = "x".repeat(64 * 1024);
        StringBuilder chunked = new StringBuilder(
                "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
        for (int sent = 0; sent < over; sent += chunk.length()) {
            chunked.append(Integer.toHexString(chunk.length()))
                    .append("\r\n")
                    .append(chunk)
                    .append("\r\n");
        }
        chunked.append("0\r\n\r\n");
        RawHttp.Answer unannounced =
                RawHttp.send(server.port(), chunked.toString().getBytes(StandardCharsets.US_ASCII));
        assertEquals(413, unannounced.status(), unannounced.text());
        assertJsonError(unannounced);
    }

    /**
     * A request head sent a byte at a time, each byte well within the idle timeout, is closed at
     * the head's deadline (1 s here); so is a kept-alive connection left unused for as long.
     */
    @Test
    void aRequestHeadMustArriveWithinItsDeadline() throws Exception {
        try (JsonHttpServer strict = JsonHttpServer.bind(
                                "test-http-strict",
                                new InetSocketAddress("127.0.0.1", 0),
                                THREADS,
                                ErrorFormat.ERROR_FIELD,
                                this::handle,
                                Duration.ofSeconds(1))
                        .start();
                Socket slowHead = new Socket("127.0.0.1", strict.port());
                Socket keptAlive = new Socket("127.0.0.1", strict.port())) {
            slowHead.getOutputStream()
                    .write("GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".getBytes(StandardCharsets.US_ASCII));
            keptAlive
                    .getOutputStream()
                    .write("GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            keptAlive.setSoTimeout((int) LIVELY.toMillis());
            assertEquals(200, RawHttp.read(keptAlive.getInputStream(), "GET").status());
            try (RawHttp.Trickle trickle = RawHttp.trickle(List.of(slowHead), Duration.ofMillis(200))) {
                assertEquals(0, RawHttp.answerOrClose(slowHead, LIVELY).status(), "closed without an answer");
            }
            assertEquals(-1, keptAlive.getInputStream().read(), "closed after its answer, unused");
            assertEquals(200, RawHttp.request(strict.port(), "GET", "/ok").status(), "a prompt head is answered");
        }
    }

    /** The handler closes the answer and the server closes it again: the connection serves the next request. */
    @Test
    void aKeptAliveConnectionServesOneRequestAfterAnother() throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout((int) RawHttp.ANSWER_WITHIN.toMillis());
            for (String method : List.of("GET", "HEAD", "GET")) {
                s.getOutputStream()
                        .write((method + " /ok HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                .getBytes(StandardCharsets.US_ASCII));
                RawHttp.Answer answer = RawHttp.read(s.getInputStream(), method);
                assertEquals(200, answer.status(), method);
                assertEquals(method.equals("HEAD") ? "" : "{\"method\":\"GET\"}", answer.text());
            }
        }
    }

    @Test
    void aHugeUrlIs414InJsonWithoutTheUrl() throws Exception {
        RawHttp.Answer answer = RawHttp.request(server.port(), "GET", "/" + "x".repeat(100_000));
        assertEquals(414, answer.status());
        JsonNode body = assertJsonError(answer);
        assertFalse(body.toString().contains("xxxxxxxxxx"), body.toString());
    }

    @Test
    void aLongPathUnderTheLimitIsEchoedOnlyInPart() throws Exception {
        RawHttp.Answer answer = RawHttp.request(server.port(), "GET", "/" + "y".repeat(5_000));
        assertEquals(404, answer.status());
        assertTrue(answer.text().length() < 2 * Echo.MAX_CHARS, answer.text());
    }

    @Test
    void headersOverTheLimitAre431InJson() throws Exception {
        RawHttp.Answer answer = RawHttp.request(server.port(), "GET", "/ok", "X-Junk: " + "j".repeat(20_000));
        assertEquals(431, answer.status());
        assertFalse(assertJsonError(answer).toString().contains("jjjjjjjjjj"));
    }

    @Test
    void headIsAnsweredAsGetWithoutTheBody() throws Exception {
        RawHttp.Answer get = RawHttp.request(server.port(), "GET", "/ok");
        RawHttp.Answer head = RawHttp.request(server.port(), "HEAD", "/ok");
        assertEquals(200, head.status());
        assertEquals("{\"method\":\"GET\"}", get.text());
        assertEquals(Integer.toString(get.body().length), head.headers().get("content-length"));
        assertEquals("application/json", head.headers().get("content-type"));
        assertEquals(0, head.body().length, "no body");
    }

    @Test
    void aMalformedEscapeIs400InJson() throws Exception {
        for (String target : List.of("/%zz", "/ok%", "/jobs/%E0%A4%A/stats")) {
            RawHttp.Answer answer = RawHttp.request(server.port(), "GET", target);
            assertEquals(400, answer.status(), target + ": " + answer.text());
            assertJsonError(answer);
        }
    }

    @Test
    void aGarbledRequestLineIs400InJson() throws Exception {
        RawHttp.Answer answer = RawHttp.send(
                server.port(), "\u0001\u0002 not http at all\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(400, answer.status(), answer.text());
        assertJsonError(answer);
    }

    @Test
    void aFailingHandlerIs500InJsonAndTheServerGoesOn() throws Exception {
        RawHttp.Answer answer = RawHttp.request(server.port(), "GET", "/boom");
        assertEquals(500, answer.status());
        assertJsonError(answer);
        assertEquals(200, RawHttp.request(server.port(), "GET", "/ok").status());
    }

    /** The body is {"error": "..."} as application/json; returns it. */
    static JsonNode assertJsonError(RawHttp.Answer answer) throws IOException {
        assertTrue(
                answer.headers().getOrDefault("content-type", "").startsWith("application/json"),
                "JSON: " + answer.headers());
        JsonNode body = JSON.readTree(answer.body());
        assertTrue(body.path("error").isTextual(), body.toString());
        assertTrue(body.toString().length() < 2 * Echo.MAX_CHARS, body.toString());
        return body;
    }
}
