package io.volery.server.tree;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The state of a {@link ZnodeTree} at one point between two commands, captured by
 * {@link ZnodeTree#capture()} in time proportional to what changed since the previous capture, and
 * written later, by another thread, in exactly the canonical form {@link ZnodeTree#snapshot} gave at
 * that point, while the tree goes on changing.
 *
 * <p>Images of one tree are written in capture order; an older one may be skipped, but once a newer
 * image was written an older one can no longer be (its tree's mirror has moved past it).
 */
public final class TreeImage {

    private final TreeMirror mirror;
    private final long sequence;
    private final long lastZxid;

    TreeImage(TreeMirror mirror, long sequence, long lastZxid) {
        this.mirror = mirror;
        this.sequence = sequence;
        this.lastZxid = lastZxid;
    }

    /** The zxid of the last command applied before the capture. */
    public long lastZxid() {
        return lastZxid;
    }

    /**
     * Writes the captured state in the canonical form. May block while another image of the same
     * tree is being written.
     *
     * @throws IllegalStateException if a newer image of the same tree was already written
     */
    public void writeTo(OutputStream out) throws IOException {
        mirror.write(sequence, out);
    }
}
