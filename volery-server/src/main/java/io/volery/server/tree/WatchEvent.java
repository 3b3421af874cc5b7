package io.volery.server.tree;

/**
 * A notification owed to a session. {@code zxid} is the zxid of the write that caused it, or
 * {@link #NO_ZXID} for events that {@code setWatches} fires on reconnect.
 */
public record WatchEvent(long sessionId, EventType type, String path, long zxid) {
    public static final long NO_ZXID = -1L;
}
