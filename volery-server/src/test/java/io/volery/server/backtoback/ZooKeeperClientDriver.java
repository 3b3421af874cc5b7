package io.volery.server.backtoback;

import io.volery.server.tree.Stat;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/** Drives any ZooKeeper-protocol server through the official Java client, as one session. */
public final class ZooKeeperClientDriver implements ZooKeeperDriver {

    private final ZooKeeper zk;
    private final String name;

    public ZooKeeperClientDriver(String name, String connectString, int sessionTimeoutMs) throws Exception {
        this.name = name;
        CountDownLatch connected = new CountDownLatch(1);
        zk = new ZooKeeper(connectString, sessionTimeoutMs, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            zk.close();
            throw new IllegalStateException(name + " at " + connectString + " did not accept a session within 30 s");
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Outcome execute(DriverOp op) throws InterruptedException {
        try {
            if (op instanceof DriverOp.Create c) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                String path = zk.create(c.path(), c.data(), ZooDefs.Ids.OPEN_ACL_UNSAFE, mode(c), stat,
                        c.mode().isTtl() ? c.ttl() : -1);
                return Outcome.of(0, path, convert(stat), null, null, null);
            } else if (op instanceof DriverOp.Delete d) {
                zk.delete(d.path(), d.version());
                return Outcome.error(0);
            } else if (op instanceof DriverOp.SetData s) {
                return Outcome.of(0, null, convert(zk.setData(s.path(), s.data(), s.version())), null, null, null);
            } else if (op instanceof DriverOp.Check k) {
                // the Java client has no single check; a one-op multi is what a client would send
                return execute(new DriverOp.Multi(List.of(k))).results().get(0);
            } else if (op instanceof DriverOp.Exists e) {
                org.apache.zookeeper.data.Stat stat = zk.exists(e.path(), false);
                return stat == null ? Outcome.error(KeeperException.Code.NONODE.intValue())
                        : Outcome.of(0, null, convert(stat), null, null, null);
            } else if (op instanceof DriverOp.GetData g) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                byte[] data = zk.getData(g.path(), false, stat);
                return Outcome.of(0, null, convert(stat), data == null ? new byte[0] : data, null, null);
            } else if (op instanceof DriverOp.GetChildren g) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                List<String> children = zk.getChildren(g.path(), false, stat);
                return Outcome.of(0, null, convert(stat), null, children, null);
            } else if (op instanceof DriverOp.Multi m) {
                return multi(m);
            }
        } catch (KeeperException e) {
            return Outcome.error(e.code().intValue());
        }
        throw new AssertionError(op);
    }

    private Outcome multi(DriverOp.Multi m) throws InterruptedException {
        List<Op> ops = new ArrayList<>();
        for (DriverOp.MultiStep step : m.steps()) {
            if (step instanceof DriverOp.Create c) {
                ops.add(c.mode().isTtl()
                        ? Op.create(c.path(), c.data(), ZooDefs.Ids.OPEN_ACL_UNSAFE, mode(c), c.ttl())
                        : Op.create(c.path(), c.data(), ZooDefs.Ids.OPEN_ACL_UNSAFE, mode(c)));
            } else if (step instanceof DriverOp.Delete d) {
                ops.add(Op.delete(d.path(), d.version()));
            } else if (step instanceof DriverOp.SetData s) {
                ops.add(Op.setData(s.path(), s.data(), s.version()));
            } else if (step instanceof DriverOp.Check k) {
                ops.add(Op.check(k.path(), k.version()));
            }
        }
        List<OpResult> results;
        int code = 0;
        try {
            results = zk.multi(ops);
        } catch (KeeperException e) {
            code = e.code().intValue();
            results = e.getResults();
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (OpResult r : results) {
            if (r instanceof OpResult.ErrorResult er) {
                outcomes.add(Outcome.error(er.getErr()));
            } else if (r instanceof OpResult.CreateResult cr) {
                outcomes.add(Outcome.of(0, cr.getPath(), convert(cr.getStat()), null, null, null));
            } else if (r instanceof OpResult.SetDataResult sr) {
                outcomes.add(Outcome.of(0, null, convert(sr.getStat()), null, null, null));
            } else {
                outcomes.add(Outcome.error(0));
            }
        }
        return new Outcome(code, null, null, null, null, outcomes);
    }

    private static org.apache.zookeeper.CreateMode mode(DriverOp.Create c) {
        return org.apache.zookeeper.CreateMode.valueOf(c.mode().name());
    }

    private static Stat convert(org.apache.zookeeper.data.Stat s) {
        return s == null ? null : new Stat(s.getCzxid(), s.getMzxid(), s.getCtime(), s.getMtime(), s.getVersion(),
                s.getCversion(), s.getAversion(), s.getEphemeralOwner(), s.getDataLength(), s.getNumChildren(),
                s.getPzxid());
    }

    @Override
    public void close() throws InterruptedException {
        zk.close();
    }
}
