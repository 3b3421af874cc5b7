package io.volery.server.tree;

/** ZooKeeper's result codes ({@code KeeperException.Code}), with their exact wire values. */
public enum ErrorCode {
    OK(0),
    SYSTEMERROR(-1),
    RUNTIMEINCONSISTENCY(-2),
    DATAINCONSISTENCY(-3),
    CONNECTIONLOSS(-4),
    MARSHALLINGERROR(-5),
    UNIMPLEMENTED(-6),
    OPERATIONTIMEOUT(-7),
    BADARGUMENTS(-8),
    UNKNOWNSESSION(-12),
    NEWCONFIGNOQUORUM(-13),
    RECONFIGINPROGRESS(-14),
    APIERROR(-100),
    NONODE(-101),
    NOAUTH(-102),
    BADVERSION(-103),
    NOCHILDRENFOREPHEMERALS(-108),
    NODEEXISTS(-110),
    NOTEMPTY(-111),
    SESSIONEXPIRED(-112),
    INVALIDCALLBACK(-113),
    INVALIDACL(-114),
    AUTHFAILED(-115),
    SESSIONMOVED(-118),
    NOTREADONLY(-119),
    EPHEMERALONLOCALSESSION(-120),
    NOWATCHER(-121),
    REQUESTTIMEOUT(-122),
    RECONFIGDISABLED(-123),
    SESSIONCLOSEDREQUIRESASLAUTH(-124),
    QUOTAEXCEEDED(-125),
    THROTTLEDOP(-127);

    private final int code;

    ErrorCode(int code) {
        this.code = code;
    }

    /** The value ZooKeeper puts in {@code ReplyHeader.err}. */
    public int code() {
        return code;
    }

    public static ErrorCode of(int code) {
        for (ErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        throw new IllegalArgumentException("no ZooKeeper error code " + code);
    }
}
