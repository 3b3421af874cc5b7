package io.volery.server.frontend;

import io.volery.server.tree.Acl;
import io.volery.server.tree.AddWatchMode;
import io.volery.server.tree.Command;
import io.volery.server.tree.CreateMode;
import io.volery.server.tree.ErrorCode;
import io.volery.server.tree.Id;
import io.volery.server.tree.Reply;
import io.volery.server.tree.Result;
import io.volery.server.tree.WatcherType;
import org.apache.jute.Record;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CheckVersionRequest;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetACLResponse;
import org.apache.zookeeper.proto.GetAllChildrenNumberRequest;
import org.apache.zookeeper.proto.GetAllChildrenNumberResponse;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildren2Response;
import org.apache.zookeeper.proto.GetChildrenRequest;
import org.apache.zookeeper.proto.GetChildrenResponse;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.GetEphemeralsRequest;
import org.apache.zookeeper.proto.GetEphemeralsResponse;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetACLResponse;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;
import org.apache.zookeeper.proto.SetWatches;
import org.apache.zookeeper.proto.SetWatches2;
import org.apache.zookeeper.proto.SyncRequest;
import org.apache.zookeeper.proto.SyncResponse;
import org.apache.zookeeper.proto.WhoAmIResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The edge between the wire and the replicated state: jute requests become znode-tree commands,
 * tree results become jute replies. Nothing else in Volery sees jute records.
 */
public final class JuteTranslator {

    private JuteTranslator() {
    }

    /** A request the translator rejects before it reaches the tree, with ZooKeeper's code. */
    public static final class RejectedRequest extends Exception {
        private final ErrorCode code;

        public RejectedRequest(ErrorCode code, String message) {
            super(message);
            this.code = code;
        }

        public ErrorCode code() {
            return code;
        }
    }

    /** The tree command for a request of {@code sessionId}; null for operations handled elsewhere. */
    public static Command toCommand(long sessionId, ZkRequest r) throws RejectedRequest {
        Record b = r.body();
        return switch (r.opCode()) {
            case OpCodes.CREATE, OpCodes.CREATE2 -> create(sessionId, (CreateRequest) b, false);
            case OpCodes.CREATE_CONTAINER -> create(sessionId, (CreateRequest) b, true);
            case OpCodes.CREATE_TTL -> {
                CreateTTLRequest c = (CreateTTLRequest) b;
                yield new Command.Create(sessionId, c.getPath(), c.getData(), acls(c.getAcl()), mode(c.getFlags()), c.getTtl());
            }
            case OpCodes.DELETE, OpCodes.DELETE_CONTAINER -> {
                DeleteRequest d = (DeleteRequest) b;
                yield new Command.Delete(sessionId, d.getPath(), d.getVersion());
            }
            case OpCodes.EXISTS -> {
                ExistsRequest e = (ExistsRequest) b;
                yield new Command.Exists(sessionId, e.getPath(), e.getWatch());
            }
            case OpCodes.GET_DATA -> {
                GetDataRequest g = (GetDataRequest) b;
                yield new Command.GetData(sessionId, g.getPath(), g.getWatch());
            }
            case OpCodes.SET_DATA -> {
                SetDataRequest s = (SetDataRequest) b;
                yield new Command.SetData(sessionId, s.getPath(), s.getData(), s.getVersion());
            }
            case OpCodes.GET_ACL -> new Command.GetAcl(sessionId, ((GetACLRequest) b).getPath());
            case OpCodes.SET_ACL -> {
                SetACLRequest s = (SetACLRequest) b;
                yield new Command.SetAcl(sessionId, s.getPath(), acls(s.getAcl()), s.getVersion());
            }
            case OpCodes.GET_CHILDREN -> {
                GetChildrenRequest g = (GetChildrenRequest) b;
                yield new Command.GetChildren(sessionId, g.getPath(), g.getWatch(), false);
            }
            case OpCodes.GET_CHILDREN2 -> {
                GetChildren2Request g = (GetChildren2Request) b;
                yield new Command.GetChildren(sessionId, g.getPath(), g.getWatch(), true);
            }
            case OpCodes.SYNC -> new Command.Sync(sessionId, ((SyncRequest) b).getPath());
            case OpCodes.CHECK -> {
                CheckVersionRequest c = (CheckVersionRequest) b;
                yield new Command.Check(sessionId, c.getPath(), c.getVersion());
            }
            case OpCodes.MULTI -> {
                List<Command.MultiOp> ops = new ArrayList<>();
                for (ZkRequest op : r.ops()) {
                    ops.add((Command.MultiOp) toCommand(sessionId, op));
                }
                yield new Command.Multi(sessionId, ops);
            }
            case OpCodes.MULTI_READ -> {
                List<Command.ReadOp> ops = new ArrayList<>();
                for (ZkRequest op : r.ops()) {
                    Command c = toCommand(sessionId, op);
                    ops.add((Command.ReadOp) c);
                }
                yield new Command.MultiRead(sessionId, ops);
            }
            case OpCodes.CHECK_WATCHES -> {
                CheckWatchesRequest c = (CheckWatchesRequest) b;
                yield new Command.CheckWatches(sessionId, c.getPath(), watcherType(c.getType()));
            }
            case OpCodes.REMOVE_WATCHES -> {
                RemoveWatchesRequest c = (RemoveWatchesRequest) b;
                yield new Command.RemoveWatches(sessionId, c.getPath(), watcherType(c.getType()));
            }
            case OpCodes.ADD_WATCH -> {
                AddWatchRequest a = (AddWatchRequest) b;
                AddWatchMode m = switch (a.getMode()) {
                    case 0 -> AddWatchMode.PERSISTENT;
                    case 1 -> AddWatchMode.PERSISTENT_RECURSIVE;
                    default -> throw new RejectedRequest(ErrorCode.BADARGUMENTS, "unknown addWatch mode " + a.getMode());
                };
                yield new Command.AddWatch(sessionId, a.getPath(), m);
            }
            case OpCodes.SET_WATCHES -> {
                SetWatches s = (SetWatches) b;
                yield new Command.SetWatches(sessionId, s.getRelativeZxid(), s.getDataWatches(), s.getExistWatches(),
                        s.getChildWatches(), List.of(), List.of());
            }
            case OpCodes.SET_WATCHES2 -> {
                SetWatches2 s = (SetWatches2) b;
                yield new Command.SetWatches(sessionId, s.getRelativeZxid(), s.getDataWatches(), s.getExistWatches(),
                        s.getChildWatches(), s.getPersistentWatches(), s.getPersistentRecursiveWatches());
            }
            case OpCodes.GET_EPHEMERALS -> new Command.GetEphemerals(sessionId, ((GetEphemeralsRequest) b).getPrefixPath());
            case OpCodes.GET_ALL_CHILDREN_NUMBER ->
                    new Command.GetAllChildrenNumber(sessionId, ((GetAllChildrenNumberRequest) b).getPath());
            case OpCodes.WHO_AM_I -> new Command.WhoAmI(sessionId);
            case OpCodes.AUTH -> {
                AuthPacket a = (AuthPacket) b;
                yield new Command.AddAuth(sessionId, a.getScheme(), a.getAuth());
            }
            case OpCodes.SASL -> {
                // only a front end orders this, once a client completed a SASL negotiation with it (client
                // SASL frames never reach the replicas): the token is the identity it proved
                byte[] token = ((org.apache.zookeeper.proto.GetSASLRequest) b).getToken();
                if (token == null || token.length == 0) {
                    throw new RejectedRequest(ErrorCode.AUTHFAILED, "an empty SASL identity");
                }
                yield new Command.SaslIdentity(sessionId, new String(token, java.nio.charset.StandardCharsets.UTF_8));
            }
            case OpCodes.CLOSE_SESSION -> new Command.CloseSession(sessionId);
            default -> null;
        };
    }

    private static Command.Create create(long sessionId, CreateRequest c, boolean container) throws RejectedRequest {
        CreateMode m = container ? CreateMode.CONTAINER : mode(c.getFlags());
        if (!container && m == CreateMode.CONTAINER) {
            // ZooKeeper makes a container only from createContainer; a plain create with the flag is persistent.
            m = CreateMode.PERSISTENT;
        }
        return new Command.Create(sessionId, c.getPath(), c.getData(), acls(c.getAcl()), m, -1);
    }

    private static CreateMode mode(int flags) throws RejectedRequest {
        try {
            return CreateMode.ofFlag(flags);
        } catch (IllegalArgumentException e) {
            throw new RejectedRequest(ErrorCode.BADARGUMENTS, "invalid create flags " + flags);
        }
    }

    private static WatcherType watcherType(int code) throws RejectedRequest {
        try {
            return WatcherType.of(code);
        } catch (IllegalArgumentException e) {
            throw new RejectedRequest(ErrorCode.BADARGUMENTS, "invalid watcher type " + code);
        }
    }

    /**
     * A request's ACL for the tree. A null scheme or id (jute's null string, which kazoo writes for every
     * empty string: its CREATOR_ALL_ACL, {@code make_acl('auth', '')}, comes as auth with a null id) is
     * taken as the empty string: an auth entry is then the session's identities, as in ZooKeeper, which
     * ignores its id, and any other entry is an InvalidACL (ZooKeeper too for a null scheme; for a null
     * world, digest, ip or sasl id its PrepRequestProcessor fails on a NullPointerException and answers
     * MarshallingError).
     */
    static List<Acl> acls(List<ACL> acl) {
        if (acl == null) {
            return null;
        }
        List<Acl> out = new ArrayList<>(acl.size());
        for (ACL a : acl) {
            org.apache.zookeeper.data.Id id = a.getId();
            out.add(new Acl(a.getPerms(), id == null ? null
                    : new Id(Objects.requireNonNullElse(id.getScheme(), ""), Objects.requireNonNullElse(id.getId(), ""))));
        }
        return out;
    }

    static List<ACL> jute(List<Acl> acl) {
        List<ACL> out = new ArrayList<>(acl.size());
        for (Acl a : acl) {
            out.add(new ACL(a.perms(), new org.apache.zookeeper.data.Id(a.id().scheme(), a.id().id())));
        }
        return out;
    }

    static Stat jute(io.volery.server.tree.Stat s) {
        if (s == null) {
            return new Stat();
        }
        return new Stat(s.czxid(), s.mzxid(), s.ctime(), s.mtime(), s.version(), s.cversion(), s.aversion(),
                s.ephemeralOwner(), s.dataLength(), s.numChildren(), s.pzxid());
    }

    /**
     * The reply to request {@code r} given the tree's result.
     *
     * @param zxid the zxid for the reply header
     */
    public static ZkReply toReply(ZkRequest r, Result result, long zxid) {
        int xid = r.xid();
        if (r.opCode() == OpCodes.MULTI || r.opCode() == OpCodes.MULTI_READ) {
            if (!result.isOk() && !(result.reply() instanceof Reply.MultiResults)) {
                return ZkReply.error(xid, zxid, result.code().code());
            }
            List<Result> results = ((Reply.MultiResults) result.reply()).results();
            List<ZkReply.OpResult> ops = new ArrayList<>(results.size());
            // A failed multi reports every operation as an error result, those that ran before the
            // failure with code 0: they were rolled back and have no response of their own.
            boolean rolledBack = !result.isOk();
            for (int i = 0; i < results.size(); i++) {
                Result sub = results.get(i);
                if (rolledBack || !sub.isOk()) {
                    ops.add(new ZkReply.OpResult(OpCodes.ERROR, sub.code().code(), null));
                } else {
                    int op = multiResultType(r.ops().get(i).opCode());
                    ops.add(new ZkReply.OpResult(op, 0, op == OpCodes.CHECK ? null : body(op, sub.reply())));
                }
            }
            return ZkReply.multi(xid, zxid, ops);
        }
        if (!result.isOk()) {
            return ZkReply.error(xid, zxid, result.code().code());
        }
        return ZkReply.ok(xid, zxid, body(r.opCode(), result.reply()));
    }

    /**
     * The type a multi reports for a successful operation: ZooKeeper answers every create that returns
     * a Stat as create2 (clients reject a createTTL or createContainer result type), and a check has no
     * body in a multi.
     */
    public static int multiResultType(int op) {
        return switch (op) {
            case OpCodes.CREATE_TTL, OpCodes.CREATE_CONTAINER -> OpCodes.CREATE2;
            case OpCodes.DELETE_CONTAINER -> OpCodes.DELETE;
            default -> op;
        };
    }

    /** The response record of a successful operation; null for those that have none. */
    public static Record body(int op, Reply reply) {
        return switch (op) {
            case OpCodes.CREATE -> new CreateResponse(((Reply.Created) reply).path());
            case OpCodes.CREATE2, OpCodes.CREATE_CONTAINER, OpCodes.CREATE_TTL -> {
                Reply.Created c = (Reply.Created) reply;
                yield new Create2Response(c.path(), jute(c.stat()));
            }
            case OpCodes.EXISTS -> new ExistsResponse(jute(((Reply.StatReply) reply).stat()));
            case OpCodes.GET_DATA -> {
                Reply.Data d = (Reply.Data) reply;
                yield new GetDataResponse(d.data(), jute(d.stat()));
            }
            case OpCodes.SET_DATA -> new SetDataResponse(jute(((Reply.StatReply) reply).stat()));
            case OpCodes.CHECK -> reply instanceof Reply.StatReply s && s.stat() != null
                    ? new SetDataResponse(jute(s.stat())) : null;
            case OpCodes.GET_ACL -> {
                Reply.Acls a = (Reply.Acls) reply;
                yield new GetACLResponse(jute(a.acl()), jute(a.stat()));
            }
            case OpCodes.SET_ACL -> new SetACLResponse(jute(((Reply.StatReply) reply).stat()));
            case OpCodes.GET_CHILDREN -> new GetChildrenResponse(((Reply.Children) reply).children());
            case OpCodes.GET_CHILDREN2 -> {
                Reply.Children c = (Reply.Children) reply;
                yield new GetChildren2Response(c.children(), jute(c.stat()));
            }
            case OpCodes.SYNC -> new SyncResponse(((Reply.Synced) reply).path());
            case OpCodes.GET_EPHEMERALS -> new GetEphemeralsResponse(((Reply.Paths) reply).paths());
            case OpCodes.GET_ALL_CHILDREN_NUMBER -> new GetAllChildrenNumberResponse(((Reply.Count) reply).count());
            case OpCodes.ADD_WATCH -> new ErrorResponse(0);
            case OpCodes.WHO_AM_I -> {
                List<ClientInfo> infos = new ArrayList<>();
                for (Id id : ((Reply.Identities) reply).ids()) {
                    infos.add(new ClientInfo(id.scheme(), userOf(id)));
                }
                yield new WhoAmIResponse(infos);
            }
            default -> null;
        };
    }

    /** ZooKeeper reports the user part of a digest id, the address for ip, the id otherwise. */
    private static String userOf(Id id) {
        if ("digest".equals(id.scheme())) {
            int colon = id.id().indexOf(':');
            return colon < 0 ? id.id() : id.id().substring(0, colon);
        }
        return id.id() == null ? "" : id.id();
    }
}
