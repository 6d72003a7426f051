package io.ata.broker;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The broker's live web page: {@code GET /} is its HTML, {@code GET /ui/<file>} its script and
 * style. Plain static files in the jar ({@value #RESOURCES}), no build step; the page draws
 * everything from the JSON queries ({@code /jobs}, {@code /jobs/{job}/stats},
 * {@code /jobs/{job}/history}), which stay the source of truth. Only the files named in
 * {@link #FILES} are served, so no path reaches anything else on the class path.
 */
public final class WebPage {
    /** Where the files are on the class path. */
    static final String RESOURCES = "/io/ata/broker/ui/";
    /** The path prefix of the page's assets. */
    static final String ASSETS = "/ui/";

    /** The served files and their content types. */
    static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "app.js", "text/javascript; charset=utf-8",
            "style.css", "text/css; charset=utf-8");

    /** A file to send: its content type and bytes. */
    public record Asset(String contentType, byte[] body) {}

    private final Map<String, Asset> loaded = new ConcurrentHashMap<>();

    /** True for the paths of the page: {@code /} and {@code /ui/...}. */
    public static boolean serves(String path) {
        return path.equals("/") || path.startsWith(ASSETS);
    }

    /** The file for {@code path} ({@code /} is {@code index.html}); empty if there is none. */
    public Optional<Asset> asset(String path) {
        String name = path.equals("/") ? "index.html" : path.substring(ASSETS.length());
        String type = FILES.get(name);
        if (type == null) {
            return Optional.empty();
        }
        return Optional.of(loaded.computeIfAbsent(name, n -> new Asset(type, read(n))));
    }

    private static byte[] read(String name) {
        try (InputStream in = WebPage.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException("the web page's " + name + " is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the web page's " + name, e);
        }
    }
}
