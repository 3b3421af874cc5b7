"""A scripted kazoo session that authenticates by Kerberos (SASL GSSAPI), against the ensemble in argv[1].

Paths start with argv[2]; argv[3] says who runs: bob (creates a node only he may use, and one by the
'auth' scheme), alice (may not read it), admin (a super user: may) or cleanup (bob again, deletes them).
Kerberos comes from the environment (KRB5_CONFIG, KRB5_CLIENT_KTNAME: the user's keytab, KRB5CCNAME);
kazoo asks for a ticket to zookeeper@<the host it connects to>. One line per step, nothing that differs
between runs, so that KazooKerberosTest can compare the lines against ZooKeeper and against Volery.
"""
import faulthandler
import sys

from kazoo.client import KazooClient
from kazoo.security import make_acl

faulthandler.dump_traceback_later(90, exit=True)

hosts, prefix, who = sys.argv[1], sys.argv[2], sys.argv[3]
WAIT = 10
BOB = "bob@EXAMPLE.COM"


def out(*parts):
    print(*parts, flush=True)


def outcome(step):
    try:
        r = step().get(timeout=WAIT)
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], bytes):
            r = r[0].decode()
        elif isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], list):
            r = "[" + ", ".join("%s:%s=%d" % (a.id.scheme, a.id.id, a.perms) for a in r[0]) + "]"
        elif isinstance(r, str) and r.startswith(prefix):
            r = r[len(prefix):]
        return "ok %s" % (r,)
    except Exception as e:
        return type(e).__name__


c = KazooClient(hosts=hosts, timeout=10.0, sasl_options={"mechanism": "GSSAPI", "service": "zookeeper"})
states = []
c.add_listener(lambda s: states.append(str(s)))
c.start(timeout=WAIT)
first = outcome(lambda: c.exists_async("/"))
out(who, "login, first request", first, "states", ",".join(states))
k = prefix + "k"
auth = prefix + "auth"
if who == "bob":
    out("bob create k", outcome(lambda: c.create_async(k, b"k", acl=[make_acl("sasl", BOB, all=True)])))
    out("bob get k", outcome(lambda: c.get_async(k)))
    out("bob acl of k", outcome(lambda: c.get_acls_async(k)))
    out("bob create with auth acl", outcome(lambda: c.create_async(auth, b"a", acl=[make_acl("auth", "", all=True)])))
    out("bob acl of the auth node", outcome(lambda: c.get_acls_async(auth)))
elif who == "alice":
    out("alice get k", outcome(lambda: c.get_async(k)))
    out("alice set k", outcome(lambda: c.set_async(k, b"x")))
elif who == "admin":
    out("admin get k", outcome(lambda: c.get_async(k)))
    out("admin acl of the auth node", outcome(lambda: c.get_acls_async(auth)))
elif who == "cleanup":
    out("cleanup delete k", outcome(lambda: c.delete_async(k)))
    out("cleanup delete auth node", outcome(lambda: c.delete_async(auth)))
c.stop()
c.close()
out(who, "done")
