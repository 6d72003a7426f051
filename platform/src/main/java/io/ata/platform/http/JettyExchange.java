package io.ata.platform.http;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpPrincipal;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * One Jetty request seen through the JDK's {@link HttpExchange}, the API our handlers are written
 * to: Jetty parses and frames the HTTP, this only hands the parsed request over and the answer back.
 *
 * <p>{@code HEAD} is shown to the handler as {@code GET}: it answers as for a GET, and Jetty,
 * which knows the request was a HEAD, sends the status and headers (Content-Length included)
 * without the body.
 */
final class JettyExchange extends HttpExchange {
    private final Request request;
    private final Response response;
    private final URI uri;
    private final byte[] body;
    private final Headers requestHeaders = new Headers();
    private final Headers responseHeaders = new Headers();
    private InputStream in;
    private OutputStream out;
    private int status = -1;

    /**
     * @param uri the request target, already checked to be a valid URI
     * @param body the whole request body, read before the handler runs
     */
    JettyExchange(Request request, Response response, URI uri, byte[] body) {
        this.request = request;
        this.response = response;
        this.uri = uri;
        this.body = body;
        for (HttpField field : request.getHeaders()) {
            if (field.getValue() != null) {
                requestHeaders.add(field.getName(), field.getValue());
            }
        }
    }

    @Override
    public Headers getRequestHeaders() {
        return requestHeaders;
    }

    @Override
    public Headers getResponseHeaders() {
        return responseHeaders;
    }

    @Override
    public URI getRequestURI() {
        return uri;
    }

    @Override
    public String getRequestMethod() {
        String method = request.getMethod();
        return method.equals("HEAD") ? "GET" : method;
    }

    /** Not used by our handlers: every server has the one context "/". */
    @Override
    public HttpContext getHttpContext() {
        throw new UnsupportedOperationException("no HttpContext: the handler serves every path");
    }

    @Override
    public void close() {
        try {
            getResponseBody().close(); // completes the answer
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public InputStream getRequestBody() {
        if (in == null) {
            in = new ByteArrayInputStream(body);
        }
        return in;
    }

    @Override
    public OutputStream getResponseBody() {
        if (out == null) {
            out = Content.Sink.asOutputStream(response);
        }
        return out;
    }

    /** As the JDK's: length > 0 is the body's length, 0 an unknown length (chunked), -1 no body. */
    @Override
    public void sendResponseHeaders(int code, long length) {
        if (status != -1) {
            throw new IllegalStateException("the response headers were already sent");
        }
        status = code;
        for (Map.Entry<String, List<String>> header : responseHeaders.entrySet()) {
            for (String value : header.getValue()) {
                response.getHeaders().add(header.getKey(), value);
            }
        }
        if (length > 0) {
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, length);
        } else if (length < 0 && !response.getHeaders().contains(HttpHeader.CONTENT_LENGTH)) {
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0L);
        }
        response.setStatus(code);
    }

    @Override
    public InetSocketAddress getRemoteAddress() {
        return inet(request.getConnectionMetaData().getRemoteSocketAddress());
    }

    @Override
    public int getResponseCode() {
        return status;
    }

    @Override
    public InetSocketAddress getLocalAddress() {
        return inet(request.getConnectionMetaData().getLocalSocketAddress());
    }

    @Override
    public String getProtocol() {
        return request.getConnectionMetaData().getProtocol();
    }

    @Override
    public Object getAttribute(String name) {
        return request.getAttribute(name);
    }

    @Override
    public void setAttribute(String name, Object value) {
        request.setAttribute(name, value);
    }

    @Override
    public void setStreams(InputStream i, OutputStream o) {
        if (i != null) {
            in = i;
        }
        if (o != null) {
            out = o;
        }
    }

    @Override
    public HttpPrincipal getPrincipal() {
        return null;
    }

    /** Whether the handler has begun its answer (after which an error can no longer be answered). */
    boolean answered() {
        return status != -1 || response.isCommitted();
    }

    private static InetSocketAddress inet(SocketAddress address) {
        return address instanceof InetSocketAddress inet ? inet : null;
    }
}
