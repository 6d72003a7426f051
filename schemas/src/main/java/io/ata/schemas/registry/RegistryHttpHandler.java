package io.ata.schemas.registry;

import static io.ata.schemas.registry.RegistryProtocol.JSON;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.SchemaParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves an {@link EmbeddedSchemaRegistry} over HTTP with Confluent's REST paths, bodies and
 * error answers ({"error_code": N, "message": "..."}), so clients of a real registry work
 * against it unchanged. Only translation lives here; the registry does the work.
 */
final class RegistryHttpHandler implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(RegistryHttpHandler.class);

    private final EmbeddedSchemaRegistry registry;

    RegistryHttpHandler(EmbeddedSchemaRegistry registry) {
        this.registry = registry;
    }

    /** An answer: HTTP status and JSON body. */
    private record Reply(int status, Object body) {
        static Reply ok(Object body) {
            return new Reply(200, body);
        }

        static Reply error(int status, int errorCode, String message) {
            return new Reply(status, Map.of("error_code", errorCode, "message", message));
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        Reply reply;
        try {
            reply = route(exchange.getRequestMethod(), segments(exchange), exchange.getRequestBody());
        } catch (SchemaNotFoundException e) {
            reply = Reply.error(404, e.errorCode(), e.getMessage());
        } catch (InvalidSchemaRequest e) {
            reply = Reply.error(422, RegistryProtocol.INVALID_SCHEMA, e.getMessage());
        } catch (RuntimeException e) {
            log.warn(
                    "embedded Schema Registry failed on {} {}",
                    exchange.getRequestMethod(),
                    exchange.getRequestURI(),
                    e);
            reply = Reply.error(500, RegistryProtocol.INTERNAL_ERROR, "Internal error: " + e);
        }
        byte[] body = JSON.writeValueAsBytes(reply.body());
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", RegistryProtocol.CONTENT_TYPE);
            exchange.sendResponseHeaders(reply.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    private Reply route(String method, List<String> path, InputStream body) throws IOException {
        int n = path.size();
        boolean get = method.equals("GET");
        boolean post = method.equals("POST");
        if (n >= 1 && path.get(0).equals("subjects")) {
            if (n == 1 && get) {
                return Reply.ok(registry.subjects());
            }
            String subject = n >= 2 ? path.get(1) : null;
            if (n == 2 && post) {
                return lookup(subject, body);
            }
            if (n == 3 && path.get(2).equals("versions")) {
                if (get) {
                    return Reply.ok(registry.versions(subject));
                }
                if (post) {
                    return register(subject, body);
                }
            }
            if (n == 4 && path.get(2).equals("versions") && get) {
                return version(subject, path.get(3));
            }
        }
        if (n == 3 && path.get(0).equals("schemas") && path.get(1).equals("ids") && get) {
            return schemaById(path.get(2));
        }
        return Reply.error(
                404,
                404,
                "HTTP 404 Not Found: " + method + " /" + String.join("/", path)
                        + " is not served by the embedded Schema Registry");
    }

    private Reply register(String subject, InputStream body) throws IOException {
        Schema schema = schemaOf(body);
        return Reply.ok(Map.of("id", registry.register(subject, schema)));
    }

    private Reply lookup(String subject, InputStream body) throws IOException {
        Schema schema = schemaOf(body);
        registry.versions(subject); // 40401 if the subject does not exist, as Confluent answers
        return registry.lookup(subject, schema)
                .map(found -> Reply.ok(versionJson(found)))
                .orElseGet(() -> Reply.error(404, RegistryProtocol.SCHEMA_NOT_FOUND, "Schema not found"));
    }

    private Reply version(String subject, String version) {
        if (version.equals("latest")) {
            return Reply.ok(versionJson(registry.latest(subject)));
        }
        try {
            return Reply.ok(versionJson(registry.version(subject, Integer.parseInt(version))));
        } catch (NumberFormatException e) {
            return Reply.error(
                    422,
                    RegistryProtocol.INVALID_VERSION,
                    "The specified version '" + version + "' is not a valid version id. "
                            + "Allowed values are between [1, 2^31-1] and the string \"latest\"");
        }
    }

    private Reply schemaById(String id) {
        try {
            return Reply.ok(
                    Map.of("schema", registry.getById(Integer.parseInt(id)).toString()));
        } catch (NumberFormatException e) {
            return Reply.error(404, RegistryProtocol.SCHEMA_NOT_FOUND, "Schema " + id + " not found");
        }
    }

    private static ObjectNode versionJson(SchemaVersion version) {
        ObjectNode json = JSON.createObjectNode();
        json.put("subject", version.subject());
        json.put("version", version.version());
        json.put("id", version.id());
        json.put("schema", version.schema().toString());
        return json;
    }

    /** The Avro schema of a {"schema": "..."} request body. */
    private static Schema schemaOf(InputStream body) throws IOException {
        JsonNode request;
        try {
            request = JSON.readTree(body.readAllBytes());
        } catch (JsonProcessingException e) {
            throw new InvalidSchemaRequest("the body is not JSON: " + e.getOriginalMessage());
        }
        if (request == null || !request.path("schema").isTextual()) {
            throw new InvalidSchemaRequest("expected a JSON body {\"schema\": \"<Avro schema as a JSON string>\"}");
        }
        String type = request.path("schemaType").asText("AVRO");
        if (!type.equals("AVRO")) {
            throw new InvalidSchemaRequest("only AVRO schemas are supported, got " + type);
        }
        try {
            return SchemaParser.parseSingle(request.get("schema").asText());
        } catch (SchemaParseException e) {
            throw new InvalidSchemaRequest(e.getMessage());
        }
    }

    /** A request body without a valid Avro schema: answered 422 with error_code 42201. */
    private static final class InvalidSchemaRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InvalidSchemaRequest(String detail) {
            super("Invalid schema: " + detail);
        }
    }

    private static List<String> segments(HttpExchange exchange) {
        List<String> segments = new ArrayList<>();
        for (String raw : exchange.getRequestURI().getRawPath().split("/")) {
            if (!raw.isEmpty()) {
                // a '+' in a path is a plus sign, not an encoded space
                segments.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        return segments;
    }
}
