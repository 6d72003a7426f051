package io.ata.platform.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * How a server's error answers look: their content type and the JSON object made of the status and
 * a message. Used for the errors the HTTP library answers itself (a malformed request line, a URL
 * over the limit), so that every error of a server looks like those its handler writes.
 *
 * @param contentType the {@code Content-Type} of error answers
 * @param body the JSON object (a map, serialised by Jackson) for a status and a message
 */
public record ErrorFormat(String contentType, BiFunction<Integer, String, Map<String, Object>> body) {

    /** {@code {"error": "message"}} as {@code application/json}: the broker's queries and the operations endpoints. */
    public static final ErrorFormat ERROR_FIELD =
            new ErrorFormat("application/json", (status, message) -> Map.of("error", message));

    public ErrorFormat {
        Objects.requireNonNull(contentType, "contentType");
        Objects.requireNonNull(body, "body");
    }

    /** Confluent Schema Registry's {@code {"error_code": status, "message": "..."}}, in {@code contentType}. */
    public static ErrorFormat confluent(String contentType) {
        return new ErrorFormat(contentType, (status, message) -> {
            Map<String, Object> json = new LinkedHashMap<>();
            json.put("error_code", status);
            json.put("message", message);
            return json;
        });
    }
}
