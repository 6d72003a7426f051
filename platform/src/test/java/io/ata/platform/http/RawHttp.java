package io.ata.platform.http;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ata.platform.Threads;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A hostile HTTP client on raw sockets: it sends what no well-behaved client library would (half a
 * request line, a 100 KB URL, a malformed escape) and reads the answer byte for byte.
 */
public final class RawHttp {
    /** How long a client waits for an answer: generous, so a slow machine fails no test, a stalled server does. */
    public static final Duration ANSWER_WITHIN = Duration.ofSeconds(30);

    private RawHttp() {}

    /** An answer: status, headers (names in lower case) and the body bytes. */
    public record Answer(int status, Map<String, String> headers, byte[] body) {
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * Opens {@code count} connections that each send the start of a request line and then nothing:
     * the slow-loris client. The caller closes them.
     */
    public static List<Socket> halfOpen(int port, int count) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Socket s = new Socket("127.0.0.1", port);
            s.getOutputStream().write("GET /hea".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            sockets.add(s);
        }
        return sockets;
    }

    /**
     * Opens {@code count} connections that each send the head of a {@code POST target} announcing a
     * body of {@code length} bytes, and its first byte: slow-body clients, to be fed by
     * {@link #trickle} or left stalled. The caller closes them.
     */
    public static List<Socket> slowBodies(int port, int count, String target, int length) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Socket s = new Socket("127.0.0.1", port);
            s.getOutputStream()
                    .write(("POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: " + length + "\r\n\r\n{")
                            .getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            sockets.add(s);
        }
        return sockets;
    }

    /**
     * Sends one more byte of a body on each of {@code sockets} every {@code every}, until they are
     * closed (by either side); stop it with {@link Trickle#close()}.
     */
    public static Trickle trickle(List<Socket> sockets, Duration every) {
        ScheduledExecutorService timer = Threads.daemonScheduler("trickle");
        timer.scheduleAtFixedRate(
                () -> {
                    for (Socket s : sockets) {
                        try {
                            s.getOutputStream().write(' ');
                            s.getOutputStream().flush();
                        } catch (IOException closed) {
                            // the server cut it off: the point of most tests
                        }
                    }
                },
                every.toMillis(),
                every.toMillis(),
                TimeUnit.MILLISECONDS);
        return timer::shutdownNow;
    }

    /** A running {@link #trickle}. */
    public interface Trickle extends AutoCloseable {
        @Override
        void close();
    }

    /** Closes every socket of {@code sockets}. */
    public static void closeAll(List<Socket> sockets) throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
    }

    /**
     * Reads what the server sends on {@code socket} within {@code within}: an answer (status 0 if
     * it closed the connection without one).
     */
    public static Answer answerOrClose(Socket socket, Duration within) throws IOException {
        socket.setSoTimeout((int) within.toMillis());
        try {
            return parse(socket.getInputStream());
        } catch (SocketTimeoutException stillOpen) {
            throw stillOpen;
        } catch (IOException closed) {
            return new Answer(0, Map.of(), new byte[0]);
        }
    }

    /** Asserts the server has neither answered nor closed {@code socket}: it is still open and waiting. */
    public static void assertStillOpen(Socket socket) throws IOException {
        socket.setSoTimeout(100);
        assertThrows(SocketTimeoutException.class, () -> socket.getInputStream().read(), "the connection is open");
    }

    /** {@link #assertStillOpen} of every socket of {@code sockets}. */
    public static void assertAllStillOpen(List<Socket> sockets) throws IOException {
        for (Socket s : sockets) {
            assertStillOpen(s);
        }
    }

    /** Sends {@code method target} with {@code Connection: close} and the given extra header lines; reads the answer. */
    public static Answer request(int port, String method, String target, String... headerLines) throws IOException {
        StringBuilder request = new StringBuilder(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (String line : headerLines) {
            request.append(line).append("\r\n");
        }
        request.append("Connection: close\r\n\r\n");
        return send(port, request.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /**
     * Sends {@code method target} as {@link #request} does, but waits at most {@code within} for the
     * answer: a liveness bound, for requests that must not wait behind slow clients.
     */
    public static Answer requestWithin(Duration within, int port, String method, String target) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout((int) within.toMillis());
            s.getOutputStream()
                    .write((method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.ISO_8859_1));
            return parse(s.getInputStream());
        }
    }

    /** Sends {@code POST target} with {@code body} (a Content-Length) and {@code Connection: close}; reads the answer. */
    public static Answer post(int port, String target, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String head = "POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n";
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(head.getBytes(StandardCharsets.US_ASCII));
        request.writeBytes(bytes);
        return send(port, request.toByteArray());
    }

    /** Sends {@code bytes} as they are and reads the answer up to the end of the connection. */
    public static Answer send(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout((int) ANSWER_WITHIN.toMillis());
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            return parse(s.getInputStream());
        }
    }

    /**
     * Reads one answer to {@code method} from {@code in}: no body for HEAD, else a body of
     * {@code Content-Length} bytes, else everything up to the end of the connection.
     */
    public static Answer read(InputStream in, String method) throws IOException {
        return parse(in, method.equals("HEAD"));
    }

    private static Answer parse(InputStream in) throws IOException {
        return parse(in, false);
    }

    private static Answer parse(InputStream in, boolean head) throws IOException {
        String statusLine = line(in);
        String[] parts = statusLine.split(" ", 3);
        assertTrue(parts.length >= 2 && parts[0].startsWith("HTTP/1."), "a status line: " + statusLine);
        int status = Integer.parseInt(parts[1]);
        Map<String, String> headers = new TreeMap<>();
        for (String h = line(in); !h.isEmpty(); h = line(in)) {
            int colon = h.indexOf(':');
            headers.put(
                    h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    h.substring(colon + 1).trim());
        }
        String length = headers.get("content-length");
        if (head) {
            return new Answer(status, headers, new byte[0]);
        }
        if (length != null) {
            return new Answer(status, headers, in.readNBytes(Integer.parseInt(length)));
        }
        // The body up to the end of the connection (Connection: close), de-chunked if chunked
        byte[] rest = in.readAllBytes();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            rest = unchunk(rest);
        }
        return new Answer(status, headers, rest);
    }

    private static byte[] unchunk(byte[] chunked) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int i = 0;
        while (true) {
            int eol = indexOf(chunked, i);
            int size = Integer.parseInt(
                    new String(chunked, i, eol - i, StandardCharsets.US_ASCII).split(";")[0].trim(), 16);
            if (size == 0) {
                return body.toByteArray();
            }
            body.write(chunked, eol + 2, size);
            i = eol + 2 + size + 2;
        }
    }

    private static int indexOf(byte[] bytes, int from) {
        for (int i = from; i + 1 < bytes.length; i++) {
            if (bytes[i] == '\r' && bytes[i + 1] == '\n') {
                return i;
            }
        }
        throw new IllegalArgumentException("no CRLF after " + from);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b == -1) {
                throw new IOException("the connection ended inside the header");
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }
}
