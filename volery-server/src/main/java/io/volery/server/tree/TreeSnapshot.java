package io.volery.server.tree;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The canonical serial form of a {@link ZnodeTree}: counters, sessions in id order, nodes depth first
 * in name order, watch registrations in table, path, session and mode order. The same state always
 * gives the same bytes, which is what makes {@link ZnodeTree#digest()} comparable across replicas.
 */
final class TreeSnapshot {

    private static final int MAGIC = 0x564F4C54; // "VOLT"
    private static final int FORMAT = 3;

    private TreeSnapshot() {
    }

    static void write(ZnodeTree tree, OutputStream sink) throws IOException {
        DataOutputStream out = new DataOutputStream(sink);
        out.writeInt(MAGIC);
        out.writeInt(FORMAT);
        out.writeLong(tree.lastZxid());
        out.writeLong(tree.lastTime());

        List<SessionTable.Session> sessions = tree.sessions().all();
        out.writeInt(sessions.size());
        for (SessionTable.Session s : sessions) {
            out.writeLong(s.id());
            out.writeInt(s.timeoutMs());
            out.writeLong(s.deadline());
            out.writeLong(s.owner());
            out.writeInt(s.idsInProofOrder().size());
            for (Id id : s.idsInProofOrder()) {
                writeId(out, id);
            }
            // ephemerals again, in the order and with the set capacity that decide ZooKeeper's iteration order
            writeStrings(out, s.ephemerals.table(), s.ephemerals.inInsertionOrder());
        }

        List<String> paths = tree.paths();
        out.writeInt(paths.size());
        for (String path : paths) {
            Znode n = tree.nodeMap().get(path);
            writeString(out, path);
            if (n.data == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(n.data.length);
                out.write(n.data);
            }
            out.writeInt(n.acl.size());
            for (Acl a : n.acl) {
                out.writeInt(a.perms());
                writeId(out, a.id());
            }
            out.writeLong(n.czxid);
            out.writeLong(n.mzxid);
            out.writeLong(n.pzxid);
            out.writeLong(n.ctime);
            out.writeLong(n.mtime);
            out.writeInt(n.version);
            out.writeInt(n.childCreations);
            out.writeInt(n.aversion);
            out.writeByte(n.kind.ordinal());
            out.writeLong(n.owner);
            writeStrings(out, n.children.table(), n.children.inInsertionOrder());
        }

        List<WatchRegistry.Registration> regs = tree.watchRegistry().registrations();
        out.writeInt(regs.size());
        for (WatchRegistry.Registration r : regs) {
            out.writeByte(r.table().ordinal());
            writeString(out, r.path());
            out.writeLong(r.session());
            out.writeByte(r.mode().ordinal());
        }
        out.flush();
    }

    static void read(ZnodeTree tree, InputStream source) throws IOException {
        DataInputStream in = new DataInputStream(source);
        if (in.readInt() != MAGIC) {
            throw new IOException("not a Volery tree snapshot (bad magic number)");
        }
        int format = in.readInt();
        if (format != FORMAT) {
            throw new IOException("tree snapshot format " + format + " is not supported; this build reads " + FORMAT);
        }
        tree.resetForRestore(in.readLong(), in.readLong());

        int sessionCount = in.readInt();
        for (int i = 0; i < sessionCount; i++) {
            long id = in.readLong();
            int timeout = in.readInt();
            long deadline = in.readLong();
            long owner = in.readLong();
            SessionTable.Session s = tree.sessions().open(id, timeout, 0);
            s.setDeadline(deadline);
            s.setOwner(owner);
            int ids = in.readInt();
            for (int j = 0; j < ids; j++) {
                s.addId(readId(in));
            }
            int ephemeralTable = in.readInt();
            s.ephemerals.restore(readStrings(in), ephemeralTable);
        }

        int nodeCount = in.readInt();
        Znode.Kind[] kinds = Znode.Kind.values();
        for (int i = 0; i < nodeCount; i++) {
            String path = readString(in);
            int dataLength = in.readInt();
            byte[] data = null;
            if (dataLength >= 0) {
                data = new byte[dataLength];
                in.readFully(data);
            }
            int aclCount = in.readInt();
            List<Acl> acl = new ArrayList<>(aclCount);
            for (int j = 0; j < aclCount; j++) {
                int perms = in.readInt();
                acl.add(new Acl(perms, readId(in)));
            }
            Znode n = new Znode(data, List.copyOf(acl), Znode.Kind.PERSISTENT, 0, 0, 0);
            n.czxid = in.readLong();
            n.mzxid = in.readLong();
            n.pzxid = in.readLong();
            n.ctime = in.readLong();
            n.mtime = in.readLong();
            n.version = in.readInt();
            n.childCreations = in.readInt();
            n.aversion = in.readInt();
            n.kind = kinds[in.readByte()];
            n.owner = in.readLong();
            int childTable = in.readInt();
            n.children.restore(readStrings(in), childTable);
            tree.restoreNode(path, n);
        }

        int regCount = in.readInt();
        WatchRegistry.Table[] tables = WatchRegistry.Table.values();
        WatchRegistry.Mode[] modes = WatchRegistry.Mode.values();
        for (int i = 0; i < regCount; i++) {
            WatchRegistry.Table t = tables[in.readByte()];
            String path = readString(in);
            long session = in.readLong();
            tree.watchRegistry().add(t, path, session, modes[in.readByte()]);
        }
    }

    static String digest(ZnodeTree tree) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            try (DigestOutputStream out = new DigestOutputStream(OutputStream.nullOutputStream(), sha)) {
                write(tree, out);
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JVM has no SHA-256", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] toBytes(ZnodeTree tree) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            write(tree, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** A hash-set table size, then a counted list of strings. */
    private static void writeStrings(DataOutputStream out, int table, List<String> strings) throws IOException {
        out.writeInt(table);
        out.writeInt(strings.size());
        for (String s : strings) {
            writeString(out, s);
        }
    }

    /** The list written after the table size by {@link #writeStrings}. */
    private static List<String> readStrings(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0) {
            throw new IOException("corrupt tree snapshot: negative count " + count);
        }
        List<String> out = new ArrayList<>(Math.min(count, 1024));
        for (int i = 0; i < count; i++) {
            out.add(readString(in));
        }
        return out;
    }

    /** Length-prefixed UTF-8, without writeUTF's 64 KiB limit. */
    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    private static String readString(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            throw new IOException("corrupt tree snapshot: negative string length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void writeId(DataOutputStream out, Id id) throws IOException {
        writeString(out, id.scheme());
        writeString(out, id.id());
    }

    private static Id readId(DataInputStream in) throws IOException {
        return new Id(readString(in), readString(in));
    }
}
