import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Writes /big/p0..p(P-1), each with children c0..c(C-1) of 100 bytes, 500 creates in flight; the source of
 * docs/benchmarks/volery-copy.md. Run as a single-file program on volery-client's classpath:
 * java -cp "$(source bench/lib.sh; bench_classpath)" bench/PopulateTree.java CONNECT P C
 */
public class PopulateTree {
    public static void main(String[] args) throws Exception {
        CountDownLatch up = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(args[0], 30_000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                up.countDown();
            }
        });
        up.await();
        int parents = Integer.parseInt(args[1]);
        int children = Integer.parseInt(args[2]);
        zk.create("/big", null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        Semaphore window = new Semaphore(500);
        for (int p = 0; p < parents; p++) {
            zk.create("/big/p" + p, null, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
            for (int c = 0; c < children; c++) {
                window.acquire();
                zk.create("/big/p" + p + "/c" + c, new byte[100], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT,
                        (rc, path, ctx, name) -> window.release(), null);
            }
        }
        window.acquire(500);
        zk.close();
    }
}
