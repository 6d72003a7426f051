package io.ata.platform.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Renders the errors Jetty answers itself (a malformed request line or URI, a URL or headers over
 * the limit, a handler that failed) in the server's {@link ErrorFormat} instead of Jetty's HTML
 * page. The message is Jetty's reason, bounded by {@link Echo}: never the request repeated.
 */
final class JsonErrorHandler implements Request.Handler {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ErrorFormat format;

    JsonErrorHandler(ErrorFormat format) {
        this.format = format;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws JsonProcessingException {
        int status = response.getStatus();
        Object reason = request.getAttribute(ErrorHandler.ERROR_MESSAGE);
        String message = HttpStatus.getMessage(status);
        if (reason instanceof String r && !r.isBlank() && !r.equals(message)) {
            message = message + ": " + r;
        }
        byte[] body = JSON.writeValueAsBytes(format.body().apply(status, Echo.bounded(message)));
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, format.contentType());
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }
}
