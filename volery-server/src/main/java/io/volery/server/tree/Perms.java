package io.volery.server.tree;

/** ZooKeeper's permission bits. */
public final class Perms {
    public static final int READ = 1;
    public static final int WRITE = 2;
    public static final int CREATE = 4;
    public static final int DELETE = 8;
    public static final int ADMIN = 16;
    public static final int ALL = READ | WRITE | CREATE | DELETE | ADMIN;

    private Perms() {
    }
}
