package io.ata.platform.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.ata.schemas.TaskAssignment;
import io.ata.schemas.TaskTiming;
import io.ata.schemas.registry.CompatibilityLevel;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RestSchemaRegistryClient;
import io.ata.schemas.registry.SchemaNotFoundException;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.registry.SchemaVersion;
import io.ata.schemas.registry.ThingSchemas;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The REST client against the embedded registry's HTTP endpoint: both sides of the protocol. */
class RestSchemaRegistryClientTest {

    private static final Schema TIMING = TaskTiming.getClassSchema();
    private static final Schema TASKS = TaskAssignment.getClassSchema();

    private final EmbeddedSchemaRegistry registry = new EmbeddedSchemaRegistry();
    private SchemaRegistryServer server;
    private RestSchemaRegistryClient client;

    @BeforeEach
    void start() {
        server = SchemaRegistryServer.start(registry);
        client = RestSchemaRegistryClient.builder(server.url() + "/").build();
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
    }

    @Test
    void registerGetByIdAndLatest() {
        int id = client.register("ata.timings-value", TIMING);
        assertEquals(1, id);
        assertEquals(1, registry.latest("ata.timings-value").id(), "really registered on the server");
        assertEquals(2, client.register("ata.tasks-value", TASKS));

        RestSchemaRegistryClient fresh =
                RestSchemaRegistryClient.builder(server.url()).build();
        assertEquals(TIMING, fresh.getById(id));
        assertEquals(new SchemaVersion("ata.timings-value", 1, id, TIMING), fresh.latest("ata.timings-value"));
    }

    @Test
    void reRegisteringGivesTheSameIdAndNoNewVersion() {
        int id = client.register("ata.timings-value", TIMING);
        RestSchemaRegistryClient other =
                RestSchemaRegistryClient.builder(server.url()).build();
        assertEquals(id, other.register("ata.timings-value", TIMING));
        assertEquals(id, other.register("copy.timings-value", TIMING), "global id reused");
        assertEquals(1, registry.latest("ata.timings-value").version());
    }

    @Test
    void lookupFindsRegisteredSchemasOnly() {
        int id = client.register("ata.timings-value", TIMING);
        SchemaVersion found = client.lookup("ata.timings-value", TIMING).orElseThrow();
        assertEquals(new SchemaVersion("ata.timings-value", 1, id, TIMING), found);
        assertTrue(client.lookup("ata.timings-value", TASKS).isEmpty());
        assertTrue(client.lookup("never-value", TIMING).isEmpty());
    }

    @Test
    void unknownSubjectIsANotFoundErrorWithTheRegistrysMessage() {
        SchemaNotFoundException error =
                assertThrows(SchemaNotFoundException.class, () -> client.latest("ata.nope-value"));
        assertEquals(404, error.httpStatus());
        assertEquals(40401, error.errorCode());
        assertEquals(
                "Schema Registry error: GET " + server.url()
                        + "/subjects/ata.nope-value/versions/latest -> HTTP 404 (error_code 40401): "
                        + "Subject 'ata.nope-value' not found.",
                error.getMessage());
    }

    @Test
    void unknownIdIsANotFoundError() {
        SchemaNotFoundException error = assertThrows(SchemaNotFoundException.class, () -> client.getById(42));
        assertEquals(40403, error.errorCode());
        assertTrue(error.getMessage().contains("Schema 42 not found"), error.getMessage());
    }

    @Test
    void idsStayCachedWhenTheRegistryGoesAway() {
        int id = client.register("ata.timings-value", TIMING);
        server.close();
        assertEquals(TIMING, client.getById(id));
        assertEquals(id, client.register("ata.timings-value", TIMING));
    }

    @Test
    void unreachableRegistryIsAClearError() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            closedPort = socket.getLocalPort();
        }
        RestSchemaRegistryClient nowhere = RestSchemaRegistryClient.builder("http://127.0.0.1:" + closedPort)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
        SchemaRegistryException error = assertThrows(SchemaRegistryException.class, () -> nowhere.getById(1));
        assertTrue(
                error.getMessage()
                        .startsWith(
                                "Schema Registry unreachable: GET http://127.0.0.1:" + closedPort + "/schemas/ids/1"),
                error.getMessage());
        assertEquals(SchemaRegistryException.NONE, error.httpStatus());
    }

    @Test
    void sendsBasicAuthAndReportsNonRegistryErrors() throws IOException {
        AtomicReference<String> authorization = new AtomicReference<>();
        HttpServer fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        fake.createContext("/", exchange -> {
            authorization.set(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = "<html>Unauthorized</html>".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        fake.start();
        try {
            RestSchemaRegistryClient secured = RestSchemaRegistryClient.builder(
                            "http://127.0.0.1:" + fake.getAddress().getPort())
                    .basicAuth("alice:s3cret")
                    .build();
            SchemaRegistryException error =
                    assertThrows(SchemaRegistryException.class, () -> secured.latest("x-value"));
            assertEquals("Basic YWxpY2U6czNjcmV0", authorization.get()); // base64("alice:s3cret")
            assertEquals(401, error.httpStatus());
            assertTrue(error.getMessage().contains("HTTP 401: <html>Unauthorized</html>"), error.getMessage());
            assertTrue(error.getMessage().contains("basic.auth.user.info"), error.getMessage());
        } finally {
            fake.stop(0);
        }
    }

    @Test
    void invalidUrlsAreRejectedEarly() {
        assertThrows(IllegalArgumentException.class, () -> RestSchemaRegistryClient.builder("localhost:8081"));
        assertThrows(
                IllegalArgumentException.class, () -> RestSchemaRegistryClient.builder("http://a:8081,http://b:8081"));
        IllegalArgumentException withPassword = assertThrows(
                IllegalArgumentException.class, () -> RestSchemaRegistryClient.builder("http://u:pw@host:8081"));
        assertTrue(!withPassword.getMessage().contains("pw"), "does not echo credentials");
        assertThrows(
                IllegalArgumentException.class,
                () -> RestSchemaRegistryClient.builder("http://h:1").basicAuth("no-colon"));
    }

    /** Other tools read topics through these two listings. */
    @Test
    void embeddedServerListsSubjectsAndVersions() throws Exception {
        client.register("ata.timings-value", TIMING);
        client.register("ata.tasks-value", TASKS);
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree("[\"ata.tasks-value\",\"ata.timings-value\"]"), get(json, "/subjects"));
        assertEquals(json.readTree("[1]"), get(json, "/subjects/ata.tasks-value/versions"));
        JsonNode first = get(json, "/subjects/ata.tasks-value/versions/1");
        assertEquals(2, first.get("id").asInt());
        assertEquals(TASKS.toString(), first.get("schema").asText());
    }

    @Test
    void compatibilityAskedBeforeRegistering() {
        client.register("things-value", ThingSchemas.V1);
        assertEquals(CompatibilityLevel.BACKWARD, client.compatibility());
        assertTrue(client.isCompatible("things-value", ThingSchemas.WITH_DEFAULT));
        assertFalse(client.isCompatible("things-value", ThingSchemas.NO_DEFAULT));
        registry.setCompatibility(CompatibilityLevel.FORWARD);
        assertEquals(CompatibilityLevel.FORWARD, client.compatibility(), "never cached");
        assertTrue(client.isCompatible("things-value", ThingSchemas.NO_DEFAULT));
        assertEquals(List.of(1), registry.versions("things-value"), "asking registers nothing");
        assertEquals(
                40401,
                assertThrows(SchemaNotFoundException.class, () -> client.isCompatible("nope-value", ThingSchemas.V1))
                        .errorCode());
    }

    @Test
    void embeddedServerRejectsAnInvalidSchema() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + "/subjects/x-value/versions"))
                                .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"schema\": \"{\\\"type\\\": \\\"nope\\\"}\"}"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(422, response.statusCode());
        assertEquals(
                42201,
                new ObjectMapper().readTree(response.body()).get("error_code").asInt());
    }

    private JsonNode get(ObjectMapper json, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(server.url() + path))
                                .GET()
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        assertEquals(
                "application/vnd.schemaregistry.v1+json",
                response.headers().firstValue("Content-Type").orElse(""));
        return json.readTree(response.body());
    }
}
