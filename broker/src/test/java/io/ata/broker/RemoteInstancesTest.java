package io.ata.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Forwarding to a stand-in for another instance: hop guard sent, status, body and headers relayed. */
class RemoteInstancesTest {
    private final AtomicReference<String> forwardedBy = new AtomicReference<>();
    private final AtomicReference<String> requested = new AtomicReference<>();
    private HttpServer other;
    private HostInfo otherHost;

    @BeforeEach
    void start() throws IOException {
        other = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        other.createContext("/", exchange -> {
            try (exchange) {
                forwardedBy.set(exchange.getRequestHeaders().getFirst(BrokerHttpServer.FORWARDED_HEADER));
                requested.set(exchange.getRequestURI().toString());
                byte[] body = "{\"error\":\"rebalancing\"}".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set(BrokerHttpServer.INSTANCE_HEADER, "other:1");
                exchange.getResponseHeaders().set("Retry-After", "1");
                exchange.sendResponseHeaders(503, body.length);
                exchange.getResponseBody().write(body);
            }
        });
        other.start();
        otherHost = new HostInfo("127.0.0.1", other.getAddress().getPort());
    }

    @AfterEach
    void stop() {
        other.stop(0);
    }

    @Test
    void relaysStatusBodyAndInstanceAndSendsTheHopGuard() {
        RemoteInstances remote = new RemoteInstances("me:8088", Duration.ofSeconds(5));
        QueryReply reply = remote.get(otherHost, "/jobs/a%20b/stats").join();
        assertEquals(503, reply.status());
        assertEquals("{\"error\":\"rebalancing\"}", new String(reply.body(), StandardCharsets.UTF_8));
        assertEquals("other:1", reply.instance());
        assertTrue(reply.retry());
        assertEquals("me:8088", forwardedBy.get());
        assertEquals("/jobs/a%20b/stats", requested.get(), "the raw path goes through unchanged");
    }

    @Test
    void anUnreachableInstanceFailsTheFuture() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        RemoteInstances remote = new RemoteInstances("me:8088", Duration.ofSeconds(5));
        assertThrows(
                CompletionException.class,
                () -> remote.get(new HostInfo("127.0.0.1", closedPort), "/jobs?scope=local")
                        .join());
    }

    @Test
    void bracketsIpv6Literals() {
        assertEquals("[::1]:8088", RemoteInstances.address(new HostInfo("::1", 8088)));
        assertEquals("broker-1:8088", RemoteInstances.address(new HostInfo("broker-1", 8088)));
        assertFalse(RemoteInstances.address(new HostInfo("[::1]", 1)).startsWith("[["));
    }
}
