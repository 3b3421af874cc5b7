package io.eyrie.multicast.internal.transport;

/**
 * One queued message: {@code head} followed by {@code tail}, framed as one payload. Two parts so
 * that a message carrying a large shared value (a Phase 2 Accept carries a whole batch) is written
 * to the socket buffer straight from that value, without first being copied into a message array.
 * Nobody modifies either array once it is queued.
 */
record OutboundPayload(byte[] head, byte[] tail) {
    private static final byte[] NONE = new byte[0];

    static OutboundPayload of(byte[] whole) {
        return new OutboundPayload(whole, NONE);
    }

    int length() {
        return head.length + tail.length;
    }

    /** The payload as one array (the head itself when there is no tail). */
    byte[] joined() {
        if (tail.length == 0) {
            return head;
        }
        byte[] all = java.util.Arrays.copyOf(head, length());
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}
