package io.volery.bench;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The request mixes of the S-SMR paper's Volery evaluation. */
public enum Workload {
    /** {@code setData} on existing znodes: the paper's local commands. */
    SETDATA("setdata"),
    /** {@code getData} on existing znodes. */
    GETDATA("getdata"),
    /** 90% {@code getData}, 10% {@code setData}. */
    MIXED_READ90("mixed-read90"),
    /** {@code create}/{@code delete} pairs (the paper's global commands) mixed with {@code setData}. */
    CREATEDELETE("createdelete");

    private final String cliName;

    Workload(String cliName) {
        this.cliName = cliName;
    }

    /** The name used on the command line and in the JSON report. */
    public String cliName() {
        return cliName;
    }

    /** Parses a command-line name such as {@code mixed-read90}; the message lists the valid names. */
    public static Workload fromCliName(String name) {
        for (Workload w : values()) {
            if (w.cliName.equalsIgnoreCase(name)) {
                return w;
            }
        }
        throw new IllegalArgumentException("unknown workload '" + name + "'; expected one of "
                + Arrays.stream(values()).map(Workload::cliName).collect(Collectors.joining(", ")));
    }
}
