/*
 * One scripted session of the ZooKeeper C client (libzookeeper_mt, synchronous API) against the
 * server(s) named on the command line. Each step prints one line that depends only on what the
 * server answered, never on the values of zxids, times or session ids (only on whether two of them
 * are equal), so that the transcript from Volery can be compared line for line with the one from a
 * real ZooKeeper server. CClientSessionTest builds and runs it:
 *
 *   gcc -o zk_c_session zk_c_session.c -lzookeeper_mt     (Debian: libzookeeper-mt-dev)
 *   ./zk_c_session 127.0.0.1:2181
 *
 * Exit status: 0 when the script ran to its end (whatever the server answered), 2 when something
 * the script cannot go on without failed (no connection within 20 s, a handle that cannot be made),
 * 3 when it ran to its end but a watch event or a completion never came, or a call failed with a
 * connection-level error (connection loss, timeout, marshalling). Diagnostics go to stderr.
 */
#ifndef THREADED
#define THREADED /* the synchronous API of libzookeeper_mt */
#endif
#include <zookeeper/zookeeper.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 10000

static int failures;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;

/* ---------------------------------------------------------------- printing */

static const char *err_name(int rc) {
    switch (rc) {
    case ZOK: return "ZOK";
    case ZSYSTEMERROR: return "ZSYSTEMERROR";
    case ZRUNTIMEINCONSISTENCY: return "ZRUNTIMEINCONSISTENCY";
    case ZDATAINCONSISTENCY: return "ZDATAINCONSISTENCY";
    case ZCONNECTIONLOSS: return "ZCONNECTIONLOSS";
    case ZMARSHALLINGERROR: return "ZMARSHALLINGERROR";
    case ZUNIMPLEMENTED: return "ZUNIMPLEMENTED";
    case ZOPERATIONTIMEOUT: return "ZOPERATIONTIMEOUT";
    case ZBADARGUMENTS: return "ZBADARGUMENTS";
    case ZINVALIDSTATE: return "ZINVALIDSTATE";
    case ZAPIERROR: return "ZAPIERROR";
    case ZNONODE: return "ZNONODE";
    case ZNOAUTH: return "ZNOAUTH";
    case ZBADVERSION: return "ZBADVERSION";
    case ZNOCHILDRENFOREPHEMERALS: return "ZNOCHILDRENFOREPHEMERALS";
    case ZNODEEXISTS: return "ZNODEEXISTS";
    case ZNOTEMPTY: return "ZNOTEMPTY";
    case ZSESSIONEXPIRED: return "ZSESSIONEXPIRED";
    case ZINVALIDCALLBACK: return "ZINVALIDCALLBACK";
    case ZINVALIDACL: return "ZINVALIDACL";
    case ZAUTHFAILED: return "ZAUTHFAILED";
    case ZCLOSING: return "ZCLOSING";
    case ZNOTHING: return "ZNOTHING";
    case ZSESSIONMOVED: return "ZSESSIONMOVED";
    case ZNOTREADONLY: return "ZNOTREADONLY";
    case ZEPHEMERALONLOCALSESSION: return "ZEPHEMERALONLOCALSESSION";
    case ZNOWATCHER: return "ZNOWATCHER";
    case ZRECONFIGDISABLED: return "ZRECONFIGDISABLED";
    case ZTHROTTLEDOP: return "ZTHROTTLEDOP";
    default: return "Z?";
    }
}

/* "ZNODEEXISTS (node exists)": the symbol, then the C client's own text for it */
static const char *err(int rc) {
    static char buf[4][128];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0], "%s (%s)", err_name(rc), zerror(rc));
    return b;
}

/* An answer no script step expects from a healthy server: the transcript alone would show it, but
 * the exit status says so too. */
static int check(int rc) {
    if (rc == ZCONNECTIONLOSS || rc == ZOPERATIONTIMEOUT || rc == ZMARSHALLINGERROR || rc == ZSYSTEMERROR
        || rc == ZINVALIDSTATE || rc == ZSESSIONEXPIRED || rc == ZCLOSING) {
        fprintf(stderr, "unexpected connection-level error %s\n", err(rc));
        failures++;
    }
    return rc;
}

static void line(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

static int64_t session_a, session_b;

static const char *owner(int64_t id) {
    if (id == 0) return "none";
    if (id == session_a) return "A";
    if (id == session_b) return "B";
    return "other";
}

/* the Stat fields that do not depend on zxids or times, and how the zxids relate */
static const char *stat_str(const struct Stat *s) {
    static char buf[4][256];
    static int next;
    char *b = buf[next++ % 4];
    snprintf(b, sizeof buf[0],
             "version=%d cversion=%d aversion=%d dataLength=%d numChildren=%d ephemeralOwner=%s mzxid==czxid=%s pzxid==czxid=%s",
             s->version, s->cversion, s->aversion, s->dataLength, s->numChildren, owner(s->ephemeralOwner),
             s->mzxid == s->czxid ? "true" : "false", s->pzxid == s->czxid ? "true" : "false");
    return b;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* "[a, b, c]", sorted */
static const char *children_str(struct String_vector *v) {
    static char buf[2048];
    qsort(v->data, v->count, sizeof(char *), cmp_str);
    size_t at = 0;
    buf[at++] = '[';
    for (int i = 0; i < v->count; i++) {
        at += snprintf(buf + at, sizeof buf - at, "%s%s", i ? ", " : "", v->data[i]);
    }
    snprintf(buf + at, sizeof buf - at, "]");
    return buf;
}

static const char *acl_str(struct ACL_vector *v) {
    static char buf[1024];
    size_t at = 0;
    buf[at++] = '[';
    for (int i = 0; i < v->count; i++) {
        at += snprintf(buf + at, sizeof buf - at, "%s%s:%s perms=%d", i ? ", " : "", v->data[i].id.scheme,
                       v->data[i].id.id, v->data[i].perms);
    }
    snprintf(buf + at, sizeof buf - at, "]");
    return buf;
}

static const char *event_name(int type) {
    if (type == ZOO_CREATED_EVENT) return "CREATED";
    if (type == ZOO_DELETED_EVENT) return "DELETED";
    if (type == ZOO_CHANGED_EVENT) return "CHANGED";
    if (type == ZOO_CHILD_EVENT) return "CHILD";
    if (type == ZOO_SESSION_EVENT) return "SESSION";
    if (type == ZOO_NOTWATCHING_EVENT) return "NOTWATCHING";
    return "?";
}

/* ---------------------------------------------------------------- waiting */

static void deadline_in(struct timespec *t, int ms) {
    clock_gettime(CLOCK_REALTIME, t);
    t->tv_sec += ms / 1000;
    t->tv_nsec += (long) (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* connection state per handle, set by the global watcher */
struct conn {
    int connected;   /* the last session event said CONNECTED */
    int connections; /* CONNECTED events so far */
    int changes;     /* session events so far */
    int last_state;
};

static void global_watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx) {
    (void) path;
    (void) ctx;
    if (type != ZOO_SESSION_EVENT) {
        return;
    }
    struct conn *c = (struct conn *) zoo_get_context(zh);
    pthread_mutex_lock(&lock);
    if (c != NULL) {
        c->connected = state == ZOO_CONNECTED_STATE;
        c->connections += c->connected;
        c->changes++;
        c->last_state = state;
    }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* waits until the handle has connected more than `before` times; 0 when it has not within `ms` */
static int await_connection(struct conn *c, int before, int ms) {
    struct timespec until;
    deadline_in(&until, ms);
    pthread_mutex_lock(&lock);
    while (c->connections <= before) {
        if (pthread_cond_timedwait(&changed, &lock, &until) == ETIMEDOUT) {
            break;
        }
    }
    int ok = c->connections > before;
    pthread_mutex_unlock(&lock);
    return ok;
}

static zhandle_t *connect_to(const char *hosts, struct conn *c, const char *name, int timeout_ms) {
    memset(c, 0, sizeof *c);
    zhandle_t *zh = zookeeper_init(hosts, global_watcher, timeout_ms, NULL, c, 0);
    if (zh == NULL) {
        fprintf(stderr, "zookeeper_init for %s failed: %s\n", name, strerror(errno));
        exit(2);
    }
    if (!await_connection(c, 0, 20000)) {
        fprintf(stderr, "session %s not established within 20 s to %s\n", name, hosts);
        exit(2);
    }
    return zh;
}

/* One watch: its callback records the first event that is not a session event. */
struct watch {
    const char *name;
    int fired;
    int type;
    char path[256];
};

static void watch_fn(zhandle_t *zh, int type, int state, const char *path, void *ctx) {
    (void) zh;
    (void) state;
    struct watch *w = ctx;
    if (type == ZOO_SESSION_EVENT) {
        return; /* the C client hands connection changes to every watcher too */
    }
    pthread_mutex_lock(&lock);
    if (!w->fired) {
        w->fired = 1;
        w->type = type;
        snprintf(w->path, sizeof w->path, "%s", path ? path : "(null)");
    }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void await_watch(struct watch *w) {
    struct timespec until;
    deadline_in(&until, WAIT_MS);
    pthread_mutex_lock(&lock);
    while (!w->fired) {
        if (pthread_cond_timedwait(&changed, &lock, &until) == ETIMEDOUT) {
            break;
        }
    }
    int fired = w->fired;
    pthread_mutex_unlock(&lock);
    if (fired) {
        line("%s fired: %s %s", w->name, event_name(w->type), w->path);
    } else {
        line("%s: no event within %d ms", w->name, WAIT_MS);
        failures++;
    }
}

/* the outcome of an asynchronous call whose completion the script waits for */
struct completion {
    int done;
    int rc;
    char value[256];
};

static void void_done(int rc, const void *data) {
    struct completion *c = (struct completion *) data;
    pthread_mutex_lock(&lock);
    c->rc = rc;
    c->done = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void string_done(int rc, const char *value, const void *data) {
    struct completion *c = (struct completion *) data;
    pthread_mutex_lock(&lock);
    c->rc = rc;
    snprintf(c->value, sizeof c->value, "%s", value ? value : "(null)");
    c->done = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static int await_completion(struct completion *c, const char *what) {
    struct timespec until;
    deadline_in(&until, WAIT_MS);
    pthread_mutex_lock(&lock);
    while (!c->done) {
        if (pthread_cond_timedwait(&changed, &lock, &until) == ETIMEDOUT) {
            break;
        }
    }
    int done = c->done;
    pthread_mutex_unlock(&lock);
    if (!done) {
        line("%s: no completion within %d ms", what, WAIT_MS);
        failures++;
    }
    return done;
}

/* ---------------------------------------------------------------- steps */

static void create(zhandle_t *zh, const char *path, const char *data, int mode, struct ACL_vector *acl,
                   const char *label) {
    char made[256] = "";
    int len = data ? (int) strlen(data) : -1;
    int rc = check(zoo_create(zh, path, data, len, acl ? acl : &ZOO_OPEN_ACL_UNSAFE, mode, made, sizeof made));
    if (rc == ZOK) {
        line("create %s %s: %s %s", label, path, err(rc), made);
    } else {
        line("create %s %s: %s", label, path, err(rc));
    }
}

static void create2(zhandle_t *zh, const char *path, const char *data, int mode, const char *label) {
    char made[256] = "";
    struct Stat s;
    int rc = check(zoo_create2(zh, path, data, data ? (int) strlen(data) : -1, &ZOO_OPEN_ACL_UNSAFE, mode,
                               made, sizeof made, &s));
    if (rc == ZOK) {
        line("create2 %s %s: %s %s %s", label, path, err(rc), made, stat_str(&s));
    } else {
        line("create2 %s %s: %s", label, path, err(rc));
    }
}

static void get(zhandle_t *zh, const char *path, const char *label) {
    char buf[512];
    int len = sizeof buf;
    struct Stat s;
    int rc = check(zoo_get(zh, path, 0, buf, &len, &s));
    if (rc == ZOK) {
        if (len < 0) {
            line("get %s %s: %s data=(null, len %d) %s", label, path, err(rc), len, stat_str(&s));
        } else {
            line("get %s %s: %s data='%.*s' %s", label, path, err(rc), len, buf, stat_str(&s));
        }
    } else {
        line("get %s %s: %s", label, path, err(rc));
    }
}

static void set(zhandle_t *zh, const char *path, const char *data, int version) {
    struct Stat s;
    int rc = check(zoo_set2(zh, path, data, (int) strlen(data), version, &s));
    if (rc == ZOK) {
        line("set2 %s '%s' version %d: %s %s", path, data, version, err(rc), stat_str(&s));
    } else {
        line("set2 %s '%s' version %d: %s", path, data, version, err(rc));
    }
}

static void exists(zhandle_t *zh, const char *path, const char *label) {
    struct Stat s;
    int rc = check(zoo_exists(zh, path, 0, &s));
    if (rc == ZOK) {
        line("exists %s %s: %s %s", label, path, err(rc), stat_str(&s));
    } else {
        line("exists %s %s: %s", label, path, err(rc));
    }
}

static void children(zhandle_t *zh, const char *path) {
    struct String_vector v;
    int rc = check(zoo_get_children(zh, path, 0, &v));
    if (rc == ZOK) {
        line("children %s: %s %s", path, err(rc), children_str(&v));
        deallocate_String_vector(&v);
    } else {
        line("children %s: %s", path, err(rc));
    }
}

static void children2(zhandle_t *zh, const char *path) {
    struct String_vector v;
    struct Stat s;
    int rc = check(zoo_get_children2(zh, path, 0, &v, &s));
    if (rc == ZOK) {
        line("children2 %s: %s %s %s", path, err(rc), children_str(&v), stat_str(&s));
        deallocate_String_vector(&v);
    } else {
        line("children2 %s: %s", path, err(rc));
    }
}

static void delete(zhandle_t *zh, const char *path, int version) {
    int rc = check(zoo_delete(zh, path, version));
    line("delete %s version %d: %s", path, version, err(rc));
}

static void get_acl(zhandle_t *zh, const char *path, const char *label) {
    struct ACL_vector acl;
    struct Stat s;
    int rc = check(zoo_get_acl(zh, path, &acl, &s));
    if (rc == ZOK) {
        line("getACL %s %s: %s %s aversion=%d", label, path, err(rc), acl_str(&acl), s.aversion);
        deallocate_ACL_vector(&acl);
    } else {
        line("getACL %s %s: %s", label, path, err(rc));
    }
}

static void add_auth(zhandle_t *zh, const char *scheme, const char *cert, const char *label) {
    struct completion c = {0};
    int rc = check(zoo_add_auth(zh, scheme, cert, (int) strlen(cert), void_done, &c));
    if (rc != ZOK) {
        line("addAuth %s %s: %s", label, scheme, err(rc));
        return;
    }
    if (await_completion(&c, "addAuth")) {
        line("addAuth %s %s: %s", label, scheme, err(check(c.rc)));
    }
}

/* many asynchronous requests in flight at once: the order their completions come in */
#define PIPELINED 40
static struct {
    int count;
    int order[PIPELINED];
    int rc[PIPELINED];
} pipeline;

static void pipeline_done(int index, int rc) {
    pthread_mutex_lock(&lock);
    if (pipeline.count < PIPELINED) {
        pipeline.order[pipeline.count] = index;
        pipeline.rc[index] = rc;
        pipeline.count++;
    }
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

static void pipelined_stat(int rc, const struct Stat *s, const void *data) {
    (void) s;
    pipeline_done((int) (intptr_t) data, rc);
}

static void pipelined_data(int rc, const char *v, int len, const struct Stat *s, const void *data) {
    (void) v;
    (void) len;
    (void) s;
    pipeline_done((int) (intptr_t) data, rc);
}

static void pipelined_string(int rc, const char *v, const void *data) {
    (void) v;
    pipeline_done((int) (intptr_t) data, rc);
}

/* zoo_async (sync), its completion waited for: completions and watch events reach the program in
 * the order the server sent them, so every event sent before the sync's answer has been seen too */
static void sync_path(zhandle_t *zh, const char *path, const char *label) {
    struct completion done = {0};
    int rc = check(zoo_async(zh, path, string_done, &done));
    if (rc != ZOK) {
        line("sync %s %s: %s", label, path, err(rc));
    } else if (await_completion(&done, "sync")) {
        line("sync %s %s: %s %s", label, path, err(check(done.rc)), done.value);
    }
}

static int connections(struct conn *c) {
    pthread_mutex_lock(&lock);
    int n = c->connections;
    pthread_mutex_unlock(&lock);
    return n;
}

static const char *yes(int b) {
    return b ? "true" : "false";
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s host:port[,host:port...]\n", argv[0]);
        return 2;
    }
    const char *hosts = argv[1];
    zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
    zoo_set_log_stream(stderr);

    struct conn ca, cb, cc;
    zhandle_t *a = connect_to(hosts, &ca, "A", 10000);
    session_a = zoo_client_id(a)->client_id;
    line("session A connected, timeout %d ms", zoo_recv_timeout(a));

    /* creates of every kind, and the errors a create can meet */
    create(a, "/c", "root", ZOO_PERSISTENT, NULL, "persistent");
    create2(a, "/c/a", "alpha", ZOO_PERSISTENT, "persistent");
    create(a, "/c", "again", ZOO_PERSISTENT, NULL, "existing");
    create(a, "/c/missing/x", "x", ZOO_PERSISTENT, NULL, "orphan");
    create(a, "/c/s-", "s1", ZOO_PERSISTENT_SEQUENTIAL, NULL, "sequential");
    create2(a, "/c/s-", "s2", ZOO_PERSISTENT_SEQUENTIAL, "sequential");
    create2(a, "/c/e", "eph", ZOO_EPHEMERAL, "ephemeral");
    create(a, "/c/es-", "es", ZOO_EPHEMERAL_SEQUENTIAL, NULL, "ephemeral-sequential");
    create(a, "/c/e/kid", "k", ZOO_PERSISTENT, NULL, "under-ephemeral");
    create(a, "/c/nul", NULL, ZOO_PERSISTENT, NULL, "null-data");
    create(a, "/c/", "x", ZOO_PERSISTENT, NULL, "trailing-slash");
    create(a, "/c/box", "", ZOO_CONTAINER, NULL, "container");
    create(a, "/c/box/kid", "k", ZOO_PERSISTENT, NULL, "in container");
    exists(a, "/c/box", "container");
    {
        char made[64] = "";
        struct Stat s;
        int rc = check(zoo_create2_ttl(a, "/c/ttl", "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, 600000,
                                       made, sizeof made, &s));
        line("create2 ttl /c/ttl: %s %s %s", err(rc), made, rc == ZOK ? stat_str(&s) : "");
    }
    children(a, "/zookeeper");
    {
        /* a standalone ZooKeeper's configuration is empty; an ensemble's (and Volery's, ADR 097) lists its servers */
        char buf[8192];
        int len = sizeof buf - 1;
        struct Stat s;
        int rc = check(zoo_getconfig(a, 0, buf, &len, &s));
        int servers = 0;
        if (rc == ZOK && len > 0) {
            buf[len] = '\0';
            for (char *p = buf; (p = strstr(p, "server.")) != NULL; p++) {
                if (p == buf || p[-1] == '\n') {
                    servers++;
                }
            }
        }
        line("getconfig: %s servers=%d version=%d", err(rc), servers, s.version);
    }

    /* reads and versioned writes */
    get(a, "/c/a", "fresh");
    get(a, "/c/nul", "null-data");
    get(a, "/c/nope", "missing");
    set(a, "/c/a", "beta", 0);
    set(a, "/c/a", "gamma", 0);
    set(a, "/c/a", "gamma", 1);
    set(a, "/c/a", "delta", -1);
    set(a, "/c/nope", "x", -1);
    {
        int rc = check(zoo_set(a, "/c/a", "epsilon", 7, 3));
        line("set /c/a 'epsilon' version 3: %s", err(rc));
    }
    get(a, "/c/a", "after sets");
    exists(a, "/c/a", "present");
    exists(a, "/c/nope", "absent");
    exists(a, "/c/e", "ephemeral");
    children(a, "/c");
    children2(a, "/c");
    children(a, "/c/nope");
    children2(a, "/c/a");

    /* deletes: versions, children */
    delete(a, "/c", -1);
    delete(a, "/c", 99);
    delete(a, "/c/a", 0);
    delete(a, "/c/nope", -1);
    delete(a, "/c/nul", 0);

    /* a second session */
    zhandle_t *b = connect_to(hosts, &cb, "B", 10000);
    session_b = zoo_client_id(b)->client_id;
    line("session B connected, other than A: %s", session_a != session_b ? "true" : "false");

    /* watches set by A, fired by B's writes */
    {
        struct watch data = {.name = "data watch"};
        char buf[64];
        int len = sizeof buf;
        struct Stat s;
        int rc = check(zoo_wget(a, "/c/a", watch_fn, &data, buf, &len, &s));
        line("wget /c/a: %s data='%.*s'", err(rc), len < 0 ? 0 : len, buf);
        set(b, "/c/a", "zeta", 4);
        await_watch(&data);

        struct watch kids = {.name = "child watch"};
        struct String_vector v;
        rc = check(zoo_wget_children2(a, "/c", watch_fn, &kids, &v, &s));
        line("wget_children2 /c: %s %s %s", err(rc), rc == ZOK ? children_str(&v) : "", rc == ZOK ? stat_str(&s) : "");
        if (rc == ZOK) {
            deallocate_String_vector(&v);
        }
        create(b, "/c/w", "w", ZOO_PERSISTENT, NULL, "by B");
        await_watch(&kids);

        struct watch born = {.name = "exists watch (absent)"};
        rc = check(zoo_wexists(a, "/c/later", watch_fn, &born, &s));
        line("wexists /c/later: %s", err(rc));
        create(b, "/c/later", "", ZOO_PERSISTENT, NULL, "by B");
        await_watch(&born);

        struct watch gone = {.name = "exists watch (present)"};
        rc = check(zoo_wexists(a, "/c/w", watch_fn, &gone, &s));
        line("wexists /c/w: %s %s", err(rc), rc == ZOK ? stat_str(&s) : "");
        delete(b, "/c/w", 0);
        await_watch(&gone);

        struct watch data_gone = {.name = "data watch (deleted)"};
        len = sizeof buf;
        rc = check(zoo_wget(a, "/c/later", watch_fn, &data_gone, buf, &len, &s));
        line("wget /c/later: %s len=%d %s", err(rc), len, rc == ZOK ? stat_str(&s) : "");
        delete(b, "/c/later", -1);
        await_watch(&data_gone);

        /* watches removed, at the server too: later changes fire nothing */
        struct watch removed = {.name = "removed data watch"};
        struct watch removed_kids = {.name = "removed child watch"};
        len = sizeof buf;
        rc = check(zoo_wget(a, "/c/a", watch_fn, &removed, buf, &len, &s));
        line("wget /c/a: %s", err(rc));
        rc = check(zoo_wget_children(a, "/c", watch_fn, &removed_kids, &v));
        line("wget_children /c: %s %s", err(rc), rc == ZOK ? children_str(&v) : "");
        if (rc == ZOK) {
            deallocate_String_vector(&v);
        }
        line("removeWatches child /c/a: %s", err(check(zoo_remove_watches(a, "/c/a", ZWATCHTYPE_CHILD, watch_fn, &removed, 0))));
        line("removeWatches data /c/a: %s", err(check(zoo_remove_watches(a, "/c/a", ZWATCHTYPE_DATA, watch_fn, &removed, 0))));
        line("removeWatches data /c/a again: %s", err(check(zoo_remove_watches(a, "/c/a", ZWATCHTYPE_DATA, watch_fn, &removed, 0))));
        line("removeAllWatches /c: %s", err(check(zoo_remove_all_watches(a, "/c", ZWATCHTYPE_ANY, 0))));
        line("removeAllWatches /c/nope: %s", err(check(zoo_remove_all_watches(a, "/c/nope", ZWATCHTYPE_ANY, 0))));
        set(b, "/c/a", "eta", 5);
        create(b, "/c/w2", "w", ZOO_PERSISTENT, NULL, "by B");
        delete(b, "/c/w2", 0);
        get(a, "/c/a", "after B's changes");
        sync_path(a, "/c", "by A");
        pthread_mutex_lock(&lock);
        line("removed watches fired: data %s, child %s", yes(removed.fired), yes(removed_kids.fired));
        pthread_mutex_unlock(&lock);

        /* jute.maxbuffer (0xfffff, the default of both servers) bounds a request's frame, all of it
         * but the 4-byte length: a setData of /c/a is 24 bytes of header, path and version plus its
         * data. A frame of exactly jute.maxbuffer is served; one byte more and the server drops the
         * connection without an answer; the client reconnects (to Volery: maybe to another node)
         * with the same session and re-arms its watch, which then fires for B's change whether that
         * came before the reconnection (caught up) or after */
        int largest = 0xfffff - 24;
        char *huge = calloc(1, largest + 1);
        rc = check(zoo_set2(a, "/c/a", huge, largest, -1, &s));
        line("set of %d bytes (a frame of jute.maxbuffer) on /c/a: %s %s", largest, err(rc), rc == ZOK ? stat_str(&s) : "");
        struct watch rearmed = {.name = "watch re-armed after reconnection"};
        rc = check(zoo_wexists(a, "/c/a", watch_fn, &rearmed, &s));
        line("wexists /c/a: %s", err(rc));
        int before = connections(&ca);
        rc = zoo_set(a, "/c/a", huge, largest + 1, -1);
        free(huge);
        line("set of %d bytes (one byte over) on /c/a: %s", largest + 1, err(rc));
        set(b, "/c/a", "theta", 7);
        int back = await_connection(&ca, before, 20000);
        line("A connected again: %s, same session: %s", yes(back), yes(zoo_client_id(a)->client_id == session_a));
        if (!back) {
            failures++;
        }
        await_watch(&rearmed);
        get(a, "/c/a", "after reconnection");
    }

    /* B sees A's ephemerals, and sees them go when A closes */
    {
        struct Stat s;
        struct watch eph = {.name = "B's exists watch on A's ephemeral"};
        int rc = check(zoo_wexists(b, "/c/e", watch_fn, &eph, &s));
        line("B wexists /c/e: %s %s", err(rc), rc == ZOK ? stat_str(&s) : "");
        children(b, "/c");
        rc = zookeeper_close(a);
        line("close A: %s", err(rc));
        await_watch(&eph);
        exists(b, "/c/e", "after A closed");
        children2(b, "/c");
    }

    /* multi across two top-level nodes (two partitions in Volery) */
    create(b, "/c2", "other", ZOO_PERSISTENT, NULL, "second top-level");
    {
        char p0[64] = "", p3[64] = "";
        struct Stat s1 = {0};
        zoo_op_t ops[4];
        zoo_op_result_t res[4];
        zoo_create_op_init(&ops[0], "/c/t1", "t1", 2, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, p0, sizeof p0);
        zoo_set_op_init(&ops[1], "/c2", "other2", 6, 0, &s1);
        zoo_check_op_init(&ops[2], "/c/a", 8);
        zoo_create_op_init(&ops[3], "/c2/m-", "m", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL, p3, sizeof p3);
        memset(res, 0, sizeof res);
        int rc = check(zoo_multi(b, 4, ops, res));
        line("multi ok: %s", err(rc));
        line("multi ok op0 create: %s %s", err(res[0].err), res[0].err == ZOK ? p0 : "");
        line("multi ok op1 set: %s %s", err(res[1].err), res[1].err == ZOK ? stat_str(&s1) : "");
        line("multi ok op2 check: %s", err(res[2].err));
        line("multi ok op3 create: %s %s", err(res[3].err), res[3].err == ZOK ? p3 : "");
    }
    get(b, "/c2", "after multi");
    children(b, "/c2");
    {
        char p0[64] = "";
        struct Stat s2 = {0};
        zoo_op_t ops[5];
        zoo_op_result_t res[5];
        zoo_create_op_init(&ops[0], "/c/t2", "t2", 2, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, p0, sizeof p0);
        zoo_delete_op_init(&ops[1], "/c/t1", 0);
        zoo_set_op_init(&ops[2], "/c2", "stale", 5, 0, &s2);
        zoo_check_op_init(&ops[3], "/c/a", 8);
        zoo_delete_op_init(&ops[4], "/c/a", -1);
        memset(res, 0, sizeof res);
        int rc = check(zoo_multi(b, 5, ops, res));
        line("multi failing: %s", err(rc));
        for (int i = 0; i < 5; i++) {
            line("multi failing op%d: %s", i, err(res[i].err));
        }
    }
    exists(b, "/c/t2", "rolled back");
    exists(b, "/c/t1", "kept");
    get(b, "/c2", "kept");
    {
        zoo_op_t ops[2];
        zoo_op_result_t res[2];
        zoo_check_op_init(&ops[0], "/c/nope", -1);
        zoo_create_op_init(&ops[1], "/c2/never", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, NULL, 0);
        memset(res, 0, sizeof res);
        int rc = check(zoo_multi(b, 2, ops, res));
        line("multi check absent: %s op0 %s op1 %s", err(rc), err(res[0].err), err(res[1].err));
    }

    /* a session whose connect string ends in a chroot: paths, sequential names, watch events and
     * multi results are relative to it */
    {
        char chrooted[1024];
        snprintf(chrooted, sizeof chrooted, "%s/c2", hosts);
        struct conn ce;
        zhandle_t *e = connect_to(chrooted, &ce, "E", 10000);
        line("session E (chroot /c2) connected");
        create(e, "/r-", "r", ZOO_PERSISTENT_SEQUENTIAL, NULL, "chroot sequential");
        children(e, "/");
        struct watch born = {.name = "chroot exists watch"};
        struct Stat s;
        int rc = check(zoo_wexists(e, "/r", watch_fn, &born, &s));
        line("wexists chroot /r: %s", err(rc));
        create(b, "/c2/r", "r", ZOO_PERSISTENT, NULL, "by B");
        await_watch(&born);
        char p0[64] = "";
        zoo_op_t ops[2];
        zoo_op_result_t res[2];
        zoo_create_op_init(&ops[0], "/q-", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL, p0, sizeof p0);
        zoo_delete_op_init(&ops[1], "/r", 0);
        memset(res, 0, sizeof res);
        rc = check(zoo_multi(e, 2, ops, res));
        line("chroot multi: %s op0 %s %s op1 %s", err(rc), err(res[0].err), p0, err(res[1].err));
        sync_path(e, "/", "chroot");
        get(e, "/", "chroot");
        line("close E: %s", err(zookeeper_close(e)));
        children(b, "/c2");
    }

    /* digest auth and ACLs; session C has no credentials */
    add_auth(b, "digest", "alice:secret", "B");
    create(b, "/c2/secret", "s3cr3t", ZOO_PERSISTENT, &ZOO_CREATOR_ALL_ACL, "creator-all");
    get_acl(b, "/c2/secret", "by B");
    get(b, "/c2/secret", "by B");
    zhandle_t *c = connect_to(hosts, &cc, "C", 4000);
    line("session C connected, timeout %d ms", zoo_recv_timeout(c));
    {
        /* idle longer than two thirds of the timeout: the client's pings must keep the connection */
        pthread_mutex_lock(&lock);
        int before = cc.changes;
        pthread_mutex_unlock(&lock);
        struct timespec idle = {.tv_sec = 3, .tv_nsec = 500000000L};
        nanosleep(&idle, NULL);
        pthread_mutex_lock(&lock);
        int after = cc.changes;
        pthread_mutex_unlock(&lock);
        line("C idle 3.5 s: session events %d, connected %s", after - before, yes(zoo_state(c) == ZOO_CONNECTED_STATE));
    }
    get(c, "/c2/secret", "by C");
    {
        int rc = check(zoo_set(c, "/c2/secret", "x", 1, -1));
        line("set /c2/secret by C: %s", err(rc));
    }
    exists(c, "/c2/secret", "by C");
    get_acl(c, "/c2/secret", "by C");
    create(c, "/c2/secret/kid", "", ZOO_PERSISTENT, NULL, "by C");
    create(c, "/c2/mine", "", ZOO_PERSISTENT, &ZOO_CREATOR_ALL_ACL, "creator-all without auth");
    {
        struct ACL read_for_all[2] = {
            {.perms = ZOO_PERM_ALL, .id = {.scheme = "auth", .id = ""}},
            {.perms = ZOO_PERM_READ, .id = {.scheme = "world", .id = "anyone"}},
        };
        struct ACL_vector v = {.count = 2, .data = read_for_all};
        int rc = check(zoo_set_acl(c, "/c2/secret", -1, &v));
        line("setACL /c2/secret by C: %s", err(rc));
        rc = check(zoo_set_acl(b, "/c2/secret", 1, &v));
        line("setACL /c2/secret version 1 by B: %s", err(rc));
        rc = check(zoo_set_acl(b, "/c2/secret", 0, &v));
        line("setACL /c2/secret version 0 by B: %s", err(rc));
    }
    get_acl(b, "/c2/secret", "after setACL");
    get(c, "/c2/secret", "by C after setACL");
    {
        int rc = check(zoo_set(c, "/c2/secret", "x", 1, -1));
        line("set /c2/secret by C after setACL: %s", err(rc));
    }
    add_auth(c, "digest", "alice:wrong", "C");
    {
        int rc = check(zoo_set(c, "/c2/secret", "x", 1, -1));
        line("set /c2/secret by C with the wrong password: %s", err(rc));
    }
    add_auth(c, "digest", "alice:secret", "C");
    set(c, "/c2/secret", "by alice on C", -1);
    {
        /* the ip scheme: these sessions connect from 127.0.0.1; ACLs the server must refuse */
        struct ACL here[] = {{.perms = ZOO_PERM_ALL, .id = {.scheme = "ip", .id = "127.0.0.1"}}};
        struct ACL elsewhere[] = {{.perms = ZOO_PERM_ALL, .id = {.scheme = "ip", .id = "10.0.0.0/8"}}};
        struct ACL unknown[] = {{.perms = ZOO_PERM_ALL, .id = {.scheme = "nosuchscheme", .id = "x"}}};
        struct ACL_vector here_v = {.count = 1, .data = here};
        struct ACL_vector elsewhere_v = {.count = 1, .data = elsewhere};
        struct ACL_vector unknown_v = {.count = 1, .data = unknown};
        struct ACL_vector none = {.count = 0, .data = NULL};
        create(b, "/c2/ip-here", "h", ZOO_PERSISTENT, &here_v, "ip 127.0.0.1");
        create(b, "/c2/ip-elsewhere", "e", ZOO_PERSISTENT, &elsewhere_v, "ip 10.0.0.0/8");
        get(c, "/c2/ip-here", "by C");
        get(c, "/c2/ip-elsewhere", "by C");
        get_acl(c, "/c2/ip-here", "by C");
        create(b, "/c2/bad-acl", "", ZOO_PERSISTENT, &unknown_v, "unknown scheme");
        create(b, "/c2/no-acl", "", ZOO_PERSISTENT, &none, "empty ACL");
    }

    /* an unknown auth scheme: the server fails the auth and closes the session's connection */
    {
        struct conn cd;
        zhandle_t *d = connect_to(hosts, &cd, "D", 10000);
        line("session D connected");
        struct completion done = {0};
        int rc = check(zoo_add_auth(d, "nosuchscheme", "x", 1, void_done, &done));
        line("addAuth D nosuchscheme: %s", err(rc));
        if (await_completion(&done, "addAuth nosuchscheme")) {
            line("addAuth D nosuchscheme completed: %s", err(done.rc));
        }
        struct timespec until;
        deadline_in(&until, WAIT_MS);
        pthread_mutex_lock(&lock);
        while (cd.last_state != ZOO_AUTH_FAILED_STATE) {
            if (pthread_cond_timedwait(&changed, &lock, &until) == ETIMEDOUT) {
                break;
            }
        }
        int failed = cd.last_state == ZOO_AUTH_FAILED_STATE;
        pthread_mutex_unlock(&lock);
        line("D's session event: AUTH_FAILED %s", yes(failed));
        struct Stat s;
        line("exists by D after the failed auth: %s", err(zoo_exists(d, "/c2", 0, &s)));
        zookeeper_close(d);
    }

    /* requests pipelined across both partitions: ZooKeeper answers a session's requests in order,
     * and the C client insists on it (an answer out of order breaks the connection) */
    {
        for (int i = 0; i < PIPELINED; i++) {
            const void *index = (const void *) (intptr_t) i;
            int rc;
            switch (i % 4) {
            case 0: rc = zoo_aset(b, "/c/t1", "p", 1, -1, pipelined_stat, index); break;
            case 1: rc = zoo_aget(b, "/c2/m-0000000000", 0, pipelined_data, index); break;
            case 2: rc = zoo_acreate(b, "/c2/p-", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL,
                                     pipelined_string, index); break;
            default: rc = zoo_aexists(b, "/c/nope", 0, pipelined_stat, index); break;
            }
            if (check(rc) != ZOK) {
                line("pipelined request %d: %s", i, err(rc));
            }
        }
        struct timespec until;
        deadline_in(&until, WAIT_MS);
        pthread_mutex_lock(&lock);
        while (pipeline.count < PIPELINED) {
            if (pthread_cond_timedwait(&changed, &lock, &until) == ETIMEDOUT) {
                break;
            }
        }
        int in_order = 1, unexpected = 0;
        for (int i = 0; i < pipeline.count; i++) {
            in_order &= pipeline.order[i] == i;
            unexpected += pipeline.rc[i] != (i % 4 == 3 ? ZNONODE : ZOK);
        }
        line("pipelined %d async requests across /c and /c2: %d completions, in order %s, unexpected results %d",
             PIPELINED, pipeline.count, yes(in_order), unexpected);
        if (pipeline.count < PIPELINED) {
            failures++;
        }
        pthread_mutex_unlock(&lock);
        exists(b, "/c/t1", "after pipelining");
        children2(b, "/c2");
    }

    sync_path(b, "/c2", "by B");

    /* cleanup, deepest first */
    children(b, "/c");
    children(b, "/c2");
    {
        /* the container with its child at once: a container may be reaped as soon as it is empty */
        zoo_op_t ops[2];
        zoo_op_result_t res[2];
        zoo_delete_op_init(&ops[0], "/c/box/kid", -1);
        zoo_delete_op_init(&ops[1], "/c/box", -1);
        memset(res, 0, sizeof res);
        int rc = check(zoo_multi(b, 2, ops, res));
        line("multi delete container: %s op0 %s op1 %s", err(rc), err(res[0].err), err(res[1].err));
    }
    {
        const char *paths[2] = {"/c", "/c2"};
        for (int p = 0; p < 2; p++) {
            struct String_vector v;
            if (zoo_get_children(b, paths[p], 0, &v) == ZOK) {
                qsort(v.data, v.count, sizeof(char *), cmp_str);
                for (int i = 0; i < v.count; i++) {
                    char full[256];
                    snprintf(full, sizeof full, "%s/%s", paths[p], v.data[i]);
                    delete(b, full, -1);
                }
                deallocate_String_vector(&v);
            }
            delete(b, paths[p], -1);
        }
    }
    exists(c, "/c", "after cleanup");
    exists(c, "/c2", "after cleanup");
    line("close B: %s", err(zookeeper_close(b)));
    line("close C: %s", err(zookeeper_close(c)));
    if (failures) {
        fprintf(stderr, "%d step(s) failed at the connection level or timed out\n", failures);
        return 3;
    }
    return 0;
}
