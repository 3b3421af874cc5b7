package io.eyrie.core.internal;

import io.eyrie.core.Command;
import io.eyrie.core.PRObject;

/** What the replica runtime needs from the user's state machine. */
public interface Application {

    Object execute(Command c);

    /** The object with this id held by this replica (created on first use if the application does so), or null. */
    PRObject object(Object id);

    Object snapshotState();

    /**
     * The state for a peer's state transfer, encoded now (the executor waits): like
     * {@link #snapshotState}, but it must not disturb the order of the checkpoint images (an
     * application whose images are taken incrementally writes its live state instead).
     */
    default Object snapshotStateNow() {
        return snapshotState();
    }

    void restoreState(Object state);

    /**
     * A checkpoint of this replica's partition fetched from a peer replica, framed as
     * {@link SnapshotStore#frame} does, or null; asked only when no local checkpoint is usable.
     */
    default byte[] fetchPeerCheckpoint() {
        return null;
    }
}
