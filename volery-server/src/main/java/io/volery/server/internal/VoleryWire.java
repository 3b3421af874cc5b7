package io.volery.server.internal;

import io.volery.server.tree.EventType;
import io.volery.server.tree.WatchEvent;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Volery's own messages on the node's direct channel: watch events and session expiries from
 * replicas to front ends, and a front end's word that it queued a command's events to the front end
 * waiting to release that command's reply. The first byte tells them from Eyrie's messages, which share the channel.
 */
public final class VoleryWire {
    static final byte MAGIC = 0x56; // 'V': none of Eyrie's message types
    static final byte EVENTS = 1;
    static final byte EXPIRED = 2;
    static final byte EVENTS_QUEUED = 3;
    static final byte MOVED = 4;
    static final byte HANDOFF = 5;
    /** No front end waits for these events (a tick's, or a list exchanged between partitions). */
    public static final int NO_ACK = -1;

    private VoleryWire() {
    }

    /** A decoded message: events for sessions of the receiving front end, or an expiry. */
    public sealed interface Message permits Events, Expired, EventsQueued, Moved, Handoff {
    }

    /**
     * From replicas to a session's old front end: the session reconnected through front end {@code to}, its
     * {@code move}th reconnect (ADR 098; 0 from nodes before it: unknown).
     */
    public record Moved(long sessionId, int to, long move) implements Message {
    }

    /**
     * From a session's old front end to its new one: the events it kept for the session, oldest first, and
     * what it had handed the session's last connection there (ADR 039; empty from older front ends), for
     * the session's {@code move}th reconnect (ADR 098; 0: unknown).
     */
    public record Handoff(long sessionId, List<WatchEvent> events, List<Handed> handed, long move) implements Message {
    }

    /** One thing a front end wrote to a connection: a reply ({@code event} null) with its zxid, or an event. */
    public record Handed(long replyZxid, WatchEvent event) {
    }

    /**
     * @param ackTo the front end waiting for the receiver to queue these events before it releases the
     *              reply of the command at {@code ackZxid} that fired them, or {@link #NO_ACK}
     */
    public record Events(List<WatchEvent> events, int ackTo, long ackZxid, long[] moves) implements Message {
        public Events(List<WatchEvent> events, int ackTo, long ackZxid) {
            this(events, ackTo, ackZxid, null);
        }
    }

    /** The sender has handed its sessions the events of the command at {@code zxid}. */
    public record EventsQueued(long zxid) implements Message {
    }

    public record Expired(long sessionId) implements Message {
    }

    /**
     * The zxid carried inside Volery by an event that setWatches fired: negative (clients get -1, as from
     * ZooKeeper) yet distinct per setWatches command, so that front ends, which keep the first copy of
     * each event, do not take the events of a later reconnect for copies of an earlier one's.
     */
    static long setWatchesZxid(long commandZxid) {
        return -2 - commandZxid;
    }

    /** The zxid of the setWatches command that fired an event carrying {@code eventZxid}. */
    static long setWatchesCommandZxid(long eventZxid) {
        return -2 - eventZxid;
    }

    /** The zxid a client is told for an event: setWatches' events carry none. */
    static long clientZxid(long eventZxid) {
        return eventZxid < 0 ? WatchEvent.NO_ZXID : eventZxid;
    }

    static byte[] events(List<WatchEvent> events) {
        return events(events, NO_ACK, 0);
    }

    static byte[] events(List<WatchEvent> events, int ackTo, long ackZxid) {
        return events(events, ackTo, ackZxid, null);
    }

    /**
     * @param moves for each event, its session's count of reconnects when it fired (ADR 100: which stay of the
     *              session at the receiving front end it belongs to), or null
     */
    static byte[] events(List<WatchEvent> events, int ackTo, long ackZxid, long[] moves) {
        return write(out -> {
            out.writeByte(EVENTS);
            out.writeInt(ackTo);
            out.writeLong(ackZxid);
            writeEvents(out, events);
            writeFiredIn(out, events);
            if (moves != null) {
                // (trailing: a node before ADR 100 leaves it unread)
                out.writeInt(moves.length);
                for (long m : moves) {
                    out.writeLong(m);
                }
            }
        });
    }

    private static void writeEvents(DataOutputStream out, List<WatchEvent> events) throws IOException {
        out.writeInt(events.size());
        for (WatchEvent e : events) {
            writeEvent(out, e);
        }
    }

    private static void writeEvent(DataOutputStream out, WatchEvent e) throws IOException {
        out.writeLong(e.sessionId());
        out.writeByte(e.type().code());
        out.writeUTF(e.path());
        out.writeLong(e.zxid());
    }

    /**
     * Trails a message (ADR 078): the partitions that fired each of {@code events}, which a node that does
     * not know them leaves unread and an older sender does not write.
     */
    private static void writeFiredIn(DataOutputStream out, List<WatchEvent> events) throws IOException {
        out.writeInt(events.size());
        for (WatchEvent e : events) {
            out.writeLong(e.firedIn());
        }
    }

    /** {@code events} with the partitions that fired them, when the message trails them (see above). */
    private static List<WatchEvent> readFiredIn(DataInputStream in, List<WatchEvent> events) throws IOException {
        long[] firedIn = readTrailingLongs(in, events.size(), "fired-in");
        if (firedIn == null) {
            return events;
        }
        List<WatchEvent> out = new ArrayList<>(firedIn.length);
        for (int i = 0; i < firedIn.length; i++) {
            out.add(events.get(i).withFiredIn(firedIn[i]));
        }
        return out;
    }

    /**
     * A trailing list of one long per event ({@code what}: for the error), or null when the message ends before
     * it (a sender that does not write it).
     */
    private static long[] readTrailingLongs(DataInputStream in, int events, String what) throws IOException {
        if (in.available() == 0) {
            return null;
        }
        int n = in.readInt();
        if (n != events) {
            throw new IOException(what + " count " + n + " for " + events + " events");
        }
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = in.readLong();
        }
        return values;
    }

    private static List<WatchEvent> readEvents(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > 1_000_000) {
            throw new IOException("event count " + n);
        }
        List<WatchEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            events.add(readEvent(in));
        }
        return events;
    }

    private static WatchEvent readEvent(DataInputStream in) throws IOException {
        long session = in.readLong();
        EventType t = eventType(in.readByte());
        String path = in.readUTF();
        return new WatchEvent(session, t, path, in.readLong());
    }

    static byte[] moved(long sessionId, int to, long move) {
        return write(out -> {
            out.writeByte(MOVED);
            out.writeLong(sessionId);
            out.writeInt(to);
            out.writeLong(move); // (trailing: nodes before ADR 098 leave it unread)
        });
    }

    static byte[] handoff(long sessionId, List<WatchEvent> events, long move) {
        return handoff(sessionId, events, List.of(), move);
    }

    static byte[] handoff(long sessionId, List<WatchEvent> events, List<Handed> handed) {
        return handoff(sessionId, events, handed, 0);
    }

    static byte[] handoff(long sessionId, List<WatchEvent> events, List<Handed> handed, long move) {
        return write(out -> {
            out.writeByte(HANDOFF);
            out.writeLong(sessionId);
            writeEvents(out, events);
            out.writeInt(handed.size());
            for (Handed h : handed) {
                if (h.event() == null) {
                    out.writeByte(0);
                    out.writeLong(h.replyZxid());
                } else {
                    out.writeByte(1);
                    writeEvent(out, h.event());
                }
            }
            writeFiredIn(out, events);
            out.writeLong(move); // (trailing, as above)
        });
    }

    /** The trailing moves of an events message (ADR 100), or null from a node that does not write them. */
    private static long[] readMoves(DataInputStream in, int events) throws IOException {
        return readTrailingLongs(in, events, "move");
    }

    /** A trailing move number (ADR 098), or 0 from a node that does not write it. */
    private static long readMove(DataInputStream in) throws IOException {
        return in.available() >= Long.BYTES ? in.readLong() : 0;
    }

    private static List<Handed> readHanded(DataInputStream in) throws IOException {
        if (in.available() == 0) {
            return List.of(); // from a front end that did not send it
        }
        int n = in.readInt();
        if (n < 0 || n > 1_000_000) {
            throw new IOException("handed count " + n);
        }
        List<Handed> handed = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            byte kind = in.readByte();
            if (kind == 0) {
                handed.add(new Handed(in.readLong(), null));
            } else if (kind == 1) {
                handed.add(new Handed(0, readEvent(in)));
            } else {
                throw new IOException("handed entry kind " + kind);
            }
        }
        return handed;
    }

    public static byte[] eventsQueued(long zxid) {
        return write(out -> {
            out.writeByte(EVENTS_QUEUED);
            out.writeLong(zxid);
        });
    }

    static byte[] expired(long sessionId) {
        return write(out -> {
            out.writeByte(EXPIRED);
            out.writeLong(sessionId);
        });
    }

    /** The message, or null when the bytes are not a Volery message (an Eyrie one, say). */
    public static Message decode(byte[] bytes) {
        if (bytes.length < 2 || bytes[0] != MAGIC) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes, 1, bytes.length - 1))) {
            byte type = in.readByte();
            if (type == EVENTS) {
                int ackTo = in.readInt();
                long ackZxid = in.readLong();
                List<WatchEvent> events = readFiredIn(in, readEvents(in));
                return new Events(events, ackTo, ackZxid, readMoves(in, events.size()));
            }
            if (type == MOVED) {
                return new Moved(in.readLong(), in.readInt(), readMove(in));
            }
            if (type == HANDOFF) {
                long sessionId = in.readLong();
                List<WatchEvent> events = readEvents(in);
                List<Handed> handed = readHanded(in);
                List<WatchEvent> firedIn = readFiredIn(in, events);
                return new Handoff(sessionId, firedIn, handed, readMove(in));
            }
            if (type == EVENTS_QUEUED) {
                return new EventsQueued(in.readLong());
            }
            if (type == EXPIRED) {
                return new Expired(in.readLong());
            }
            throw new IOException("unknown Volery message type " + type);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed Volery message: " + e.getMessage(), e);
        }
    }

    private static EventType eventType(int code) throws IOException {
        for (EventType t : EventType.values()) {
            if (t.code() == code) {
                return t;
            }
        }
        throw new IOException("unknown event type " + code);
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer w) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(MAGIC);
            w.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
