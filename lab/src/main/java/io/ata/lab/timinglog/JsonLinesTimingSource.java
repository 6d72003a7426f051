package io.ata.lab.timinglog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * Reads the JSON Lines form of a timing log: one JSON object per line, with the field names of the
 * CSV header. {@code worker} and {@code task} may be strings or integers, the numbers numbers (or
 * numeric strings); a missing or {@code null} field is a missing value; other fields are ignored.
 * Blank lines and lines starting with {@code #} are skipped.
 */
final class JsonLinesTimingSource {
    /** One value per line: a second object on the same line is an error, not the next record. */
    private static final ObjectReader JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .reader();

    private JsonLinesTimingSource() {}

    /** Hands every line to {@code out}, as a record or as an invalid line. */
    static void read(Reader in, TimingLineSink out) throws IOException {
        BufferedReader lines = in instanceof BufferedReader buffered ? buffered : new BufferedReader(in);
        long number = 0;
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            number++;
            String text = line.strip();
            if (text.isEmpty() || text.charAt(0) == '#') {
                continue;
            }
            TimingRecord record;
            try {
                record = fieldsOf(line).toRecord();
            } catch (InvalidLineException e) {
                out.invalidLine(number, e.getMessage());
                continue;
            }
            out.record(record);
        }
    }

    private static TimingFields fieldsOf(String line) {
        if (line.strip().startsWith("[")) {
            throw new InvalidLineException(
                    "expected one JSON object per line (JSON Lines); a JSON array is not supported");
        }
        JsonNode node;
        try {
            node = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            throw new InvalidLineException("invalid JSON: " + e.getOriginalMessage());
        }
        if (node == null || !node.isObject()) {
            throw new InvalidLineException("expected one JSON object per line (JSON Lines), found "
                    + (node == null ? "nothing" : node.getNodeType().toString().toLowerCase(Locale.ROOT)));
        }
        return new TimingFields(
                id(node, "worker"),
                number(node, "duration"),
                number(node, "round"),
                id(node, "task"),
                number(node, "timestamp"),
                string(node, "status"));
    }

    /** An id, which may be a string or an integer: as text, or null if absent. */
    private static String id(JsonNode object, String name) {
        return text(object, name, v -> v.isTextual() || v.isIntegralNumber(), "a string or an integer");
    }

    /** A number, as its text (so that {@link TimingFields} checks it as it checks a CSV cell), or null. */
    private static String number(JsonNode object, String name) {
        return text(object, name, v -> v.isNumber() || v.isTextual(), "a number");
    }

    private static String string(JsonNode object, String name) {
        return text(object, name, JsonNode::isTextual, "a string");
    }

    /**
     * The field {@code name} as text, or null if absent or null; a value of another kind than
     * {@code accepted} makes the line invalid.
     */
    private static String text(JsonNode object, String name, Predicate<JsonNode> accepted, String expected) {
        JsonNode v = object.get(name);
        if (v == null || v.isNull()) {
            return null;
        }
        if (accepted.test(v)) {
            return v.asText();
        }
        throw new InvalidLineException(name + " must be " + expected + ", was " + v);
    }
}
