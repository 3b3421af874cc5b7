package io.eyrie.multicast;

/** A multicast that could not be accepted or completed; the message names the reason. */
public class MulticastException extends RuntimeException {
    public MulticastException(String message) {
        super(message);
    }

    public MulticastException(String message, Throwable cause) {
        super(message, cause);
    }
}
