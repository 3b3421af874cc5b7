package io.volery.server;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.zookeeper.ZooKeeper;

/** Which server a ZooKeeper client is connected to, read from the client's own description. */
public final class ServerOfClient {
    private static final Pattern REMOTE = Pattern.compile("remoteserver:\\S*?:(\\d+)");

    private ServerOfClient() {
    }

    /** The client port of the server {@code zk} is connected to ("remoteserver:host/ip:port"), or -1 if none. */
    public static int port(ZooKeeper zk) {
        Matcher m = REMOTE.matcher(zk.toString());
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }
}
