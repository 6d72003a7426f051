package io.ata.bench;

import io.ata.platform.Threads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Slow and silent HTTP clients against a server, all on one thread (non-blocking sockets), each
 * replaced when the server lets it go: <b>tricklers</b> that send a request's head and then its
 * body a byte every 2 s, <b>half-open</b> connections that send part of a request line and stall,
 * and <b>idle</b> ones that send nothing. Now and then a <b>crowd</b>: more idle connections than the
 * server accepts (512), held for a while. The servers are to cut them (408, or closed) and keep
 * answering everyone else.
 */
public final class SlowHttpClients implements AutoCloseable {
    /** A server to pester: a name for the report, where it listens, and a path its POSTs go to. */
    public record Target(String name, String host, int port, String postPath) {}

    private enum Style {
        TRICKLE,
        HALF_OPEN,
        IDLE,
        CROWD
    }

    private static final long TICK_MS = 250;
    private static final long TRICKLE_EVERY_MS = 2000;
    private static final long REPLACE_AFTER_MS = 1000;
    private static final int TRICKLERS = 4;
    private static final int HALF_OPEN = 8;
    private static final int IDLE = 8;

    /** Connections opened, ended by the server (closed, reset or answered), and answered with 408. */
    private final AtomicLong opened = new AtomicLong();

    private final AtomicLong cut = new AtomicLong();
    private final AtomicLong timedOut408 = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final List<Target> targets;
    private final SoakEvents events;
    private final List<Connection> connections = new ArrayList<>(); // the loop thread's
    private final List<Replacement> replacements = new ArrayList<>(); // the loop thread's
    private volatile boolean running = true;
    private volatile Crowd crowdWanted;
    private final Thread thread;

    /** A connection to open at {@code atMs}; a crowd's only until {@code untilMs}. */
    private record Replacement(Target target, Style style, long atMs, long untilMs) {}

    private record Crowd(Target target, int connections, long untilMs) {}

    public SlowHttpClients(List<Target> targets, SoakEvents events) {
        this.targets = List.copyOf(targets);
        this.events = events;
        this.thread = new Thread(this::loop, "soak-slow-http-clients");
        thread.setDaemon(true);
    }

    public SlowHttpClients start() {
        long now = System.currentTimeMillis();
        for (Target t : targets) {
            for (int i = 0; i < TRICKLERS; i++) {
                replacements.add(new Replacement(t, Style.TRICKLE, now, 0));
            }
            for (int i = 0; i < HALF_OPEN; i++) {
                replacements.add(new Replacement(t, Style.HALF_OPEN, now, 0));
            }
            for (int i = 0; i < IDLE; i++) {
                replacements.add(new Replacement(t, Style.IDLE, now, 0));
            }
        }
        thread.start();
        return this;
    }

    /** Opens {@code n} idle connections to {@code target}, replaced as the server closes them, for {@code holdMs}. */
    public void crowd(Target target, int n, long holdMs) {
        crowdWanted = new Crowd(target, n, System.currentTimeMillis() + holdMs);
        events.add("crowd", n + " idle connections to the " + target.name() + " for " + holdMs / 1000 + " s");
    }

    private final class Connection {
        final Target target;
        final Style style;
        final SocketChannel channel;
        final long openedMs;
        final long crowdUntilMs;
        boolean connected;
        long lastWriteMs;
        int bodyLeft = 4096;
        final ByteBuffer read = ByteBuffer.allocate(512);

        Connection(Target target, Style style, SocketChannel channel, long crowdUntilMs) {
            this.target = target;
            this.style = style;
            this.channel = channel;
            this.openedMs = System.currentTimeMillis();
            this.crowdUntilMs = crowdUntilMs;
        }

        /** What the connection sends first, once connected. */
        byte[] head() {
            String host = "Host: " + target.host() + ":" + target.port() + "\r\n";
            return switch (style) {
                case TRICKLE ->
                    ("POST " + target.postPath() + " HTTP/1.1\r\n" + host
                                    + "Content-Type: application/json\r\nContent-Length: " + bodyLeft + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII);
                case HALF_OPEN -> "GET /heal".getBytes(StandardCharsets.US_ASCII);
                case IDLE, CROWD -> new byte[0];
            };
        }
    }

    private void loop() {
        while (running) {
            long now = System.currentTimeMillis();
            openDue(now);
            Crowd crowd = crowdWanted;
            if (crowd != null) {
                crowdWanted = null;
                for (int i = 0; i < crowd.connections(); i++) {
                    open(crowd.target(), Style.CROWD, crowd.untilMs());
                }
            }
            for (Iterator<Connection> it = connections.iterator(); it.hasNext(); ) {
                Connection c = it.next();
                if (!step(c, now)) {
                    it.remove();
                    closeQuietly(c.channel);
                    if (c.style != Style.CROWD || now < c.crowdUntilMs) {
                        replacements.add(new Replacement(c.target, c.style, now + REPLACE_AFTER_MS, c.crowdUntilMs));
                    }
                }
            }
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void openDue(long now) {
        List<Replacement> due = new ArrayList<>();
        for (Iterator<Replacement> it = replacements.iterator(); it.hasNext(); ) {
            Replacement r = it.next();
            if (r.atMs() <= now) {
                due.add(r);
                it.remove();
            }
        }
        for (Replacement r : due) {
            if (r.style() != Style.CROWD || now < r.untilMs()) {
                open(r.target(), r.style(), r.untilMs());
            }
        }
    }

    private void open(Target target, Style style, long crowdUntilMs) {
        try {
            SocketChannel channel = SocketChannel.open();
            channel.configureBlocking(false);
            channel.connect(new InetSocketAddress(target.host(), target.port()));
            connections.add(new Connection(target, style, channel, crowdUntilMs));
            opened.incrementAndGet();
        } catch (IOException e) {
            refused.incrementAndGet();
            replacements.add(
                    new Replacement(target, style, System.currentTimeMillis() + REPLACE_AFTER_MS, crowdUntilMs));
        }
    }

    /** Advances one connection; false once it is over. */
    private boolean step(Connection c, long now) {
        try {
            if (c.style == Style.CROWD && now >= c.crowdUntilMs) {
                return false; // the crowd disperses
            }
            if (!c.connected) {
                if (!c.channel.finishConnect()) {
                    return now - c.openedMs < 10_000;
                }
                c.connected = true;
                c.channel.write(ByteBuffer.wrap(c.head()));
                c.lastWriteMs = now;
                return true;
            }
            int n = c.channel.read(c.read);
            if (n < 0) {
                cut.incrementAndGet();
                return false;
            }
            if (c.read.position() > 0) {
                String answer = new String(c.read.array(), 0, c.read.position(), StandardCharsets.US_ASCII);
                if (answer.startsWith("HTTP/1.1 408") || answer.startsWith("HTTP/1.0 408")) {
                    timedOut408.incrementAndGet();
                }
                cut.incrementAndGet();
                return false;
            }
            if (c.style == Style.TRICKLE && c.bodyLeft > 0 && now - c.lastWriteMs >= TRICKLE_EVERY_MS) {
                c.channel.write(ByteBuffer.wrap(new byte[] {' '}));
                c.bodyLeft--;
                c.lastWriteMs = now;
            }
            return true;
        } catch (IOException e) {
            if (c.connected) {
                cut.incrementAndGet();
            } else {
                refused.incrementAndGet();
            }
            return false;
        }
    }

    /**
     * What the clients did so far.
     *
     * @param opened      connections opened
     * @param cut         connections the servers ended: closed, reset, or answered (a slow body's 408)
     * @param answered408 of those, the ones answered 408
     * @param refused     connections that could not be opened (the server down for a restart, or its backlog full)
     */
    public record Stats(long opened, long cut, long answered408, long refused) {
        /** A line for the report. */
        public String text() {
            return String.format(
                    Locale.ROOT,
                    "%d opened, %d cut by the servers (%d with 408), %d refused",
                    opened,
                    cut,
                    answered408,
                    refused);
        }
    }

    public Stats stats() {
        return new Stats(opened.get(), cut.get(), timedOut408.get(), refused.get());
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException e) {
            // going anyway
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        Threads.awaitEnd(thread, Duration.ofSeconds(5));
        for (Connection c : connections) {
            closeQuietly(c.channel);
        }
    }
}
