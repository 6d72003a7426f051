package io.ata.schemas.registry;

import static io.ata.schemas.registry.RegistryProtocol.JSON;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.avro.SchemaParser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SchemaRegistryClient} for a real, Confluent-compatible Schema Registry, over HTTP.
 *
 * <p>We write our own because no {@code io.confluent} artifact is available from Maven Central.
 * It speaks the small subset we need:
 * <ul>
 *   <li>{@code POST /subjects/{subject}/versions} {"schema": "..."} → {"id": N}</li>
 *   <li>{@code POST /subjects/{subject}} {"schema": "..."} → {subject, version, id, schema}</li>
 *   <li>{@code GET /schemas/ids/{id}} → {"schema": "..."}</li>
 *   <li>{@code GET /subjects/{subject}/versions/latest} → {subject, version, id, schema}</li>
 *   <li>{@code GET /config} → {"compatibilityLevel": "BACKWARD"}</li>
 *   <li>{@code POST /compatibility/subjects/{subject}/versions/latest} {"schema": "..."} →
 *       {"is_compatible": true}</li>
 * </ul>
 * Results are cached as {@link SchemaRegistryClient} describes, so after the first record of a
 * topic no HTTP call is made. Errors carry the registry's {@code error_code} and message.
 *
 * <p>Thread-safe. Build one with {@link #builder(String)}.
 */
public final class RestSchemaRegistryClient implements SchemaRegistryClient {

    /** Default time to open a TCP connection to the registry. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** Default time to wait for the registry's answer to one request. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private static final Logger log = LoggerFactory.getLogger(RestSchemaRegistryClient.class);

    private final String baseUrl;
    private final String authorization; // null without basic auth
    private final Duration requestTimeout;
    private final HttpClient http;

    private final Map<SubjectSchema, Integer> idsBySubjectSchema = new ConcurrentHashMap<>();
    private final Map<Integer, Schema> schemasById = new ConcurrentHashMap<>();

    /** Cache key of {@link #register}: a schema is registered per subject. */
    private record SubjectSchema(String subject, Schema schema) {}

    private RestSchemaRegistryClient(Builder builder) {
        this.baseUrl = builder.baseUrl;
        this.authorization = builder.userInfo == null
                ? null
                : "Basic " + Base64.getEncoder().encodeToString(builder.userInfo.getBytes(StandardCharsets.UTF_8));
        this.requestTimeout = builder.requestTimeout;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(builder.connectTimeout)
                .build();
    }

    /**
     * Starts configuring a client for the registry at {@code baseUrl}, e.g.
     * {@code http://localhost:8081} or {@code https://registry.example.com/prefix}.
     */
    public static Builder builder(String baseUrl) {
        return new Builder(baseUrl);
    }

    /** The registry's base URL, without trailing slash. */
    public String baseUrl() {
        return baseUrl;
    }

    @Override
    public int register(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        Integer cached = idsBySubjectSchema.get(key);
        if (cached != null) {
            return cached;
        }
        JsonNode answer =
                send("POST", "/subjects/" + RegistryProtocol.pathSegment(subject) + "/versions", schemaBody(schema));
        int id = requiredInt(answer, "id", "POST /subjects/" + subject + "/versions");
        idsBySubjectSchema.put(key, id);
        schemasById.putIfAbsent(id, schema);
        log.debug("registered schema {} under subject {} with id {}", schema.getFullName(), subject, id);
        return id;
    }

    @Override
    public Optional<SchemaVersion> lookup(String subject, Schema schema) {
        SchemaVersion found;
        try {
            JsonNode answer = send("POST", "/subjects/" + RegistryProtocol.pathSegment(subject), schemaBody(schema));
            found = schemaVersion(answer, "POST /subjects/" + subject);
        } catch (SchemaNotFoundException notRegistered) {
            return Optional.empty();
        }
        idsBySubjectSchema.put(new SubjectSchema(subject, schema), found.id());
        return Optional.of(found);
    }

    @Override
    public Schema getById(int id) {
        Schema cached = schemasById.get(id);
        if (cached != null) {
            return cached;
        }
        String what = "GET /schemas/ids/" + id;
        JsonNode answer = send("GET", "/schemas/ids/" + id, null);
        requireAvro(answer, what);
        Schema schema = parseSchema(requiredText(answer, "schema", what), what);
        Schema previous = schemasById.putIfAbsent(id, schema);
        return previous != null ? previous : schema;
    }

    @Override
    public SchemaVersion latest(String subject) {
        String what = "GET /subjects/" + subject + "/versions/latest";
        JsonNode answer = send("GET", "/subjects/" + RegistryProtocol.pathSegment(subject) + "/versions/latest", null);
        SchemaVersion latest = schemaVersion(answer, what);
        schemasById.putIfAbsent(latest.id(), latest.schema());
        return latest;
    }

    /** The registry's global compatibility level ({@code GET /config}); never cached. */
    public CompatibilityLevel compatibility() {
        String what = "GET /config";
        String level = requiredText(send("GET", "/config", null), "compatibilityLevel", what);
        try {
            return CompatibilityLevel.parse(level);
        } catch (IllegalArgumentException e) {
            throw new SchemaRegistryException("unexpected answer to " + what + ": " + e.getMessage(), e);
        }
    }

    /**
     * Whether registering {@code schema} under {@code subject} keeps the subject's compatibility
     * level against its latest version, asked without registering anything; never cached.
     *
     * @throws SchemaNotFoundException if the subject has no versions
     */
    public boolean isCompatible(String subject, Schema schema) {
        String path = "/compatibility/subjects/" + RegistryProtocol.pathSegment(subject) + "/versions/latest";
        JsonNode answer = send("POST", path, schemaBody(schema));
        JsonNode compatible = answer.get("is_compatible");
        if (compatible == null || !compatible.isBoolean()) {
            throw new SchemaRegistryException(
                    "unexpected answer to POST " + path + ": no boolean field 'is_compatible' in " + answer, null);
        }
        return compatible.asBoolean();
    }

    private SchemaVersion schemaVersion(JsonNode answer, String what) {
        requireAvro(answer, what);
        return new SchemaVersion(
                requiredText(answer, "subject", what),
                requiredInt(answer, "version", what),
                requiredInt(answer, "id", what),
                parseSchema(requiredText(answer, "schema", what), what));
    }

    private static String schemaBody(Schema schema) {
        try {
            return JSON.writeValueAsString(Map.of("schema", schema.toString()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode a string as JSON", e);
        }
    }

    /** Sends one request; returns the JSON answer of a 2xx, throws for anything else. */
    private JsonNode send(String method, String path, String body) {
        String what = method + " " + baseUrl + path;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(requestTimeout)
                .header("Accept", RegistryProtocol.ACCEPT);
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (body == null) {
            request.GET();
        } else {
            request.header("Content-Type", RegistryProtocol.CONTENT_TYPE)
                    .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException e) {
            throw new SchemaRegistryException("Schema Registry unreachable: " + what + ": connect timed out", e);
        } catch (HttpTimeoutException e) {
            throw new SchemaRegistryException(
                    "Schema Registry did not answer within " + requestTimeout.toMillis() + " ms: " + what, e);
        } catch (ConnectException e) {
            throw new SchemaRegistryException(
                    "Schema Registry unreachable: " + what + ": connection refused (is it running?)", e);
        } catch (IOException e) {
            throw new SchemaRegistryException("Schema Registry unreachable: " + what + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SchemaRegistryException("interrupted during " + what, e);
        }
        int status = response.statusCode();
        if (status / 100 == 2) {
            return parseJson(response.body(), what);
        }
        throw errorFor(what, status, response.body());
    }

    /**
     * Turns an error answer into an exception. A Schema Registry answers
     * {"error_code": 40401, "message": "Subject 'x' not found."}; anything else (a proxy's HTML
     * page, a wrong URL) is reported with the start of its body.
     */
    private static SchemaRegistryException errorFor(String what, int status, String body) {
        int errorCode = SchemaRegistryException.NONE;
        String message = null;
        try {
            JsonNode error = JSON.readTree(body);
            if (error != null && error.isObject()) {
                errorCode = error.path("error_code").asInt(SchemaRegistryException.NONE);
                message = error.path("message").isTextual()
                        ? error.path("message").asText()
                        : null;
            }
        } catch (JsonProcessingException notJson) {
            // reported below with the raw body
        }
        StringBuilder text = new StringBuilder("Schema Registry error: ")
                .append(what)
                .append(" -> HTTP ")
                .append(status);
        if (errorCode != SchemaRegistryException.NONE) {
            text.append(" (error_code ").append(errorCode).append(')');
        }
        if (message != null) {
            text.append(": ").append(message);
        } else {
            text.append(": ").append(abbreviate(body));
            if (status == 404) {
                text.append(" (not a Schema Registry answer: is the URL right?)");
            }
        }
        if (status == 401 || status == 403) {
            text.append(" (check basic.auth.user.info)");
        }
        if (status == 404 && RegistryProtocol.isNotFound(errorCode)) {
            return new SchemaNotFoundException(text.toString(), errorCode);
        }
        return new SchemaRegistryException(text.toString(), status, errorCode);
    }

    private static JsonNode parseJson(String body, String what) {
        try {
            JsonNode node = JSON.readTree(body);
            if (node == null || !node.isObject()) {
                throw new SchemaRegistryException("unexpected answer to " + what + ": " + abbreviate(body), null);
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new SchemaRegistryException("unexpected answer to " + what + " (not JSON): " + abbreviate(body), e);
        }
    }

    private static void requireAvro(JsonNode answer, String what) {
        String type = answer.path("schemaType").asText("AVRO");
        if (!type.equals("AVRO")) {
            throw new SchemaRegistryException(what + " returned a " + type + " schema; only AVRO is supported", null);
        }
    }

    private static String requiredText(JsonNode answer, String field, String what) {
        JsonNode value = answer.get(field);
        if (value == null || !value.isTextual()) {
            throw new SchemaRegistryException(
                    "unexpected answer to " + what + ": no string field '" + field + "' in " + answer, null);
        }
        return value.asText();
    }

    private static int requiredInt(JsonNode answer, String field, String what) {
        JsonNode value = answer.get(field);
        if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new SchemaRegistryException(
                    "unexpected answer to " + what + ": no integer field '" + field + "' in " + answer, null);
        }
        return value.asInt();
    }

    private static Schema parseSchema(String json, String what) {
        try {
            return SchemaParser.parseSingle(json);
        } catch (SchemaParseException e) {
            throw new SchemaRegistryException(what + " returned a schema Avro cannot parse: " + e.getMessage(), e);
        }
    }

    private static String abbreviate(String body) {
        String oneLine = body == null ? "" : body.strip().replaceAll("\\s+", " ");
        return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "...";
    }

    /** Settings of a {@link RestSchemaRegistryClient}; only the URL is required. */
    public static final class Builder {
        private final String baseUrl;
        private String userInfo;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;

        private Builder(String baseUrl) {
            this.baseUrl = validateUrl(baseUrl);
        }

        /**
         * Sends HTTP basic auth credentials, given as Confluent's {@code basic.auth.user.info}:
         * {@code user:password}. {@code null} means none.
         */
        public Builder basicAuth(String userInfo) {
            if (userInfo != null && !userInfo.contains(":")) {
                throw new IllegalArgumentException("basic auth user info must be 'user:password' (no ':' found)");
            }
            this.userInfo = userInfo;
            return this;
        }

        /** Time to open a connection; default {@link #DEFAULT_CONNECT_TIMEOUT}. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connect timeout");
            return this;
        }

        /** Time to wait for each answer; default {@link #DEFAULT_REQUEST_TIMEOUT}. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "request timeout");
            return this;
        }

        public RestSchemaRegistryClient build() {
            return new RestSchemaRegistryClient(this);
        }

        private static Duration positive(Duration timeout, String what) {
            Objects.requireNonNull(timeout, what);
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + timeout);
            }
            return timeout;
        }

        private static String validateUrl(String url) {
            Objects.requireNonNull(url, "Schema Registry URL");
            String trimmed = url.strip();
            if (trimmed.contains(",")) {
                throw new IllegalArgumentException("only one Schema Registry URL is supported, got '" + url + "'");
            }
            URI uri;
            try {
                uri = new URI(trimmed);
            } catch (java.net.URISyntaxException e) {
                throw new IllegalArgumentException("invalid Schema Registry URL '" + url + "'", e);
            }
            String scheme = uri.getScheme();
            if (scheme == null
                    || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                    || uri.getHost() == null) {
                throw new IllegalArgumentException(
                        "Schema Registry URL must look like http://host:port, got '" + url + "'");
            }
            if (uri.getUserInfo() != null) {
                throw new IllegalArgumentException(
                        "put Schema Registry credentials in basic.auth.user.info, not in the URL");
            }
            return trimmed.endsWith("/") ? trimmed.substring(0, trimmed.length() - 1) : trimmed;
        }
    }
}
