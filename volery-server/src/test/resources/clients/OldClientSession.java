import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs.Ids;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;

/**
 * A scripted session through an older ZooKeeper Java client (3.4 onwards: only the API 3.4.14 has), run by
 * OldClientVersionsTest with that client's jar as the whole class path (java's source launcher compiles this
 * file against it): every line it prints must be the same against ZooKeeper 3.9.5 and against Volery.
 * Events go through a queue and are printed when the script waits for them, so the transcript does not depend
 * on thread timing. Usage: OldClientSession host:port,... (top-level nodes /old and /old2, which must not exist).
 */
public class OldClientSession {
    private static final BlockingQueue<WatchedEvent> events = new LinkedBlockingQueue<>();

    private static void line(String s) {
        System.out.println(s);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String stat(Stat s) {
        return "version=" + s.getVersion() + " cversion=" + s.getCversion() + " aversion=" + s.getAversion()
                + " dataLength=" + s.getDataLength() + " numChildren=" + s.getNumChildren()
                + " ephemeral=" + (s.getEphemeralOwner() != 0) + " mzxid==czxid=" + (s.getMzxid() == s.getCzxid());
    }

    private static ZooKeeper connect(String servers, BlockingQueue<WatchedEvent> sink) throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(servers, 10000, e -> {
            if (e.getType() == Watcher.Event.EventType.None) {
                if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            } else if (sink != null) {
                sink.add(e);
            }
        });
        if (!connected.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("no connection to " + servers);
        }
        return zk;
    }

    /** Prints the next event, or that none came within ten seconds. */
    private static void awaitEvent(String what) throws InterruptedException {
        WatchedEvent e = events.poll(10, TimeUnit.SECONDS);
        line(what + ": " + (e == null ? "no event" : e.getType() + " " + e.getPath()));
    }

    private interface Call {
        String run() throws Exception;
    }

    /** Runs {@code call} and prints its result, or the error code it failed with. */
    private static void step(String what, Call call) {
        try {
            line(what + ": " + call.run());
        } catch (KeeperException e) {
            line(what + ": " + e.code());
        } catch (Exception e) {
            line(what + ": unexpected " + e);
        }
    }

    private static String results(List<OpResult> results) {
        List<String> out = new ArrayList<>();
        for (OpResult r : results) {
            if (r instanceof OpResult.ErrorResult) {
                out.add("error " + KeeperException.Code.get(((OpResult.ErrorResult) r).getErr()));
            } else if (r instanceof OpResult.CreateResult) {
                out.add("created " + ((OpResult.CreateResult) r).getPath());
            } else if (r instanceof OpResult.SetDataResult) {
                out.add("set version " + ((OpResult.SetDataResult) r).getStat().getVersion());
            } else {
                out.add(r.getClass().getSimpleName());
            }
        }
        return out.toString();
    }

    public static void main(String[] args) throws Exception {
        String servers = args[0];
        ZooKeeper a = connect(servers, events);
        line("session A connected");
        step("create /old", () -> a.create("/old", bytes("top"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        step("create /old2", () -> a.create("/old2", bytes("other"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        step("create /old/a", () -> a.create("/old/a", bytes("alpha"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        step("create ephemeral /old/e", () -> a.create("/old/e", bytes("e"), Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL));
        step("create sequential /old/s-", () -> a.create("/old/s-", bytes("s"), Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT_SEQUENTIAL));
        step("create sequential /old/s-", () -> a.create("/old/s-", bytes("s"), Ids.OPEN_ACL_UNSAFE,
                CreateMode.EPHEMERAL_SEQUENTIAL));
        step("create existing /old/a", () -> a.create("/old/a", bytes("x"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        step("create orphan /old/none/x", () -> a.create("/old/none/x", bytes("x"), Ids.OPEN_ACL_UNSAFE,
                CreateMode.PERSISTENT));
        step("create under ephemeral", () -> a.create("/old/e/x", bytes("x"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        step("create bad path", () -> a.create("/old//x", bytes("x"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));

        // data, exists and child watches
        step("getData /old/a with a watch", () -> {
            Stat s = new Stat();
            return new String(a.getData("/old/a", true, s), StandardCharsets.UTF_8) + " " + stat(s);
        });
        step("setData /old/a version 0", () -> stat(a.setData("/old/a", bytes("beta"), 0)));
        awaitEvent("event");
        step("setData /old/a version 0 again", () -> stat(a.setData("/old/a", bytes("gamma"), 0)));
        step("exists /old/x with a watch", () -> String.valueOf(a.exists("/old/x", true)));
        step("create /old/x", () -> a.create("/old/x", new byte[0], Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT));
        awaitEvent("event");
        step("getChildren /old with a watch", () -> {
            List<String> children = new ArrayList<>(a.getChildren("/old", true));
            Collections.sort(children);
            return children.toString();
        });
        step("delete /old/x version 1", () -> {
            a.delete("/old/x", 1);
            return "deleted";
        });
        step("delete /old/x version -1", () -> {
            a.delete("/old/x", -1);
            return "deleted";
        });
        awaitEvent("event");
        step("getData /old2 with a watch", () -> new String(a.getData("/old2", true, null), StandardCharsets.UTF_8));

        // multi, across both top-level nodes, committed and rolled back
        step("multi committed", () -> results(a.multi(List.of(Op.check("/old/a", 1),
                Op.setData("/old/a", bytes("delta"), 1), Op.setData("/old2", bytes("changed"), -1),
                Op.create("/old2/m", bytes("m"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT)))));
        awaitEvent("event");
        step("multi rolled back", () -> {
            try {
                return results(a.multi(List.of(Op.setData("/old/a", bytes("epsilon"), -1),
                        Op.create("/old2/m", bytes("m"), Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT),
                        Op.delete("/old2", -1))));
            } catch (KeeperException e) {
                return e.code() + " " + results(e.getResults());
            }
        });
        step("getData /old/a", () -> {
            Stat s = new Stat();
            return new String(a.getData("/old/a", false, s), StandardCharsets.UTF_8) + " " + stat(s);
        });

        // ACLs and authentication
        a.addAuthInfo("digest", bytes("user:secret"));
        step("create /old/secret", () -> a.create("/old/secret", bytes("s"), Ids.CREATOR_ALL_ACL, CreateMode.PERSISTENT));
        step("getACL /old/secret", () -> {
            List<String> acl = new ArrayList<>();
            for (ACL x : a.getACL("/old/secret", new Stat())) {
                acl.add(x.getId().getScheme() + ":" + x.getId().getId() + ":" + x.getPerms());
            }
            return acl.toString();
        });
        step("getData /old/secret", () -> new String(a.getData("/old/secret", false, null), StandardCharsets.UTF_8));
        ZooKeeper b = connect(servers, null);
        line("session B connected");
        step("B getData /old/secret", () -> new String(b.getData("/old/secret", false, null), StandardCharsets.UTF_8));
        b.addAuthInfo("digest", bytes("user:wrong"));
        step("B getData /old/secret, wrong password", () -> new String(b.getData("/old/secret", false, null),
                StandardCharsets.UTF_8));
        step("B setACL /old/a version 0", () -> stat(b.setACL("/old/a", Ids.READ_ACL_UNSAFE, 0)));
        step("B setData /old/a", () -> stat(b.setData("/old/a", bytes("x"), -1)));
        step("B exists /old/e", () -> {
            Stat s = b.exists("/old/e", false);
            return s == null ? "null" : "owned by A: " + (s.getEphemeralOwner() == a.getSessionId());
        });

        // pipelined asynchronous reads answer in order
        CountDownLatch done = new CountDownLatch(20);
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 20; i++) {
            String path = i % 2 == 0 ? "/old/a" : "/old2";
            a.getData(path, false, (rc, p, ctx, data, s) -> {
                order.add((Integer) ctx);
                done.countDown();
            }, i);
        }
        done.await(10, TimeUnit.SECONDS);
        List<Integer> sorted = new ArrayList<>(order);
        Collections.sort(sorted);
        line("pipelined 20 reads: " + order.size() + " answers, in order " + order.equals(sorted));
        CountDownLatch synced = new CountDownLatch(1);
        a.sync("/old", (rc, p, ctx) -> {
            line("sync /old: " + KeeperException.Code.get(rc));
            synced.countDown();
        }, null);
        synced.await(10, TimeUnit.SECONDS);

        // A's end removes its ephemerals, which B sees
        step("B exists /old/e with a watch", () -> String.valueOf(b.exists("/old/e", e -> events.add(e)) != null));
        a.close();
        line("session A closed");
        awaitEvent("B's event");
        step("B exists /old/e", () -> String.valueOf(b.exists("/old/e", false)));
        step("B getChildren /old", () -> {
            List<String> children = new ArrayList<>(b.getChildren("/old", false));
            Collections.sort(children);
            return children.toString();
        });
        b.addAuthInfo("digest", bytes("user:secret"));
        List<String> rest = new ArrayList<>();
        for (String top : List.of("/old", "/old2")) {
            List<String> children = new ArrayList<>(b.getChildren(top, false));
            Collections.sort(children);
            for (String c : children) {
                rest.add(top + "/" + c);
            }
        }
        rest.add("/old");
        rest.add("/old2");
        for (String path : rest) {
            step("B delete " + path, () -> {
                b.delete(path, -1);
                return "deleted";
            });
        }
        b.close();
        line("session B closed");
    }
}
