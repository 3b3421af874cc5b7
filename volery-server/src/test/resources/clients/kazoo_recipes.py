"""kazoo 2.11's recipes, unmodified, against the ZooKeeper ensemble in argv[1]; prints one line per check.

The Java test (KazooRecipesTest) compares these lines with what ZooKeeper's semantics require. Each recipe
lives under its own top-level path (/kr-...), so the recipes spread over the partitions of a Volery; several
KazooClient sessions, driven from threads, contend. Every wait is bounded: a check that times out prints a
"FAIL ..." line and the script exits non-zero (a watchdog ends the whole script after WATCHDOG_SECONDS).
Output holds no timings, sequence numbers or random names, so it is the same from run to run.
"""
import datetime
import json
import os
import queue
import sys
import threading
import time

from kazoo.client import KazooClient
from kazoo.exceptions import LockTimeout
from kazoo.recipe.cache import TreeCache, TreeEvent
from kazoo.recipe.watchers import ChildrenWatch, DataWatch

hosts = sys.argv[1]
WAIT = 15  # seconds any single wait may take before the check fails
WATCHDOG_SECONDS = 100
ROOTS = ["/kr-lock", "/kr-rwlock", "/kr-sem", "/kr-sem-__lock__", "/kr-election", "/kr-counter",
         "/kr-barrier", "/kr-dbarrier", "/kr-queue", "/kr-lqueue", "/kr-party", "/kr-sparty",
         "/kr-partitioner", "/kr-tree", "/kr-watch", "/kr-lease", "/kr-lease-race", "/kr-mlease"]


def out(*parts):
    print(*parts, flush=True)


def fail(what):
    out("FAIL", what)
    sys.stderr.flush()
    os._exit(1)


def watchdog():
    out("FAIL the whole script took longer than", WATCHDOG_SECONDS, "s")
    os._exit(2)


timer = threading.Timer(WATCHDOG_SECONDS, watchdog)
timer.daemon = True
timer.start()


def started():
    c = KazooClient(hosts=hosts, timeout=10.0)
    c.start(timeout=30)
    return c


class Task:
    """A function run on a daemon thread; join() fails the script if it overruns or raised."""

    def __init__(self, name, fn, *args, **kwargs):
        self.name = name
        self.result = None
        self.error = None
        self.done = threading.Event()

        def body():
            try:
                self.result = fn(*args, **kwargs)
            except BaseException as e:  # noqa: B902 - reported by join()
                self.error = e
            finally:
                self.done.set()

        self.thread = threading.Thread(target=body, name=name, daemon=True)
        self.thread.start()

    def join(self, timeout=WAIT):
        if not self.done.wait(timeout):
            fail("%s did not finish within %s s" % (self.name, timeout))
        if self.error is not None:
            fail("%s raised %s: %s" % (self.name, type(self.error).__name__, self.error))
        return self.result


def run_all(name, fns, timeout=WAIT * 2):
    tasks = [Task("%s[%d]" % (name, i), fn) for i, fn in enumerate(fns)]
    deadline = time.monotonic() + timeout
    return [t.join(max(0.1, deadline - time.monotonic())) for t in tasks]


def wait_until(what, condition, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            fail("timed out waiting until " + what)
        time.sleep(0.05)


def take(q, what, timeout=WAIT):
    try:
        return q.get(timeout=timeout)
    except queue.Empty:
        fail("no " + what + " within %s s" % timeout)


def text(value):
    return value.decode() if value is not None else None


def joined(items):
    return ",".join(items) if items else "none"


pool = [started() for _ in range(4)]
for root in ROOTS:  # a clean slate when run twice against the same ensemble
    pool[0].delete(root, recursive=True)


# ---------------------------------------------------------------- Lock
def lock_recipe():
    path = "/kr-lock"
    state = {"holders": 0, "max": 0, "total": 0}
    guard = threading.Lock()

    def worker(i):
        lock = pool[i].Lock(path, "w%d" % i)
        for _ in range(3):
            lock.acquire(timeout=WAIT)
            try:
                with guard:
                    state["holders"] += 1
                    state["max"] = max(state["max"], state["holders"])
                # a read-modify-write with a pause inside: two holders at once would lose an increment
                seen = state["total"]
                time.sleep(0.05)
                state["total"] = seen + 1
                with guard:
                    state["holders"] -= 1
            finally:
                lock.release()

    run_all("lock", [lambda i=i: worker(i) for i in range(4)])
    out("lock max holders", state["max"], "total", state["total"])

    a = pool[0].Lock(path, "c0")
    b = pool[1].Lock(path, "c1")
    c = pool[2].Lock(path, "c2")
    d = pool[3].Lock(path, "c3")
    out("lock c0 acquired", a.acquire(timeout=WAIT))
    tb = Task("lock c1", b.acquire, timeout=WAIT * 2)
    wait_until("c1 contends", lambda: len(a.contenders()) == 2)
    tc = Task("lock c2", c.acquire, timeout=WAIT * 2)
    wait_until("c2 contends", lambda: len(a.contenders()) == 3)
    out("lock contenders", joined(d.contenders()))
    out("lock non-blocking acquire while held", d.acquire(blocking=False))
    try:
        d.acquire(timeout=0.5)
        out("lock acquire with a timeout while held: acquired")
    except LockTimeout:
        out("lock acquire with a timeout while held: LockTimeout")
    out("lock c1,c2 still waiting", not tb.done.is_set(), not tc.done.is_set())
    a.release()
    out("lock passed to c1", tb.join(), "c2 still waiting", not tc.done.is_set())
    b.release()
    out("lock passed to c2", tc.join())
    out("lock contenders", joined(d.contenders()))
    c.release()
    out("lock contenders after release", joined(d.contenders()))


# ---------------------------------------------------------------- ReadLock / WriteLock
def rw_lock_recipe():
    path = "/kr-rwlock"
    r1 = pool[0].ReadLock(path, "r1")
    r2 = pool[1].ReadLock(path, "r2")
    w = pool[2].WriteLock(path, "w")
    r3 = pool[3].ReadLock(path, "r3")
    out("readers hold together", r1.acquire(timeout=WAIT), r2.acquire(timeout=WAIT))
    tw = Task("writer", w.acquire, timeout=WAIT * 2)
    wait_until("the writer contends", lambda: len(r1.contenders()) == 3)
    out("rw contenders", joined(r1.contenders()))
    time.sleep(0.5)
    out("writer waits for the readers", not tw.done.is_set())
    r1.release()
    time.sleep(0.5)
    out("writer waits for the second reader", not tw.done.is_set())
    r2.release()
    out("writer acquired after both readers released", tw.join())
    try:
        r3.acquire(timeout=0.5)
        out("reader while a writer holds: acquired")
    except LockTimeout:
        out("reader while a writer holds: LockTimeout")
    tr = Task("reader after writer", r3.acquire, timeout=WAIT * 2)
    time.sleep(0.3)
    out("reader waits for the writer", not tr.done.is_set())
    w.release()
    out("reader acquired after the writer released", tr.join())
    r3.release()


# ---------------------------------------------------------------- Semaphore
def semaphore_recipe():
    path = "/kr-sem"
    s = [pool[i].Semaphore(path, "s%d" % i, max_leases=2) for i in range(4)]
    out("semaphore s0 s1 acquire", s[0].acquire(timeout=WAIT), s[1].acquire(timeout=WAIT))
    out("semaphore lease holders", joined(sorted(s[3].lease_holders())))
    out("semaphore s2 non-blocking acquire while full", s[2].acquire(blocking=False))
    t3 = Task("semaphore s3", s[3].acquire, timeout=WAIT * 2)
    time.sleep(0.5)
    out("semaphore s3 waits while full", not t3.done.is_set())
    s[0].release()
    out("semaphore s3 acquired after s0 released", t3.join())
    out("semaphore lease holders", joined(sorted(s[2].lease_holders())))
    s[1].release()
    s[3].release()
    out("semaphore lease holders after release", joined(sorted(s[2].lease_holders())))

    state = {"holders": 0, "max": 0, "total": 0}
    guard = threading.Lock()

    def worker(i):
        sem = pool[i].Semaphore(path, "t%d" % i, max_leases=2)
        for _ in range(2):
            sem.acquire(timeout=WAIT * 2)
            try:
                with guard:
                    state["holders"] += 1
                    state["max"] = max(state["max"], state["holders"])
                # hold until a second holder shows up (or a while): overlap is what the semaphore allows
                deadline = time.monotonic() + 2
                while state["holders"] < 2 and time.monotonic() < deadline:
                    time.sleep(0.02)
                time.sleep(0.2)
                with guard:
                    state["total"] += 1
                    state["holders"] -= 1
            finally:
                sem.release()

    run_all("semaphore", [lambda i=i: worker(i) for i in range(4)], timeout=WAIT * 3)
    out("semaphore 4 contenders max holders", state["max"], "total", state["total"])


# ---------------------------------------------------------------- Election
def election_recipe():
    path = "/kr-election"
    clients = [started() for _ in range(3)]
    names = ["e0", "e1", "e2"]
    leaders = []
    step_down = {n: threading.Event() for n in names}
    elected = threading.Condition()

    def lead(name):
        with elected:
            leaders.append(name)
            elected.notify_all()
        step_down[name].wait(WATCHDOG_SECONDS)

    def wait_leaders(n):
        with elected:
            if not elected.wait_for(lambda: len(leaders) >= n, WAIT):
                fail("election: no leader number %d (leaders so far %s)" % (n, leaders))

    elections = [clients[i].Election(path, names[i]) for i in range(3)]
    Task("election e0", elections[0].run, lead, "e0")
    wait_leaders(1)
    Task("election e1", elections[1].run, lead, "e1")
    wait_until("e1 contends", lambda: len(elections[0].contenders()) == 2)
    Task("election e2", elections[2].run, lead, "e2")
    wait_until("e2 contends", lambda: len(elections[0].contenders()) == 3)
    out("election contenders", joined(elections[1].contenders()))
    time.sleep(0.3)
    out("election first leader", joined(leaders))
    clients[0].stop()  # the leader's session closes: its ephemeral contender node goes
    clients[0].close()
    wait_leaders(2)
    out("second leader is a different client", leaders[1] != leaders[0], leaders[1])
    time.sleep(0.3)
    out("election leaders so far", joined(leaders))
    out("election contenders", joined(elections[2].contenders()))
    step_down["e1"].set()  # e1's leader function returns: it releases the lock
    wait_leaders(3)
    out("election leaders", joined(leaders))
    step_down["e2"].set()
    wait_until("the election is empty", lambda: elections[1].contenders() == [])
    out("election contenders at the end", joined(elections[1].contenders()))
    for c in clients[1:]:
        c.stop()
        c.close()


# ---------------------------------------------------------------- Counter
def counter_recipe():
    path = "/kr-counter"

    def worker(i):
        counter = pool[i].Counter(path)
        for _ in range(5):
            counter += 1

    run_all("counter", [lambda i=i: worker(i) for i in range(4)], timeout=WAIT * 3)
    counter = pool[0].Counter(path)
    out("counter after 4 x 5 concurrent increments", counter.value)
    counter -= 3
    out("counter minus 3", counter.value, "pre", counter.pre_value, "post", counter.post_value)
    floats = pool[1].Counter("/kr-counter/float", default=1.5)
    floats += 2.0
    out("float counter", floats.value)


# ---------------------------------------------------------------- Barrier / DoubleBarrier
def barrier_recipe():
    path = "/kr-barrier"
    out("barrier wait when there is no barrier", pool[1].Barrier(path).wait(timeout=1))
    b = pool[0].Barrier(path)
    b.create()
    out("barrier wait with a timeout while up", pool[3].Barrier(path).wait(timeout=0.5))
    waiters = [Task("barrier waiter %d" % i, pool[i].Barrier(path).wait, timeout=WAIT) for i in (1, 2)]
    time.sleep(0.5)
    out("barrier waiters blocked while up", not waiters[0].done.is_set(), not waiters[1].done.is_set())
    b.remove()
    out("barrier removed: waiters released", waiters[0].join(), waiters[1].join())

    path = "/kr-dbarrier"
    state = {"arrived": 0, "leaving": 0, "entered_seeing": [], "left_seeing": []}
    guard = threading.Lock()

    def member(i):
        db = pool[i].DoubleBarrier(path, 3, identifier="d%d" % i)
        time.sleep(0.3 * i)  # staggered: a barrier that let anyone through early would show it
        with guard:
            state["arrived"] += 1
        db.enter()
        with guard:
            state["entered_seeing"].append(state["arrived"])
        participating = db.participating
        time.sleep(0.3 * (2 - i))
        with guard:
            state["leaving"] += 1
        db.leave()
        with guard:
            state["left_seeing"].append(state["leaving"])
        return participating

    results = run_all("double barrier", [lambda i=i: member(i) for i in range(3)])
    out("double barrier participating", results)
    out("double barrier members arrived when each entered", state["entered_seeing"])
    out("double barrier members leaving when each left", state["left_seeing"])
    out("double barrier children after", joined(pool[0].get_children(path)))


# ---------------------------------------------------------------- Queue / LockingQueue
def queue_recipe():
    path = "/kr-queue"
    q = pool[0].Queue(path)
    for v in (b"a", b"b", b"c"):
        q.put(v)
    q.put(b"low", priority=200)
    q.put(b"high", priority=10)
    out("queue length", len(q))
    other = pool[1].Queue(path)
    got = [other.get() for _ in range(5)]
    out("queue priority and fifo order", joined([v.decode() for v in got]))
    out("queue get when empty", other.get(), "length", len(other))

    items = [("item%02d" % i).encode() for i in range(24)]
    producers = [lambda p=p: [pool[p].Queue(path).put(v) for v in items[p::2]] for p in (0, 1)]
    run_all("queue producers", producers)
    consumed = [[] for _ in range(3)]

    def consumer(k):
        cq = pool[k + 1].Queue(path)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            v = cq.get()
            if v is None:
                if sum(len(c) for c in consumed) >= len(items):
                    return
                time.sleep(0.02)
            else:
                consumed[k].append(v)

    run_all("queue consumers", [lambda k=k: consumer(k) for k in range(3)])
    everything = [v for c in consumed for v in c]
    out("queue 3 consumers got", len(everything), "distinct", len(set(everything)),
        "all items", sorted(everything) == sorted(items), "left", len(q))

    path = "/kr-lqueue"
    lq = [pool[i].LockingQueue(path) for i in range(4)]
    lq[0].put_all([b"x1", b"x2", b"x3"])
    lq[0].put(b"urgent", priority=1)
    out("locking queue length", len(lq[0]))
    out("locking queue get", text(lq[1].get(timeout=WAIT)), "again without consume", text(lq[1].get(timeout=WAIT)))
    out("locking queue second consumer gets", text(lq[2].get(timeout=WAIT)), "holds lock", lq[2].holds_lock())
    out("locking queue release", lq[1].release(), "holds lock", lq[1].holds_lock())
    out("locking queue released entry taken again", text(lq[3].get(timeout=WAIT)))
    out("locking queue consume", lq[3].consume(), lq[2].consume(), "consume with nothing held", lq[3].consume())
    out("locking queue length", len(lq[0]))

    # an entry locked by a session that closes becomes available again
    owner = started()
    oq = owner.LockingQueue(path)
    out("locking queue closing session took", text(oq.get(timeout=WAIT)))
    out("locking queue next while x2 is locked", text(lq[1].get(timeout=WAIT)))
    owner.stop()
    owner.close()
    out("locking queue entry of the closed session", text(lq[2].get(timeout=WAIT)))
    out("locking queue consume", lq[1].consume(), lq[2].consume(), "length", len(lq[0]))
    out("locking queue get with a timeout on an empty queue", lq[3].get(timeout=0.5))

    items = [("job%02d" % i).encode() for i in range(15)]
    lq[0].put_all(items[:5])
    for v in items[5:]:
        lq[0].put(v)
    consumed = [[] for _ in range(3)]

    def worker(k):
        wq = pool[k + 1].LockingQueue(path)
        while True:
            v = wq.get(timeout=1.0)
            if v is None:
                return
            consumed[k].append(v)
            if not wq.consume():
                raise AssertionError("could not consume " + v.decode())

    run_all("locking queue consumers", [lambda k=k: worker(k) for k in range(3)])
    everything = [v for c in consumed for v in c]
    out("locking queue 3 consumers got", len(everything), "distinct", len(set(everything)),
        "all items", sorted(everything) == sorted(items), "left", len(lq[0]))


# ---------------------------------------------------------------- Party / ShallowParty
def party_recipe():
    for kind, path in (("Party", "/kr-party"), ("ShallowParty", "/kr-sparty")):
        members = [getattr(pool[i], kind)(path, "m%d" % i) for i in range(3)]
        for m in members:
            m.join()
        viewer = getattr(pool[3], kind)(path, "viewer")
        out(kind, "members", joined(sorted(viewer)), "len", len(viewer))
        members[1].leave()
        out(kind, "after m1 left", joined(sorted(viewer)), "len", len(viewer))
        members[0].leave()
        members[2].leave()
        out(kind, "after all left", joined(sorted(viewer)), "len", len(viewer))


# ---------------------------------------------------------------- SetPartitioner
def partitioner_recipe():
    path = "/kr-partitioner"
    items = ["a", "b", "c", "d", "e"]
    p0 = pool[0].SetPartitioner(path, set=items, identifier="p0", time_boundary=1)
    p1 = pool[1].SetPartitioner(path, set=items, identifier="p1", time_boundary=1)

    def settle(parts, what):
        deadline = time.monotonic() + WAIT * 2
        while not all(p.acquired for p in parts):
            if time.monotonic() > deadline:
                fail("SetPartitioner: %s not acquired (states %s)" % (what, [p.state for p in parts]))
            for p in parts:
                if p.failed:
                    fail("SetPartitioner failed while " + what)
                if p.release:
                    p.release_set()
                elif p.allocating:
                    p.wait_for_acquire(timeout=0.2)
            time.sleep(0.05)

    settle([p0, p1], "both members")
    a, b = sorted(p0), sorted(p1)
    out("partitioner p0", joined(a), "p1", joined(b), "union is the set", sorted(a + b) == items,
        "overlap", joined(sorted(set(a) & set(b))))
    p1.finish()
    out("partitioner p1 finished", p1.failed)
    wait_until("p0 notices p1 left", lambda: not p0.acquired)
    settle([p0], "p0 alone")
    out("partitioner p0 alone", joined(sorted(p0)))
    p0.finish()


# ---------------------------------------------------------------- TreeCache
def tree_cache_recipe():
    path = "/kr-tree"
    names = {TreeEvent.NODE_ADDED: "ADDED", TreeEvent.NODE_UPDATED: "UPDATED", TreeEvent.NODE_REMOVED: "REMOVED",
             TreeEvent.INITIALIZED: "INITIALIZED", TreeEvent.CONNECTION_SUSPENDED: "SUSPENDED",
             TreeEvent.CONNECTION_RECONNECTED: "RECONNECTED", TreeEvent.CONNECTION_LOST: "LOST"}
    events = queue.Queue()
    faults = []
    pool[1].create(path, b"root")
    cache = TreeCache(pool[0], path)
    cache.listen(lambda e: events.put(e))
    cache.listen_fault(lambda e: faults.append(e))
    cache.start()

    def expect(n, after):
        for _ in range(n):
            e = take(events, "TreeCache event after " + after)
            d = e.event_data
            if d is None:
                out("treecache", names.get(e.event_type, e.event_type))
            else:
                out("treecache", names.get(e.event_type, e.event_type), d.path,
                    d.data.decode() if d.data is not None else None)

    expect(2, "start")
    zk = pool[1]
    zk.create(path + "/a", b"1")
    expect(1, "create a")
    zk.create(path + "/a/b", b"2")
    expect(1, "create a/b")
    zk.create(path + "/a/b/c", b"3")
    expect(1, "create a/b/c")
    zk.set(path + "/a/b", b"22")
    expect(1, "set a/b")
    zk.set(path + "/a", b"11")
    expect(1, "set a")
    out("treecache get_data", cache.get_data(path + "/a/b").data.decode(),
        "children of a", joined(sorted(cache.get_children(path + "/a"))))
    zk.delete(path + "/a/b/c")
    expect(1, "delete a/b/c")
    zk.create(path + "/z", b"9")
    expect(1, "create z")
    zk.delete(path + "/a", recursive=True)
    expect(2, "recursive delete of a")
    time.sleep(0.5)
    out("treecache no further events", events.empty(), "faults", len(faults))
    out("treecache children of the root", joined(sorted(cache.get_children(path))))
    cache.close()


# ---------------------------------------------------------------- DataWatch / ChildrenWatch
def watchers_recipe():
    path = "/kr-watch"
    zk = pool[1]
    zk.ensure_path(path + "/kids")
    seen = queue.Queue()

    def on_data(data, stat):
        seen.put((data.decode() if data is not None else None, stat.version if stat is not None else None))
        return data != b"stop"

    DataWatch(pool[0], path + "/d", on_data)
    out("datawatch initial", *take(seen, "initial DataWatch call"))
    zk.create(path + "/d", b"v1")
    out("datawatch after create", *take(seen, "DataWatch call after create"))
    zk.set(path + "/d", b"v2")
    out("datawatch after set", *take(seen, "DataWatch call after set"))
    zk.delete(path + "/d")
    out("datawatch after delete", *take(seen, "DataWatch call after delete"))
    zk.create(path + "/d", b"stop")
    out("datawatch after re-create", *take(seen, "DataWatch call after re-create"))
    zk.set(path + "/d", b"unseen")
    time.sleep(0.5)
    out("datawatch stopped after its function returned False", seen.empty())

    kids = queue.Queue()

    def on_children(children):
        kids.put(joined(sorted(children)))
        return "stop" not in children

    ChildrenWatch(pool[0], path + "/kids", on_children)
    out("childrenwatch initial", take(kids, "initial ChildrenWatch call"))
    zk.create(path + "/kids/c1")
    out("childrenwatch", take(kids, "ChildrenWatch call after create c1"))
    zk.create(path + "/kids/c2", ephemeral=True)
    out("childrenwatch", take(kids, "ChildrenWatch call after create c2"))
    zk.set(path + "/kids/c1", b"data changes are not child changes")
    zk.delete(path + "/kids/c1")
    out("childrenwatch", take(kids, "ChildrenWatch call after delete c1"))
    zk.create(path + "/kids/stop")
    out("childrenwatch", take(kids, "ChildrenWatch call after create stop"))
    zk.create(path + "/kids/unseen")
    time.sleep(0.5)
    out("childrenwatch stopped after its function returned False", kids.empty())


# ---------------------------------------------------------------- NonBlockingLease / MultiNonBlockingLease
def lease_recipe():
    path = "/kr-lease"
    hour = datetime.timedelta(hours=1)
    later = lambda: datetime.datetime.utcnow() + datetime.timedelta(hours=2)  # noqa: E731
    out("lease h1", bool(pool[0].NonBlockingLease(path, hour, identifier="h1")),
        "h2", bool(pool[1].NonBlockingLease(path, hour, identifier="h2")),
        "h1 renews", bool(pool[0].NonBlockingLease(path, hour, identifier="h1")),
        "h2 after h1's expired", bool(pool[1].NonBlockingLease(path, hour, identifier="h2", utcnow=later)),
        "h1 now", bool(pool[0].NonBlockingLease(path, hour, identifier="h1")))

    def contend(i):
        return bool(pool[i].NonBlockingLease(path + "-race", hour, identifier="r%d" % i))

    won = run_all("lease race", [lambda i=i: contend(i) for i in range(4)])
    out("lease race winners", sum(won))

    path = "/kr-mlease"
    got = [bool(pool[i].MultiNonBlockingLease(2, path, hour, identifier="m%d" % i)) for i in range(3)]
    out("multi lease of 2 for m0,m1,m2", got,
        "m0 renews", bool(pool[0].MultiNonBlockingLease(2, path, hour, identifier="m0")))
    holders = [json.loads(pool[3].get("%s/%d/lease_holder" % (path, n))[0].decode())["holder"] for n in (0, 1)]
    out("multi lease holders", joined(holders))
    out("multi lease m2 after the others expired",
        bool(pool[2].MultiNonBlockingLease(2, path, hour, identifier="m2", utcnow=later)))


for recipe in (lock_recipe, rw_lock_recipe, semaphore_recipe, election_recipe, counter_recipe,
               barrier_recipe, queue_recipe, party_recipe, partitioner_recipe, tree_cache_recipe,
               watchers_recipe, lease_recipe):
    try:
        recipe()
    except SystemExit:
        raise
    except BaseException as e:  # noqa: B902 - one line, then a non-zero exit
        import traceback
        traceback.print_exc()
        fail("%s raised %s: %s" % (recipe.__name__, type(e).__name__, e))

for c in pool:
    c.stop()
    c.close()
out("done")
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
