package io.ata.platform.http;

import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.LowResourceMonitor;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server of every part (the broker's queries, the embedded Schema Registry, the trainer's
 * and agents' {@code /metrics}): Jetty, serving one JDK {@link HttpHandler}, with limits that
 * keep it answering whatever its clients do.
 * <ul>
 *   <li>Jetty reads request lines and headers, and {@link BodyReader} the bodies, without holding a
 *       thread: a handler runs only once its request has arrived whole, so connections that send
 *       half a request and stall, or trickle it in, cost a socket, not a worker.</li>
 *   <li>A body must arrive at {@link #MIN_REQUEST_BODY_RATE} bytes a second or faster (408), and
 *       be at most {@link #MAX_REQUEST_BODY_BYTES} (413).</li>
 *   <li>A connection silent for {@link #IDLE_TIMEOUT} is closed (also one that stops sending a body,
 *       answered 408, or reading an answer).</li>
 *   <li>The request line and headers together may be {@link #MAX_REQUEST_HEAD_BYTES}: a longer URL
 *       is answered 414, longer headers 431. They must arrive within {@link #REQUEST_HEAD_TIMEOUT}
 *       of the connection's opening or of its previous answer ({@link RequestHeadDeadline}), else
 *       the connection is closed.</li>
 *   <li>At most {@link #MAX_CONNECTIONS} connections at once; beyond that new ones wait to be
 *       accepted. Above {@link #CROWDED_CONNECTIONS} the server is crowded and closes connections
 *       silent for {@link #CROWDED_IDLE_TIMEOUT}, so that clients which hold connections without
 *       using them cannot keep out others (a {@code /health} probe).</li>
 *   <li>{@code HEAD} is answered as {@code GET} without the body.</li>
 *   <li>Every error, also those Jetty answers itself (a malformed request line or escape, a
 *       handler that threw), has a JSON body in the server's {@link ErrorFormat}, and repeats at
 *       most a bounded prefix of the request ({@link Echo}).</li>
 * </ul>
 * The port is bound when the server is created, so its actual number (of port 0 too) is known
 * before it {@link #start() starts} answering.
 */
public final class JsonHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(JsonHttpServer.class);

    /** How long a connection may send or read nothing before it is closed. */
    public static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * How long a connection may take to send a request line and headers, from its opening or from
     * the answer to its previous request: a head that trickles in, or a kept-alive connection left
     * unused, is closed after it.
     */
    public static final Duration REQUEST_HEAD_TIMEOUT = Duration.ofSeconds(20);
    /** The most bytes of a request line and headers: a URL longer than this is answered 414. */
    public static final int MAX_REQUEST_HEAD_BYTES = 8 * 1024;
    /** The largest request body: far above any schema or query, far below a memory problem (413 above it). */
    public static final int MAX_REQUEST_BODY_BYTES = 1 << 20;
    /**
     * The slowest a request body may arrive, on average from the end of the headers (after
     * {@link #REQUEST_BODY_GRACE}): a body that falls behind is answered 408 and its connection
     * closed. A client on any real network sends far faster; one that trickles a byte now and then
     * is cut off at the first byte that comes late.
     */
    public static final long MIN_REQUEST_BODY_RATE = 1024;
    /** How long a body may take before {@link #MIN_REQUEST_BODY_RATE} counts: a client's first packets may wait. */
    public static final Duration REQUEST_BODY_GRACE = Duration.ofSeconds(1);
    /** The most open connections; further ones wait in the accept queue. */
    public static final int MAX_CONNECTIONS = 512;

    /**
     * Above this many open connections the server is crowded: every connection silent for
     * {@link #CROWDED_IDLE_TIMEOUT} is closed, so that stalled and trickling clients make room
     * before {@link #MAX_CONNECTIONS} locks out a probe of {@code /health}.
     */
    public static final int CROWDED_CONNECTIONS = MAX_CONNECTIONS * 3 / 4;
    /** How long a connection may be silent while the server is crowded. */
    public static final Duration CROWDED_IDLE_TIMEOUT = Duration.ofSeconds(1);
    /** How often the connections are counted (and the short idle timeout applied to new ones). */
    private static final Duration CROWDING_CHECK_PERIOD = Duration.ofMillis(250);

    /** One thread accepts connections, one selector reads and writes them without blocking. */
    private static final int NETWORK_THREADS = 2;

    private final Server server;
    private final ServerConnector connector;
    private final String host;

    private JsonHttpServer(Server server, ServerConnector connector, String host) {
        this.server = server;
        this.connector = connector;
        this.host = host;
    }

    /**
     * Binds {@code address} now (port 0: any free port) for {@code handler}, which answers nothing
     * until {@link #start()}.
     *
     * @param name the name of the server's threads, e.g. {@code ata-broker-http}
     * @param requestThreads how many requests are handled at once (each in a thread of its own, so
     *     a handler may block, e.g. on another instance)
     * @param errors the shape of error answers
     * @throws UncheckedIOException if the address cannot be bound
     */
    public static JsonHttpServer bind(
            String name, InetSocketAddress address, int requestThreads, ErrorFormat errors, HttpHandler handler) {
        return bind(name, address, requestThreads, errors, handler, REQUEST_HEAD_TIMEOUT);
    }

    /** {@link #bind(String, InetSocketAddress, int, ErrorFormat, HttpHandler)} with another {@link #REQUEST_HEAD_TIMEOUT}. */
    static JsonHttpServer bind(
            String name,
            InetSocketAddress address,
            int requestThreads,
            ErrorFormat errors,
            HttpHandler handler,
            Duration requestHeadTimeout) {
        Objects.requireNonNull(handler, "handler");
        if (requestThreads < 1) {
            throw new IllegalArgumentException("requestThreads must be at least 1, not " + requestThreads);
        }
        QueuedThreadPool threads = new QueuedThreadPool(requestThreads + NETWORK_THREADS, 1);
        threads.setName(name);
        threads.setDaemon(true); // as the JDK server's: they do not keep the process alive
        threads.setReservedThreads(0);
        // the scheduler of timeouts and of the crowding check, a daemon like the other threads
        Server server = new Server(threads, new ScheduledExecutorScheduler(name + "-scheduler", true), null);

        HttpConfiguration config = new HttpConfiguration();
        config.setRequestHeaderSize(MAX_REQUEST_HEAD_BYTES);
        config.setSendServerVersion(false);
        config.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config));
        connector.setHost(address.getHostString());
        connector.setPort(address.getPort());
        connector.setIdleTimeout(IDLE_TIMEOUT.toMillis());
        server.addConnector(connector);
        server.addBean(new NetworkConnectionLimit(MAX_CONNECTIONS, connector));
        server.addBean(crowdingMonitor(server, connector));

        server.setErrorHandler(new JsonErrorHandler(errors));
        RequestHeadDeadline heads =
                new RequestHeadDeadline(server.getScheduler(), requestHeadTimeout, new ExchangeHandler(handler));
        connector.addEventListener(heads); // told of every connection opened and closed
        server.setHandler(heads);
        try {
            connector.open();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + address.getHostString() + ":" + address.getPort(), e);
        }
        return new JsonHttpServer(server, connector, address.getHostString());
    }

    /**
     * Jetty's {@link LowResourceMonitor}, counting connections: while more than
     * {@link #CROWDED_CONNECTIONS} are open, every one, also those accepted meanwhile, gets the
     * idle timeout {@link #CROWDED_IDLE_TIMEOUT}. A client that holds a connection without using it
     * (half a request, a body a byte at a time, an idle keep-alive) is then closed within about a
     * second, while one that is sending or being answered goes on; the connections freed let the
     * next ones in, an orchestrator's liveness probe among them. New connections are still
     * accepted, up to {@link #MAX_CONNECTIONS}.
     */
    private static LowResourceMonitor crowdingMonitor(Server server, ServerConnector connector) {
        LowResourceMonitor monitor = new LowResourceMonitor(server);
        monitor.setMonitoredConnectors(List.of(connector));
        monitor.addLowResourceCheck(monitor.new MaxConnectionsLowResourceCheck(CROWDED_CONNECTIONS));
        monitor.setPeriod((int) CROWDING_CHECK_PERIOD.toMillis());
        monitor.setLowResourcesIdleTimeout((int) CROWDED_IDLE_TIMEOUT.toMillis());
        // from the first period on, apply the short timeout at every check: also to new connections
        monitor.setMaxLowResourcesTime((int) CROWDING_CHECK_PERIOD.toMillis());
        monitor.setAcceptingInLowResources(true);
        return monitor;
    }

    /** Starts answering. */
    public JsonHttpServer start() {
        try {
            server.start();
        } catch (Exception e) {
            throw new IllegalStateException("the HTTP server on port " + port() + " did not start", e);
        }
        return this;
    }

    /** The port it listens on (the actual one when 0 was asked for). */
    public int port() {
        return connector.getLocalPort();
    }

    /** The host it was asked to listen on, as given. */
    public String host() {
        return host;
    }

    /** Stops answering and closes every connection. */
    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            log.warn("the HTTP server on port {} did not stop cleanly: {}", port(), e.toString());
        }
    }

    /**
     * Reads each request's body without a thread ({@link BodyReader}), then hands the request to the
     * JDK handler in a thread of the pool, where it may block (it reads and writes with streams). A
     * request target that is no valid URI (a malformed escape) is answered 400 here, before the
     * body is read or the handler sees it.
     */
    private static final class ExchangeHandler extends Handler.Abstract {
        private final HttpHandler handler;

        ExchangeHandler(HttpHandler handler) {
            super(InvocationType.NON_BLOCKING); // blocks nowhere: the JDK handler runs in a thread of its own
            this.handler = handler;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            URI uri;
            try {
                uri = new URI(request.getHttpURI().getPathQuery());
            } catch (URISyntaxException e) {
                Response.writeError(
                        request,
                        response,
                        callback,
                        HttpStatus.BAD_REQUEST_400,
                        "malformed URL: " + e.getReason() + " at index " + e.getIndex());
                return true;
            }
            BodyReader.read(
                    request,
                    MAX_REQUEST_BODY_BYTES,
                    MIN_REQUEST_BODY_RATE,
                    REQUEST_BODY_GRACE.toMillis(),
                    new Promise<>() {
                        @Override
                        public void succeeded(byte[] body) {
                            request.getContext().execute(() -> serve(request, response, callback, uri, body));
                        }

                        @Override
                        public void failed(Throwable failure) {
                            if (failure instanceof HttpException http) {
                                Response.writeError(request, response, callback, http.getCode(), http.getReason());
                            } else {
                                callback.failed(failure); // the connection ended: nobody to answer
                            }
                        }
                    });
            return true;
        }

        private void serve(Request request, Response response, Callback callback, URI uri, byte[] body) {
            JettyExchange exchange = new JettyExchange(request, response, uri, body);
            try {
                handler.handle(exchange);
                exchange.close();
                callback.succeeded();
            } catch (IOException | RuntimeException e) {
                if (exchange.answered()) {
                    callback.failed(e); // half an answer is out: only closing the connection is left
                } else {
                    log.warn(
                            "{} {} failed",
                            request.getMethod(),
                            Echo.bounded(request.getHttpURI().getPath()),
                            e);
                    Response.writeError(
                            request, response, callback, HttpStatus.INTERNAL_SERVER_ERROR_500, "internal error");
                }
            }
        }
    }
}
