package io.volery.server.frontend;

/** ZooKeeper 3.9 operation codes and special xids, as numbers on the wire. */
public final class OpCodes {
    public static final int NOTIFICATION = 0;
    public static final int CREATE = 1;
    public static final int DELETE = 2;
    public static final int EXISTS = 3;
    public static final int GET_DATA = 4;
    public static final int SET_DATA = 5;
    public static final int GET_ACL = 6;
    public static final int SET_ACL = 7;
    public static final int GET_CHILDREN = 8;
    public static final int SYNC = 9;
    public static final int PING = 11;
    public static final int GET_CHILDREN2 = 12;
    public static final int CHECK = 13;
    public static final int MULTI = 14;
    public static final int CREATE2 = 15;
    public static final int RECONFIG = 16;
    public static final int CHECK_WATCHES = 17;
    public static final int REMOVE_WATCHES = 18;
    public static final int CREATE_CONTAINER = 19;
    public static final int DELETE_CONTAINER = 20;
    public static final int CREATE_TTL = 21;
    public static final int MULTI_READ = 22;
    public static final int AUTH = 100;
    public static final int SET_WATCHES = 101;
    public static final int SASL = 102;
    public static final int GET_EPHEMERALS = 103;
    public static final int GET_ALL_CHILDREN_NUMBER = 104;
    public static final int SET_WATCHES2 = 105;
    public static final int ADD_WATCH = 106;
    public static final int WHO_AM_I = 107;
    public static final int CREATE_SESSION = -10;
    public static final int CLOSE_SESSION = -11;
    public static final int ERROR = -1;

    public static final int XID_NOTIFICATION = -1;
    public static final int XID_PING = -2;
    public static final int XID_AUTH = -4;
    public static final int XID_SET_WATCHES = -8;

    private OpCodes() {
    }

    /** Whether an operation only reads (ZooKeeper's own classification). */
    public static boolean isRead(int op) {
        return switch (op) {
            case EXISTS, GET_ACL, GET_CHILDREN, GET_ALL_CHILDREN_NUMBER, GET_CHILDREN2, GET_DATA, GET_EPHEMERALS,
                 MULTI_READ, WHO_AM_I -> true;
            default -> false;
        };
    }
}
