package io.volery.server.tree;

import static io.volery.server.tree.TreeFixture.expect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Containers reaped once empty after having had a child; TTL nodes expire when childless and unmodified. */
class ContainersAndTtlTest {

    private TreeFixture f;
    private long s;

    @BeforeEach
    void setUp() {
        f = new TreeFixture();
        s = f.session();
    }

    @Test
    void containerThatNeverHadAChildStays() {
        f.created(s, "/c", CreateMode.CONTAINER);
        f.run(new Command.Tick());
        assertNotNull(f.stat("/c"));
    }

    @Test
    void containerIsReapedOnTheTickAfterItsLastChildGoes() {
        f.created(s, "/c", CreateMode.CONTAINER);
        f.created(s, "/c/x", CreateMode.PERSISTENT);
        f.run(new Command.Tick());
        assertNotNull(f.stat("/c"), "not empty");
        f.run(new Command.Delete(s, "/c/x", -1));
        long watcher = f.session();
        f.run(new Command.Exists(watcher, "/c", true));
        Result r = f.run(new Command.Tick());
        assertNull(f.stat("/c"));
        assertEquals(List.of(new WatchEvent(watcher, EventType.NODE_DELETED, "/c", f.zxid)), r.events());
    }

    @Test
    void nestedContainersGoOneLevelPerTick() {
        f.created(s, "/c", CreateMode.CONTAINER);
        f.created(s, "/c/d", CreateMode.CONTAINER);
        f.created(s, "/c/d/x", CreateMode.PERSISTENT);
        f.run(new Command.Delete(s, "/c/d/x", -1));
        f.run(new Command.Tick());
        assertNull(f.stat("/c/d"));
        assertNotNull(f.stat("/c"), "candidates are chosen before deleting, as ZooKeeper's container manager");
        f.run(new Command.Tick());
        assertNull(f.stat("/c"));
    }

    @Test
    void ttlNodeExpiresWhenChildlessAndUnmodifiedForLongerThanItsTtl() {
        expect(ErrorCode.OK, f.run(new Command.Create(s, "/t", new byte[0], Acl.OPEN, CreateMode.PERSISTENT_WITH_TTL, 1000)),
                "create TTL node");
        f.time += 1000;
        f.run(new Command.Tick());
        assertNotNull(f.stat("/t"), "exactly ttl ms: not yet");
        f.run(new Command.SetData(s, "/t", new byte[1], -1));
        f.time += 1001;
        f.created(s, "/t/child", CreateMode.PERSISTENT);
        f.run(new Command.Tick());
        assertNotNull(f.stat("/t"), "has a child");
        f.run(new Command.Delete(s, "/t/child", -1));
        f.run(new Command.Tick());
        assertNull(f.stat("/t"), "childless and mtime more than ttl ago");
    }
}
