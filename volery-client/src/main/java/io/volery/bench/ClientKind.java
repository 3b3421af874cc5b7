package io.volery.bench;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Which client library drives the service: the ZooKeeper Java client or Volery's native client. */
public enum ClientKind {
    /** ZooKeeper Java client 3.9.5 through a connect string: any ZooKeeper endpoint, Volery's front ends included. */
    ZOOKEEPER("zookeeper"),
    /** Volery's native client, straight into the rings through a client node of the cluster file. */
    NATIVE("native");

    private final String cliName;

    ClientKind(String cliName) {
        this.cliName = cliName;
    }

    public String cliName() {
        return cliName;
    }

    public static ClientKind fromCliName(String name) {
        for (ClientKind k : values()) {
            if (k.cliName.equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException("--client must be one of "
                + Arrays.stream(values()).map(ClientKind::cliName).collect(Collectors.joining(" | ")) + ", was '" + name + "'");
    }
}
