package io.eyrie.multicast.internal.protocol;

/**
 * An inbound message that does not decode: truncated, an unknown type, a length out of bounds or
 * trailing bytes. The runtime closes the connection it came on; the protocol state is untouched.
 */
public final class MalformedMessageException extends RuntimeException {
    public MalformedMessageException(String message) {
        super(message);
    }
}
