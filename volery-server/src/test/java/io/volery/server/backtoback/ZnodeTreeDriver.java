package io.volery.server.backtoback;

import io.volery.server.tree.Acl;
import io.volery.server.tree.AddWatchMode;
import io.volery.server.tree.Command;
import io.volery.server.tree.CreateMode;
import io.volery.server.tree.Id;
import io.volery.server.tree.Perms;
import io.volery.server.tree.Reply;
import io.volery.server.tree.Result;
import io.volery.server.tree.WatchEvent;
import io.volery.server.tree.WatcherType;
import io.volery.server.tree.ZnodeTree;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Drives a {@link ZnodeTree} directly, playing the front end: it opens sessions (with the
 * {@code ip:127.0.0.1} identity a loopback connection brings), numbers commands with zxids and
 * times of its own, and routes watch events to per-session queues.
 */
public final class ZnodeTreeDriver implements ZooKeeperDriver {

    private final ZnodeTree tree;
    private final long[] sessionIds;
    private final Map<Long, List<String>> events = new HashMap<>();
    private long nextSessionId = 0x5eed00;
    private long zxid;
    private long time;

    public ZnodeTreeDriver(ZnodeTree tree, int sessions, long startZxid, long startTime) {
        this.tree = tree;
        this.zxid = startZxid;
        this.time = startTime;
        sessionIds = new long[sessions];
        for (int i = 0; i < sessions; i++) {
            sessionIds[i] = open();
        }
    }

    private long open() {
        long id = nextSessionId++;
        Result r = apply(new Command.CreateSession(id, 30_000, List.of(new Id("ip", "127.0.0.1"))));
        if (!r.isOk()) {
            throw new IllegalStateException("could not open session " + id + ": " + r.code());
        }
        events.put(id, new ArrayList<>());
        return id;
    }

    @Override
    public String name() {
        return "ZnodeTree";
    }

    private Result apply(Command c) {
        Result r = tree.apply(c, ++zxid, ++time);
        for (WatchEvent e : r.events()) {
            List<String> queue = events.get(e.sessionId());
            if (queue != null) {
                queue.add(eventName(e) + " " + e.path());
            }
        }
        return r;
    }

    private static String eventName(WatchEvent e) {
        return switch (e.type()) {
            case NODE_CREATED -> "NodeCreated";
            case NODE_DELETED -> "NodeDeleted";
            case NODE_DATA_CHANGED -> "NodeDataChanged";
            case NODE_CHILDREN_CHANGED -> "NodeChildrenChanged";
        };
    }

    @Override
    public List<String> takeEvents(int session) {
        List<String> queue = events.get(sessionIds[session]);
        List<String> out = List.copyOf(queue);
        queue.clear();
        return out;
    }

    static List<Acl> acl(DriverOp.AclChoice choice) {
        return switch (choice) {
            case OPEN -> Acl.OPEN;
            case READ_ONLY -> Acl.READ_ONLY;
            case CREATOR_ALL -> Acl.CREATOR_ALL;
            case WRITE_ONLY -> List.of(new Acl(Perms.WRITE, Id.ANYONE));
            case DIGEST_USER0_ALL -> List.of(new Acl(Perms.ALL, new Id("digest", digest("user0:pw"))));
            case IP_LOCAL_READ -> List.of(new Acl(Perms.READ, new Id("ip", "127.0.0.1")),
                    new Acl(Perms.ALL & ~Perms.READ, Id.ANYONE));
            case EMPTY -> List.of();
        };
    }

    /** Computed here independently of the tree's own digest code. */
    public static String digest(String userColonPassword) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest(userColonPassword.getBytes(StandardCharsets.UTF_8));
            return userColonPassword.split(":")[0] + ":" + Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public Outcome execute(int index, DriverOp op) {
        long session = sessionIds[index];
        if (op instanceof DriverOp.Multi m) {
            List<Command.MultiOp> ops = new ArrayList<>();
            for (DriverOp.MultiStep step : m.steps()) {
                ops.add(toCommand(session, step));
            }
            Result r = apply(new Command.Multi(session, ops));
            List<Outcome> results = new ArrayList<>();
            List<Result> each = r.reply(Reply.MultiResults.class).results();
            for (int i = 0; i < each.size(); i++) {
                results.add(toOutcome(each.get(i), createWithoutStat(m.steps().get(i))));
            }
            return Outcome.multi(r.code().code(), results);
        }
        if (op instanceof DriverOp.Reopen) {
            apply(new Command.CloseSession(session));
            events.remove(session);
            sessionIds[index] = open();
            return Outcome.code(0);
        }
        if (op instanceof DriverOp.AddAuth a) {
            return Outcome.code(apply(new Command.AddAuth(session, "digest",
                    a.userColonPassword().getBytes(StandardCharsets.UTF_8))).code().code());
        }
        Command c;
        if (op instanceof DriverOp.MultiStep step) {
            c = toCommand(session, step);
        } else if (op instanceof DriverOp.Exists e) {
            c = new Command.Exists(session, e.path(), e.watch());
        } else if (op instanceof DriverOp.GetData g) {
            c = new Command.GetData(session, g.path(), g.watch());
        } else if (op instanceof DriverOp.GetChildren g) {
            c = new Command.GetChildren(session, g.path(), g.watch(), true);
        } else if (op instanceof DriverOp.SetAcl s) {
            c = new Command.SetAcl(session, s.path(), acl(s.acl()), s.aclVersion());
        } else if (op instanceof DriverOp.GetAcl g) {
            c = new Command.GetAcl(session, g.path());
        } else if (op instanceof DriverOp.AddWatch w) {
            c = new Command.AddWatch(session, w.path(),
                    w.recursive() ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT);
        } else if (op instanceof DriverOp.RemoveWatches w) {
            c = new Command.RemoveWatches(session, w.path(), WatcherType.of(w.type()));
        } else if (op instanceof DriverOp.GetEphemerals g) {
            c = new Command.GetEphemerals(session, g.prefix());
        } else if (op instanceof DriverOp.GetAllChildrenNumber g) {
            c = new Command.GetAllChildrenNumber(session, g.path());
        } else {
            throw new AssertionError(op);
        }
        return toOutcome(apply(c), false);
    }

    private static Command.MultiOp toCommand(long session, DriverOp.MultiStep step) {
        if (step instanceof DriverOp.Create c) {
            return new Command.Create(session, c.path(), c.data(), acl(c.acl()), c.mode(), c.mode().isTtl() ? c.ttl() : -1);
        } else if (step instanceof DriverOp.Delete d) {
            return new Command.Delete(session, d.path(), d.version());
        } else if (step instanceof DriverOp.SetData s) {
            return new Command.SetData(session, s.path(), s.data(), s.version());
        } else if (step instanceof DriverOp.Check k) {
            return new Command.Check(session, k.path(), k.version());
        }
        throw new AssertionError(step);
    }

    /**
     * Inside a multi, the Java client sends a plain create with the create opcode, whose result has a
     * path but no Stat; containers and TTL nodes go as createContainer/createTTL, whose results have one.
     */
    private static boolean createWithoutStat(DriverOp.MultiStep step) {
        return step instanceof DriverOp.Create c && c.mode() != CreateMode.CONTAINER && !c.mode().isTtl();
    }

    private static Outcome toOutcome(Result r, boolean hideStat) {
        if (!r.isOk()) {
            return Outcome.code(r.code().code());
        }
        Reply reply = r.reply();
        if (reply instanceof Reply.Created c) {
            return Outcome.created(c.path(), hideStat ? null : c.stat());
        } else if (reply instanceof Reply.StatReply s) {
            return Outcome.stat(s.stat());
        } else if (reply instanceof Reply.Data d) {
            return Outcome.data(d.data(), d.stat());
        } else if (reply instanceof Reply.Children c) {
            return Outcome.list(c.children(), false, c.stat());
        } else if (reply instanceof Reply.Acls a) {
            return Outcome.list(a.acl().stream().map(e -> e.perms() + " " + e.id().scheme() + ":" + e.id().id()).toList(),
                    false, a.stat());
        } else if (reply instanceof Reply.Paths p) {
            return Outcome.list(p.paths(), false, null);
        } else if (reply instanceof Reply.Count n) {
            return Outcome.count(n.count());
        }
        return Outcome.code(0);
    }

    @Override
    public void close() {
        for (long id : sessionIds) {
            apply(new Command.CloseSession(id));
        }
    }
}
