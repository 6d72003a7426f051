package io.ata.cli;

import io.ata.local.RunFailure;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.utils.Utils;

/**
 * Checks that at least one of the {@code bootstrap.servers} accepts a TCP connection, before a
 * Kafka client is made. A Kafka client that cannot connect retries for its whole timeout and logs
 * a warning on every retry ("Connection to node -1 could not be established"), and the error it
 * finally gives ("Timed out waiting for a node assignment") hides the cause. This probe answers
 * within {@link #CONNECT_TIMEOUT} per address, silently, and names the cause of each address:
 * not a {@code host:port}, a host that does not resolve, a refused or timed-out connection.
 * Security (TLS, SASL) is left to the client: a TCP connection is all this checks.
 */
final class BootstrapProbe {
    /** How long one address may take to accept a connection. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);

    private BootstrapProbe() {}

    /**
     * Returns normally if some address accepts a connection.
     *
     * @param bootstrapServers a {@code bootstrap.servers} list: {@code host:port[,host:port...]}
     * @throws RunFailure one line naming, for each address, why it could not be reached
     */
    static void requireReachable(String bootstrapServers) {
        List<String> causes = new ArrayList<>();
        for (String address : bootstrapServers.split(",")) {
            String server = address.strip();
            if (server.isEmpty()) {
                continue;
            }
            String cause = whyUnreachable(server);
            if (cause == null) {
                return;
            }
            causes.add(cause);
        }
        throw new RunFailure("cannot reach Kafka at " + bootstrapServers + ": "
                + (causes.isEmpty() ? "no address given" : String.join("; ", causes)));
    }

    /** Null if {@code server} accepts a TCP connection, else why not, in a few words. */
    static String whyUnreachable(String server) {
        String host = Utils.getHost(server);
        Integer port = Utils.getPort(server);
        if (host == null || port == null || port < 0 || port > 65535) {
            return server + " is not a host:port";
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            return "cannot resolve host " + host;
        }
        try (Socket socket = new Socket()) {
            socket.connect(address, (int) CONNECT_TIMEOUT.toMillis());
            return null;
        } catch (ConnectException e) {
            return server + ": connection refused (is Kafka running and listening there?)";
        } catch (SocketTimeoutException e) {
            return server + ": no answer within " + CONNECT_TIMEOUT.toSeconds() + " s";
        } catch (IOException e) {
            return server + ": " + e.getMessage();
        }
    }
}
