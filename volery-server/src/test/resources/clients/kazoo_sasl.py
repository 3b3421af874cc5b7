"""A scripted kazoo session that authenticates by SASL DIGEST-MD5, against the ensemble in argv[1].

Paths start with argv[2] (a prefix per run); the lines printed name them without it. One line per step,
with nothing that differs between runs (no session ids, zxids or timings), so that KazooSaslTest can
compare what it prints against ZooKeeper and against Volery. The server's users (its JAAS Server section):
bob/bobsecret, alice/alicesecret, admin/adminsecret, and admin is a super user.

kazoo reports a session CONNECTED as soon as the server accepted it and only then negotiates SASL, on its
connection thread: start() returns before the negotiation ends, and a failed one shows up as the session
being lost and the pending requests failing with AuthFailedError. To print that without a race, each
login queues one request (exists /) from the CONNECTED listener, which runs before the negotiation, and
holds the negotiation there until start() has returned.
"""
import faulthandler
import sys
import threading

from kazoo.client import KazooClient
from kazoo.security import make_acl

# the script cannot hang: past this, the stacks go to stderr and the process exits (status 1)
faulthandler.dump_traceback_later(90, exit=True)

hosts = sys.argv[1]
prefix = sys.argv[2]
WAIT = 10  # seconds, for every step
clients = []


def out(*parts):
    print(*parts, flush=True)


def name(path):
    return path[len(prefix):] if path.startswith(prefix) else path


def outcome(step):
    """Runs step, a kazoo async call, and tells how it ended: 'ok RESULT' or the exception's class."""
    try:
        r = step().get(timeout=WAIT)
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], bytes):
            r = r[0].decode()  # get: the data, not the stat
        elif isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], list):
            r = acls(r[0])  # get_acls: the ACL, not the stat
        elif isinstance(r, str):
            r = name(r)
        return "ok %s" % (r,)
    except Exception as e:
        return type(e).__name__


def acls(entries):
    return "[" + ", ".join("%s:%s=%d" % (a.id.scheme, a.id.id, a.perms) for a in entries) + "]"


def login(who, user, password):
    """A client that authenticates as user; prints how its start, its first request and its states went."""
    c = KazooClient(hosts=hosts, timeout=10.0,
                    sasl_options={"mechanism": "DIGEST-MD5", "username": user, "password": password})
    clients.append(c)
    states = []
    first = []
    queued = threading.Event()
    start_returned = threading.Event()

    def listener(state):
        states.append(str(state))
        if state == "CONNECTED" and not first:
            # on the connection thread, before the SASL negotiation: the first request waits for it
            first.append(c.exists_async("/"))
            queued.set()
            start_returned.wait(WAIT)

    c.add_listener(listener)
    try:
        c.start(timeout=WAIT)
        started = "returned"
    except Exception as e:
        started = type(e).__name__
    finally:
        start_returned.set()
    request = outcome(lambda: first[0]) if queued.wait(WAIT) else "never sent"
    if request.startswith("ok "):
        request = "ok"  # exists / answers a stat, which differs between servers
    out(who, "login: start", started + ", first request", request + ", states", ",".join(states))
    return c


bob = login("bob", "bob", "bobsecret")
cid = bob.client_id
out("bob client_id", cid is not None and cid[0] != 0 and len(cid[1]) == 16)
out("bob whoami", "not in kazoo 2.11" if not hasattr(bob, "whoami") else "present")
bob_only = [make_acl("sasl", "bob", all=True)]
out("bob create a", outcome(lambda: bob.create_async(prefix + "a", b"a", acl=bob_only)))
out("bob get a", outcome(lambda: bob.get_async(prefix + "a")))
out("bob acl of a", outcome(lambda: bob.get_acls_async(prefix + "a")))
out("bob create with auth acl", outcome(lambda: bob.create_async(prefix + "auth", b"x",
                                                                  acl=[make_acl("auth", "", all=True)])))
out("bob acl of the auth node", outcome(lambda: bob.get_acls_async(prefix + "auth")))
out("bob invalid sasl id", outcome(lambda: bob.create_async(prefix + "bad", b"",
                                                             acl=[make_acl("sasl", "x@y@z", all=True)])))
out("bob bad node exists", outcome(lambda: bob.exists_async(prefix + "bad")))

alice = login("alice", "alice", "alicesecret")
out("alice get a", outcome(lambda: alice.get_async(prefix + "a")))
out("alice acl of a", outcome(lambda: alice.get_acls_async(prefix + "a")))
out("alice set a", outcome(lambda: alice.set_async(prefix + "a", b"alice")))
out("alice get auth node", outcome(lambda: alice.get_async(prefix + "auth")))

admin = login("admin", "admin", "adminsecret")
out("admin get a", outcome(lambda: admin.get_async(prefix + "a")))
out("admin acl of the auth node", outcome(lambda: admin.get_acls_async(prefix + "auth")))

plain = KazooClient(hosts=hosts, timeout=10.0)
clients.append(plain)
plain.start(timeout=WAIT)
out("plain get a", outcome(lambda: plain.get_async(prefix + "a")))

login("wrong password", "bob", "guess")
login("unknown user", "carol", "carolsecret")

out("bob delete a", outcome(lambda: bob.delete_async(prefix + "a")))
out("bob delete auth node", outcome(lambda: bob.delete_async(prefix + "auth")))
for c in clients:
    c.stop()
    c.close()
out("done")
