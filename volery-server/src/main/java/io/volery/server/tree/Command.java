package io.volery.server.tree;

import java.util.List;
import java.util.Objects;

/**
 * An ordered input to {@link ZnodeTree#apply}. Every client operation names the session that sent
 * it; zxid and time come with the command's position in the order, never from a clock.
 */
public sealed interface Command {

    /** Operations allowed inside {@link Multi}: ZooKeeper's multi carries only these. */
    sealed interface MultiOp extends Command permits Create, Delete, SetData, Check {
    }

    /** Operations allowed inside {@link MultiRead}. */
    sealed interface ReadOp extends Command permits GetData, GetChildren {
    }

    /** The session that sent the command, or 0 for commands the service itself issues. */
    long sessionId();

    /**
     * create / create2 / createContainer / createTTL. {@code ttl} must be positive for the TTL modes and
     * negative (ZooKeeper sends -1) for all others.
     */
    record Create(long sessionId, String path, byte[] data, List<Acl> acl, CreateMode mode, long ttl)
            implements MultiOp {
        public Create {
            Objects.requireNonNull(path, "path");
            Objects.requireNonNull(mode, "mode");
            acl = acl == null ? null : List.copyOf(acl);
        }

        public Create(long sessionId, String path, byte[] data, List<Acl> acl, CreateMode mode) {
            this(sessionId, path, data, acl, mode, -1);
        }
    }

    /** delete; {@code version} -1 matches any version. */
    record Delete(long sessionId, String path, int version) implements MultiOp {
    }

    record SetData(long sessionId, String path, byte[] data, int version) implements MultiOp {
    }

    record Check(long sessionId, String path, int version) implements MultiOp {
    }

    record SetAcl(long sessionId, String path, List<Acl> acl, int aclVersion) implements Command {
        public SetAcl {
            acl = acl == null ? null : List.copyOf(acl);
        }
    }

    record GetData(long sessionId, String path, boolean watch) implements ReadOp {
    }

    /** exists; a watch is set even when the node is missing (an exist watch). */
    record Exists(long sessionId, String path, boolean watch) implements Command {
    }

    /** getChildren ({@code withStat} false) or getChildren2 ({@code withStat} true). */
    record GetChildren(long sessionId, String path, boolean watch, boolean withStat) implements ReadOp {
    }

    record GetAcl(long sessionId, String path) implements Command {
    }

    record GetEphemerals(long sessionId, String prefix) implements Command {
    }

    record GetAllChildrenNumber(long sessionId, String path) implements Command {
    }

    /** All-or-nothing; every op must carry the multi's session id. */
    record Multi(long sessionId, List<MultiOp> ops) implements Command {
        public Multi {
            ops = List.copyOf(ops);
            for (MultiOp op : ops) {
                if (op.sessionId() != sessionId) {
                    throw new IllegalArgumentException("multi of session " + sessionId
                            + " carries an op of session " + op.sessionId());
                }
            }
        }
    }

    /** Reads, each answered on its own. */
    record MultiRead(long sessionId, List<ReadOp> ops) implements Command {
        public MultiRead {
            ops = List.copyOf(ops);
            for (ReadOp op : ops) {
                if (op.sessionId() != sessionId) {
                    throw new IllegalArgumentException("multiRead of session " + sessionId
                            + " carries an op of session " + op.sessionId());
                }
            }
        }
    }

    record Sync(long sessionId, String path) implements Command {
    }

    record AddWatch(long sessionId, String path, AddWatchMode mode) implements Command {
    }

    record RemoveWatches(long sessionId, String path, WatcherType type) implements Command {
    }

    record CheckWatches(long sessionId, String path, WatcherType type) implements Command {
    }

    /** Re-arms a reconnecting session's watches relative to the last zxid the client saw. */
    record SetWatches(long sessionId, long relativeZxid, List<String> dataWatches, List<String> existWatches,
                      List<String> childWatches, List<String> persistentWatches,
                      List<String> persistentRecursiveWatches) implements Command {
        public SetWatches {
            dataWatches = List.copyOf(dataWatches);
            existWatches = List.copyOf(existWatches);
            childWatches = List.copyOf(childWatches);
            persistentWatches = List.copyOf(persistentWatches);
            persistentRecursiveWatches = List.copyOf(persistentRecursiveWatches);
        }
    }

    record WhoAmI(long sessionId) implements Command {
    }

    /** addAuth; only the {@code digest} scheme is known ({@code auth} is "user:password"). */
    record AddAuth(long sessionId, String scheme, byte[] auth) implements Command {
    }

    /**
     * The identity a session's client proved in a SASL negotiation with its front end: the session
     * gets {@code sasl:identity} (and {@code super} when the identity is a configured SASL super user).
     */
    record SaslIdentity(long sessionId, String identity) implements Command {
    }

    /**
     * The subject DN of the certificate a session's client presented to its front end over TLS (ADR 060):
     * the session gets {@code x509:DN} (and {@code super} first when the DN is the x509 super user), as
     * ZooKeeper's {@code X509AuthenticationProvider} gives a connection.
     */
    record X509Identity(long sessionId, String identity) implements Command {
    }

    /**
     * The session's client connected anew (a reconnect, ADR 070): its identities become {@code connectionIds},
     * those the new connection brings ({@code ip:<address>}), as ZooKeeper keeps identities in the connection
     * and a reconnecting client proves the others again (addAuth, SASL, its certificate).
     */
    record ConnectionIdentities(long sessionId, List<Id> connectionIds) implements Command {
        public ConnectionIdentities {
            connectionIds = List.copyOf(connectionIds);
        }
    }

    /**
     * Opens a session under an id the front end chose (unique, non-zero). {@code initialIds} are the
     * identities the connection brings (ZooKeeper adds {@code ip:<address>}).
     */
    record CreateSession(long sessionId, int requestedTimeoutMs, List<Id> initialIds) implements Command {
        public CreateSession {
            initialIds = List.copyOf(initialIds);
        }
    }

    /**
     * The session's client is now connected through front end {@code serverId} (first connection or
     * reconnection). From then on writes of the session that arrive {@link Via} another server answer
     * SESSIONMOVED, as in ZooKeeper.
     */
    record AttachSession(long sessionId, long serverId) implements Command {
    }

    /**
     * {@code command} as sent by front end {@code serverId}. Writes (create, delete, setData, check,
     * setACL, multi) of a session attached to another server answer SESSIONMOVED; everything else
     * behaves as {@code command} alone.
     */
    record Via(long serverId, Command command) implements Command {
        public Via {
            if (command instanceof Via) {
                throw new IllegalArgumentException("a command is sent via one server, not " + command);
            }
        }

        @Override
        public long sessionId() {
            return command.sessionId();
        }
    }

    record CloseSession(long sessionId) implements Command {
    }

    /** Heartbeats the front ends batch: each live session's deadline moves to time + its timeout. */
    record TouchSessions(List<Long> sessionIds) implements Command {
        public TouchSessions {
            sessionIds = List.copyOf(sessionIds);
        }

        @Override
        public long sessionId() {
            return 0;
        }
    }

    /**
     * The passage of ordered time: expires sessions whose deadline passed, TTL nodes past their TTL
     * and empty containers that once had a child.
     */
    record Tick() implements Command {
        @Override
        public long sessionId() {
            return 0;
        }
    }
}
