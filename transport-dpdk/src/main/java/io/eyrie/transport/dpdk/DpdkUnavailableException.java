package io.eyrie.transport.dpdk;

/** DPDK or this module's JNI library is not installed, or the EAL could not start. */
public final class DpdkUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public DpdkUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
