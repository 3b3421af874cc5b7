package io.volery.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on a free loopback port to one server, which a test can cut: open connections drop and
 * new ones are refused, so a client behind it falls silent and its session expires on the server.
 */
public final class CuttableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean silent;

    public CuttableProxy(InetSocketAddress target) throws IOException {
        this(target, 0);
    }

    /** @param port the port to listen on, 0 for a free one */
    public CuttableProxy(InetSocketAddress target, int port) throws IOException {
        this.target = target;
        this.listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        Thread acceptor = new Thread(this::accept, "proxy-accept-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.getAddress(), target.getPort());
                sockets.add(client);
                sockets.add(server);
                pump(client, server);
                pump(server, client);
            } catch (IOException e) {
                return; // cut or closed
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    if (silent) {
                        continue; // swallowed, as by a network that went dark
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side or cut() closed the connection
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /**
     * From now on nothing passes either way, but every connection stays open: the server goes on writing
     * into it (and its bytes are lost) until the client gives up and closes its end.
     */
    public void silence() {
        silent = true;
    }

    /**
     * Drops every open connection, both ends, losing what was in flight; new connections are relayed as
     * before.
     */
    public void drop() {
        for (Socket s : sockets) {
            closeQuietly(s);
            sockets.remove(s);
        }
        silent = false;
    }

    /** Drops every connection and refuses new ones. */
    public void cut() {
        closeQuietly(listener);
        for (Socket s : sockets) {
            closeQuietly(s);
        }
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // already closed
        }
    }

    @Override
    public void close() {
        cut();
    }
}
