"""A scripted kazoo session against the ZooKeeper ensemble in argv[1]; prints one line per step.

The Java test (KazooSessionTest) compares these lines with what ZooKeeper's semantics require.
"""
import sys
import threading

from kazoo.client import KazooClient
from kazoo.exceptions import BadVersionError, NodeExistsError, NotEmptyError

hosts = sys.argv[1]


def out(*parts):
    print(*parts, flush=True)


def started():
    c = KazooClient(hosts=hosts, timeout=10.0)
    c.start(timeout=30)
    return c


zk = started()
out("create", zk.create("/kz", b"root"))
out("create", zk.create("/kz/a", b"alpha"))
data, stat = zk.get("/kz/a")
out("get", data.decode(), "version", stat.version)
out("set version", zk.set("/kz/a", b"beta", version=0).version)
try:
    zk.set("/kz/a", b"stale", version=0)
    out("set with a stale version succeeded")
except BadVersionError:
    out("set with a stale version: BadVersionError")
try:
    zk.create("/kz/a")
    out("second create succeeded")
except NodeExistsError:
    out("second create: NodeExistsError")
try:
    zk.delete("/kz")
    out("delete of a parent succeeded")
except NotEmptyError:
    out("delete of a parent: NotEmptyError")
out("sequential", zk.create("/kz/s-", b"", sequence=True))
out("sequential", zk.create("/kz/s-", b"", sequence=True))
out("children", ",".join(sorted(zk.get_children("/kz"))))
out("stat numChildren", zk.exists("/kz").numChildren)

# a data watch fires once, with the changed path
changed = threading.Event()
seen = []
zk.get("/kz/a", watch=lambda e: (seen.append(e), changed.set()))
zk.set("/kz/a", b"gamma")
out("data watch", changed.wait(10) and seen[0].type, seen[0].path if seen else None)

# another session's ephemeral: child watch on create, NodeDeleted when that session closes
other = started()
child = threading.Event()
zk.get_children("/kz", watch=lambda e: (seen.append(e), child.set()))
other.create("/kz/eph", b"", ephemeral=True)
out("child watch", child.wait(10) and seen[-1].type, seen[-1].path)
out("ephemeral owned by the other session", zk.exists("/kz/eph").ephemeralOwner == other.client_id[0])
gone = threading.Event()
zk.exists("/kz/eph", watch=lambda e: (seen.append(e), gone.set()))
other.stop()
other.close()
out("owner closed", gone.wait(10) and seen[-1].type, "exists", zk.exists("/kz/eph") is not None)

# transactions, spanning two top-level subtrees
t = zk.transaction()
t.create("/kz/t1", b"1")
t.create("/kz2", b"2")
t.set_data("/kz/a", b"delta", version=2)
t.check("/kz/t1", 0)
results = t.commit()
out("transaction", results[0], results[1], "version", results[2].version, results[3])
t = zk.transaction()
t.create("/kz/t2", b"")
t.delete("/kz2", version=5)
t.create("/kz/t3", b"")
out("failed transaction", ",".join(type(r).__name__ for r in t.commit()))
out("rolled back: no /kz/t2, /kz2 kept", zk.exists("/kz/t2") is None, zk.exists("/kz2") is not None)

zk.delete("/kz", recursive=True)
zk.delete("/kz2")
out("after recursive delete", zk.exists("/kz"), zk.exists("/kz2"))
zk.stop()
zk.close()
out("done")
