package io.ata.platform.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ata.platform.http.RawHttp;
import io.ata.schemas.registry.CompatibilityLevel;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RegistryProtocol;
import io.ata.schemas.registry.ThingSchemas;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded registry's HTTP API as Confluent's clients see it: config and compatibility
 * endpoints, and a JSON error body with Confluent's {@code error_code} for every error.
 */
class RegistryHttpApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Schema V1 = ThingSchemas.V1;
    private static final Schema NO_DEFAULT = ThingSchemas.NO_DEFAULT;
    private static final Schema WITH_DEFAULT = ThingSchemas.WITH_DEFAULT;

    private final HttpClient http = HttpClient.newHttpClient();
    private EmbeddedSchemaRegistry registry;
    private SchemaRegistryServer server;

    /** An answer: status and JSON body. */
    private record Answer(int status, JsonNode body) {}

    @BeforeEach
    void start() {
        registry = new EmbeddedSchemaRegistry();
        server = SchemaRegistryServer.start(registry);
        registry.register("things-value", V1);
    }

    @AfterEach
    void stop() {
        server.close();
        registry.close();
    }

    private Answer send(String method, String path, String body) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create(server.url() + path))
                        .header("Content-Type", "application/vnd.schemaregistry.v1+json")
                        .method(
                                method,
                                body == null
                                        ? HttpRequest.BodyPublishers.noBody()
                                        : HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(
                "application/vnd.schemaregistry.v1+json",
                response.headers().firstValue("Content-Type").orElse(""));
        return new Answer(response.statusCode(), JSON.readTree(response.body()));
    }

    private static String schemaBody(Schema schema) throws Exception {
        return JSON.writeValueAsString(Map.of("schema", schema.toString()));
    }

    private static void assertError(int status, int errorCode, Answer answer) {
        assertEquals(status, answer.status(), answer.body().toString());
        assertEquals(
                errorCode,
                answer.body().path("error_code").asInt(),
                answer.body().toString());
        assertTrue(answer.body().path("message").isTextual(), answer.body().toString());
    }

    /** The port the registry listens on, for the raw HTTP of the tests of connection handling. */
    private int port() {
        return URI.create(server.url()).getPort();
    }

    @Test
    void globalAndSubjectConfig() throws Exception {
        assertEquals(
                JSON.readTree("{\"compatibilityLevel\":\"BACKWARD\"}"),
                send("GET", "/config", null).body());
        Answer put = send("PUT", "/config", "{\"compatibility\":\"full\"}");
        assertEquals(JSON.readTree("{\"compatibility\":\"FULL\"}"), put.body());
        assertEquals(CompatibilityLevel.FULL, registry.compatibility());

        assertError(404, 40408, send("GET", "/config/things-value", null));
        assertEquals(
                "FULL",
                send("GET", "/config/things-value?defaultToGlobal=true", null)
                        .body()
                        .path("compatibilityLevel")
                        .asText());
        send("PUT", "/config/things-value", "{\"compatibility\":\"NONE\"}");
        assertEquals(
                JSON.readTree("{\"compatibilityLevel\":\"NONE\"}"),
                send("GET", "/config/things-value", null).body());
        assertEquals(CompatibilityLevel.FULL, registry.compatibility(), "the global level is its own");

        assertError(422, 42203, send("PUT", "/config", "{\"compatibility\":\"SIDEWAYS\"}"));
        assertError(422, 42203, send("PUT", "/config", "{\"level\":\"NONE\"}"));
        assertError(422, 42203, send("PUT", "/config", "not json"));
        assertEquals(CompatibilityLevel.FULL, registry.compatibility(), "refused changes change nothing");
    }

    @Test
    void compatibilityOfACandidate() throws Exception {
        Answer compatible =
                send("POST", "/compatibility/subjects/things-value/versions/latest", schemaBody(WITH_DEFAULT));
        assertEquals(200, compatible.status());
        assertTrue(
                compatible.body().path("is_compatible").asBoolean(false),
                compatible.body().toString());

        Answer incompatible = send("POST", "/compatibility/subjects/things-value/versions/1", schemaBody(NO_DEFAULT));
        assertEquals(200, incompatible.status());
        assertFalse(incompatible.body().path("is_compatible").asBoolean(true));
        assertTrue(incompatible.body().path("messages").get(0).asText().contains("READER_FIELD_MISSING_DEFAULT_VALUE"));

        assertError(404, 40401, send("POST", "/compatibility/subjects/nope-value/versions/latest", schemaBody(V1)));
        assertError(404, 40402, send("POST", "/compatibility/subjects/things-value/versions/7", schemaBody(V1)));
        assertError(422, 42202, send("POST", "/compatibility/subjects/things-value/versions/-1", schemaBody(V1)));
        assertError(422, 42201, send("POST", "/compatibility/subjects/things-value/versions/1", "{\"schema\":\"{\"}"));
    }

    @Test
    void anIncompatibleRegistrationIsRefusedWith409() throws Exception {
        assertError(409, 409, send("POST", "/subjects/things-value/versions", schemaBody(NO_DEFAULT)));
        assertEquals(
                JSON.readTree("[1]"),
                send("GET", "/subjects/things-value/versions", null).body());
        Answer accepted = send("POST", "/subjects/things-value/versions", schemaBody(WITH_DEFAULT));
        assertEquals(200, accepted.status());
        assertEquals(2, accepted.body().path("id").asInt());
    }

    @Test
    void everyErrorIsJson() throws Exception {
        assertError(404, 404, send("GET", "/nothing/here", null));
        assertError(405, 405, send("DELETE", "/subjects", null));
        assertError(405, 405, send("PUT", "/schemas/ids/1", "{}"));
        assertError(422, 42201, send("POST", "/subjects/things-value/versions", "{\"schema\": 5}"));
        assertError(422, 42201, send("POST", "/subjects/things-value/versions", "[]"));
        assertError(422, 42202, send("GET", "/subjects/things-value/versions/first", null));
        assertError(404, 40403, send("GET", "/schemas/ids/x", null));

        Answer longPath = send("GET", "/" + "x".repeat(5_000), null);
        assertError(404, 404, longPath);
        assertTrue(longPath.body().path("message").asText().length() < 1000, "the path is not echoed whole");
    }

    /**
     * Schemas Avro refuses are 422 with Confluent's 42201, in words: an undefined type name (a
     * field's or the whole schema's), a duplicate field, schema text that is not JSON.
     */
    @Test
    void anInvalidSchemaIs42201InWords() throws Exception {
        String undefinedField =
                "{\"type\":\"record\",\"name\":\"Thing\",\"fields\":[{\"name\":\"f\",\"type\":\"Nope\"}]}";
        String duplicateField = "{\"type\":\"record\",\"name\":\"Thing\",\"fields\":["
                + "{\"name\":\"f\",\"type\":\"int\"},{\"name\":\"f\",\"type\":\"int\"}]}";
        Answer undefined = register(undefinedField);
        assertError(422, 42201, undefined);
        assertTrue(
                undefined.body().path("message").asText().contains("Nope"),
                undefined.body().toString());
        for (String schema :
                List.of("\"Nope\"", duplicateField, "{", "Nope", "{\"type\":\"fixed\",\"name\":\"F\",\"size\":-1}")) {
            Answer answer = register(schema);
            assertError(422, 42201, answer);
            assertInWords(answer);
        }
        assertInWords(undefined);
        assertEquals(
                JSON.readTree("[1]"),
                send("GET", "/subjects/things-value/versions", null).body(),
                "nothing registered");
    }

    /** A body that is not JSON is 422 with the endpoint's code, and a message that names no Java class. */
    @Test
    void aMalformedBodyIs422InWords() throws Exception {
        for (String body : List.of("{", "not json", "{\"schema\": ]", "[1,]")) {
            Answer schema = send("POST", "/subjects/things-value/versions", body);
            assertError(422, 42201, schema);
            assertInWords(schema);
            assertTrue(
                    schema.body().path("message").asText().contains("not JSON"),
                    schema.body().toString());
            Answer level = send("PUT", "/config", body);
            assertError(422, 42203, level);
            assertInWords(level);
        }
    }

    private Answer register(String schema) throws Exception {
        return send("POST", "/subjects/things-value/versions", JSON.writeValueAsString(Map.of("schema", schema)));
    }

    /** The message says what is wrong without naming a Java class, package or library setting. */
    private static void assertInWords(Answer answer) {
        String message = answer.body().path("message").asText();
        assertFalse(message.contains("Exception"), message);
        assertFalse(message.contains("StreamReadFeature") || message.contains("[Source"), message);
        assertFalse(
                java.util.regex.Pattern.compile("\\b[a-z]+\\.[a-z]+\\.[a-z]")
                        .matcher(message)
                        .find(),
                message);
    }

    @Test
    void aHugeUrlIs414WithoutTheUrl() throws Exception {
        Answer longUrl = send("GET", "/" + "x".repeat(100_000), null);
        assertError(414, 414, longUrl);
        assertFalse(longUrl.body().toString().contains("xxxxxxxxxx"), "the URL is not echoed");
    }

    @Test
    void halfOpenConnectionsDoNotHoldUpOtherRequests() throws Exception {
        List<Socket> stalled = RawHttp.halfOpen(port(), 32);
        try {
            assertEquals(200, send("GET", "/subjects", null).status());
            RawHttp.assertAllStillOpen(stalled); // answered while they all still wait
        } finally {
            RawHttp.closeAll(stalled);
        }
    }

    /**
     * More schema bodies stalled after their first byte than the registry has threads: each is
     * read without one, so other requests are answered meanwhile (within a generous bound; the
     * stalled bodies would hold them for the 30 s idle timeout).
     */
    @Test
    void stalledSchemaBodiesDoNotHoldUpOtherRequests() throws Exception {
        List<Socket> stalled = RawHttp.slowBodies(port(), 8, "/subjects/things-value/versions", 200);
        try {
            RawHttp.Answer answer = RawHttp.requestWithin(Duration.ofSeconds(5), port(), "GET", "/subjects");
            assertEquals(200, answer.status(), answer.text());
            assertEquals("[\"things-value\"]", answer.text());
        } finally {
            RawHttp.closeAll(stalled);
        }
    }

    /** Schema bodies that trickle in are cut off with 408 (or a closed connection), and others are answered. */
    @Test
    void tricklingSchemaBodiesAreCutOff() throws Exception {
        List<Socket> slow = RawHttp.slowBodies(port(), 8, "/subjects/things-value/versions", 200);
        try (RawHttp.Trickle trickle = RawHttp.trickle(slow, Duration.ofMillis(300))) {
            assertEquals(
                    200,
                    RawHttp.requestWithin(Duration.ofSeconds(5), port(), "GET", "/subjects")
                            .status());
            for (Socket s : slow) {
                RawHttp.Answer answer = RawHttp.answerOrClose(s, Duration.ofSeconds(10)); // whole: 60 s
                assertTrue(answer.status() == 408 || answer.status() == 0, answer.status() + " " + answer.text());
                if (answer.status() == 408) {
                    assertError(408, 408, new Answer(408, JSON.readTree(answer.body())));
                }
            }
        } finally {
            RawHttp.closeAll(slow);
        }
        assertEquals(
                JSON.readTree("[1]"),
                send("GET", "/subjects/things-value/versions", null).body());
    }

    @Test
    void headIsAnsweredAsGetWithoutTheBody() throws Exception {
        RawHttp.Answer get = RawHttp.request(port(), "GET", "/subjects/things-value/versions/1");
        RawHttp.Answer head = RawHttp.request(port(), "HEAD", "/subjects/things-value/versions/1");
        assertEquals(200, head.status());
        assertEquals(Integer.toString(get.body().length), head.headers().get("content-length"));
        assertEquals(0, head.body().length, "no body");
    }

    @Test
    void aMalformedEscapeIs400InConfluentsJson() throws Exception {
        for (String target : List.of("/subjects/%zz/versions", "/subjects/things-value%/versions")) {
            RawHttp.Answer answer = RawHttp.request(port(), "GET", target);
            assertEquals(400, answer.status(), target + ": " + answer.text());
            assertEquals(RegistryProtocol.CONTENT_TYPE, answer.headers().get("content-type"));
            assertError(400, 400, new Answer(answer.status(), JSON.readTree(answer.body())));
        }
    }
}
