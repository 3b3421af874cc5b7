package io.eyrie.core;

/**
 * Thrown out of {@link StateMachine#executeCommand} when this replica abandons the command it is
 * executing: another partition no longer keeps the exchange the command waits for, so the replica
 * will take the state of a peer of its partition instead (state transfer). The partial effects of
 * the command are discarded with the replaced state and no reply is sent. Code that catches
 * RuntimeExceptions inside a command should let this one through (the command is abandoned anyway)
 * and neither log it as a failure nor record anything for it.
 */
public class CommandAbandonedException extends RuntimeException {

    public CommandAbandonedException(String message) {
        super(message, null, false, false);
    }
}
