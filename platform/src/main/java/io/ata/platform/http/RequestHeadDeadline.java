package io.ata.platform.http;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Bounds how long a request's line and headers may take: a connection is closed unless a request
 * head has arrived whole within {@code timeout} of the connection's opening, or of the answer to
 * its previous request. The idle timeout alone does not bound it, as each byte restarts it: a head
 * sent a byte every few seconds would hold its connection for hours. Jetty has no setting for
 * this, so the deadline is a task on the server's scheduler, armed when a connection opens
 * (Jetty's {@link Connection.Listener}) and after every answer, and cancelled when a request
 * reaches the handlers, which is when its head is complete.
 *
 * <p>A kept-alive connection unused for {@code timeout} is closed too, as an idle one would be.
 */
final class RequestHeadDeadline extends Handler.Wrapper implements Connection.Listener {
    private final Scheduler scheduler;
    private final Duration timeout;
    private final Map<Connection, Deadline> deadlines = new ConcurrentHashMap<>();

    RequestHeadDeadline(Scheduler scheduler, Duration timeout, Handler handler) {
        super(handler);
        this.scheduler = scheduler;
        this.timeout = timeout;
    }

    @Override
    public void onOpened(Connection connection) {
        arm(connection);
    }

    @Override
    public void onClosed(Connection connection) {
        disarm(connection);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Connection connection = request.getConnectionMetaData().getConnection();
        disarm(connection); // the head is here
        boolean handled = false;
        try {
            // armed again before the answer completes: a next request may start right after it
            handled = super.handle(request, response, Callback.from(() -> arm(connection), callback));
            return handled;
        } finally {
            if (!handled) {
                arm(connection); // Jetty answers it itself
            }
        }
    }

    private void arm(Connection connection) {
        Deadline deadline = new Deadline(connection);
        Deadline before = deadlines.put(connection, deadline);
        if (before != null) {
            before.task.cancel();
        }
        if (!connection.getEndPoint().isOpen()) {
            disarm(connection); // closed meanwhile: onClosed may have come first
        }
    }

    private void disarm(Connection connection) {
        Deadline deadline = deadlines.remove(connection);
        if (deadline != null) {
            deadline.task.cancel();
        }
    }

    /** The deadline of a connection's next request head. */
    private final class Deadline implements Runnable {
        private final Connection connection;
        private final Scheduler.Task task;

        Deadline(Connection connection) {
            this.connection = connection;
            this.task = scheduler.schedule(this, timeout);
        }

        @Override
        public void run() {
            if (deadlines.remove(connection, this)) { // not cancelled by a head that just arrived
                connection
                        .getEndPoint()
                        .close(new TimeoutException("no whole request head within " + timeout.toSeconds() + " s"));
            }
        }
    }
}
