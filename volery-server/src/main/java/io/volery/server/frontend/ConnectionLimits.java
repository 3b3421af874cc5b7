package io.volery.server.frontend;

/**
 * ZooKeeper's connection limits for a client port (ADR 057): at most {@code perAddress} connections from
 * one IP address ({@code maxClientCnxns}) and {@code total} in all ({@code maxCnxns}); 0 is no limit. Each
 * front end applies them through its own {@link ConnectionGate}.
 */
public record ConnectionLimits(int perAddress, int total) {

    /** ZooKeeper's default {@code maxClientCnxns}. */
    public static final int DEFAULT_PER_ADDRESS = 60;
    /** No limit on either count. */
    public static final ConnectionLimits NONE = new ConnectionLimits(0, 0);
    /** ZooKeeper's defaults: 60 from one address, none in all. */
    public static final ConnectionLimits DEFAULT = new ConnectionLimits(DEFAULT_PER_ADDRESS, 0);

    public ConnectionLimits {
        if (perAddress < 0 || total < 0) {
            throw new IllegalArgumentException("connection limits must be 0 (none) or positive, got maxClientCnxns="
                    + perAddress + " maxCnxns=" + total);
        }
    }
}
