package io.ata.schemas.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Constants of the Confluent Schema Registry REST protocol shared by the HTTP client
 * ({@link RestSchemaRegistryClient}) and the HTTP server of the embedded registry
 * ({@code io.ata.platform.registry}), so both sides agree by construction.
 */
public final class RegistryProtocol {

    /** Content type of request and response bodies. */
    public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    /** What the client accepts, as Confluent's own client sends it. */
    public static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, "
                    + "application/json; qs=0.5";

    // error_code values of the registry's error answers {"error_code": N, "message": "..."}
    public static final int SUBJECT_NOT_FOUND = 40401;
    public static final int VERSION_NOT_FOUND = 40402;
    public static final int SCHEMA_NOT_FOUND = 40403;
    /** The subject has no compatibility level of its own ({@code GET /config/{subject}}). */
    public static final int SUBJECT_LEVEL_NOT_FOUND = 40408;
    /** Registering would break the subject's compatibility level; also the HTTP status. */
    public static final int INCOMPATIBLE_SCHEMA = 409;

    public static final int INVALID_SCHEMA = 42201;
    public static final int INVALID_VERSION = 42202;
    public static final int INVALID_COMPATIBILITY_LEVEL = 42203;
    /** Any server-side failure, the schemas topic's included (Confluent: "error in the backend store"). */
    public static final int INTERNAL_ERROR = 50001;

    /** Thread-safe once configured; shared by both sides. */
    public static final ObjectMapper JSON = new ObjectMapper();

    private RegistryProtocol() {}

    /** Whether {@code errorCode} is one of the "does not exist" codes. */
    public static boolean isNotFound(int errorCode) {
        return errorCode == SUBJECT_NOT_FOUND || errorCode == VERSION_NOT_FOUND || errorCode == SCHEMA_NOT_FOUND;
    }

    /** Escapes a subject for use as one URL path segment. */
    public static String pathSegment(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
