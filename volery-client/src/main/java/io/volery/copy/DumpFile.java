package io.volery.copy;

import io.volery.server.tree.PathRules;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;

/**
 * A namespace written to a file ({@code --to-file}) and read back as a source ({@code --from-file}): a logical
 * backup that any ZooKeeper-compatible server can be restored from. Gzip'd; inside, a header (format, version,
 * where it came from, whether that source told node kinds apart), one record per node (path, data with null
 * kept, ACL, kind, TTL, cversion) and a trailer with the count and a CRC-32 of everything before it, so that a
 * truncated or damaged file is refused rather than half restored. Written to a temporary file and renamed.
 */
final class DumpFile {

    private static final String MAGIC = "volery-copy dump";
    private static final int VERSION = 1;
    private static final byte NODE = 1;
    private static final byte END = 2;
    /** More entries than any server keeps in one ACL: a count beyond it is damage. */
    private static final int MAX_ACLS = 1 << 16;

    private DumpFile() {
    }

    /** Writes nodes as they come; {@link #close()} seals the file. */
    static final class Writer implements AutoCloseable {
        private final File target;
        private final File partial;
        private final CheckedOutputStream checked;
        private final DataOutputStream out;
        private long count;
        private boolean sealed;

        Writer(File target, String source, String path, boolean knowsKinds) throws IOException {
            this.target = target;
            this.partial = new File(target.getPath() + ".partial");
            OutputStream file = new BufferedOutputStream(new GZIPOutputStream(Files.newOutputStream(partial.toPath()), 1 << 16));
            checked = new CheckedOutputStream(file, new CRC32());
            out = new DataOutputStream(checked);
            out.writeUTF(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(source);
            out.writeUTF(path);
            out.writeBoolean(knowsKinds);
        }

        synchronized void write(SourceNode n) throws IOException {
            out.writeByte(NODE);
            out.writeUTF(n.path());
            if (n.data() == null) {
                out.writeInt(-1);
            } else {
                out.writeInt(n.data().length);
                out.write(n.data());
            }
            out.writeInt(n.acl().size());
            for (ACL a : n.acl()) {
                out.writeInt(a.getPerms());
                out.writeUTF(a.getId().getScheme());
                out.writeUTF(a.getId().getId());
            }
            out.writeByte(n.kind().ordinal());
            out.writeLong(n.ttl());
            out.writeInt(n.cversion());
            count++;
        }

        synchronized long count() {
            return count;
        }

        /** Seals the file: the trailer, then the rename into place. */
        void seal() throws IOException {
            out.writeByte(END);
            out.writeLong(count);
            out.flush();
            long crc = checked.getChecksum().getValue();
            out.writeLong(crc);
            out.close();
            Files.move(partial.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            sealed = true;
        }

        @Override
        public void close() throws IOException {
            if (!sealed) {
                out.close();
                Files.deleteIfExists(partial.toPath());
            }
        }
    }

    /** A dump read back whole into memory, as a source. */
    static final class Source implements TreeSource {
        private final Map<String, SourceNode> nodes = new HashMap<>();
        private final String description;
        private final boolean knowsKinds;
        private final String path;

        Source(File file) throws IOException {
            if (!file.isFile()) {
                throw new CopyException("no dump file " + file);
            }
            Map<String, TreeSet<String>> children = new HashMap<>();
            List<SourceNode> read = new ArrayList<>();
            String from;
            try (InputStream raw = new BufferedInputStream(new GZIPInputStream(Files.newInputStream(file.toPath()), 1 << 16))) {
                CheckedInputStream checked = new CheckedInputStream(raw, new CRC32());
                DataInputStream in = new DataInputStream(checked);
                if (!MAGIC.equals(in.readUTF())) {
                    throw new CopyException(file + " is not a volery-copy dump");
                }
                int version = in.readInt();
                if (version != VERSION) {
                    throw new CopyException(file + " is a version " + version + " dump; this tool reads version " + VERSION);
                }
                from = in.readUTF();
                path = in.readUTF();
                knowsKinds = in.readBoolean();
                while (true) {
                    byte tag = in.readByte();
                    if (tag == END) {
                        long count = in.readLong();
                        long crc = checked.getChecksum().getValue();
                        if (in.readLong() != crc) {
                            throw new CopyException(file + " is damaged: its checksum does not match");
                        }
                        if (count != read.size()) {
                            throw new CopyException(file + " is damaged: it says " + count + " nodes and holds " + read.size());
                        }
                        break;
                    }
                    if (tag != NODE) {
                        throw new CopyException(file + " is damaged: unknown record " + tag + " after " + read.size() + " nodes");
                    }
                    String path = in.readUTF();
                    int length = in.readInt();
                    int acls;
                    byte[] data = length < 0 ? null : in.readNBytes(length);
                    if (length < -1 || (data != null && data.length != length) || (acls = in.readInt()) < 0 || acls > MAX_ACLS) {
                        throw new CopyException(file + " is damaged: a record of " + path + " is out of range");
                    }
                    List<ACL> acl = new ArrayList<>(acls);
                    for (int i = 0; i < acls; i++) {
                        int perms = in.readInt();
                        acl.add(new ACL(perms, new Id(in.readUTF(), in.readUTF())));
                    }
                    SourceNode.Kind kind = SourceNode.Kind.values()[in.readByte()];
                    long ttl = in.readLong();
                    int cversion = in.readInt();
                    read.add(new SourceNode(path, data, acl, kind, ttl, cversion, List.of()));
                }
            } catch (CopyException e) {
                throw e;
            } catch (EOFException e) {
                throw new CopyException(file + " ends early: the dump was not finished or was cut short");
            } catch (IOException | RuntimeException e) {
                // a gzip error, or bytes that decompress but do not parse (a length or kind out of range)
                throw new CopyException(file + " is damaged or not a volery-copy dump: " + e);
            }
            for (SourceNode n : read) {
                // every ancestor lists its child; ancestors not in the dump (/, /zookeeper/quota, above --path) appear empty
                for (String path = n.path(); !path.equals("/"); path = PathRules.parent(path)) {
                    if (!children.computeIfAbsent(PathRules.parent(path), k -> new TreeSet<>()).add(PathRules.name(path))) {
                        break;
                    }
                }
            }
            for (SourceNode n : read) {
                nodes.put(n.path(), n);
            }
            children.forEach((parent, kids) -> {
                SourceNode n = nodes.get(parent);
                nodes.put(parent, n == null
                        ? new SourceNode(parent, new byte[0], org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
                                SourceNode.Kind.PERSISTENT, 0, 0, List.copyOf(kids))
                        : new SourceNode(n.path(), n.data(), n.acl(), n.kind(), n.ttl(), n.cversion(), List.copyOf(kids)));
            });
            description = "dump " + file + " (" + read.size() + " nodes of " + path + " from " + from + ")";
        }

        /** The subtree the dump holds (--path when it was written). */
        String path() {
            return path;
        }

        @Override
        public CompletableFuture<List<SourceNode>> read(List<String> paths) {
            List<SourceNode> found = new ArrayList<>(paths.size());
            for (String p : paths) {
                found.add(nodes.get(p));
            }
            return CompletableFuture.completedFuture(found);
        }

        @Override
        public boolean knowsNodeKinds() {
            return knowsKinds;
        }

        @Override
        public String describe() {
            return description;
        }

        @Override
        public void close() {
        }
    }
}
