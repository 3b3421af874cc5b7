package io.eyrie.core.internal;

import io.eyrie.core.Command;
import io.eyrie.core.PRObject;

/** What the replica runtime needs from the user's state machine. */
public interface Application {

    Object execute(Command c);

    /** The object with this id held by this replica (created on first use if the application does so), or null. */
    PRObject object(Object id);

    Object snapshotState();

    void restoreState(Object state);
}
