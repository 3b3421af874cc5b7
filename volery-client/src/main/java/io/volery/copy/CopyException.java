package io.volery.copy;

/** A copy cannot go on; the message says why and, where there is one, what to do. */
final class CopyException extends RuntimeException {
    CopyException(String message) {
        super(message);
    }

    CopyException(String message, Throwable cause) {
        super(message, cause);
    }
}
