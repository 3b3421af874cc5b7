package io.volery.server.audit;

import io.volery.server.frontend.OpCodes;
import io.volery.server.frontend.ZkReply;
import io.volery.server.frontend.ZkRequest;
import io.volery.server.tree.CreateMode;
import io.volery.server.tree.SessionTable;
import org.apache.jute.BinaryInputArchive;
import org.apache.jute.Record;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateResponse;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.MultiHeader;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The audit lines of a client's request, as ZooKeeper's {@code AuditHelper} writes them (ADR 071): creates,
 * deletes, setData, setACL, reconfig and multi, successful or not, with the session, the connection's
 * identities (in ZooKeeper's order) and address. A successful multi gives a line per create, delete and
 * setData in it (a sequential create's node type left out, as ZooKeeper looks it up by the created path); a
 * failed one a single {@code multiOperation} failure.
 */
public final class RequestAudit {
    private RequestAudit() {
    }

    /** Whether requests of this operation are audited. */
    public static boolean audits(int op) {
        return switch (op) {
            case OpCodes.CREATE, OpCodes.CREATE2, OpCodes.CREATE_CONTAINER, OpCodes.CREATE_TTL, OpCodes.DELETE,
                 OpCodes.DELETE_CONTAINER, OpCodes.SET_DATA, OpCodes.SET_ACL, OpCodes.MULTI, OpCodes.RECONFIG -> true;
            default -> false;
        };
    }

    /**
     * Logs what {@code request} of session {@code sessionId}, from {@code ip} with identities {@code authInfo}
     * (in the order proven), came to: {@code reply}.
     */
    public static void log(AuditLog audit, long sessionId, String ip, List<Id> authInfo, ZkRequest request,
                           ZkReply reply) {
        String session = "0x" + Long.toHexString(sessionId);
        String user = user(authInfo);
        boolean ok = reply.err() == 0;
        AuditLog.Result result = ok ? AuditLog.Result.SUCCESS : AuditLog.Result.FAILURE;
        Record body = request.body();
        switch (request.opCode()) {
            case OpCodes.CREATE, OpCodes.CREATE2, OpCodes.CREATE_CONTAINER, OpCodes.CREATE_TTL -> {
                String path = body instanceof CreateRequest c ? c.getPath() : ((CreateTTLRequest) body).getPath();
                int flags = body instanceof CreateRequest c ? c.getFlags() : ((CreateTTLRequest) body).getFlags();
                String mode = mode(flags);
                if (mode == null) {
                    return; // ZooKeeper cannot name the mode either and writes no line
                }
                if (ok) {
                    String created = createdPath(reply);
                    path = created == null ? path : created;
                }
                audit.log(session, user, ip, "create", path, mode, null, result);
            }
            case OpCodes.DELETE, OpCodes.DELETE_CONTAINER ->
                    audit.log(session, user, ip, "delete", ((DeleteRequest) body).getPath(), null, null, result);
            case OpCodes.SET_DATA ->
                    audit.log(session, user, ip, "setData", ((SetDataRequest) body).getPath(), null, null, result);
            case OpCodes.SET_ACL -> {
                SetACLRequest s = (SetACLRequest) body;
                audit.log(session, user, ip, "setAcl", s.getPath(), null, aclString(s.getAcl()), result);
            }
            case OpCodes.RECONFIG -> audit.log(session, user, ip, "reconfig", null, null, null, result);
            case OpCodes.MULTI -> multi(audit, session, user, ip, request, reply);
            default -> {
            }
        }
    }

    private static void multi(AuditLog audit, String session, String user, String ip, ZkRequest request,
                              ZkReply reply) {
        if (reply.err() != 0) {
            audit.log(session, user, ip, "multiOperation", null, null, null, AuditLog.Result.FAILURE);
            return;
        }
        List<int[]> types = new ArrayList<>(); // per result: its type
        List<String> createdPaths = new ArrayList<>();
        if (!multiResults(reply, types, createdPaths)) {
            return;
        }
        if (types.stream().anyMatch(t -> t[0] == -1)) {
            audit.log(session, user, ip, "multiOperation", null, null, null, AuditLog.Result.FAILURE);
            return;
        }
        // ZooKeeper looks a create's mode up by the path created (so a sequential one finds none)
        Map<String, String> modes = new HashMap<>();
        for (ZkRequest op : request.ops()) {
            if ((op.opCode() == OpCodes.CREATE || op.opCode() == OpCodes.CREATE2
                    || op.opCode() == OpCodes.CREATE_CONTAINER) && op.body() instanceof CreateRequest c) {
                modes.put(c.getPath(), mode(c.getFlags()));
            }
        }
        for (int i = 0; i < types.size() && i < request.ops().size(); i++) {
            ZkRequest op = request.ops().get(i);
            switch (types.get(i)[0]) {
                case OpCodes.CREATE, OpCodes.CREATE2 -> audit.log(session, user, ip, "create", createdPaths.get(i),
                        modes.get(createdPaths.get(i)), null, AuditLog.Result.SUCCESS);
                case OpCodes.DELETE -> audit.log(session, user, ip, "delete", ((DeleteRequest) op.body()).getPath(),
                        null, null, AuditLog.Result.SUCCESS);
                case OpCodes.SET_DATA -> audit.log(session, user, ip, "setData", ((SetDataRequest) op.body()).getPath(),
                        null, null, AuditLog.Result.SUCCESS);
                default -> {
                }
            }
        }
    }

    /** A multi reply's result types (-1: error) and created paths (null where none); false if unreadable. */
    private static boolean multiResults(ZkReply reply, List<int[]> types, List<String> createdPaths) {
        if (reply.encoded() == null) {
            for (ZkReply.OpResult r : reply.results()) {
                types.add(new int[]{r.opCode()});
                createdPaths.add(r.body() instanceof CreateResponse c ? c.getPath()
                        : r.body() instanceof Create2Response c2 ? c2.getPath() : null);
            }
            return true;
        }
        try {
            BinaryInputArchive a = body(reply);
            MultiHeader h = new MultiHeader();
            h.deserialize(a, "multiheader");
            while (!h.getDone()) {
                String created = null;
                switch (h.getType()) {
                    case OpCodes.CREATE -> {
                        CreateResponse c = new CreateResponse();
                        c.deserialize(a, "response");
                        created = c.getPath();
                    }
                    case OpCodes.CREATE2 -> {
                        Create2Response c = new Create2Response();
                        c.deserialize(a, "response");
                        created = c.getPath();
                    }
                    case OpCodes.SET_DATA -> new SetDataResponse().deserialize(a, "response");
                    case -1 -> new ErrorResponse().deserialize(a, "response");
                    default -> {
                    }
                }
                types.add(new int[]{h.getType()});
                createdPaths.add(created);
                h.deserialize(a, "multiheader");
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** The path a successful create made: the response's first field. */
    private static String createdPath(ZkReply reply) {
        if (reply.body() instanceof CreateResponse c) {
            return c.getPath();
        }
        if (reply.body() instanceof Create2Response c) {
            return c.getPath();
        }
        if (reply.encoded() == null) {
            return null;
        }
        try {
            return body(reply).readString("path");
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The encoded reply's body: after xid (4), zxid (8) and err (4). */
    private static BinaryInputArchive body(ZkReply reply) {
        byte[] e = reply.encoded();
        return BinaryInputArchive.getArchive(new ByteArrayInputStream(e, 16, e.length - 16));
    }

    private static String mode(int flags) {
        try {
            return CreateMode.ofFlag(flags).name().toLowerCase(java.util.Locale.ROOT);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** ZooKeeper's {@code ZKUtil.aclToString}: scheme:id:perms per entry, with nothing between entries. */
    static String aclString(List<ACL> acl) {
        StringBuilder s = new StringBuilder();
        for (ACL a : acl) {
            s.append(a.getId().getScheme()).append(':').append(a.getId().getId()).append(':');
            int p = a.getPerms();
            if ((p & 4) != 0) {
                s.append('c');
            }
            if ((p & 8) != 0) {
                s.append('d');
            }
            if ((p & 1) != 0) {
                s.append('r');
            }
            if ((p & 2) != 0) {
                s.append('w');
            }
            if ((p & 16) != 0) {
                s.append('a');
            }
        }
        return s.toString();
    }

    /** The user field: the identities in ZooKeeper's order, named as its providers name them. */
    static String user(List<Id> authInfo) {
        List<io.volery.server.tree.Id> ids = new ArrayList<>();
        for (Id id : authInfo) {
            ids.add(new io.volery.server.tree.Id(id.getScheme(), id.getId()));
        }
        List<String[]> ordered = new ArrayList<>();
        for (io.volery.server.tree.Id id : SessionTable.inZooKeeperOrder(ids)) {
            ordered.add(new String[]{id.scheme(), id.id()});
        }
        return AuditLog.users(ordered);
    }
}
