"""A scripted kazoo session over TLS with client certificates, against the secure client port in argv[1].

argv[2] is the plaintext client port, argv[3] a path prefix per run, argv[4] the directory of TlsFiles'
PEM files (ca.pem, NAME-chain.pem, NAME-key.pem). One line per step, with nothing that differs between
runs, so that KazooTlsTest can compare what it prints against ZooKeeper and against Volery. The server
trusts the test CA, asks for client certificates without requiring them (ssl.clientAuth = want), and
the certificate "CN=admin,O=Volery Tests" is its x509 super user.
"""
import faulthandler
import os
import sys

from kazoo.client import KazooClient
from kazoo.security import make_acl

faulthandler.dump_traceback_later(90, exit=True)

secure, plain, prefix, pem = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
WAIT = 10
ALICE = "CN=alice,O=Volery Tests"
clients = []


def out(*parts):
    print(*parts, flush=True)


def outcome(step):
    try:
        r = step().get(timeout=WAIT)
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], bytes):
            r = r[0].decode()
        elif isinstance(r, tuple) and len(r) == 2 and isinstance(r[0], list):
            r = "[" + ", ".join("%s:%s=%d" % (a.id.scheme, a.id.id, a.perms) for a in r[0]) + "]"
        elif isinstance(r, str):
            r = r[len(prefix):] if r.startswith(prefix) else r
        elif hasattr(r, "version") and hasattr(r, "mzxid"):
            r = "version %d" % r.version  # set: a stat whose zxids and times differ between servers
        return "ok %s" % (r,)
    except Exception as e:
        return type(e).__name__


def client(who, hosts=None, tls=True, timeout=WAIT):
    """A started client presenting who's certificate (None: none), or the exception's class name."""
    options = {}
    if tls:
        options = {"use_ssl": True, "verify_certs": True, "ca": os.path.join(pem, "ca.pem")}
        if who:
            options["certfile"] = os.path.join(pem, who + "-chain.pem")
            options["keyfile"] = os.path.join(pem, who + "-key.pem")
    c = KazooClient(hosts=hosts or secure, timeout=10.0, connection_retry={"max_tries": 2, "delay": 0.2},
                    **options)
    clients.append(c)
    try:
        c.start(timeout=timeout)
        return c
    except Exception as e:
        return type(e).__name__


alice = client("alice")
out("alice connects", not isinstance(alice, str))
out("alice creates with an x509 ACL", outcome(lambda: alice.create_async(
    prefix + "a", b"a", acl=[make_acl("x509", ALICE, all=True)])))
out("alice reads it", outcome(lambda: alice.get_async(prefix + "a")))
out("alice creates with an auth ACL", outcome(lambda: alice.create_async(
    prefix + "b", b"b", acl=[make_acl("auth", "", all=True)])))
out("its ACL", outcome(lambda: alice.get_acls_async(prefix + "b")))
bob = client("bob")
out("bob reads it", outcome(lambda: bob.get_async(prefix + "a")))
nobody = client(None)
out("no certificate reads it", outcome(lambda: nobody.get_async(prefix + "a")))
admin = client("admin")
out("admin writes it", outcome(lambda: admin.set_async(prefix + "a", b"admin")))
out("admin reads it", outcome(lambda: admin.get_async(prefix + "a")))
plaintext = client(None, hosts=plain, tls=False)
out("plaintext port reads it", outcome(lambda: plaintext.get_async(prefix + "a")))
refused = client(None, tls=False, timeout=4)
out("plaintext client on the TLS port", refused if isinstance(refused, str) else "connected")
out("admin deletes", outcome(lambda: admin.delete_async(prefix + "a")), outcome(lambda: admin.delete_async(prefix + "b")))
for c in clients:
    if not isinstance(c, str):
        try:
            c.stop()
            c.close()
        except Exception:
            pass
out("done")
