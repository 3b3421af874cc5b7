package io.eyrie.core;

/** A command that could not be executed, or that failed at the replicas; the message says which. */
public class EyrieException extends RuntimeException {
    public EyrieException(String message) {
        super(message);
    }

    public EyrieException(String message, Throwable cause) {
        super(message, cause);
    }
}
