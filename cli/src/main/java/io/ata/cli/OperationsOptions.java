package io.ata.cli;

import io.ata.platform.ops.OperationsEndpoints;
import java.io.PrintWriter;
import picocli.CommandLine.Option;

/**
 * {@code --metrics-port} and {@code --metrics-host} of a part that has no HTTP port of its own
 * (trainer, worker): where it serves {@code GET /metrics}, {@code /health} and {@code /ready}.
 */
final class OperationsOptions extends CheckedOptions {
    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            description = "Serve GET /metrics (Prometheus), /health and /ready on this port; 0 for any free port "
                    + "(default: not served).")
    Integer port;

    @Option(
            names = "--metrics-host",
            paramLabel = "HOST",
            defaultValue = "127.0.0.1",
            description = "Address --metrics-port listens on (default: ${DEFAULT-VALUE}; 0.0.0.0 for all).")
    String host;

    /** Fails on a port out of range, before anything starts. */
    void check() {
        if (port != null) {
            OptionChecks.requirePort(command, "--metrics-port", port);
        }
    }

    /** Serves {@code endpoints} if {@code --metrics-port} was given (and says where on {@code err}); else null. */
    OperationsEndpoints.Server serve(OperationsEndpoints endpoints, PrintWriter err) {
        if (port == null) {
            return null;
        }
        OperationsEndpoints.Server server = endpoints.serve(host, port);
        err.println("metrics: " + server.url() + "/metrics, /health, /ready");
        err.flush();
        return server;
    }
}
