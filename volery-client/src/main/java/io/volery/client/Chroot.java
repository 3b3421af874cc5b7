package io.volery.client;

import org.apache.zookeeper.common.PathUtils;

/**
 * The subtree a session is confined to, as the path after the host list of a ZooKeeper connect
 * string ({@code "host:port/app"}): the caller's paths are relative to it, the cluster sees them with
 * it prepended, and paths coming back lose it again.
 */
final class Chroot {
    static final Chroot NONE = new Chroot(null);

    /** Null when the session sees the whole tree. */
    private final String prefix;

    private Chroot(String prefix) {
        this.prefix = prefix;
    }

    /**
     * The chroot {@code path} names; null, empty or "/" mean none.
     *
     * @throws IllegalArgumentException if {@code path} is not a valid absolute znode path
     */
    static Chroot of(String path) {
        if (path == null || path.isEmpty() || path.equals("/")) {
            return NONE;
        }
        try {
            PathUtils.validatePath(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid chroot \"" + path + "\": " + e.getMessage(), e);
        }
        return new Chroot(path);
    }

    /** The path the cluster knows for the caller's {@code clientPath}. */
    String toServer(String clientPath) {
        if (prefix == null || clientPath == null) {
            return clientPath;
        }
        return clientPath.equals("/") ? prefix : prefix + clientPath;
    }

    /**
     * The caller's view of a path from the cluster. A path outside the chroot (which only a
     * misbehaving server would send) is passed on unchanged, as ZooKeeper's client does.
     */
    String toClient(String serverPath) {
        if (prefix == null || serverPath == null || !serverPath.startsWith(prefix)) {
            return serverPath;
        }
        return serverPath.length() == prefix.length() ? "/" : serverPath.substring(prefix.length());
    }

    /** The chroot's path, or null for none. */
    String path() {
        return prefix;
    }

    @Override
    public String toString() {
        return prefix == null ? "/" : prefix;
    }
}
