package io.volery.server.tree;

/**
 * The one reading of {@code -Dvolery.rootHome} (ADR 053, ADR 080), a comparison setting every node and
 * native client of a cluster must agree on: true (the default) reads the root, and sets its one-shot
 * watches, in its owner; {@code false} reads it in whichever partition a front end belongs to.
 */
public final class RootHome {
    /** The system property. */
    public static final String PROPERTY = "volery.rootHome";

    /** Whether the root is read at its owner: anything but {@code -Dvolery.rootHome=false}. */
    public static final boolean ENABLED = !"false".equals(System.getProperty(PROPERTY));

    private RootHome() {
    }
}
