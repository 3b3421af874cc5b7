package io.volery.server.admin;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;

/** Serves a registry in Prometheus' text format on {@code GET /metrics}. */
public final class MetricsEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MetricsEndpoint.class);

    private final HttpEndpoint endpoint;

    /**
     * @param beforeScrape refreshes values that are read asynchronously (the tree census)
     */
    public MetricsEndpoint(InetSocketAddress bind, PrometheusMeterRegistry registry, Runnable beforeScrape) {
        endpoint = new HttpEndpoint(bind, "metrics", "volery-metrics").serve("/metrics", exchange -> {
            if (!exchange.getRequestMethod().equals("GET")) {
                HttpEndpoint.respond(exchange, 405, "only GET\n", "text/plain");
                return;
            }
            beforeScrape.run();
            HttpEndpoint.respond(exchange, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8");
        }).start();
        log.info("serving Prometheus metrics on http://{}:{}/metrics", bind.getHostString(), localAddress().getPort());
    }

    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
