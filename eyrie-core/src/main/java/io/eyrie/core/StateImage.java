package io.eyrie.core;

import java.io.IOException;
import java.io.OutputStream;

/**
 * A state captured by {@link StateMachine#snapshotState} that the runtime serializes later, on the
 * checkpoint writer thread, while the replica goes on executing commands. Return one when turning
 * the whole state into bytes would pause execution for too long: the capture itself (on the
 * executor, between two commands) should then cost next to nothing, for instance keeping the root
 * of a persistent structure, or handing over what changed since the previous capture.
 *
 * <p>The image must stay exactly the state after the command at its position: nothing that
 * {@link #writeTo} reads may be changed by later commands, and everything it reads must have been
 * published to the writer thread by the capture (immutable values, or values handed over through
 * a lock). The runtime calls {@link #writeTo} at most once per image, from one thread, in capture
 * order; it may skip an image when a newer one is captured before the older is written.
 * {@link StateMachine#restoreState} then receives the bytes {@link #writeTo} wrote, as a
 * {@code byte[]}.
 */
public interface StateImage {

    /** Writes the captured state; runs on the checkpoint writer thread. */
    void writeTo(OutputStream out) throws IOException;
}
