package io.volery.server.admin;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.util.Map;

/**
 * ZooKeeper's AdminServer over HTTP (ADR 068): {@code GET <commandURL>} lists the commands as links,
 * {@code GET <commandURL>/<name>} answers one as JSON ({@link AdminCommands}), by its name or its four-letter
 * alias; an unknown name is answered, as by ZooKeeper, with status 200 and an error in the JSON. Read-only
 * commands only, on a thread of their own ({@link HttpEndpoint}), never a client or ring thread.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

    private final HttpEndpoint endpoint;

    public AdminServer(InetSocketAddress bind, String commandUrl, AdminCommands commands) {
        endpoint = new HttpEndpoint(bind, "admin commands", "volery-admin").serve(commandUrl, exchange -> {
            String path = exchange.getRequestURI().getPath();
            String rest = path.length() <= commandUrl.length() ? "" : path.substring(commandUrl.length());
            if (!rest.isEmpty() && !rest.startsWith("/")) {
                HttpEndpoint.respond(exchange, 404, "not found\n", "text/plain");
                return;
            }
            String name = rest.replaceAll("^/+|/+$", "");
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                HttpEndpoint.respond(exchange, 405, Json.write(Map.of("command", name,
                        "error", "only GET: the commands Volery serves read")), "application/json");
            } else if (name.isEmpty()) {
                StringBuilder b = new StringBuilder();
                for (String c : commands.names()) {
                    b.append("<a href=\"").append(commandUrl).append('/').append(c).append("\">").append(c)
                            .append("</a>\n<br/>\n");
                }
                HttpEndpoint.respond(exchange, 200, b.toString(), "text/html");
            } else {
                HttpEndpoint.respond(exchange, 200, Json.write(commands.run(name)), "application/json");
            }
        }).start();
        log.info("serving admin commands on http://{}:{}{}", bind.getHostString(), localAddress().getPort(), commandUrl);
    }

    public InetSocketAddress localAddress() {
        return endpoint.localAddress();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
