package io.ata.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

/**
 * Asks a server's {@code GET /health} every {@code everyMs}, each time on a new connection (as a
 * load balancer's probe does: a kept-alive one would not show whether a newcomer gets in), and
 * measures how long the answer's status line takes. A probe gets {@link #TIMEOUT_MS} to connect
 * and as long again to be answered. Probes while the server's process is being restarted are kept
 * apart: nothing listens then.
 */
public final class HealthProbe implements AutoCloseable {
    /** How long a probe waits to connect, and then for its answer. */
    public static final int TIMEOUT_MS = 10_000;

    /**
     * One probe.
     *
     * @param atMs       when it was sent (wall clock)
     * @param latencyMs  connect to status line, in ms; NaN if unanswered
     * @param status     the HTTP status, -1 if none came
     * @param restarting whether the server was being restarted meanwhile
     * @param error      why it was not answered, empty if it was
     */
    public record Probe(long atMs, double latencyMs, int status, boolean restarting, String error) {
        public boolean answered() {
            return status > 0;
        }
    }

    private final String host;
    private final IntSupplier port;
    private final BooleanSupplier restarting;
    private final long everyMs;
    private final List<Probe> probes = new ArrayList<>();
    private volatile boolean running = true;
    private final Thread thread;

    /**
     * @param port       the server's port now (it may move to a new server object across restarts)
     * @param restarting true while the server's process is being restarted
     */
    public HealthProbe(String host, IntSupplier port, BooleanSupplier restarting, long everyMs) {
        this.host = host;
        this.port = port;
        this.restarting = restarting;
        this.everyMs = everyMs;
        this.thread = new Thread(this::loop, "soak-health-probe");
        thread.setDaemon(true);
    }

    public HealthProbe start() {
        thread.start();
        return this;
    }

    public synchronized List<Probe> probes() {
        return List.copyOf(probes);
    }

    private void loop() {
        while (running) {
            long started = System.currentTimeMillis();
            boolean before = restarting.getAsBoolean();
            Probe p = probe(started);
            boolean during = before || restarting.getAsBoolean();
            synchronized (this) {
                probes.add(new Probe(p.atMs(), p.latencyMs(), p.status(), during, p.error()));
            }
            long sleep = everyMs - (System.currentTimeMillis() - started);
            if (sleep > 0) {
                try {
                    Thread.sleep(sleep);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private Probe probe(long atMs) {
        long start = System.nanoTime();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port.getAsInt()), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            out.write(("GET /health HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String line = statusLine(socket.getInputStream());
            double ms = (System.nanoTime() - start) / 1e6;
            String[] parts = line.split(" ");
            if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
                return new Probe(atMs, Double.NaN, -1, false, "not HTTP: " + line);
            }
            return new Probe(atMs, ms, Integer.parseInt(parts[1]), false, "");
        } catch (IOException | NumberFormatException e) {
            return new Probe(atMs, Double.NaN, -1, false, e.toString());
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int b;
        while ((b = in.read()) >= 0 && b != '\n' && line.length() < 200) {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TIMEOUT_MS * 2L + 1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
