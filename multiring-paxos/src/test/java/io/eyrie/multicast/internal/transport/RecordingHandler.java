package io.eyrie.multicast.internal.transport;

import io.eyrie.multicast.Transport;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Records what a transport hands its application, as text, for tests on one thread. */
final class RecordingHandler implements Transport.InboundHandler {

    final List<String> messages = new ArrayList<>();
    final List<String> events = new ArrayList<>();

    @Override
    public synchronized void onMessage(int fromNodeId, ByteBuffer message) {
        byte[] b = new byte[message.remaining()];
        message.get(b);
        messages.add(fromNodeId + ":" + new String(b, StandardCharsets.UTF_8));
    }

    @Override
    public synchronized void onConnection(int nodeId, boolean up) {
        events.add(nodeId + (up ? " up" : " down"));
    }
}
