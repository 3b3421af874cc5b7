package io.volery.server.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The JDK's HTTP server on a daemon thread of its own, for a node's monitoring endpoints (Prometheus metrics,
 * AdminServer commands): requests never run on a client or ring thread.
 */
final class HttpEndpoint implements AutoCloseable {
    private final HttpServer server;
    private final ExecutorService executor;

    /** @param what what is served, for the error when {@code bind} cannot be had ("metrics") */
    HttpEndpoint(InetSocketAddress bind, String what, String threadName) {
        try {
            server = HttpServer.create(bind, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve " + what + " on " + bind + ": " + e.getMessage(), e);
        }
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, threadName + "-" + bind.getPort());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
    }

    /** Serves {@code path} (and what is below it) with {@code handler}; the exchange is closed after it. */
    HttpEndpoint serve(String path, HttpHandler handler) {
        server.createContext(path, exchange -> {
            try (exchange) {
                handler.handle(exchange);
            }
        });
        return this;
    }

    HttpEndpoint start() {
        server.start();
        return this;
    }

    /** Sends {@code body} with status {@code code}; no body for a HEAD request. */
    static void respond(HttpExchange exchange, int code, String body, String type) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        exchange.sendResponseHeaders(code, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    InetSocketAddress localAddress() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
