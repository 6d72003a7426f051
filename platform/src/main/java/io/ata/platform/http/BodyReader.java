package io.ata.platform.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.NanoTime;
import org.eclipse.jetty.util.Promise;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * Reads a request's whole body before its handler runs, without holding a thread: Jetty calls back
 * when bytes arrive, each chunk is copied out, and only the complete body is handed on. A client
 * that sends its body slowly, or not at all, costs a socket and the bytes it sent, never one of the
 * few threads the handlers run in.
 *
 * <p>The body must keep coming: before waiting for more, the bytes read so far are compared with
 * {@link #minBytesPerSecond} times the time since the headers, less a {@link #grace} for a
 * client's first packets (a small first write, Nagle's delay). A body that falls behind fails with
 * 408; one that stops altogether is failed by the connection's idle timeout, also 408. A body over
 * {@link #maxBytes} fails with 413, announced by its {@code Content-Length} or not.
 *
 * <p>Jetty 12's own settings for this do not do it: {@code HttpConfiguration.setMinRequestDataRate}
 * is kept for compatibility but no longer enforced, and {@code MinimumDataRateHandler} divides the
 * bytes its handler has read over all requests by the time of the current one, so once a server
 * has read a few kilobytes in total it lets any trickle pass. The rule here is the one Jetty's
 * maintainers proposed for those settings: measure the average rate only when about to wait for
 * the client, where a slow client shows and a slow application is not blamed on it.
 */
final class BodyReader implements Invocable.Task {
    private final Request request;
    private final int maxBytes;
    private final long minBytesPerSecond;
    private final long graceNanos;
    private final Promise<byte[]> promise;
    private final long start = NanoTime.now();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    private BodyReader(
            Request request, int maxBytes, long minBytesPerSecond, long graceNanos, Promise<byte[]> promise) {
        this.request = request;
        this.maxBytes = maxBytes;
        this.minBytesPerSecond = minBytesPerSecond;
        this.graceNanos = graceNanos;
        this.promise = promise;
    }

    /**
     * Reads {@code request}'s body and completes {@code promise} with it, in this thread if it is
     * all there, else in a Jetty thread when its last bytes arrive. The promise must not block: to
     * run a blocking handler, it hands the body to another thread. Its failure is an
     * {@link HttpException} (408, 413, or Jetty's 400 for a malformed chunk) or the connection's end.
     */
    static void read(Request request, int maxBytes, long minBytesPerSecond, long graceMillis, Promise<byte[]> promise) {
        Objects.requireNonNull(promise, "promise");
        long announced = request.getLength();
        if (announced > maxBytes) {
            promise.failed(tooLarge(announced, maxBytes));
            return;
        }
        new BodyReader(request, maxBytes, minBytesPerSecond, TimeUnit.MILLISECONDS.toNanos(graceMillis), promise).run();
    }

    /** Copies what has arrived; then waits for more, or completes the promise. */
    @Override
    public void run() {
        while (true) {
            Content.Chunk chunk = request.read();
            if (chunk == null) {
                if (fallingBehind()) {
                    promise.failed(new HttpException.RuntimeException(
                            HttpStatus.REQUEST_TIMEOUT_408,
                            "the request body came slower than " + minBytesPerSecond + " bytes a second"));
                    return;
                }
                request.demand(this);
                return;
            }
            if (Content.Chunk.isFailure(chunk)) {
                promise.failed(failure(chunk.getFailure()));
                return;
            }
            boolean last = chunk.isLast();
            ByteBuffer bytes = chunk.getByteBuffer();
            int n = bytes.remaining();
            if (body.size() + (long) n > maxBytes) {
                chunk.release();
                promise.failed(tooLarge(body.size() + (long) n, maxBytes));
                return;
            }
            byte[] copy = new byte[n];
            bytes.get(copy);
            chunk.release();
            body.write(copy, 0, n);
            if (last) {
                promise.succeeded(body.toByteArray());
                return;
            }
        }
    }

    /** Copying is quick, so Jetty may call back in its I/O thread. */
    @Override
    public InvocationType getInvocationType() {
        return InvocationType.NON_BLOCKING;
    }

    private boolean fallingBehind() {
        long late = NanoTime.since(start) - graceNanos;
        return late > 0 && body.size() < minBytesPerSecond * late / TimeUnit.SECONDS.toNanos(1);
    }

    private static Throwable failure(Throwable cause) {
        if (cause instanceof TimeoutException) {
            return new HttpException.RuntimeException(
                    HttpStatus.REQUEST_TIMEOUT_408, "the request body stopped arriving", cause);
        }
        return cause;
    }

    private static HttpException.RuntimeException tooLarge(long bytes, int maxBytes) {
        return new HttpException.RuntimeException(
                HttpStatus.PAYLOAD_TOO_LARGE_413,
                "the request body is " + bytes + " bytes or more, larger than the " + maxBytes + " allowed");
    }
}
