package io.volery.server.tree;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The replicated state of Volery: znodes, sessions and watches, changed only by {@link #apply}.
 * Given the same commands with the same zxids and times, every replica reaches the same state and
 * returns the same results (no clock, no randomness, sorted iteration).
 *
 * <p>The rules are ZooKeeper 3.9's, including the order in which it checks a request (which decides
 * the error when several apply) and which watches a change fires. Not thread-safe: one thread applies;
 * a {@link TreeImage} from {@link #capture()} is the one thing another thread may use (to write it).
 */
public final class ZnodeTree {

    private static final Logger LOG = LoggerFactory.getLogger(ZnodeTree.class);

    /** The largest TTL ZooKeeper accepts (it is stored in 40 bits). */
    public static final long MAX_TTL_MS = 0xFF_FFFF_FFFFL;

    /** ZooKeeper's read-only node of the ensemble's configuration. */
    static final String CONFIG_NODE = "/zookeeper/config";
    private static final Set<String> SPECIAL = Set.of("/", "/zookeeper", "/zookeeper/quota", CONFIG_NODE);

    private final TreeConfig config;
    private final Map<String, Znode> nodes = new HashMap<>();
    private final SessionTable sessions = new SessionTable();
    private final WatchRegistry watches = new WatchRegistry();
    private final TreeSet<String> containers = new TreeSet<>();
    private final TreeSet<String> ttls = new TreeSet<>();
    private long lastZxid;
    private long lastTime;
    /** The zxid of the command being applied. */
    private long currentZxid;

    /** Non-null while a multi runs: how to undo each change made so far. */
    private Deque<Runnable> undo;
    /** Changes whose watches fire once the command commits. */
    private final List<Trigger> triggers = new ArrayList<>();
    /** What changed since the last capture; null until {@link #enableCaptures()}. */
    private TreeChanges changes;
    /** The writer side of this tree's captures; null until {@link #enableCaptures()}. */
    private TreeMirror mirror;
    /** The paths with a quota: those whose {@code zookeeper_limits} node exists (ZooKeeper's quota trie). */
    private final TreeSet<String> quotaRoots = new TreeSet<>();
    /** A quota's stats and limits paths, by quoted path (derived, so that a counted write builds no path). */
    private final Map<String, String[]> quotaNodePaths = new HashMap<>();
    /**
     * The nodes whose data this tree holds as written (null: all of them). Under hash partitioning a partition
     * holds every node but applies setData only to its own, so its stats nodes count every node and only its
     * own nodes' bytes: a share, which reads sum over the partitions (ADR 089).
     */
    private java.util.function.Predicate<String> dataHere;
    /** While an enforcing multi runs: the stats nodes' data before it, which its checks read (as ZooKeeper's do). */
    private Map<String, byte[]> statsBeforeMulti;
    /**
     * Stats and limits nodes' text as last read or written here, by path; an entry counts only while the node
     * holds the very array it was read from (derived state, not replicated; a client's write of the node gives it
     * a new array).
     */
    private final Map<String, Quotas.Stats> statsRead = new HashMap<>();
    private final Map<String, Quotas.Limits> limitsRead = new HashMap<>();
    private long lastQuotaWarning;
    /** Creates and setData refused past a hard limit, by namespace (ZooKeeper's quota_exceeded_error_per_namespace). */
    private final Map<String, Long> quotaRefusals = new java.util.TreeMap<>();

    public ZnodeTree(TreeConfig config) {
        this.config = config;
        initialNodes();
    }

    /** ZooKeeper's initial tree: "/" with "/zookeeper", "/zookeeper/quota" and a read-only "/zookeeper/config". */
    private void initialNodes() {
        Znode root = new Znode(new byte[0], Acl.OPEN, Znode.Kind.PERSISTENT, 0, 0, 0);
        Znode zookeeper = new Znode(new byte[0], Acl.OPEN, Znode.Kind.PERSISTENT, 0, 0, 0);
        Znode quota = new Znode(new byte[0], Acl.OPEN, Znode.Kind.PERSISTENT, 0, 0, 0);
        Znode configNode = new Znode(new byte[0], Acl.READ_ONLY, Znode.Kind.PERSISTENT, 0, 0, 0);
        configNode.aversion = -1;
        nodes.put("/", root);
        nodes.put("/zookeeper", zookeeper);
        nodes.put("/zookeeper/quota", quota);
        nodes.put(CONFIG_NODE, configNode);
        root.children.add("zookeeper");
        zookeeper.children.add("quota");
        zookeeper.children.add("config");
    }

    public TreeConfig config() {
        return config;
    }

    public SessionTable sessions() {
        return sessions;
    }

    /** The zxid of the last applied command. */
    public long lastZxid() {
        return lastZxid;
    }

    /** The client view of a node, or null; for tests and tools, not part of the replicated protocol. */
    public Stat stat(String path) {
        Znode n = nodes.get(path);
        return n == null ? null : n.stat();
    }

    /** Child names of a node in the order getChildren lists them, or null when it does not exist. */
    public List<String> children(String path) {
        Znode n = nodes.get(path);
        return n == null ? null : n.children.inServerOrder();
    }

    /** A node's data (null when the node was given null data, as ZooKeeper keeps it); the node must exist. */
    public byte[] data(String path) {
        Znode n = existingForTools(path);
        return n.data == null ? null : n.data.clone();
    }

    private Znode existingForTools(String path) {
        Znode n = nodes.get(path);
        if (n == null) {
            throw new IllegalArgumentException("no node " + path);
        }
        return n;
    }

    /** Every path in the tree, in depth-first sorted order. */
    public List<String> paths() {
        List<String> out = new ArrayList<>();
        Deque<String> stack = new ArrayDeque<>();
        stack.push("/");
        while (!stack.isEmpty()) {
            String p = stack.pop();
            out.add(p);
            List<String> sorted = new ArrayList<>(nodes.get(p).children.inInsertionOrder());
            sorted.sort(java.util.Comparator.reverseOrder());
            for (String c : sorted) {
                stack.push(PathRules.child(p, c));
            }
        }
        return out;
    }

    /**
     * ZooKeeper's node count, for monitoring: its data tree holds the root under two keys ("" and
     * "/"), so its count is one more than the znodes.
     */
    public int nodeCount() {
        return nodes.size() + 1;
    }

    /** Path lengths plus data lengths over all znodes, as ZooKeeper's approximate data size; for monitoring. */
    public long approximateDataSize() {
        long size = 0;
        for (Map.Entry<String, Znode> e : nodes.entrySet()) {
            size += e.getKey().length() + (e.getValue().data == null ? 0 : e.getValue().data.length);
        }
        return size;
    }

    /**
     * The paths each session watches in the data table (data and exist watches, persistent ones
     * too): what ZooKeeper's wchs, wchc and wchp report, which leave child watches out; for monitoring.
     */
    public Map<Long, java.util.SortedSet<String>> dataWatchedPaths() {
        Map<Long, java.util.SortedSet<String>> out = new java.util.TreeMap<>();
        for (WatchRegistry.Registration r : watches.registrations()) {
            if (r.table() == WatchRegistry.Table.DATA) {
                out.computeIfAbsent(r.session(), k -> new TreeSet<>()).add(r.path());
            }
        }
        return out;
    }

    /** Whether a tick at {@code time} could delete nodes: a session expires, or containers or TTL nodes are reaped. */
    public boolean tickMayDelete(long time) {
        return !sessions.expiredAt(time).isEmpty()
                || config.reapsContainers() && !(containers.isEmpty() && ttls.isEmpty());
    }

    /**
     * Whether creating or deleting the top-level node {@code path} (or another node every partition lists, a
     * quota node below {@code /zookeeper/quota}) could fire a watch here: one on the node itself, its parent's
     * child watches, or a watch on its parent or an ancestor in the data table (exist, data or persistent,
     * recursive ones included).
     */
    public boolean topLevelChangeWatched(String path) {
        String parent = PathRules.parent(path);
        if (!watches.registrationsOf(WatchRegistry.Table.CHILD, parent).isEmpty()
                || !watches.registrationsOf(WatchRegistry.Table.DATA, path).isEmpty()
                || !watches.registrationsOf(WatchRegistry.Table.CHILD, path).isEmpty()) {
            return true;
        }
        for (String p = parent; ; p = PathRules.parent(p)) {
            if (!watches.registrationsOf(WatchRegistry.Table.DATA, p).isEmpty()) {
                return true;
            }
            if (p.equals("/")) {
                return false;
            }
        }
    }

    /** How many nodes below {@code path} (itself excluded) {@code counted} accepts; 0 when it does not exist. */
    public int countBelow(String path, java.util.function.Predicate<String> counted) {
        int[] n = new int[1];
        walk(path, (p, node) -> {
            if (!p.equals(path) && counted.test(p)) {
                n[0]++;
            }
        });
        return n[0];
    }

    /** Visits the node at {@code path} and every node below it; nothing when it does not exist. */
    private void walk(String path, java.util.function.BiConsumer<String, Znode> visit) {
        Deque<String> todo = new ArrayDeque<>();
        todo.push(path);
        while (!todo.isEmpty()) {
            String p = todo.pop();
            Znode n = nodes.get(p);
            if (n == null) {
                continue;
            }
            visit.accept(p, n);
            for (String child : n.children.inInsertionOrder()) {
                todo.push(PathRules.child(p, child));
            }
        }
    }

    /** Watches as ZooKeeper counts them: (table, path, session) registrations; for monitoring. */
    public int watchCount() {
        java.util.Set<List<Object>> seen = new java.util.HashSet<>();
        for (WatchRegistry.Registration r : watches.registrations()) {
            seen.add(List.of(r.table(), r.path(), r.session()));
        }
        return seen.size();
    }

    private boolean touchOnCommand = true;

    /**
     * For a tree that lists every node but owns the data of only those {@code dataHere} accepts (null: all), as
     * under hash partitioning: it keeps only their data (ADR 092; the nodes below {@code /zookeeper} keep theirs
     * everywhere) and its stats nodes count every node's creation and removal but only the owned nodes' bytes
     * (ADR 089). Such a tree's stats are a share: it enforces no quota and reports its share in
     * {@link #quotaGauges()}. Every replica of a partition must use the same.
     */
    public void holdDataOnlyOf(java.util.function.Predicate<String> dataHere) {
        this.dataHere = dataHere;
    }

    /**
     * Whether this tree keeps the data of the node at {@code path}: always, unless {@link #holdDataOnlyOf} says the
     * node's data lives in another partition (hash partitioning). A copy there lists the node, answers its create
     * and counts it, but its data is never read here (reads and writes of it go to its owner), so it is not kept
     * (ADR 092). The nodes below {@code /zookeeper} keep theirs everywhere: each partition keeps its share in
     * a quota's stats node (ADR 089).
     */
    private boolean holdsDataOf(String path) {
        return dataHere == null || dataHere.test(path) || path.startsWith("/zookeeper/");
    }

    private boolean quotasEnforced() {
        return dataHere == null && config.enforceQuota();
    }

    /** The bytes of {@code data} that a stats node counts for the node at {@code path}: none if not held here. */
    private long countedLength(String path, byte[] data) {
        return dataHere == null || dataHere.test(path) ? length(data) : 0;
    }

    /**
     * This tree's share of a quota: the count and bytes its stats node {@code statPath} holds; null when there
     * is no such node or its text is not ZooKeeper's stats text (ADR 089).
     */
    public long[] quotaStatsShare(String statPath) {
        Znode n = nodes.get(statPath);
        Quotas.Stats st = n == null ? null : Quotas.Stats.of(n.data);
        return st == null ? null : new long[] {st.count(), st.bytes()};
    }

    /**
     * A stats node's text with its bytes replaced by {@code bytes} (its count and the rest kept, in ZooKeeper's
     * spelling); null when {@code text} is not a stats text.
     */
    public static byte[] quotaStatsWithBytes(byte[] text, long bytes) {
        Quotas.Stats st = Quotas.Stats.of(text);
        return st == null ? null : Quotas.Stats.of(st.count(), bytes, st.rest()).source();
    }

    /** Whether {@code path} names a quota's stats node ({@code /zookeeper/quota/.../zookeeper_stats}). */
    public static boolean isQuotaStatsNode(String path) {
        if (path == null || !path.endsWith("/" + Quotas.STATS)) {
            return false;
        }
        String quoted = Quotas.quotedPath(PathRules.parent(path));
        return quoted != null && !quoted.isEmpty();
    }

    /**
     * Whether any command of a session keeps it alive (ZooKeeper's rule, the default). A partitioned
     * service turns it off and touches sessions only by {@link Command.TouchSessions} ordered to every
     * partition, so that all partitions expire a session at the same point of their order.
     */
    public void setTouchOnCommand(boolean touch) {
        this.touchOnCommand = touch;
    }

    /**
     * Decides which TTL nodes expire at a tick, given those due by this tree's own mtimes. A tree whose
     * copies of some nodes have stale mtimes (a partition that does not own them) asks the owners.
     */
    @FunctionalInterface
    public interface TtlArbiter {
        /** @param dueHere the TTL nodes due by this tree's mtimes, in path order; returns those to expire */
        Collection<String> expiring(List<String> dueHere);
    }

    private TtlArbiter ttlArbiter;

    /**
     * Lets {@code arbiter} decide TTL expiry; it is consulted at every tick while any TTL node exists
     * (the same ticks in every tree that saw the same commands), and never otherwise.
     */
    public void setTtlArbiter(TtlArbiter arbiter) {
        this.ttlArbiter = arbiter;
    }

    private EnsembleConfig ensemble;
    private EnsembleConfig.Published ensembleShown;

    /**
     * Shows what {@code ensemble} publishes in {@code /zookeeper/config} from the next command on (ADR 097): the
     * node's local knowledge, left out of snapshots and digests.
     */
    public void setEnsembleConfig(EnsembleConfig ensemble) {
        this.ensemble = ensemble;
        this.ensembleShown = null;
    }

    /** Takes up a newly published ensemble: as ZooKeeper writes its configuration, version -1 and mzxid 0. */
    private void showEnsemble() {
        EnsembleConfig.Published p = ensemble.current();
        if (p != null && p != ensembleShown) {
            Znode n = nodes.get(CONFIG_NODE);
            n.data = p.data();
            n.mtime = p.mtime();
            n.mzxid = 0;
            n.version = -1;
            ensembleShown = p;
        }
    }

    /** Applies one ordered command; {@code zxid} and {@code timeMillis} come from its place in the order. */
    public Result apply(Command command, long zxid, long timeMillis) {
        if (ensemble != null) {
            showEnsemble();
        }
        lastZxid = Math.max(lastZxid, zxid);
        lastTime = Math.max(lastTime, timeMillis);
        currentZxid = zxid;
        triggers.clear();
        Result result;
        long via = 0;
        if (command instanceof Command.Via v) {
            via = v.serverId();
            command = v.command();
        }
        boolean sessionless = command instanceof Command.CreateSession || command instanceof Command.TouchSessions
                || command instanceof Command.Tick;
        if (!sessionless) {
            SessionTable.Session s = sessions.get(command.sessionId());
            if (s == null) {
                return Result.error(ErrorCode.SESSIONEXPIRED);
            }
            if (via != 0 && s.owner() != 0 && s.owner() != via && isOwnerCheckedWrite(command)) {
                return Result.error(ErrorCode.SESSIONMOVED);
            }
            if (touchOnCommand) {
                s.touch(timeMillis);
            }
        }
        try {
            result = dispatch(command, zxid, timeMillis);
        } catch (Failure f) {
            result = Result.error(f.code);
        }
        if (via != 0 && command instanceof Command.CreateSession c && result.isOk()) {
            sessions.get(c.sessionId()).setOwner(via);
        }
        List<WatchEvent> events = new ArrayList<>(result.events());
        fire(zxid, events);
        return result.withEvents(events);
    }

    /** The requests ZooKeeper's leader checks the session owner for (closeSession is exempt). */
    private static boolean isOwnerCheckedWrite(Command c) {
        return c instanceof Command.MultiOp || c instanceof Command.SetAcl || c instanceof Command.Multi;
    }

    /** Shorthand for applying a {@link Command.Tick}. */
    public Result tick(long zxid, long timeMillis) {
        return apply(new Command.Tick(), zxid, timeMillis);
    }

    private Result dispatch(Command command, long zxid, long time) {
        long sid = command.sessionId();
        if (command instanceof Command.MultiOp op) {
            return write(op, zxid, time);
        } else if (command instanceof Command.ReadOp op) {
            return read(op);
        } else if (command instanceof Command.SetAcl c) {
            return setAcl(c);
        } else if (command instanceof Command.Exists c) {
            return exists(c);
        } else if (command instanceof Command.GetAcl c) {
            return getAcl(c);
        } else if (command instanceof Command.GetEphemerals c) {
            return getEphemerals(c);
        } else if (command instanceof Command.GetAllChildrenNumber c) {
            return getAllChildrenNumber(c);
        } else if (command instanceof Command.Multi c) {
            return multi(c, zxid, time);
        } else if (command instanceof Command.MultiRead c) {
            List<Result> results = new ArrayList<>();
            for (Command.ReadOp op : c.ops()) {
                try {
                    results.add(read(op));
                } catch (Failure f) {
                    results.add(Result.error(f.code));
                }
            }
            return Result.ok(new Reply.MultiResults(results));
        } else if (command instanceof Command.Sync c) {
            return Result.ok(new Reply.Synced(c.path()));
        } else if (command instanceof Command.AddWatch c) {
            WatchRegistry.Mode mode = c.mode() == AddWatchMode.PERSISTENT
                    ? WatchRegistry.Mode.PERSISTENT : WatchRegistry.Mode.PERSISTENT_RECURSIVE;
            watches.add(WatchRegistry.Table.DATA, c.path(), sid, mode);
            if (mode == WatchRegistry.Mode.PERSISTENT) {
                watches.add(WatchRegistry.Table.CHILD, c.path(), sid, mode);
            }
            return Result.ok(Reply.Empty.INSTANCE);
        } else if (command instanceof Command.RemoveWatches c) {
            return removeWatches(sid, c.path(), c.type(), true);
        } else if (command instanceof Command.CheckWatches c) {
            return removeWatches(sid, c.path(), c.type(), false);
        } else if (command instanceof Command.SetWatches c) {
            return setWatches(c);
        } else if (command instanceof Command.WhoAmI) {
            return Result.ok(new Reply.Identities(sessions.get(sid).ids()));
        } else if (command instanceof Command.AddAuth c) {
            return addAuth(c);
        } else if (command instanceof Command.SaslIdentity c) {
            return saslIdentity(c);
        } else if (command instanceof Command.X509Identity c) {
            return x509Identity(c);
        } else if (command instanceof Command.ConnectionIdentities c) {
            sessions.get(sid).resetIds(c.connectionIds());
            return Result.ok(Reply.Empty.INSTANCE);
        } else if (command instanceof Command.CreateSession c) {
            return createSession(c, time);
        } else if (command instanceof Command.AttachSession c) {
            sessions.get(sid).setOwner(c.serverId());
            return Result.ok(Reply.Empty.INSTANCE);
        } else if (command instanceof Command.CloseSession c) {
            return new Result(ErrorCode.OK, Reply.Empty.INSTANCE, closeSession(c.sessionId(), zxid));
        } else if (command instanceof Command.TouchSessions c) {
            for (long id : c.sessionIds()) {
                SessionTable.Session s = sessions.get(id);
                if (s != null) {
                    s.touch(time);
                }
            }
            return Result.ok(Reply.Empty.INSTANCE);
        } else if (command instanceof Command.Tick) {
            expire(time);
            return Result.ok(Reply.Empty.INSTANCE);
        }
        throw new AssertionError("unhandled command " + command);
    }

    // ---- writes ----------------------------------------------------------------------------------

    private Result write(Command.MultiOp op, long zxid, long time) {
        if (op instanceof Command.Create c) {
            return create(c, zxid, time);
        } else if (op instanceof Command.Delete c) {
            delete(c);
            return Result.ok(Reply.Empty.INSTANCE);
        } else if (op instanceof Command.SetData c) {
            return setData(c, zxid, time);
        } else if (op instanceof Command.Check c) {
            check(c);
            return Result.ok(Reply.Empty.INSTANCE);
        }
        throw new AssertionError("unhandled op " + op);
    }

    private Result create(Command.Create c, long zxid, long time) {
        CreateMode mode = c.mode();
        byte[] data = c.data() == null ? null : c.data().clone();
        checkSize(data);
        if (mode.isTtl() && !config.extendedTypesEnabled()) {
            throw new Failure(ErrorCode.UNIMPLEMENTED);
        }
        boolean ttlOk = mode.isTtl() ? c.ttl() > 0 && c.ttl() <= MAX_TTL_MS : c.ttl() < 0;
        if (!ttlOk) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        String path = c.path();
        int slash = path.lastIndexOf('/');
        if (slash < 0 || path.indexOf('\0') >= 0) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        List<Acl> acl = AclPolicy.fixup(c.acl(), sessions.get(c.sessionId()).ids(), config.saslEnabled(), config.x509Enabled());
        if (acl == null) {
            throw new Failure(ErrorCode.INVALIDACL);
        }
        // The parent lookup comes before path validation, so "/a//b" is NoNode while "/a/" is BadArguments.
        String parentPath = slash == 0 ? "/" : path.substring(0, slash);
        Znode parent = nodes.get(parentPath);
        if (parent == null) {
            throw new Failure(ErrorCode.NONODE);
        }
        requirePerm(parent, Perms.CREATE, c.sessionId());
        if (mode.isSequential()) {
            path = path + String.format(Locale.ROOT, "%010d", parent.childCreations);
        }
        if (!PathRules.isValid(path)) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        if (nodes.containsKey(path)) {
            throw new Failure(ErrorCode.NODEEXISTS);
        }
        if (parent.kind == Znode.Kind.EPHEMERAL) {
            throw new Failure(ErrorCode.NOCHILDRENFOREPHEMERALS);
        }
        checkQuota(path, null, data, true);
        Znode.Kind kind;
        long owner;
        if (mode.isEphemeral()) {
            kind = Znode.Kind.EPHEMERAL;
            owner = c.sessionId();
        } else if (mode == CreateMode.CONTAINER) {
            kind = Znode.Kind.CONTAINER;
            owner = 0;
        } else if (mode.isTtl()) {
            kind = Znode.Kind.TTL;
            owner = c.ttl();
        } else {
            kind = Znode.Kind.PERSISTENT;
            owner = 0;
        }
        Znode node = new Znode(data, acl, kind, owner, zxid, time);
        insert(path, parentPath, parent, node, zxid);
        Stat stat = node.stat(); // as ZooKeeper answers: before a new stats node is filled in
        quotaAfterCreate(path, parentPath, data);
        if (!holdsDataOf(path)) {
            node.data = null; // after its Stat: the create's reply is this copy's (ADR 092)
        }
        return Result.ok(new Reply.Created(path, stat));
    }

    private void delete(Command.Delete c) {
        String path = c.path();
        int slash = path.lastIndexOf('/');
        if (slash < 0 || path.indexOf('\0') >= 0 || SPECIAL.contains(path)) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        Znode parent = nodes.get(slash == 0 ? "/" : path.substring(0, slash));
        if (parent == null) {
            throw new Failure(ErrorCode.NONODE);
        }
        // ZooKeeper checks DELETE on the parent before it looks the node up.
        requirePerm(parent, Perms.DELETE, c.sessionId());
        Znode node = nodes.get(path);
        if (node == null) {
            throw new Failure(ErrorCode.NONODE);
        }
        checkVersion(node.version, c.version());
        if (!node.children.isEmpty()) {
            throw new Failure(ErrorCode.NOTEMPTY);
        }
        remove(path);
    }

    private Result setData(Command.SetData c, long zxid, long time) {
        byte[] data = c.data() == null ? null : c.data().clone();
        checkSize(data);
        Znode node = existingValid(c.path());
        requirePerm(node, Perms.WRITE, c.sessionId());
        checkQuota(c.path(), node.data, data, false);
        checkVersion(node.version, c.version());
        byte[] oldData = node.data;
        long oldMzxid = node.mzxid;
        long oldMtime = node.mtime;
        int oldVersion = node.version;
        node.data = data;
        node.mzxid = zxid;
        node.mtime = time;
        node.version = oldVersion + 1;
        changedNode(c.path());
        recordUndo(() -> {
            node.data = oldData;
            node.mzxid = oldMzxid;
            node.mtime = oldMtime;
            node.version = oldVersion;
        });
        if (!quotaRoots.isEmpty()) {
            String quoted = quotaOf(c.path());
            if (quoted != null) {
                addToStats(quoted, countedLength(c.path(), data) - countedLength(c.path(), oldData), 0);
            }
        }
        triggers.add(new Trigger(EventType.NODE_DATA_CHANGED, c.path(), node.acl, null));
        return Result.ok(new Reply.StatReply(node.stat()));
    }

    private void check(Command.Check c) {
        Znode node = existingValid(c.path());
        requirePerm(node, Perms.READ, c.sessionId());
        checkVersion(node.version, c.version());
    }

    private Result setAcl(Command.SetAcl c) {
        if (!PathRules.isValid(c.path())) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        List<Acl> acl = AclPolicy.fixup(c.acl(), sessions.get(c.sessionId()).ids(), config.saslEnabled(), config.x509Enabled());
        if (acl == null) {
            throw new Failure(ErrorCode.INVALIDACL);
        }
        Znode node = existing(c.path());
        requirePerm(node, Perms.ADMIN, c.sessionId());
        checkVersion(node.aversion, c.aclVersion());
        node.acl = acl;
        node.aversion++;
        changedNode(c.path());
        return Result.ok(new Reply.StatReply(node.stat()));
    }

    private Result multi(Command.Multi c, long zxid, long time) {
        undo = new ArrayDeque<>();
        statsBeforeMulti = quotasEnforced() ? new HashMap<>(4) : null;
        try {
            List<Result> results = new ArrayList<>();
            for (int i = 0; i < c.ops().size(); i++) {
                try {
                    results.add(write(c.ops().get(i), zxid, time));
                } catch (Failure f) {
                    rollBack();
                    return new Result(f.code, failedMulti(c.ops().size(), i, f.code), List.of());
                }
            }
            return Result.ok(new Reply.MultiResults(results));
        } finally {
            undo = null;
            statsBeforeMulti = null;
        }
    }

    /** ZooKeeper's answer to a failed multi: OK for the undone ops, the error, then RuntimeInconsistency. */
    private static Reply failedMulti(int size, int failedAt, ErrorCode code) {
        List<Result> results = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            ErrorCode each = i < failedAt ? ErrorCode.OK : i == failedAt ? code : ErrorCode.RUNTIMEINCONSISTENCY;
            results.add(Result.error(each));
        }
        return new Reply.MultiResults(results);
    }

    private void rollBack() {
        while (!undo.isEmpty()) {
            undo.pop().run();
        }
        triggers.clear();
    }

    private void recordUndo(Runnable action) {
        if (undo != null) {
            undo.push(action);
        }
    }

    private void insert(String path, String parentPath, Znode parent, Znode node, long zxid) {
        String name = PathRules.name(path);
        long oldPzxid = parent.pzxid;
        SessionTable.Session owner = node.kind == Znode.Kind.EPHEMERAL ? sessions.get(node.owner) : null;
        int oldOwnerTable = owner == null ? 0 : owner.ephemerals.table();
        int oldParentTable = parent.children.table();
        nodes.put(path, node);
        parent.children.add(name);
        parent.childCreations++;
        parent.pzxid = Math.max(parent.pzxid, zxid);
        if (changes != null) {
            changes.node(path);
            changes.reset(path, node.children);
            changes.node(parentPath);
            changes.added(parentPath, name, parent.children.table());
        }
        register(path, node);
        recordUndo(() -> {
            unregister(path, node);
            nodes.remove(path);
            parent.children.remove(name);
            // the table may have grown with this insertion; HashSet order depends on it
            parent.children.restore(parent.children.inInsertionOrder(), oldParentTable);
            if (owner != null) {
                owner.ephemerals.restore(owner.ephemerals.inInsertionOrder(), oldOwnerTable);
            }
            parent.childCreations--;
            parent.pzxid = oldPzxid;
            if (changes != null) {
                // an undo is rare (a failed multi): the sets it rewrites travel whole
                changes.node(path);
                changes.dropped(path);
                changes.node(parentPath);
                changes.reset(parentPath, parent.children);
                if (owner != null) {
                    changes.reset(owner.id(), owner.ephemerals);
                }
            }
        });
        triggers.add(new Trigger(EventType.NODE_CREATED, path, node.acl, parent.acl));
    }

    private void remove(String path) {
        String parentPath = PathRules.parent(path);
        Znode parent = nodes.get(parentPath);
        Znode node = nodes.get(path);
        String name = PathRules.name(path);
        long oldPzxid = parent.pzxid;
        // an undone removal must put names back where they were, since that position shows in orders
        List<String> oldChildren = undo == null ? null : parent.children.inInsertionOrder();
        SessionTable.Session owner = node.kind == Znode.Kind.EPHEMERAL ? sessions.get(node.owner) : null;
        List<String> oldEphemerals = undo == null || owner == null ? null : owner.ephemerals.inInsertionOrder();
        nodes.remove(path);
        parent.children.remove(name);
        parent.pzxid = Math.max(parent.pzxid, currentZxid);
        if (changes != null) {
            changes.node(path);
            changes.dropped(path);
            changes.node(parentPath);
            changes.removed(parentPath, name);
        }
        unregister(path, node);
        recordUndo(() -> {
            nodes.put(path, node);
            parent.children.restore(oldChildren, parent.children.table());
            parent.pzxid = oldPzxid;
            register(path, node);
            if (owner != null) {
                owner.ephemerals.restore(oldEphemerals, owner.ephemerals.table());
            }
            if (changes != null) {
                changes.node(path);
                changes.reset(path, node.children);
                changes.node(parentPath);
                changes.reset(parentPath, parent.children);
                if (owner != null) {
                    changes.reset(owner.id(), owner.ephemerals);
                }
            }
        });
        quotaAfterRemove(path, node);
        triggers.add(new Trigger(EventType.NODE_DELETED, path, node.acl, parent.acl));
    }

    // ---- quotas (ADR 072) --------------------------------------------------------------------------

    /** After a create: a new limits node adds its quota, a new stats node is filled in, an enclosing quota counts it. */
    private void quotaAfterCreate(String path, String parentPath, byte[] data) {
        String quoted = Quotas.quotedPath(parentPath);
        if (quoted != null && !quoted.isEmpty()) { // ZooKeeper has no quota on the root
            String name = PathRules.name(path);
            if (Quotas.LIMITS.equals(name) && quotaRoots.add(quoted)) {
                recordUndo(() -> quotaRoots.remove(quoted));
            } else if (Quotas.STATS.equals(name)) {
                long[] counts = new long[2];
                countSubtree(quoted, counts);
                setStats(Quotas.statPath(quoted), Quotas.Stats.of(counts[0], counts[1], ""));
            }
        }
        if (!quotaRoots.isEmpty()) {
            String enclosing = quotaOf(path);
            if (enclosing != null) {
                addToStats(enclosing, countedLength(path, data), 1);
            }
        }
    }

    /** After a removal: a removed limits node ends its quota (and, as in ZooKeeper's trie, those below it). */
    private void quotaAfterRemove(String path, Znode node) {
        if (!statsRead.isEmpty() || !limitsRead.isEmpty()) {
            statsRead.remove(path);
            limitsRead.remove(path);
        }
        if (quotaRoots.isEmpty()) {
            return;
        }
        String quoted = Quotas.limitsOf(path);
        if (quoted != null) {
            List<String> ended = new ArrayList<>();
            for (String q : quotaRoots.tailSet(quoted, true)) {
                // "/a-x" sorts between "/a" and "/a/b", so look at every later one
                if (q.equals(quoted) || q.startsWith(quoted + "/")) {
                    ended.add(q);
                }
            }
            quotaRoots.removeAll(ended);
            recordUndo(() -> quotaRoots.addAll(ended));
        }
        String enclosing = quotaOf(path);
        if (enclosing != null) {
            addToStats(enclosing, -countedLength(path, node.data), -1);
        }
    }

    /** {stats path, limits path} of the quota on {@code quoted}. */
    private String[] quotaNodePaths(String quoted) {
        String[] paths = quotaNodePaths.get(quoted);
        if (paths == null) {
            if (quotaNodePaths.size() > 4 * quotaRoots.size() + 16) {
                quotaNodePaths.clear(); // entries of quotas that have ended
            }
            paths = new String[] {Quotas.statPath(quoted), Quotas.limitPath(quoted)};
            quotaNodePaths.put(quoted, paths);
        }
        return paths;
    }

    /** The deepest path with a quota at or above {@code path}; null for none. */
    private String quotaOf(String path) {
        if (quotaRoots.isEmpty()) {
            return null;
        }
        if (quotaRoots.size() <= 16) {
            // a few quotas: compare prefixes rather than build the path's ancestors
            String deepest = null;
            for (String q : quotaRoots) {
                if (path.startsWith(q) && (path.length() == q.length() || path.charAt(q.length()) == '/')
                        && (deepest == null || q.length() > deepest.length())) {
                    deepest = q;
                }
            }
            return deepest;
        }
        String p = path;
        while (p.length() > 1) {
            if (quotaRoots.contains(p)) {
                return p;
            }
            int slash = p.lastIndexOf('/');
            if (slash <= 0) {
                return null;
            }
            p = p.substring(0, slash);
        }
        return null;
    }

    private void addToStats(String quoted, long bytesDiff, long countDiff) {
        String statPath = quotaNodePaths(quoted)[0];
        Znode stats = nodes.get(statPath);
        if (stats == null) {
            return; // ZooKeeper logs a missing stats node and goes on
        }
        Quotas.Stats now = statsOf(statPath, stats.data, true);
        if (now == null) {
            LOG.warn("quota stats node {} does not hold count=...,bytes=...; left as it is", statPath);
            return;
        }
        // ZooKeeper rewrites the text even when nothing moves, which changes only a text it did not spell itself
        if (bytesDiff != 0 || countDiff != 0 || !now.canonical()) {
            setStats(statPath, now.plus(bytesDiff, countDiff));
        }
    }

    /** The parsed stats of a stats node holding {@code data}; null when unreadable. */
    private Quotas.Stats statsOf(String statPath, byte[] data, boolean remember) {
        Quotas.Stats known = statsRead.get(statPath);
        if (known != null && known.source() == data) {
            return known;
        }
        Quotas.Stats read = Quotas.Stats.of(data);
        if (read != null && remember) {
            statsRead.put(statPath, read);
        }
        return read;
    }

    private Quotas.Limits limitsOf(String limitPath, byte[] data) {
        Quotas.Limits known = limitsRead.get(limitPath);
        if (known != null && known.source() == data) {
            return known;
        }
        Quotas.Limits read = Quotas.Limits.of(data);
        if (read != null) {
            limitsRead.put(limitPath, read);
        }
        return read;
    }

    /** A stats node's new data: ZooKeeper changes it in place, without a new version, mzxid or watch event. */
    private void setStats(String statPath, Quotas.Stats next) {
        Znode stats = nodes.get(statPath);
        byte[] old = stats.data;
        if (next.source() == old) {
            return;
        }
        if (statsBeforeMulti != null) {
            statsBeforeMulti.putIfAbsent(statPath, old);
        }
        stats.data = next.source();
        statsRead.put(statPath, next);
        changedNode(statPath);
        recordUndo(() -> {
            stats.data = old;
            changedNode(statPath);
        });
    }

    /** Count and bytes of the subtree at {@code path} (the node included), as ZooKeeper counts them. */
    private void countSubtree(String path, long[] counts) {
        walk(path, (p, n) -> {
            counts[0]++;
            counts[1] += countedLength(p, n.data);
        });
    }

    /**
     * ZooKeeper's {@code zookeeper.enforceQuota} check of a create or setData under a quota: refused with
     * QuotaExceeded past a hard limit, logged past a soft one. A multi's operations are checked against the
     * stats as they were before it, as ZooKeeper checks them before any is applied.
     */
    private void checkQuota(String path, byte[] lastData, byte[] data, boolean create) {
        if (!quotasEnforced() || quotaRoots.isEmpty()) {
            return;
        }
        String quoted = quotaOf(path);
        if (quoted == null) {
            return;
        }
        String[] quotaPaths = quotaNodePaths(quoted);
        Znode limits = nodes.get(quotaPaths[1]);
        String statPath = quotaPaths[0];
        Znode stats = nodes.get(statPath);
        if (limits == null || stats == null) {
            return;
        }
        byte[] before = statsBeforeMulti == null ? null : statsBeforeMulti.get(statPath);
        Quotas.Stats current = before == null ? statsOf(statPath, stats.data, true) : statsOf(statPath, before, false);
        Quotas.Limits limit = limitsOf(quotaPaths[1], limits.data);
        if (current == null || limit == null) {
            return;
        }
        long bytesDiff = create ? length(data) : length(data) - length(lastData);
        Quotas.Exceeded exceeded = Quotas.exceeded(quoted, limit, current, bytesDiff, create ? 1 : 0);
        if (exceeded == null) {
            return;
        }
        long now = System.nanoTime();
        if (exceeded.hard() || now - lastQuotaWarning > 1_000_000_000L) {
            lastQuotaWarning = now;
            LOG.warn(exceeded.message());
        }
        if (exceeded.hard()) {
            quotaRefusals.merge(Quotas.namespace(path), 1L, Long::sum);
            throw new Failure(ErrorCode.QUOTAEXCEEDED);
        }
    }

    /**
     * ZooKeeper's quota gauges by namespace (a path's first component), from the leaves of this tree's quota
     * tree as its QuotaMetricsUtils reads them: {count limit, bytes limit} summed over {@code zookeeper_limits}
     * nodes (a hard limit where set, else the soft one), {count, bytes} over {@code zookeeper_stats} nodes, and
     * the creates and setData refused past a hard limit, then whether limits nodes and stats nodes were found
     * (1 or 0: ZooKeeper lists each gauge only for namespaces that have such nodes); in namespace order. A tree
     * that holds a share of the quotas ({@link #holdDataOnlyOf}) reports the limits and counts of the quota nodes
     * it holds the data of and its share of every quota's bytes: one node per partition sums to the whole.
     */
    public Map<String, long[]> quotaGauges() {
        Map<String, long[]> out = new java.util.TreeMap<>();
        walk(Quotas.QUOTA_ROOT, (p, n) -> {
            if (!n.children.isEmpty()) {
                return; // ZooKeeper reads the quota tree's leaves
            }
            String name = PathRules.name(p);
            String quoted = Quotas.quotedPath(PathRules.parent(p));
            long[] values = null;
            if (Quotas.LIMITS.equals(name)) {
                Quotas.Limits l = Quotas.Limits.of(n.data);
                values = l == null ? null : new long[] {l.countLimit(), l.bytesLimit()};
            } else if (Quotas.STATS.equals(name)) {
                Quotas.Stats st = Quotas.Stats.of(n.data);
                values = st == null ? null : new long[] {st.count(), st.bytes()};
            }
            if (values == null || quoted == null || quoted.isEmpty()) {
                return;
            }
            if (dataHere != null && !dataHere.test(p)) {
                // a share (ADR 089): the limits and the count are the node's owner's to report, the bytes
                // every partition's, so that one node per partition sums to the whole
                values[0] = 0;
                if (Quotas.LIMITS.equals(name)) {
                    values[1] = 0;
                }
            }
            long[] sums = out.computeIfAbsent(Quotas.namespace(quoted), k -> new long[7]);
            int at = Quotas.LIMITS.equals(name) ? 0 : 2;
            sums[Quotas.LIMITS.equals(name) ? 5 : 6] = 1;
            sums[at] += values[0];
            sums[at + 1] += values[1];
        });
        quotaRefusals.forEach((ns, refused) -> out.computeIfAbsent(ns, k -> new long[7])[4] = refused);
        return out;
    }

    private static long length(byte[] data) {
        return data == null ? 0 : data.length;
    }

    private void register(String path, Znode node) {
        switch (node.kind) {
            case EPHEMERAL -> {
                SessionTable.Session s = sessions.get(node.owner);
                s.ephemerals.add(path);
                if (changes != null) {
                    changes.added(s.id(), path, s.ephemerals.table());
                }
            }
            case CONTAINER -> containers.add(path);
            case TTL -> ttls.add(path);
            default -> {
            }
        }
    }

    private void unregister(String path, Znode node) {
        switch (node.kind) {
            case EPHEMERAL -> {
                SessionTable.Session s = sessions.get(node.owner);
                if (s != null) {
                    s.ephemerals.remove(path);
                    if (changes != null) {
                        changes.removed(s.id(), path);
                    }
                }
            }
            case CONTAINER -> containers.remove(path);
            case TTL -> ttls.remove(path);
            default -> {
            }
        }
    }

    // ---- reads -----------------------------------------------------------------------------------

    private Result read(Command.ReadOp op) {
        if (op instanceof Command.GetData c) {
            Znode node = existing(c.path());
            requirePerm(node, Perms.READ, c.sessionId());
            if (c.watch()) {
                watches.add(WatchRegistry.Table.DATA, c.path(), c.sessionId(), WatchRegistry.Mode.STANDARD);
            }
            return Result.ok(new Reply.Data(node.data == null ? null : node.data.clone(), node.stat()));
        } else if (op instanceof Command.GetChildren c) {
            Znode node = existing(c.path());
            requirePerm(node, Perms.READ, c.sessionId());
            if (c.watch()) {
                watches.add(WatchRegistry.Table.CHILD, c.path(), c.sessionId(), WatchRegistry.Mode.STANDARD);
            }
            return Result.ok(new Reply.Children(node.children.inServerOrder(), c.withStat() ? node.stat() : null));
        }
        throw new AssertionError("unhandled read " + op);
    }

    private Result exists(Command.Exists c) {
        if (c.path().indexOf('\0') >= 0) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        Znode node = nodes.get(c.path());
        if (node != null) {
            requirePerm(node, Perms.READ, c.sessionId());
        }
        if (c.watch()) {
            watches.add(WatchRegistry.Table.DATA, c.path(), c.sessionId(), WatchRegistry.Mode.STANDARD);
        }
        if (node == null) {
            throw new Failure(ErrorCode.NONODE);
        }
        return Result.ok(new Reply.StatReply(node.stat()));
    }

    private Result getAcl(Command.GetAcl c) {
        Znode node = existing(c.path());
        requirePerm(node, Perms.READ | Perms.ADMIN, c.sessionId());
        List<Acl> shown = AclPolicy.permits(node.acl, Perms.ADMIN, idsOf(c.sessionId()))
                ? node.acl : AclPolicy.redacted(node.acl);
        return Result.ok(new Reply.Acls(List.copyOf(shown), node.stat()));
    }

    private Result getEphemerals(Command.GetEphemerals c) {
        String prefix = c.prefix();
        boolean all = prefix == null || prefix.trim().isEmpty() || prefix.trim().equals("/");
        List<String> out = new ArrayList<>();
        for (String p : sessions.get(c.sessionId()).ephemerals()) {
            if (all || p.startsWith(prefix)) {
                out.add(p);
            }
        }
        return Result.ok(new Reply.Paths(out));
    }

    private Result getAllChildrenNumber(Command.GetAllChildrenNumber c) {
        Znode node = existing(c.path());
        requirePerm(node, Perms.READ, c.sessionId());
        int count = 0;
        Deque<String> stack = new ArrayDeque<>();
        stack.push(c.path());
        while (!stack.isEmpty()) {
            String p = stack.pop();
            for (String child : nodes.get(p).children.inInsertionOrder()) {
                count++;
                stack.push(PathRules.child(p, child));
            }
        }
        return Result.ok(new Reply.Count(count));
    }

    // ---- watches ---------------------------------------------------------------------------------

    /**
     * ZooKeeper's rules: CHILDREN and DATA address only one-shot watches (of the child and data table),
     * PERSISTENT the persistent mode (removal from both tables, the check looks at the data table),
     * PERSISTENT_RECURSIVE the recursive mode, ANY every mode of both tables.
     */
    private Result removeWatches(long sid, String path, WatcherType type, boolean remove) {
        WatchRegistry.Table data = WatchRegistry.Table.DATA;
        WatchRegistry.Table child = WatchRegistry.Table.CHILD;
        boolean found = switch (type) {
            case CHILDREN -> watchOp(child, path, sid, WatchRegistry.Mode.STANDARD, remove);
            case DATA -> watchOp(data, path, sid, WatchRegistry.Mode.STANDARD, remove);
            case PERSISTENT -> remove
                    ? watchOp(child, path, sid, WatchRegistry.Mode.PERSISTENT, true)
                            | watchOp(data, path, sid, WatchRegistry.Mode.PERSISTENT, true)
                    : watchOp(data, path, sid, WatchRegistry.Mode.PERSISTENT, false);
            case PERSISTENT_RECURSIVE -> watchOp(data, path, sid, WatchRegistry.Mode.PERSISTENT_RECURSIVE, remove);
            case ANY -> remove
                    ? watchOp(child, path, sid, null, true) | watchOp(data, path, sid, null, true)
                    : watchOp(child, path, sid, null, false) || watchOp(data, path, sid, null, false);
        };
        return found ? Result.ok(Reply.Empty.INSTANCE) : Result.error(ErrorCode.NOWATCHER);
    }

    /** Whether the session's one-shot watch on {@code path} is registered here (but see {@link #byZxid}). */
    private boolean stillSet(WatchRegistry.Table t, String path, long sid) {
        return !byZxid(path) && watches.contains(t, path, sid, WatchRegistry.Mode.STANDARD);
    }

    /**
     * Whether setWatches re-arms a one-shot watch on {@code path} by ZooKeeper's zxid rule rather than by the
     * registry: only the root's, and only with {@code -Dvolery.rootHome=false} (a comparison setting), where
     * the root is read, and its watches set, in whichever partition a front end belongs to (ADR 080).
     */
    private static boolean byZxid(String path) {
        return !RootHome.ENABLED && "/".equals(path);
    }

    private boolean watchOp(WatchRegistry.Table t, String path, long sid, WatchRegistry.Mode mode, boolean remove) {
        return remove ? watches.remove(t, path, sid, mode) : watches.contains(t, path, sid, mode);
    }

    /**
     * Re-arms a reconnecting client's one-shot watches. A session's watches stay registered while it is
     * away, so the registry knows which of them fired since the client set them: one still registered owes
     * nothing; one that is not fired, and its event may be lost with the old connection or a front end that
     * died: a data watch fires NodeDeleted if the node is gone, NodeDataChanged otherwise; an exist watch
     * NodeCreated if the node exists (otherwise it is registered); a child watch NodeDeleted or
     * NodeChildrenChanged (ADR 079). ZooKeeper, whose servers keep no watch of a disconnected client, tells
     * by the client's last zxid instead (a change after it fires); Volery's zxids of different partitions
     * do not order changes in real time, so that rule misses changes of one partition whose zxid is below a
     * reply of another. The root's watches too: it is read in its owner, which re-arms them (ADR 080).
     * Persistent watches are registered without catch-up.
     */
    private Result setWatches(Command.SetWatches c) {
        long sid = c.sessionId();
        List<WatchEvent> events = new ArrayList<>();
        for (String p : c.dataWatches()) {
            Znode n = nodes.get(p);
            if (stillSet(WatchRegistry.Table.DATA, p, sid)) {
                continue;
            }
            if (n == null) {
                events.add(new WatchEvent(sid, EventType.NODE_DELETED, p, WatchEvent.NO_ZXID));
            } else if (!byZxid(p) || n.mzxid > c.relativeZxid()) {
                events.add(new WatchEvent(sid, EventType.NODE_DATA_CHANGED, p, WatchEvent.NO_ZXID));
            } else {
                watches.add(WatchRegistry.Table.DATA, p, sid, WatchRegistry.Mode.STANDARD);
            }
        }
        for (String p : c.existWatches()) {
            if (stillSet(WatchRegistry.Table.DATA, p, sid)) {
                continue;
            }
            if (nodes.containsKey(p)) {
                events.add(new WatchEvent(sid, EventType.NODE_CREATED, p, WatchEvent.NO_ZXID));
            } else {
                watches.add(WatchRegistry.Table.DATA, p, sid, WatchRegistry.Mode.STANDARD);
            }
        }
        for (String p : c.childWatches()) {
            Znode n = nodes.get(p);
            if (stillSet(WatchRegistry.Table.CHILD, p, sid)) {
                continue;
            }
            if (n == null) {
                events.add(new WatchEvent(sid, EventType.NODE_DELETED, p, WatchEvent.NO_ZXID));
            } else if (!byZxid(p) || n.pzxid > c.relativeZxid()) {
                events.add(new WatchEvent(sid, EventType.NODE_CHILDREN_CHANGED, p, WatchEvent.NO_ZXID));
            } else {
                watches.add(WatchRegistry.Table.CHILD, p, sid, WatchRegistry.Mode.STANDARD);
            }
        }
        for (String p : c.persistentWatches()) {
            watches.add(WatchRegistry.Table.DATA, p, sid, WatchRegistry.Mode.PERSISTENT);
            watches.add(WatchRegistry.Table.CHILD, p, sid, WatchRegistry.Mode.PERSISTENT);
        }
        for (String p : c.persistentRecursiveWatches()) {
            watches.add(WatchRegistry.Table.DATA, p, sid, WatchRegistry.Mode.PERSISTENT_RECURSIVE);
        }
        return new Result(ErrorCode.OK, Reply.Empty.INSTANCE, events);
    }

    /** Turns the committed changes into watch events, in change order; a session hears of a path once per change. */
    private void fire(long zxid, List<WatchEvent> out) {
        for (Trigger t : triggers) {
            switch (t.type) {
                case NODE_CREATED -> {
                    watches.trigger(WatchRegistry.Table.DATA, t.path, EventType.NODE_CREATED, zxid, t.acl, null,
                            this::idsOf, out);
                    watches.trigger(WatchRegistry.Table.CHILD, PathRules.parent(t.path),
                            EventType.NODE_CHILDREN_CHANGED, zxid, t.parentAcl, null, this::idsOf, out);
                }
                case NODE_DELETED -> {
                    Set<Long> told = watches.trigger(WatchRegistry.Table.DATA, t.path, EventType.NODE_DELETED, zxid,
                            t.acl, null, this::idsOf, out);
                    watches.trigger(WatchRegistry.Table.CHILD, t.path, EventType.NODE_DELETED, zxid, t.acl, told,
                            this::idsOf, out);
                    watches.trigger(WatchRegistry.Table.CHILD, PathRules.parent(t.path),
                            EventType.NODE_CHILDREN_CHANGED, zxid, t.parentAcl, null, this::idsOf, out);
                }
                case NODE_DATA_CHANGED -> watches.trigger(WatchRegistry.Table.DATA, t.path,
                        EventType.NODE_DATA_CHANGED, zxid, t.acl, null, this::idsOf, out);
                default -> throw new AssertionError(t.type);
            }
        }
        triggers.clear();
    }

    // ---- sessions, auth, expiry ------------------------------------------------------------------

    private Result createSession(Command.CreateSession c, long time) {
        if (c.sessionId() == 0 || sessions.contains(c.sessionId())) {
            return Result.error(ErrorCode.BADARGUMENTS);
        }
        int timeout = Math.max(config.minSessionTimeoutMs(),
                Math.min(config.maxSessionTimeoutMs(), c.requestedTimeoutMs()));
        SessionTable.Session s = sessions.open(c.sessionId(), timeout, time);
        for (Id id : c.initialIds()) {
            s.addId(id);
        }
        LOG.debug("session={} opened timeout={}ms", Long.toHexString(c.sessionId()), timeout);
        return Result.ok(new Reply.Session(c.sessionId(), timeout));
    }

    private Result addAuth(Command.AddAuth c) {
        if (!"digest".equals(c.scheme()) || c.auth() == null) {
            return Result.error(ErrorCode.AUTHFAILED);
        }
        String digest = AclPolicy.digestId(new String(c.auth(), StandardCharsets.UTF_8));
        SessionTable.Session s = sessions.get(c.sessionId());
        if (digest.equals(config.superDigest())) {
            s.addId(new Id("super", ""));
        }
        s.addId(new Id("digest", digest));
        return Result.ok(Reply.Empty.INSTANCE);
    }

    /** A front end authenticated the session's client by SASL (see {@link Command.SaslIdentity}). */
    private Result saslIdentity(Command.SaslIdentity c) {
        if (!config.saslEnabled()) {
            return Result.error(ErrorCode.AUTHFAILED);
        }
        SessionTable.Session s = sessions.get(c.sessionId());
        s.addId(new Id("sasl", c.identity()));
        if (config.saslSuperUsers().contains(c.identity())) {
            s.addId(new Id("super", ""));
        }
        return Result.ok(Reply.Empty.INSTANCE);
    }

    /** A front end authenticated the session's client by its TLS certificate (see {@link Command.X509Identity}). */
    private Result x509Identity(Command.X509Identity c) {
        if (!config.x509Enabled() || c.identity() == null || !AclPolicy.validX509Id(c.identity())) {
            return Result.error(ErrorCode.AUTHFAILED);
        }
        SessionTable.Session s = sessions.get(c.sessionId());
        if (c.identity().equals(config.x509SuperUser())) {
            s.addId(new Id("super", "")); // whoAmI shows ZooKeeper's "super:" for it too
        }
        s.addId(new Id("x509", c.identity()));
        return Result.ok(Reply.Empty.INSTANCE);
    }

    /** Told of each ephemeral node a session's end removes (the audit log, ADR 071); null: nobody. */
    private java.util.function.BiConsumer<Long, String> ephemeralRemovals;

    public void setEphemeralRemovals(java.util.function.BiConsumer<Long, String> listener) {
        this.ephemeralRemovals = listener;
    }

    /**
     * Ends a session its client closed: its ephemerals go, in ZooKeeper's order (which decides the order of the
     * watch events), and the session still hears the events its own watches fire, before the close's reply, as
     * from ZooKeeper: they are fired here, while its watches and identities (for the ACL check) are still there.
     */
    private List<WatchEvent> closeSession(long sid, long zxid) {
        removeEphemerals(sid);
        List<WatchEvent> events = new ArrayList<>();
        fire(zxid, events);
        watches.dropSession(sid);
        endSession(sid, "closed");
        return events;
    }

    /** Ends an expired session: nobody is there to hear its own watches, so they go first. */
    private void expireSession(long sid) {
        watches.dropSession(sid);
        removeEphemerals(sid);
        endSession(sid, "expired");
    }

    private void removeEphemerals(long sid) {
        for (String path : sessions.get(sid).ephemerals()) {
            remove(path);
            if (ephemeralRemovals != null) {
                ephemeralRemovals.accept(sid, path);
            }
        }
    }

    private void endSession(long sid, String why) {
        sessions.remove(sid);
        LOG.debug("session={} {}", Long.toHexString(sid), why);
    }

    private void expire(long now) {
        for (long sid : sessions.expiredAt(now)) {
            expireSession(sid);
        }
        if (!config.reapsContainers()) {
            return;
        }
        // Candidates are chosen before any deletion, as ZooKeeper's container manager does.
        List<String> doomed = new ArrayList<>();
        for (String path : containers) {
            Znode n = nodes.get(path);
            if (n.childCreations > 0 && n.children.isEmpty()) {
                doomed.add(path);
            }
        }
        List<String> dueTtls = new ArrayList<>();
        for (String path : ttls) {
            Znode n = nodes.get(path);
            if (n.children.isEmpty() && now - n.mtime > n.owner) {
                dueTtls.add(path);
            }
        }
        if (ttlArbiter != null && !ttls.isEmpty()) {
            dueTtls = new ArrayList<>(new TreeSet<>(ttlArbiter.expiring(dueTtls)));
        }
        doomed.addAll(dueTtls);
        for (String path : doomed) {
            Znode n = nodes.get(path);
            if (n != null && n.children.isEmpty()) {
                remove(path);
            }
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private List<Id> idsOf(long sid) {
        SessionTable.Session s = sessions.get(sid);
        return s == null ? List.of() : s.idsInProofOrder();
    }

    private Znode existing(String path) {
        Znode node = nodes.get(path);
        if (node == null) {
            throw new Failure(ErrorCode.NONODE);
        }
        return node;
    }

    private Znode existingValid(String path) {
        if (!PathRules.isValid(path)) {
            throw new Failure(ErrorCode.BADARGUMENTS);
        }
        return existing(path);
    }

    private void requirePerm(Znode node, int perm, long sid) {
        if (AclPolicy.grantsAnyone(node.acl, perm)) {
            return; // the common open ACL: no need to look up who asks
        }
        if (!AclPolicy.permits(node.acl, perm, idsOf(sid))) {
            throw new Failure(ErrorCode.NOAUTH);
        }
    }

    private static void checkVersion(int current, int expected) {
        if (expected != -1 && expected != current) {
            throw new Failure(ErrorCode.BADVERSION);
        }
    }

    /**
     * ZooKeeper refuses an oversized request at the connection (no error code; the client sees
     * ConnectionLoss and reconnects). The front end should do the same; this is the last guard.
     */
    private void checkSize(byte[] data) {
        if (data != null && data.length > config.maxDataBytes()) {
            throw new Failure(ErrorCode.CONNECTIONLOSS);
        }
    }

    // ---- snapshot and digest ---------------------------------------------------------------------

    /** Writes the whole state (tree, sessions, watches, counters) in a canonical form. */
    public void snapshot(OutputStream out) throws IOException {
        TreeSnapshot.write(this, out);
    }

    /** Replaces the whole state with one written by {@link #snapshot}. */
    public void restore(InputStream in) throws IOException {
        TreeSnapshot.read(this, in);
        ensembleShown = null; // the snapshot holds the initial /zookeeper/config
        if (changes != null) {
            baseline();
        }
    }

    /**
     * From now on keeps note of what changes, so that {@link #capture()} costs only the changes
     * since the previous capture. Starting costs one pass over the whole state (do it at startup,
     * not between commands that clients wait for); so does a later {@link #restore}.
     */
    public void enableCaptures() {
        if (changes != null) {
            return;
        }
        changes = new TreeChanges();
        sessions.changes = changes;
        watches.changes = changes;
        baseline();
    }

    /** Hands the whole current state to a new mirror; later captures hand it only changes. */
    private void baseline() {
        changes.clear();
        mirror = new TreeMirror();
        Map<String, TreeMirror.FrozenNode> all = new HashMap<>();
        List<TreeChanges.NameSetChange> sets = new ArrayList<>();
        for (Map.Entry<String, Znode> e : nodes.entrySet()) {
            all.put(e.getKey(), e.getValue().freeze());
            sets.add(new TreeChanges.NameSetChange(TreeChanges.SetOp.RESET, e.getKey(), null,
                    e.getValue().children.table(), e.getValue().children.inInsertionOrder()));
        }
        Map<Long, TreeMirror.FrozenSession> allSessions = new HashMap<>();
        for (SessionTable.Session s : sessions.all()) {
            allSessions.put(s.id(), s.freeze());
            sets.add(new TreeChanges.NameSetChange(TreeChanges.SetOp.RESET, s.id(), null, s.ephemerals.table(),
                    s.ephemerals.inInsertionOrder()));
        }
        Map<WatchRegistry.Table, Map<String, List<WatchRegistry.Registration>>> allWatches =
                new java.util.EnumMap<>(WatchRegistry.Table.class);
        for (Map.Entry<WatchRegistry.Table, String> key : watches.registeredPaths()) {
            allWatches.computeIfAbsent(key.getKey(), t -> new HashMap<>())
                    .put(key.getValue(), watches.registrationsOf(key.getKey(), key.getValue()));
        }
        mirror.publish(true, lastZxid, lastTime, all, sets, allSessions, allWatches);
    }

    /**
     * The state as it is now (call it between commands), to be written later by any thread while
     * this tree goes on changing. Costs the changes since the previous capture: the current values
     * of the znodes, sessions and watched paths that changed, and the list of child and ephemeral
     * name changes, not a pass over the tree.
     *
     * @throws IllegalStateException before {@link #enableCaptures()}
     */
    public TreeImage capture() {
        if (changes == null) {
            throw new IllegalStateException("captures are not enabled on this tree: call enableCaptures() first");
        }
        Map<String, TreeMirror.FrozenNode> changedNodes = new HashMap<>(changes.nodes.size() * 2);
        for (String path : changes.nodes) {
            Znode n = nodes.get(path);
            changedNodes.put(path, n == null ? null : n.freeze());
        }
        Map<Long, TreeMirror.FrozenSession> changedSessions = new HashMap<>(changes.sessions.size() * 2);
        for (long id : changes.sessions) {
            SessionTable.Session s = sessions.get(id);
            changedSessions.put(id, s == null ? null : s.freeze());
        }
        Map<WatchRegistry.Table, Map<String, List<WatchRegistry.Registration>>> changedWatches =
                new java.util.EnumMap<>(WatchRegistry.Table.class);
        for (WatchRegistry.Table t : WatchRegistry.Table.values()) {
            Map<String, List<WatchRegistry.Registration>> byPath = new HashMap<>();
            for (String path : t == WatchRegistry.Table.DATA ? changes.dataWatches : changes.childWatches) {
                byPath.put(path, watches.registrationsOf(t, path));
            }
            changedWatches.put(t, byPath);
        }
        List<TreeChanges.NameSetChange> sets = changes.takeSetChanges();
        changes.clear();
        long sequence = mirror.publish(false, lastZxid, lastTime, changedNodes, sets, changedSessions,
                changedWatches);
        return new TreeImage(mirror, sequence, lastZxid);
    }

    /** A SHA-256 over the canonical form of the state, hex encoded; equal on replicas in the same state. */
    public String digest() {
        return TreeSnapshot.digest(this);
    }

    /**
     * What is inconsistent between the node map, the parent/child links and the bookkeeping of
     * containers, TTL nodes and session ephemerals; null when nothing is. For tests and assertions.
     */
    String inconsistency() {
        List<String> reachable = paths();
        if (reachable.size() != nodes.size()) {
            return nodes.size() + " nodes stored but " + reachable.size() + " reachable from /";
        }
        for (Map.Entry<String, Znode> e : nodes.entrySet()) {
            String path = e.getKey();
            Znode n = e.getValue();
            boolean container = containers.contains(path);
            boolean ttl = ttls.contains(path);
            if (container != (n.kind == Znode.Kind.CONTAINER) || ttl != (n.kind == Znode.Kind.TTL)) {
                return path + " is a " + n.kind + " but container/ttl bookkeeping says " + container + "/" + ttl;
            }
            if (n.kind == Znode.Kind.EPHEMERAL) {
                SessionTable.Session owner = sessions.get(n.owner);
                if (owner == null || !owner.ephemerals.contains(path)) {
                    return "ephemeral " + path + " is not listed by a live session " + n.owner;
                }
            }
            if (n.mzxid < n.czxid || n.pzxid < n.czxid) {
                return path + " has mzxid/pzxid before its czxid";
            }
            if (n.childCreations * 2 - n.children.size() < 0 && !SPECIAL.contains(path)) {
                return path + " has fewer child creations than children";
            }
        }
        if (!watches.indexAgrees()) {
            return "the per-session watch index disagrees with the watch tables";
        }
        if (containers.size() + ttls.size() > nodes.size()) {
            return "container/ttl bookkeeping lists nodes that do not exist";
        }
        for (SessionTable.Session s : sessions.all()) {
            for (String p : s.ephemerals.inInsertionOrder()) {
                Znode n = nodes.get(p);
                if (n == null || n.kind != Znode.Kind.EPHEMERAL || n.owner != s.id()) {
                    return "session " + s.id() + " lists " + p + " which is not its ephemeral";
                }
            }
        }
        return null;
    }

    // package access for TreeSnapshot
    Map<String, Znode> nodeMap() {
        return nodes;
    }

    WatchRegistry watchRegistry() {
        return watches;
    }

    long lastTime() {
        return lastTime;
    }

    private void changedNode(String path) {
        if (changes != null) {
            changes.node(path);
        }
    }

    void resetForRestore(long zxid, long time) {
        nodes.clear();
        sessions.clear();
        watches.clear();
        containers.clear();
        ttls.clear();
        quotaRoots.clear();
        quotaNodePaths.clear();
        statsRead.clear();
        limitsRead.clear();
        lastZxid = zxid;
        lastTime = time;
    }

    /** Adds a node whose children list is already restored; parents come before their children. */
    void restoreNode(String path, Znode node) {
        nodes.put(path, node);
        register(path, node);
        String quoted = Quotas.limitsOf(path);
        if (quoted != null) {
            quotaRoots.add(quoted);
        }
    }

    private record Trigger(EventType type, String path, List<Acl> acl, List<Acl> parentAcl) {
    }

    /** A request ZooKeeper would refuse with {@code code}; cheap, as it carries no stack. */
    private static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final ErrorCode code;

        Failure(ErrorCode code) {
            super(code.name(), null, false, false);
            this.code = code;
        }
    }

}
