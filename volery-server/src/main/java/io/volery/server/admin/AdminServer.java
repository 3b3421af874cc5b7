package io.volery.server.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * ZooKeeper's AdminServer over HTTP (ADR 068): {@code GET <commandURL>} lists the commands as links,
 * {@code GET <commandURL>/<name>} answers one as JSON ({@link AdminCommands}), by its name or its four-letter
 * alias; an unknown name is answered, as by ZooKeeper, with status 200 and an error in the JSON. Read-only
 * commands only; the JDK's HTTP server on a thread of its own, never a client or ring thread.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

    private final HttpServer server;
    private final ExecutorService executor;

    public AdminServer(InetSocketAddress bind, String commandUrl, AdminCommands commands) {
        try {
            server = HttpServer.create(bind, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve admin commands on " + bind + ": " + e.getMessage(), e);
        }
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "volery-admin-" + bind.getPort());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext(commandUrl, exchange -> {
            try (exchange) {
                String path = exchange.getRequestURI().getPath();
                String rest = path.length() <= commandUrl.length() ? "" : path.substring(commandUrl.length());
                if (!rest.isEmpty() && !rest.startsWith("/")) {
                    respond(exchange, 404, "not found\n", "text/plain");
                    return;
                }
                String name = rest.replaceAll("^/+|/+$", "");
                if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                    respond(exchange, 405, Json.write(java.util.Map.of("command", name,
                            "error", "only GET: the commands Volery serves read")), "application/json");
                    return;
                }
                if (name.isEmpty()) {
                    StringBuilder b = new StringBuilder();
                    for (String c : commands.names()) {
                        b.append("<a href=\"").append(commandUrl).append('/').append(c).append("\">").append(c)
                                .append("</a>\n<br/>\n");
                    }
                    respond(exchange, 200, b.toString(), "text/html");
                    return;
                }
                respond(exchange, 200, Json.write(commands.run(name)), "application/json");
            } catch (RuntimeException e) {
                log.warn("admin command {} failed: {}", exchange.getRequestURI(), e.toString());
            }
        });
        server.start();
        log.info("serving admin commands on http://{}:{}{}", bind.getHostString(), localAddress().getPort(), commandUrl);
    }

    private static void respond(HttpExchange exchange, int code, String body, String type) throws IOException {
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

    public InetSocketAddress localAddress() {
        return server.getAddress();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
