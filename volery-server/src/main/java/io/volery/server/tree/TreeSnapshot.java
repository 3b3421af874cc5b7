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
        writeHeader(out, tree.lastZxid(), tree.lastTime());

        List<SessionTable.Session> sessions = tree.sessions().all();
        out.writeInt(sessions.size());
        for (SessionTable.Session s : sessions) {
            writeSession(out, s.id(), s.timeoutMs(), s.deadline(), s.owner(), s.idsInProofOrder(),
                    s.ephemerals.table(), s.ephemerals.inInsertionOrder());
        }

        List<String> paths = tree.paths();
        out.writeInt(paths.size());
        for (String path : paths) {
            Znode n = tree.nodeMap().get(path);
            writeNode(out, path, n.data, n.acl, n.czxid, n.mzxid, n.pzxid, n.ctime, n.mtime, n.version,
                    n.childCreations, n.aversion, n.kind, n.owner, n.children.table(), n.children.inInsertionOrder());
        }

        List<WatchRegistry.Registration> regs = tree.watchRegistry().registrations();
        out.writeInt(regs.size());
        for (WatchRegistry.Registration r : regs) {
            writeRegistration(out, r.table(), r.path(), r.session(), r.mode());
        }
        out.flush();
    }

    // The pieces of the canonical form, shared by the live tree's writer above and by TreeImages,
    // so that both give the same bytes for the same state.

    static void writeHeader(DataOutputStream out, long lastZxid, long lastTime) throws IOException {
        out.writeInt(MAGIC);
        out.writeInt(FORMAT);
        out.writeLong(lastZxid);
        out.writeLong(lastTime);
    }

    static void writeSession(DataOutputStream out, long id, int timeoutMs, long deadline, long owner, List<Id> ids,
                             int ephemeralTable, java.util.Collection<String> ephemerals) throws IOException {
        out.writeLong(id);
        out.writeInt(timeoutMs);
        out.writeLong(deadline);
        out.writeLong(owner);
        out.writeInt(ids.size());
        for (Id i : ids) {
            writeId(out, i);
        }
        // ephemerals again, in the order and with the set capacity that decide ZooKeeper's iteration order
        writeStrings(out, ephemeralTable, ephemerals);
    }

    static void writeNode(DataOutputStream out, String path, byte[] data, List<Acl> acl, long czxid, long mzxid,
                          long pzxid, long ctime, long mtime, int version, int childCreations, int aversion,
                          Znode.Kind kind, long owner, int childTable, java.util.Collection<String> children) throws IOException {
        if (ZnodeTree.CONFIG_NODE.equals(path)) {
            // the node's local configuration, not replicated state (ADR 097): written as the initial tree has it
            data = new byte[0];
            mzxid = 0;
            mtime = 0;
            version = 0;
        }
        writeString(out, path);
        if (data == null) {
            out.writeInt(-1);
        } else {
            out.writeInt(data.length);
            out.write(data);
        }
        out.writeInt(acl.size());
        for (Acl a : acl) {
            out.writeInt(a.perms());
            writeId(out, a.id());
        }
        out.writeLong(czxid);
        out.writeLong(mzxid);
        out.writeLong(pzxid);
        out.writeLong(ctime);
        out.writeLong(mtime);
        out.writeInt(version);
        out.writeInt(childCreations);
        out.writeInt(aversion);
        out.writeByte(kind.ordinal());
        out.writeLong(owner);
        writeStrings(out, childTable, children);
    }

    static void writeRegistration(DataOutputStream out, WatchRegistry.Table table, String path, long session,
                                  WatchRegistry.Mode mode) throws IOException {
        out.writeByte(table.ordinal());
        writeString(out, path);
        out.writeLong(session);
        out.writeByte(mode.ordinal());
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
    private static void writeStrings(DataOutputStream out, int table, java.util.Collection<String> strings) throws IOException {
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
