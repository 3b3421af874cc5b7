package io.volery.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;

/** A real standalone ZooKeeper 3.9.5 server in this JVM, on a port the OS picks, with a temp data dir. */
public final class InProcessZooKeeper implements AutoCloseable {

    private final Server server = new Server();
    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    /** Exposes the server's started hook, which fires once the client port is bound. */
    private static final class Server extends ZooKeeperServerMain {
        final CountDownLatch started = new CountDownLatch(1);

        @Override
        protected void serverStarted() {
            started.countDown();
        }
    }

    public InProcessZooKeeper(Path dataDir) throws IOException, InterruptedException {
        System.setProperty("zookeeper.admin.enableServer", "false");
        Files.createDirectories(dataDir);
        ServerConfig config = new ServerConfig();
        // port 0: bound by the OS; tickTime 2000; maxClientCnxns 0 = no per-address limit (all clients are on 127.0.0.1)
        config.parse(new String[] {"0", dataDir.toString(), "2000", "0"});
        thread = new Thread(() -> {
            try {
                server.runFromConfig(config);
            } catch (Throwable t) {
                failure.set(t);
                server.started.countDown();
            }
        }, "zookeeper-server");
        thread.setDaemon(true);
        thread.start();
        if (!server.started.await(30, TimeUnit.SECONDS) || failure.get() != null) {
            throw new IOException("in-process ZooKeeper did not start", failure.get());
        }
    }

    public String connectString() {
        return "127.0.0.1:" + server.getClientPort();
    }

    @Override
    public void close() {
        server.close();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
