package io.ata.platform.registry;

import static io.ata.schemas.registry.RegistryProtocol.JSON;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.ata.schemas.registry.CompatibilityLevel;
import io.ata.schemas.registry.EmbeddedSchemaRegistry;
import io.ata.schemas.registry.RegistryProtocol;
import io.ata.schemas.registry.SchemaRegistryException;
import io.ata.schemas.registry.SchemaVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.SchemaParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves an {@link EmbeddedSchemaRegistry} over HTTP with Confluent's REST paths, bodies and
 * error answers ({"error_code": N, "message": "..."}, for every error), so clients of a real
 * registry work against it unchanged. Only translation lives here; the registry does the work.
 */
public final class RegistryHttpHandler implements HttpHandler {

    private static final Logger log = LoggerFactory.getLogger(RegistryHttpHandler.class);

    /** How much of a request path an error message repeats. */
    private static final int MAX_ECHOED_PATH = 200;

    private final EmbeddedSchemaRegistry registry;

    public RegistryHttpHandler(EmbeddedSchemaRegistry registry) {
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

    /** A request this registry refuses: answered with {@code status} and Confluent's {@code errorCode}. */
    private static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;
        private final int errorCode;

        BadRequest(int status, int errorCode, String message) {
            super(message);
            this.status = status;
            this.errorCode = errorCode;
        }
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        Reply reply;
        try {
            String query = exchange.getRequestURI().getRawQuery();
            reply = route(exchange.getRequestMethod(), segments(exchange), query, exchange.getRequestBody());
        } catch (BadRequest e) {
            reply = Reply.error(e.status, e.errorCode, e.getMessage());
        } catch (SchemaRegistryException e) {
            if (e.httpStatus() == SchemaRegistryException.NONE) {
                log.warn("embedded Schema Registry: {}", e.getMessage());
                reply = Reply.error(
                        500, RegistryProtocol.INTERNAL_ERROR, "Error in the backend store: " + e.getMessage());
            } else {
                reply = Reply.error(e.httpStatus(), e.errorCode(), e.getMessage());
            }
        } catch (RuntimeException e) {
            log.warn(
                    "embedded Schema Registry failed on {} {}",
                    exchange.getRequestMethod(),
                    abbreviate(exchange.getRequestURI().toString()),
                    e);
            reply = Reply.error(500, RegistryProtocol.INTERNAL_ERROR, "Internal error: see the registry's log");
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

    private Reply route(String method, List<String> path, String query, InputStream body) throws IOException {
        int n = path.size();
        String first = n == 0 ? "" : path.get(0);
        switch (first) {
            case "subjects" -> {
                if (n == 1) {
                    require(method, "GET", path);
                    return Reply.ok(registry.subjects());
                }
                String subject = path.get(1);
                if (n == 2) {
                    require(method, "POST", path);
                    return lookup(subject, body);
                }
                if (path.get(2).equals("versions")) {
                    if (n == 3) {
                        require(method, method.equals("POST") ? "POST" : "GET", path);
                        return method.equals("POST") ? register(subject, body) : Reply.ok(registry.versions(subject));
                    }
                    if (n == 4) {
                        require(method, "GET", path);
                        return Reply.ok(versionJson(registry.version(subject, version(subject, path.get(3)))));
                    }
                }
            }
            case "schemas" -> {
                if (n == 3 && path.get(1).equals("ids")) {
                    require(method, "GET", path);
                    return schemaById(path.get(2));
                }
            }
            case "config" -> {
                if (n == 1 || n == 2) {
                    return config(method, n == 2 ? path.get(1) : null, query, body, path);
                }
            }
            case "compatibility" -> {
                if ((n == 4 || n == 5)
                        && path.get(1).equals("subjects")
                        && path.get(3).equals("versions")) {
                    require(method, "POST", path);
                    return compatibility(path.get(2), n == 5 ? path.get(4) : null, body);
                }
            }
            default -> {
                // answered below
            }
        }
        throw new BadRequest(
                404,
                404,
                "HTTP 404 Not Found: " + method + " " + abbreviate(pathOf(path))
                        + " is not served by the embedded Schema Registry");
    }

    /** Refuses any other method on a path this registry serves, with 405 as Confluent does. */
    private static void require(String method, String allowed, List<String> path) {
        if (!method.equals(allowed)) {
            throw new BadRequest(405, 405, "HTTP 405 Method Not Allowed: " + method + " " + abbreviate(pathOf(path)));
        }
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

    /** A version number of the path: a number, or {@code latest} for the newest one. */
    private int version(String subject, String version) {
        if (version.equals("latest")) {
            return registry.latest(subject).version();
        }
        try {
            int number = Integer.parseInt(version);
            if (number >= 1) {
                return number;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new BadRequest(
                422,
                RegistryProtocol.INVALID_VERSION,
                "The specified version '" + abbreviate(version) + "' is not a valid version id. "
                        + "Allowed values are between [1, 2^31-1] and the string \"latest\"");
    }

    private Reply schemaById(String id) {
        try {
            return Reply.ok(
                    Map.of("schema", registry.getById(Integer.parseInt(id)).toString()));
        } catch (NumberFormatException e) {
            return Reply.error(404, RegistryProtocol.SCHEMA_NOT_FOUND, "Schema " + abbreviate(id) + " not found");
        }
    }

    /** {@code GET/PUT /config} (global level) and {@code /config/{subject}}. */
    private Reply config(String method, String subject, String query, InputStream body, List<String> path)
            throws IOException {
        if (method.equals("PUT")) {
            CompatibilityLevel level = levelOf(body);
            if (subject == null) {
                registry.setCompatibility(level);
            } else {
                registry.setCompatibility(subject, level);
            }
            return Reply.ok(Map.of("compatibility", level.name()));
        }
        require(method, "GET", path);
        CompatibilityLevel level;
        if (subject == null) {
            level = registry.compatibility();
        } else if (query != null && query.contains("defaultToGlobal=true")) {
            level = registry.compatibilityOf(subject);
        } else {
            level = registry.compatibility(subject)
                    .orElseThrow(() -> new BadRequest(
                            404,
                            RegistryProtocol.SUBJECT_LEVEL_NOT_FOUND,
                            "Subject '" + subject + "' does not have subject-level compatibility configured"));
        }
        return Reply.ok(Map.of("compatibilityLevel", level.name()));
    }

    /**
     * {@code POST /compatibility/subjects/{subject}/versions/{version}}: the schema against that
     * version; without a version, against what registering it would be checked against.
     */
    private Reply compatibility(String subject, String version, InputStream body) throws IOException {
        Schema schema = schemaOf(body);
        List<String> problems = version == null
                ? registry.incompatibilities(subject, schema)
                : registry.incompatibilities(subject, version(subject, version), schema);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("is_compatible", problems.isEmpty());
        answer.put("messages", problems);
        return Reply.ok(answer);
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
        String expected = "expected a JSON body {\"schema\": \"<Avro schema as a JSON string>\"}";
        JsonNode request = jsonOf(body, RegistryProtocol.INVALID_SCHEMA, "Invalid schema: ", expected);
        if (!request.path("schema").isTextual()) {
            throw invalid(RegistryProtocol.INVALID_SCHEMA, "Invalid schema: " + expected);
        }
        String type = request.path("schemaType").asText("AVRO");
        if (!type.equals("AVRO")) {
            throw invalid(
                    RegistryProtocol.INVALID_SCHEMA,
                    "Invalid schema: only AVRO schemas are supported, got " + abbreviate(type));
        }
        try {
            return SchemaParser.parseSingle(request.get("schema").asText());
        } catch (SchemaParseException e) {
            if (e.getCause() instanceof JsonProcessingException json) {
                throw invalid(
                        RegistryProtocol.INVALID_SCHEMA,
                        "Invalid schema: the schema is not JSON: " + jsonProblem(json));
            }
            throw invalid(RegistryProtocol.INVALID_SCHEMA, "Invalid schema: " + abbreviate(e.getMessage()));
        } catch (AvroRuntimeException e) {
            // e.g. "Undefined schema: Nope", "Duplicate field f in record A: ...", "Invalid default for field f: ..."
            throw invalid(RegistryProtocol.INVALID_SCHEMA, "Invalid schema: " + abbreviate(e.getMessage()));
        } catch (RuntimeException e) {
            // Avro's parser fails so on some invalid schemas (a top-level name it does not know); its message is no
            // help
            log.debug("Avro could not parse a schema", e);
            throw invalid(
                    RegistryProtocol.INVALID_SCHEMA,
                    "Invalid schema: Avro cannot parse it (an undefined type name is one cause)");
        }
    }

    /** The level of a {"compatibility": "BACKWARD"} request body. */
    private static CompatibilityLevel levelOf(InputStream body) throws IOException {
        String expected = "expected a JSON body {\"compatibility\": \"<level>\"}";
        JsonNode request =
                jsonOf(body, RegistryProtocol.INVALID_COMPATIBILITY_LEVEL, "Invalid compatibility level: ", expected);
        if (!request.path("compatibility").isTextual()) {
            throw invalid(RegistryProtocol.INVALID_COMPATIBILITY_LEVEL, "Invalid compatibility level: " + expected);
        }
        try {
            return CompatibilityLevel.parse(request.get("compatibility").asText());
        } catch (IllegalArgumentException e) {
            throw invalid(RegistryProtocol.INVALID_COMPATIBILITY_LEVEL, abbreviate(e.getMessage()));
        }
    }

    /** A request body as a JSON object, or a 422 with {@code errorCode}. */
    private static JsonNode jsonOf(InputStream body, int errorCode, String prefix, String expected) throws IOException {
        byte[] bytes = body.readAllBytes(); // read whole already, and bounded, by the server
        JsonNode request;
        try {
            request = JSON.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw invalid(errorCode, prefix + "the body is not JSON: " + jsonProblem(e));
        }
        if (request == null || !request.isObject()) {
            throw invalid(errorCode, prefix + expected);
        }
        return request;
    }

    /**
     * What is wrong with a JSON text, in Jackson's words but without what it adds for programmers
     * (the source, feature and class names): e.g. "Unexpected end-of-input at line 1, column 2".
     */
    private static String jsonProblem(JsonProcessingException e) {
        String message = e.getOriginalMessage();
        String what = message == null || message.isBlank()
                ? "malformed"
                : message.lines().findFirst().orElse("");
        int detail = what.indexOf(
                ": "); // "Unrecognized token 'x': was expecting (...)", "...: expected close marker ... [Source: ...]"
        if (detail > 0) {
            what = what.substring(0, detail);
        }
        JsonLocation at = e.getLocation();
        String where =
                at == null || at.getLineNr() < 1 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
        return abbreviate(what) + where;
    }

    private static BadRequest invalid(int errorCode, String message) {
        return new BadRequest(422, errorCode, message);
    }

    private static List<String> segments(HttpExchange exchange) {
        List<String> segments = new ArrayList<>();
        for (String raw : exchange.getRequestURI().getRawPath().split("/")) {
            if (!raw.isEmpty()) {
                try {
                    // a '+' in a path is a plus sign, not an encoded space
                    segments.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
                } catch (IllegalArgumentException e) {
                    throw new BadRequest(
                            400,
                            400,
                            "HTTP 400 Bad Request: malformed escape in the URL path '" + abbreviate(raw) + "': "
                                    + e.getMessage());
                }
            }
        }
        return segments;
    }

    private static String pathOf(List<String> segments) {
        return "/" + String.join("/", segments);
    }

    private static String abbreviate(String text) {
        return text.length() <= MAX_ECHOED_PATH ? text : text.substring(0, MAX_ECHOED_PATH) + "...";
    }
}
