package io.ata.broker;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Asks other broker instances' HTTP queries on behalf of a client. Every request carries the
 * {@link BrokerHttpServer#FORWARDED_HEADER} hop guard, so the instance that receives it answers
 * from its own store or not at all, and never forwards it further.
 */
final class RemoteInstances {
    private final String self;
    private final Duration timeout;
    private final HttpClient client;

    /**
     * @param self    this instance, {@code host:port}, named in the hop guard
     * @param timeout for connecting and for the whole answer: short, as the client waits meanwhile
     */
    RemoteInstances(String self, Duration timeout) {
        this.self = self;
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .connectTimeout(timeout)
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    /**
     * GETs {@code pathAndQuery} (raw, already encoded, starting with {@code /}) from {@code target}.
     * The future fails if the instance cannot be reached or does not answer within the timeout.
     */
    CompletableFuture<QueryReply> get(HostInfo target, String pathAndQuery) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + address(target) + pathAndQuery))
                .timeout(timeout)
                .header(BrokerHttpServer.FORWARDED_HEADER, self)
                .GET()
                .build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                .thenApply(r -> new QueryReply(
                        r.statusCode(),
                        r.body(),
                        r.headers().firstValue(BrokerHttpServer.INSTANCE_HEADER).orElse(address(target)),
                        r.headers().firstValue("Retry-After").isPresent()));
    }

    /** {@code host:port}, with an IPv6 literal in brackets as URLs need. */
    static String address(HostInfo host) {
        String h = host.host();
        return (h.contains(":") && !h.startsWith("[") ? "[" + h + "]" : h) + ":" + host.port();
    }
}
