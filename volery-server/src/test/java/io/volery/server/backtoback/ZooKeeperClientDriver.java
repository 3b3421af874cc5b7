package io.volery.server.backtoback;

import io.volery.server.tree.Stat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;

/** Drives any ZooKeeper-protocol server through the official Java client, one client per session. */
public final class ZooKeeperClientDriver implements ZooKeeperDriver {

    private final String name;
    private final String connectString;
    private final ZooKeeper[] clients;
    private final List<ConcurrentLinkedQueue<String>> events = new ArrayList<>();
    private List<String> barrierPaths = List.of("/");

    public ZooKeeperClientDriver(String name, String connectString, int sessions) throws Exception {
        this.name = name;
        this.connectString = connectString;
        clients = new ZooKeeper[sessions];
        for (int i = 0; i < sessions; i++) {
            events.add(new ConcurrentLinkedQueue<>());
            clients[i] = connect(i);
        }
    }

    private ZooKeeper connect(int index) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> queue = events.get(index);
        ZooKeeper zk = new ZooKeeper(connectString, 30_000, event -> {
            if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
            record(queue, event);
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            zk.close();
            throw new IllegalStateException(name + " at " + connectString + " did not accept a session within 30 s");
        }
        return zk;
    }

    /** Node events only: connection states and the client's own *WatchRemoved events are not the server's. */
    private static void record(ConcurrentLinkedQueue<String> queue, WatchedEvent event) {
        switch (event.getType()) {
            case NodeCreated, NodeDeleted, NodeDataChanged, NodeChildrenChanged ->
                    queue.add(event.getType() + " " + event.getPath());
            default -> {
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * A round trip through the client's event thread: the server sends a session's notifications
     * before any later response, and the client hands callbacks to the same thread after earlier
     * events, so once this callback runs every earlier event has been recorded.
     */
    @Override
    public List<String> takeEvents(int session) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        clients[session].exists("/", false, (rc, path, ctx, stat) -> done.countDown(), null);
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + ": no answer to a barrier read within 30 s");
        }
        List<String> out = new ArrayList<>();
        ConcurrentLinkedQueue<String> queue = events.get(session);
        for (String e = queue.poll(); e != null; e = queue.poll()) {
            out.add(e);
        }
        return out;
    }

    /**
     * Sets the nodes {@link #takeAllEvents} reads as its barrier (default: the root). A partitioned
     * server orders a read only with the writes of the partition holding the node read, so its barrier
     * reads one node of every partition: each answer then reflects every earlier write, and the server
     * must have sent the watch events of those writes before it.
     */
    public ZooKeeperClientDriver barrierPaths(List<String> paths) {
        this.barrierPaths = List.copyOf(paths);
        return this;
    }

    /** The barrier reads of all sessions in flight together: one round trip instead of one per session. */
    @Override
    public List<List<String>> takeAllEvents(int sessions) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(sessions * barrierPaths.size());
        for (int s = 0; s < sessions; s++) {
            for (String p : barrierPaths) {
                clients[s].exists(p, false, (rc, path, ctx, stat) -> done.countDown(), null);
            }
        }
        if (!done.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + ": no answer to a barrier read within 30 s");
        }
        List<List<String>> out = new ArrayList<>();
        for (int s = 0; s < sessions; s++) {
            List<String> taken = new ArrayList<>();
            ConcurrentLinkedQueue<String> queue = events.get(s);
            for (String e = queue.poll(); e != null; e = queue.poll()) {
                taken.add(e);
            }
            out.add(taken);
        }
        return out;
    }

    static List<ACL> acl(DriverOp.AclChoice choice) {
        List<ACL> out = new ArrayList<>();
        for (io.volery.server.tree.Acl a : ZnodeTreeDriver.acl(choice)) {
            out.add(new ACL(a.perms(), new org.apache.zookeeper.data.Id(a.id().scheme(), a.id().id())));
        }
        return out;
    }

    @Override
    public Outcome execute(int session, DriverOp op) throws Exception {
        ZooKeeper zk = clients[session];
        try {
            if (op instanceof DriverOp.Create c) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                String path = zk.create(c.path(), c.data(), acl(c.acl()), mode(c), stat, c.mode().isTtl() ? c.ttl() : -1);
                return Outcome.created(path, convert(stat));
            } else if (op instanceof DriverOp.Delete d) {
                zk.delete(d.path(), d.version());
                return Outcome.code(0);
            } else if (op instanceof DriverOp.SetData s) {
                return Outcome.stat(convert(zk.setData(s.path(), s.data(), s.version())));
            } else if (op instanceof DriverOp.Check k) {
                // the Java client has no single check; a one-op multi is what a client would send
                return execute(session, new DriverOp.Multi(List.of(k))).results().get(0);
            } else if (op instanceof DriverOp.Exists e) {
                org.apache.zookeeper.data.Stat stat = zk.exists(e.path(), e.watch());
                return stat == null ? Outcome.code(KeeperException.Code.NONODE.intValue()) : Outcome.stat(convert(stat));
            } else if (op instanceof DriverOp.GetData g) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                byte[] data = zk.getData(g.path(), g.watch(), stat);
                return Outcome.data(data, convert(stat));
            } else if (op instanceof DriverOp.GetChildren g) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                return Outcome.list(zk.getChildren(g.path(), g.watch(), stat), false, convert(stat));
            } else if (op instanceof DriverOp.Multi m) {
                return multi(zk, m);
            } else if (op instanceof DriverOp.SetAcl s) {
                return Outcome.stat(convert(zk.setACL(s.path(), acl(s.acl()), s.aclVersion())));
            } else if (op instanceof DriverOp.GetAcl g) {
                org.apache.zookeeper.data.Stat stat = new org.apache.zookeeper.data.Stat();
                List<String> entries = zk.getACL(g.path(), stat).stream()
                        .map(a -> a.getPerms() + " " + a.getId().getScheme() + ":" + a.getId().getId()).toList();
                return Outcome.list(entries, false, convert(stat));
            } else if (op instanceof DriverOp.AddAuth a) {
                zk.addAuthInfo("digest", a.userColonPassword().getBytes(StandardCharsets.UTF_8));
                return Outcome.code(0);
            } else if (op instanceof DriverOp.AddWatch w) {
                zk.addWatch(w.path(), w.recursive() ? AddWatchMode.PERSISTENT_RECURSIVE : AddWatchMode.PERSISTENT);
                return Outcome.code(0);
            } else if (op instanceof DriverOp.RemoveWatches w) {
                zk.removeAllWatches(w.path(), Watcher.WatcherType.fromInt(w.type()), false);
                return Outcome.code(0);
            } else if (op instanceof DriverOp.GetEphemerals g) {
                return Outcome.list(zk.getEphemerals(g.prefix()), false, null);
            } else if (op instanceof DriverOp.GetAllChildrenNumber g) {
                return Outcome.count(zk.getAllChildrenNumber(g.path()));
            } else if (op instanceof DriverOp.Reopen) {
                zk.close();
                events.get(session).clear();
                clients[session] = connect(session);
                return Outcome.code(0);
            }
        } catch (KeeperException e) {
            return Outcome.code(e.code().intValue());
        }
        throw new AssertionError(op);
    }

    private static Outcome multi(ZooKeeper zk, DriverOp.Multi m) throws InterruptedException {
        List<Op> ops = new ArrayList<>();
        for (DriverOp.MultiStep step : m.steps()) {
            if (step instanceof DriverOp.Create c) {
                ops.add(c.mode().isTtl()
                        ? Op.create(c.path(), c.data(), acl(c.acl()), mode(c), c.ttl())
                        : Op.create(c.path(), c.data(), acl(c.acl()), mode(c)));
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
            if (results == null) {
                return Outcome.code(code);
            }
        }
        List<Outcome> outcomes = new ArrayList<>();
        for (OpResult r : results) {
            if (r instanceof OpResult.ErrorResult er) {
                outcomes.add(Outcome.code(er.getErr()));
            } else if (r instanceof OpResult.CreateResult cr) {
                outcomes.add(Outcome.created(cr.getPath(), convert(cr.getStat())));
            } else if (r instanceof OpResult.SetDataResult sr) {
                outcomes.add(Outcome.stat(convert(sr.getStat())));
            } else {
                outcomes.add(Outcome.code(0));
            }
        }
        return Outcome.multi(code, outcomes);
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
    public void close() {
        try {
            for (ZooKeeper zk : clients) {
                zk.close();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while closing sessions", e);
        }
    }
}
