package io.volery.server.backtoback;

import io.volery.server.tree.Acl;
import io.volery.server.tree.Command;
import io.volery.server.tree.CreateMode;
import io.volery.server.tree.Reply;
import io.volery.server.tree.Result;
import io.volery.server.tree.ZnodeTree;
import java.util.ArrayList;
import java.util.List;

/** Drives a {@link ZnodeTree} directly, as one session, with a zxid and time of its own. */
public final class ZnodeTreeDriver implements ZooKeeperDriver {

    private final ZnodeTree tree;
    private final long session;
    private long zxid;
    private long time;

    public ZnodeTreeDriver(ZnodeTree tree, long sessionId, long startZxid, long startTime) {
        this.tree = tree;
        this.session = sessionId;
        this.zxid = startZxid;
        this.time = startTime;
        Result r = apply(new Command.CreateSession(sessionId, 30_000, List.of()));
        if (!r.isOk()) {
            throw new IllegalStateException("could not open session " + sessionId + ": " + r.code());
        }
    }

    @Override
    public String name() {
        return "ZnodeTree";
    }

    private Result apply(Command c) {
        return tree.apply(c, ++zxid, ++time);
    }

    @Override
    public Outcome execute(DriverOp op) {
        if (op instanceof DriverOp.Multi m) {
            List<Command.MultiOp> ops = new ArrayList<>();
            for (DriverOp.MultiStep step : m.steps()) {
                ops.add(toCommand(step));
            }
            Result r = apply(new Command.Multi(session, ops));
            List<Outcome> results = new ArrayList<>();
            List<Result> each = r.reply(Reply.MultiResults.class).results();
            for (int i = 0; i < each.size(); i++) {
                results.add(toOutcome(each.get(i), createWithoutStat(m.steps().get(i))));
            }
            return new Outcome(r.code().code(), null, null, null, null, results);
        }
        Command c;
        if (op instanceof DriverOp.MultiStep step) {
            c = toCommand(step);
        } else if (op instanceof DriverOp.Exists e) {
            c = new Command.Exists(session, e.path(), false);
        } else if (op instanceof DriverOp.GetData g) {
            c = new Command.GetData(session, g.path(), false);
        } else if (op instanceof DriverOp.GetChildren g) {
            c = new Command.GetChildren(session, g.path(), false, true);
        } else {
            throw new AssertionError(op);
        }
        return toOutcome(apply(c), false);
    }

    private Command.MultiOp toCommand(DriverOp.MultiStep step) {
        if (step instanceof DriverOp.Create c) {
            return new Command.Create(session, c.path(), c.data(), Acl.OPEN, c.mode(), c.mode().isTtl() ? c.ttl() : -1);
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
        int code = r.code().code();
        Reply reply = r.reply();
        if (reply instanceof Reply.Created c) {
            return Outcome.of(code, c.path(), hideStat ? null : c.stat(), null, null, null);
        } else if (reply instanceof Reply.StatReply s) {
            return Outcome.of(code, null, s.stat(), null, null, null);
        } else if (reply instanceof Reply.Data d) {
            return Outcome.of(code, null, d.stat(), d.data(), null, null);
        } else if (reply instanceof Reply.Children c) {
            return Outcome.of(code, null, c.stat(), null, c.children(), null);
        }
        return Outcome.error(code);
    }

    @Override
    public void close() {
        apply(new Command.CloseSession(session));
    }
}
