package io.volery.server.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Serves a registry in Prometheus' text format on {@code GET /metrics}. */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final HttpServer server;
    private final ExecutorService executor;

    /**
     * @param beforeScrape refreshes values that are read asynchronously (the tree census)
     */
    public MetricsEndpoint(InetSocketAddress bind, PrometheusMeterRegistry registry, Runnable beforeScrape) {
        try {
            server = HttpServer.create(bind, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + bind + ": " + e.getMessage(), e);
        }
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "volery-metrics-" + bind.getPort());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/metrics", exchange -> {
            try (exchange) {
                if (!exchange.getRequestMethod().equals("GET")) {
                    respond(exchange, 405, "only GET\n", "text/plain");
                    return;
                }
                beforeScrape.run();
                respond(exchange, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8");
            }
        });
        server.start();
        log.info("serving Prometheus metrics on http://{}:{}/metrics", bind.getHostString(), localAddress().getPort());
    }

    private static void respond(HttpExchange exchange, int code, String body, String type) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(code, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    public InetSocketAddress localAddress() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
