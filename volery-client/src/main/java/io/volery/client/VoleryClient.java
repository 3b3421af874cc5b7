package io.volery.client;

import io.eyrie.multicast.ClusterConfig;
import io.volery.server.internal.VoleryRequest;
import io.volery.server.internal.SessionOrder;
import io.volery.server.internal.VoleryStateMachine;
import io.volery.server.tree.WatchEvent;
import org.apache.jute.Record;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.MultiOperationRecord;
import org.apache.zookeeper.MultiResponse;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.VoleryClientBridge;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.Watcher.Event.EventType;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.ClientInfo;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.AddWatchRequest;
import org.apache.zookeeper.proto.AuthPacket;
import org.apache.zookeeper.proto.CheckWatchesRequest;
import org.apache.zookeeper.proto.Create2Response;
import org.apache.zookeeper.proto.CreateRequest;
import org.apache.zookeeper.proto.CreateTTLRequest;
import org.apache.zookeeper.proto.DeleteRequest;
import org.apache.zookeeper.proto.ErrorResponse;
import org.apache.zookeeper.proto.RemoveWatchesRequest;
import org.apache.zookeeper.proto.ExistsRequest;
import org.apache.zookeeper.proto.ExistsResponse;
import org.apache.zookeeper.proto.GetACLRequest;
import org.apache.zookeeper.proto.GetACLResponse;
import org.apache.zookeeper.proto.GetAllChildrenNumberRequest;
import org.apache.zookeeper.proto.GetAllChildrenNumberResponse;
import org.apache.zookeeper.proto.GetChildren2Request;
import org.apache.zookeeper.proto.GetChildren2Response;
import org.apache.zookeeper.proto.GetDataRequest;
import org.apache.zookeeper.proto.GetDataResponse;
import org.apache.zookeeper.proto.GetEphemeralsRequest;
import org.apache.zookeeper.proto.GetEphemeralsResponse;
import org.apache.zookeeper.proto.SetACLRequest;
import org.apache.zookeeper.proto.SetACLResponse;
import org.apache.zookeeper.proto.SetDataRequest;
import org.apache.zookeeper.proto.SetDataResponse;
import org.apache.zookeeper.proto.SyncRequest;
import org.apache.zookeeper.proto.SyncResponse;
import org.apache.zookeeper.proto.WhoAmIResponse;
import org.apache.zookeeper.server.EphemeralType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Volery session opened straight on the rings: no ZooKeeper front end on the path. Its API is the
 * ZooKeeper client's (same record types, {@link CreateMode}s, {@link Op}s, {@link Watcher}s and
 * {@link KeeperException}s), each operation both synchronous and asynchronous ({@code ...Async},
 * completing a {@link CompletableFuture}, exceptionally with a {@code KeeperException}).
 *
 * <p>Requests are ZooKeeper jute frames multicast to the partitions Volery's oracle names, so the
 * replicas answer exactly what they answer a front end. A session's requests keep ZooKeeper's FIFO
 * order. Watch events and asynchronous completions are delivered on one thread per session, in the
 * order the client learns of them; synchronous calls may be made from a watcher.
 */
public final class VoleryClient implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(VoleryClient.class);
    private static final int EVENT_QUEUE = 100_000;

    /** A session's life: connected from {@code connect} until it expires or is closed. */
    public enum State { CONNECTED, EXPIRED, CLOSED }

    /** The result of a create: the node's actual path (with its sequence number) and its stat. */
    public record Created(String path, Stat stat) {
    }

    /** The result of getData. */
    public record Data(byte[] data, Stat stat) {
    }

    /** The result of getChildren: children in the order the server lists them, and the parent's stat. */
    public record Children(List<String> children, Stat stat) {
    }

    /** The result of getACL. */
    public record Acls(List<ACL> acl, Stat stat) {
    }

    /** What a successful or failed reply becomes; throws the KeeperException a caller must see. */
    private interface Outcome<T> {
        T apply(int err) throws KeeperException;
    }

    private final RingAccess rings;
    private final boolean ownsRings;
    private final long sessionId;
    private final byte[] passwd;
    private final int sessionTimeout;
    private final Watcher defaultWatcher;
    private final Chroot chroot;
    private final ClientWatches watches = new ClientWatches();
    private final SessionOrder order;
    private final ThreadPoolExecutor events;
    private final AtomicInteger xid = new AtomicInteger(1);
    private final AtomicReference<State> state = new AtomicReference<>(State.CONNECTED);

    private VoleryClient(RingAccess rings, boolean ownsRings, long sessionId, byte[] passwd, int sessionTimeout,
                         Watcher defaultWatcher, Chroot chroot, ThreadPoolExecutor events) {
        this.rings = rings;
        this.order = rings.newSessionOrder();
        this.ownsRings = ownsRings;
        this.sessionId = sessionId;
        this.passwd = passwd;
        this.sessionTimeout = sessionTimeout;
        this.defaultWatcher = defaultWatcher;
        this.chroot = chroot;
        this.events = events;
    }

    // ---- connecting --------------------------------------------------------------------------

    /**
     * Opens a session through the first free client node of a cluster file (the file every server
     * uses, with at least one node line without groups for clients).
     *
     * @param watcher the default watcher: gets the session's state changes and the {@code watch=true} events
     */
    public static VoleryClient connect(Path clusterFile, int sessionTimeoutMillis, Watcher watcher) throws IOException {
        return connect(clusterFile, null, sessionTimeoutMillis, watcher);
    }

    /**
     * {@link #connect(Path, int, Watcher)} confined to the subtree {@code chroot}, as ZooKeeper's client
     * with {@code "host:port/app"}: every path given and returned is relative to it. The chroot need
     * not exist yet, but operations fail with NoNode until it does.
     *
     * @param chroot an absolute znode path; null or "/" for the whole tree
     * @throws IllegalArgumentException if {@code chroot} is not a valid znode path
     */
    public static VoleryClient connect(Path clusterFile, String chroot, int sessionTimeoutMillis, Watcher watcher)
            throws IOException {
        Chroot root = Chroot.of(chroot);
        RingAccess rings = RingAccess.open(clusterFile, RingAccess.Options.defaults());
        return open(rings, true, root, sessionTimeoutMillis, watcher);
    }

    /** {@link #connect(Path, int, Watcher)} on a parsed cluster file. */
    public static VoleryClient connect(ClusterConfig config, int sessionTimeoutMillis, Watcher watcher) throws IOException {
        return connect(config, null, sessionTimeoutMillis, watcher);
    }

    /** {@link #connect(Path, String, int, Watcher)} on a parsed cluster file. */
    public static VoleryClient connect(ClusterConfig config, String chroot, int sessionTimeoutMillis, Watcher watcher)
            throws IOException {
        Chroot root = Chroot.of(chroot);
        RingAccess rings = RingAccess.open(config, RingAccess.Options.defaults());
        return open(rings, true, root, sessionTimeoutMillis, watcher);
    }

    /**
     * Opens a session over an access other sessions may share; closing the session leaves the access
     * open (its owner closes it).
     */
    public static VoleryClient connect(RingAccess rings, int sessionTimeoutMillis, Watcher watcher) throws IOException {
        return open(rings, false, Chroot.NONE, sessionTimeoutMillis, watcher);
    }

    /** {@link #connect(RingAccess, int, Watcher)} confined to {@code chroot} (see {@link #connect(Path, String, int, Watcher)}). */
    public static VoleryClient connect(RingAccess rings, String chroot, int sessionTimeoutMillis, Watcher watcher)
            throws IOException {
        return open(rings, false, Chroot.of(chroot), sessionTimeoutMillis, watcher);
    }

    private static VoleryClient open(RingAccess rings, boolean owns, Chroot chroot, int sessionTimeoutMillis,
                                     Watcher watcher) throws IOException {
        RingAccess.Options o = rings.options();
        SecureRandom random = new SecureRandom();
        VoleryRequest r = new VoleryRequest();
        r.kind = VoleryRequest.CREATE_SESSION;
        // The node id in the top bits keeps clients and front ends from colliding; the rest is random.
        r.sessionId = ((long) rings.nodeId() << 48) | (random.nextLong() & 0x0000_FFFF_FFFF_FFFFL) | 1;
        r.passwd = new byte[16];
        random.nextBytes(r.passwd);
        r.frontEnd = rings.nodeId();
        r.timeMillis = System.currentTimeMillis();
        r.timeoutMillis = Math.max(o.minSessionTimeout(), Math.min(o.maxSessionTimeout(), sessionTimeoutMillis));
        r.clientAddress = rings.clientAddress();
        ThreadPoolExecutor events = eventThread(r.sessionId);
        VoleryClient[] created = new VoleryClient[1];
        // Registered before the session exists, so that nothing sent to it can be missed.
        rings.register(r.sessionId, new RingAccess.SessionListener() {
            @Override
            public void event(WatchEvent e) {
                if (created[0] != null) {
                    created[0].onEvent(e);
                }
            }

            @Override
            public void expired() {
                if (created[0] != null) {
                    created[0].onExpired();
                }
            }
        });
        Object reply;
        try {
            reply = rings.execute(r).get(o.requestTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply = null;
        } catch (ExecutionException | TimeoutException e) {
            reply = e;
        }
        if (!(reply instanceof VoleryStateMachine.SessionReply s) || !s.accepted) {
            rings.unregister(r.sessionId);
            events.shutdownNow();
            if (owns) {
                rings.close();
            }
            String why = reply instanceof Exception e ? e.toString()
                    : reply == null ? "interrupted" : "the cluster refused the session";
            throw new IOException("cannot open a Volery session through client node " + rings.nodeId() + " within "
                    + o.requestTimeoutMillis() + " ms (" + why + "); are the servers running with this cluster file?");
        }
        VoleryClient c = new VoleryClient(rings, owns, r.sessionId, r.passwd, s.timeoutMillis, watcher, chroot, events);
        created[0] = c;
        c.deliver(Set.of(), new WatchedEvent(EventType.None, KeeperState.SyncConnected, null));
        log.debug("session 0x{} opened through client node {} (timeout {} ms)", Long.toHexString(c.sessionId),
                rings.nodeId(), c.sessionTimeout);
        return c;
    }

    private static ThreadPoolExecutor eventThread(long sessionId) {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(EVENT_QUEUE), r -> {
            Thread t = new Thread(r, "volery-client-events-0x" + Long.toHexString(sessionId));
            t.setDaemon(true);
            return t;
        }, (task, executor) -> {
            if (executor.isShutdown()) {
                task.run(); // completions after close still reach their futures
            } else {
                // A watcher that blocks its thread for long fills the queue; dropping would lose events.
                log.warn("session 0x{}: event queue full ({} entries); delivering on the receiving thread",
                        Long.toHexString(sessionId), EVENT_QUEUE);
                task.run();
            }
        });
    }

    public long getSessionId() {
        return sessionId;
    }

    public byte[] getSessionPasswd() {
        return passwd.clone();
    }

    /** The session timeout the cluster granted. */
    public int getSessionTimeout() {
        return sessionTimeout;
    }

    public State getState() {
        return state.get();
    }

    /** The client node this session reaches the rings through. */
    public int clientNodeId() {
        return rings.nodeId();
    }

    // ---- create / delete / setData -------------------------------------------------------------

    public String create(String path, byte[] data, List<ACL> acl, CreateMode mode) throws KeeperException,
            InterruptedException {
        return create(path, data, acl, mode, null, -1);
    }

    public String create(String path, byte[] data, List<ACL> acl, CreateMode mode, Stat stat)
            throws KeeperException, InterruptedException {
        return create(path, data, acl, mode, stat, -1);
    }

    /** A create; {@code ttl} (ms) must be positive for the TTL modes and -1 for the others. */
    public String create(String path, byte[] data, List<ACL> acl, CreateMode mode, Stat stat, long ttl)
            throws KeeperException, InterruptedException {
        validateAcl(acl);
        Created c = await(doCreate(path, data, acl, mode, ttl));
        copyStat(c.stat(), stat);
        return c.path();
    }

    public CompletableFuture<Created> createAsync(String path, byte[] data, List<ACL> acl, CreateMode mode) {
        return createAsync(path, data, acl, mode, -1);
    }

    public CompletableFuture<Created> createAsync(String path, byte[] data, List<ACL> acl, CreateMode mode, long ttl) {
        try {
            validateAcl(acl);
        } catch (KeeperException e) {
            return CompletableFuture.failedFuture(e);
        }
        return async(doCreate(path, data, acl, mode, ttl));
    }

    private CompletableFuture<Created> doCreate(String path, byte[] data, List<ACL> acl, CreateMode mode, long ttl) {
        PathUtils.validatePath(path, mode.isSequential());
        EphemeralType.validateTTL(mode, ttl);
        int op = mode.isContainer() ? OpCode.createContainer : mode.isTTL() ? OpCode.createTTL : OpCode.create2;
        Record request = mode.isTTL() ? new CreateTTLRequest(chroot.toServer(path), data, acl, mode.toFlag(), ttl)
                : new CreateRequest(chroot.toServer(path), data, acl, mode.toFlag());
        Create2Response response = new Create2Response();
        return call(op, request, response, path, err -> {
            check(err, path);
            return new Created(chroot.toClient(response.getPath()), response.getStat());
        });
    }

    /** Deletes {@code path} if its version is {@code version} (-1: any version). */
    public void delete(String path, int version) throws KeeperException, InterruptedException {
        await(doDelete(path, version));
    }

    public CompletableFuture<Void> deleteAsync(String path, int version) {
        return async(doDelete(path, version));
    }

    private CompletableFuture<Void> doDelete(String path, int version) {
        PathUtils.validatePath(path);
        return call(OpCode.delete, new DeleteRequest(chroot.toServer(path), version), null, path, err -> {
            check(err, path);
            return null;
        });
    }

    public Stat setData(String path, byte[] data, int version) throws KeeperException, InterruptedException {
        return await(doSetData(path, data, version));
    }

    public CompletableFuture<Stat> setDataAsync(String path, byte[] data, int version) {
        return async(doSetData(path, data, version));
    }

    private CompletableFuture<Stat> doSetData(String path, byte[] data, int version) {
        PathUtils.validatePath(path);
        SetDataResponse response = new SetDataResponse();
        return call(OpCode.setData, new SetDataRequest(chroot.toServer(path), data, version), response, path, err -> {
            check(err, path);
            return response.getStat();
        });
    }

    // ---- reads -------------------------------------------------------------------------------

    /** getData; with {@code watch} the default watcher is told of the node's next change. */
    public byte[] getData(String path, boolean watch, Stat stat) throws KeeperException, InterruptedException {
        return getData(path, watch ? defaultWatcher : null, stat);
    }

    public byte[] getData(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
        Data d = await(doGetData(path, watcher));
        copyStat(d.stat(), stat);
        return d.data();
    }

    public CompletableFuture<Data> getDataAsync(String path, boolean watch) {
        return getDataAsync(path, watch ? defaultWatcher : null);
    }

    public CompletableFuture<Data> getDataAsync(String path, Watcher watcher) {
        return async(doGetData(path, watcher));
    }

    private CompletableFuture<Data> doGetData(String path, Watcher watcher) {
        PathUtils.validatePath(path);
        GetDataResponse response = new GetDataResponse();
        return call(OpCode.getData, new GetDataRequest(chroot.toServer(path), watcher != null), response, path, err -> {
            check(err, path);
            if (watcher != null) {
                watches.addData(path, watcher);
            }
            return new Data(response.getData(), response.getStat());
        });
    }

    /** The node's stat, or null if it does not exist; a watch is set either way. */
    public Stat exists(String path, boolean watch) throws KeeperException, InterruptedException {
        return exists(path, watch ? defaultWatcher : null);
    }

    public Stat exists(String path, Watcher watcher) throws KeeperException, InterruptedException {
        return await(doExists(path, watcher));
    }

    /** Completes with the node's stat, or with null if it does not exist. */
    public CompletableFuture<Stat> existsAsync(String path, boolean watch) {
        return existsAsync(path, watch ? defaultWatcher : null);
    }

    public CompletableFuture<Stat> existsAsync(String path, Watcher watcher) {
        return async(doExists(path, watcher));
    }

    private CompletableFuture<Stat> doExists(String path, Watcher watcher) {
        PathUtils.validatePath(path);
        ExistsResponse response = new ExistsResponse();
        return call(OpCode.exists, new ExistsRequest(chroot.toServer(path), watcher != null), response, path, err -> {
            if (err == Code.NONODE.intValue()) {
                if (watcher != null) {
                    watches.addExist(path, watcher);
                }
                return null;
            }
            check(err, path);
            if (watcher != null) {
                watches.addData(path, watcher);
            }
            return response.getStat();
        });
    }

    public List<String> getChildren(String path, boolean watch) throws KeeperException, InterruptedException {
        return getChildren(path, watch ? defaultWatcher : null, null);
    }

    public List<String> getChildren(String path, Watcher watcher) throws KeeperException, InterruptedException {
        return getChildren(path, watcher, null);
    }

    public List<String> getChildren(String path, boolean watch, Stat stat) throws KeeperException, InterruptedException {
        return getChildren(path, watch ? defaultWatcher : null, stat);
    }

    public List<String> getChildren(String path, Watcher watcher, Stat stat) throws KeeperException, InterruptedException {
        Children c = await(doGetChildren(path, watcher));
        copyStat(c.stat(), stat);
        return c.children();
    }

    public CompletableFuture<Children> getChildrenAsync(String path, boolean watch) {
        return getChildrenAsync(path, watch ? defaultWatcher : null);
    }

    public CompletableFuture<Children> getChildrenAsync(String path, Watcher watcher) {
        return async(doGetChildren(path, watcher));
    }

    private CompletableFuture<Children> doGetChildren(String path, Watcher watcher) {
        PathUtils.validatePath(path);
        GetChildren2Response response = new GetChildren2Response();
        return call(OpCode.getChildren2, new GetChildren2Request(chroot.toServer(path), watcher != null), response, path, err -> {
            check(err, path);
            if (watcher != null) {
                watches.addChild(path, watcher);
            }
            return new Children(response.getChildren(), response.getStat());
        });
    }

    /** The number of nodes below {@code path} (all descendants, not only children). */
    public int getAllChildrenNumber(String path) throws KeeperException, InterruptedException {
        return await(doGetAllChildrenNumber(path));
    }

    public CompletableFuture<Integer> getAllChildrenNumberAsync(String path) {
        return async(doGetAllChildrenNumber(path));
    }

    private CompletableFuture<Integer> doGetAllChildrenNumber(String path) {
        PathUtils.validatePath(path);
        GetAllChildrenNumberResponse response = new GetAllChildrenNumberResponse();
        return call(OpCode.getAllChildrenNumber, new GetAllChildrenNumberRequest(chroot.toServer(path)), response, path, err -> {
            check(err, path);
            return response.getTotalNumber();
        });
    }

    /** The session's ephemeral nodes whose path starts with {@code prefixPath}. */
    public List<String> getEphemerals(String prefixPath) throws KeeperException, InterruptedException {
        return await(doGetEphemerals(prefixPath));
    }

    public CompletableFuture<List<String>> getEphemeralsAsync(String prefixPath) {
        return async(doGetEphemerals(prefixPath));
    }

    private CompletableFuture<List<String>> doGetEphemerals(String prefixPath) {
        PathUtils.validatePath(prefixPath);
        GetEphemeralsResponse response = new GetEphemeralsResponse();
        return call(OpCode.getEphemerals, new GetEphemeralsRequest(chroot.toServer(prefixPath)), response, prefixPath, err -> {
            check(err, prefixPath);
            return response.getEphemerals();
        });
    }

    /**
     * ZooKeeper's sync. Volery orders reads like writes, so every read is already up to date; sync
     * still goes through the order, and completes with the path, as ZooKeeper's does.
     */
    public String sync(String path) throws KeeperException, InterruptedException {
        return await(doSync(path));
    }

    public CompletableFuture<String> syncAsync(String path) {
        return async(doSync(path));
    }

    private CompletableFuture<String> doSync(String path) {
        PathUtils.validatePath(path);
        SyncResponse response = new SyncResponse();
        return call(OpCode.sync, new SyncRequest(chroot.toServer(path)), response, path, err -> {
            check(err, path);
            return chroot.toClient(response.getPath());
        });
    }

    // ---- multi -------------------------------------------------------------------------------

    /**
     * All of {@code ops} or none: a transaction (create, delete, setData, check) or, when every op is
     * a read (getData, getChildren), a multiRead whose results each succeed or fail alone. A failed
     * transaction throws the first error, with every op's result in {@link KeeperException#getResults()}.
     */
    public List<OpResult> multi(Iterable<Op> ops) throws KeeperException, InterruptedException {
        return await(doMulti(ops));
    }

    public CompletableFuture<List<OpResult>> multiAsync(Iterable<Op> ops) {
        try {
            return async(doMulti(ops));
        } catch (KeeperException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<List<OpResult>> doMulti(Iterable<Op> ops) throws KeeperException {
        List<Op> list = new ArrayList<>();
        for (Op op : ops) {
            VoleryClientBridge.validate(op);
            list.add(VoleryClientBridge.withChroot(op, chroot.toServer(op.getPath())));
        }
        MultiOperationRecord record = new MultiOperationRecord(list);
        boolean read = record.getOpKind() == Op.OpKind.READ;
        MultiResponse response = new MultiResponse();
        return call(read ? OpCode.multiRead : OpCode.multi, record, response, null, err -> {
            check(err, null);
            List<OpResult> results = response.getResultList();
            if (!read) {
                for (OpResult r : results) {
                    if (r instanceof OpResult.ErrorResult e && e.getErr() != Code.OK.intValue()) {
                        throw VoleryClientBridge.withResults(KeeperException.create(Code.get(e.getErr())), results);
                    }
                }
            }
            return results;
        });
    }

    // ---- ACLs and authentication ---------------------------------------------------------------

    public List<ACL> getACL(String path, Stat stat) throws KeeperException, InterruptedException {
        Acls a = await(doGetAcl(path));
        copyStat(a.stat(), stat);
        return a.acl();
    }

    public CompletableFuture<Acls> getACLAsync(String path) {
        return async(doGetAcl(path));
    }

    private CompletableFuture<Acls> doGetAcl(String path) {
        PathUtils.validatePath(path);
        GetACLResponse response = new GetACLResponse();
        return call(OpCode.getACL, new GetACLRequest(chroot.toServer(path)), response, path, err -> {
            check(err, path);
            return new Acls(response.getAcl(), response.getStat());
        });
    }

    /** Sets the node's ACL if its ACL version is {@code aclVersion} (-1: any). */
    public Stat setACL(String path, List<ACL> acl, int aclVersion) throws KeeperException, InterruptedException {
        validateAcl(acl);
        return await(doSetAcl(path, acl, aclVersion));
    }

    public CompletableFuture<Stat> setACLAsync(String path, List<ACL> acl, int aclVersion) {
        try {
            validateAcl(acl);
        } catch (KeeperException e) {
            return CompletableFuture.failedFuture(e);
        }
        return async(doSetAcl(path, acl, aclVersion));
    }

    private CompletableFuture<Stat> doSetAcl(String path, List<ACL> acl, int aclVersion) {
        PathUtils.validatePath(path);
        SetACLResponse response = new SetACLResponse();
        return call(OpCode.setACL, new SetACLRequest(chroot.toServer(path), acl, aclVersion), response, path, err -> {
            check(err, path);
            return response.getStat();
        });
    }

    /**
     * Adds an identity to the session (scheme {@code digest}: {@code "user:password"} bytes). Unlike
     * ZooKeeper's fire-and-forget call it waits for the cluster: a rejected identity throws
     * AuthFailed (the default watcher also gets the AuthFailed state, as from ZooKeeper) and the
     * session stays as it was.
     */
    public void addAuthInfo(String scheme, byte[] auth) throws KeeperException, InterruptedException {
        await(doAddAuth(scheme, auth));
    }

    public CompletableFuture<Void> addAuthInfoAsync(String scheme, byte[] auth) {
        return async(doAddAuth(scheme, auth));
    }

    private CompletableFuture<Void> doAddAuth(String scheme, byte[] auth) {
        return call(OpCode.auth, new AuthPacket(0, scheme, auth), null, null, err -> {
            if (err != 0) {
                deliver(Set.of(), new WatchedEvent(EventType.None, KeeperState.AuthFailed, null));
            }
            check(err, null);
            return null;
        });
    }

    /** The identities the session holds. */
    public List<ClientInfo> whoAmI() throws KeeperException, InterruptedException {
        return await(doWhoAmI());
    }

    public CompletableFuture<List<ClientInfo>> whoAmIAsync() {
        return async(doWhoAmI());
    }

    private CompletableFuture<List<ClientInfo>> doWhoAmI() {
        WhoAmIResponse response = new WhoAmIResponse();
        return call(OpCode.whoAmI, null, response, null, err -> {
            check(err, null);
            return response.getClientInfo();
        });
    }

    // ---- watches -----------------------------------------------------------------------------

    /** A persistent (or persistent-recursive) watch on {@code path}, delivered to {@code watcher}. */
    public void addWatch(String path, Watcher watcher, AddWatchMode mode) throws KeeperException, InterruptedException {
        await(doAddWatch(path, watcher, mode));
    }

    /** {@link #addWatch(String, Watcher, AddWatchMode)} for the default watcher. */
    public void addWatch(String path, AddWatchMode mode) throws KeeperException, InterruptedException {
        await(doAddWatch(path, defaultWatcher, mode));
    }

    public CompletableFuture<Void> addWatchAsync(String path, Watcher watcher, AddWatchMode mode) {
        return async(doAddWatch(path, watcher, mode));
    }

    private CompletableFuture<Void> doAddWatch(String path, Watcher watcher, AddWatchMode mode) {
        PathUtils.validatePath(path);
        ErrorResponse response = new ErrorResponse();
        return call(OpCode.addWatch, new AddWatchRequest(chroot.toServer(path), mode.getMode()), response, path, err -> {
            check(err, path);
            watches.addPersistent(path, watcher, mode);
            return null;
        });
    }

    /**
     * Removes every watch of {@code type} on {@code path}: on the cluster too unless {@code local}.
     * Each removed watcher is told with a DataWatchRemoved, ChildWatchRemoved or PersistentWatchRemoved
     * event. Throws NoWatcher, without asking the cluster, when this session has no such watch here.
     * With {@code local} nothing is sent, so it works while the cluster is unreachable.
     */
    public void removeAllWatches(String path, Watcher.WatcherType type, boolean local)
            throws KeeperException, InterruptedException {
        await(doRemoveWatches(OpCode.removeWatches, path, null, type, local));
    }

    public CompletableFuture<Void> removeAllWatchesAsync(String path, Watcher.WatcherType type, boolean local) {
        return async(doRemoveWatches(OpCode.removeWatches, path, null, type, local));
    }

    /**
     * Removes {@code watcher}'s watches of {@code type} on {@code path}; the session's other watchers
     * there keep theirs (and the cluster keeps its watch for them). The watcher is told with a
     * DataWatchRemoved, ChildWatchRemoved or PersistentWatchRemoved event. Throws NoWatcher when the
     * watcher has no such watch here, or, unless {@code local}, when the cluster has none for this
     * session (it asks with checkWatches, as ZooKeeper's client does). With {@code local} nothing is
     * sent, so it works while the cluster is unreachable.
     *
     * @throws IllegalArgumentException if {@code watcher} is null (use {@link #removeAllWatches})
     */
    public void removeWatches(String path, Watcher watcher, Watcher.WatcherType type, boolean local)
            throws KeeperException, InterruptedException {
        requireWatcher(watcher);
        await(doRemoveWatches(OpCode.checkWatches, path, watcher, type, local));
    }

    /** {@link #removeWatches(String, Watcher, Watcher.WatcherType, boolean)}, completing when done. */
    public CompletableFuture<Void> removeWatchesAsync(String path, Watcher watcher, Watcher.WatcherType type,
                                                      boolean local) {
        requireWatcher(watcher);
        return async(doRemoveWatches(OpCode.checkWatches, path, watcher, type, local));
    }

    private static void requireWatcher(Watcher watcher) {
        if (watcher == null) {
            throw new IllegalArgumentException("Invalid Watcher, shouldn't be null!");
        }
    }

    /**
     * checkWatches leaves the cluster's watch in place, since other watchers of the session may
     * still rely on it; an event for it that reaches no watcher is dropped here.
     */
    private CompletableFuture<Void> doRemoveWatches(int opCode, String path, Watcher watcher, Watcher.WatcherType type,
                                                    boolean local) {
        PathUtils.validatePath(path);
        if (!watches.has(path, watcher, type)) {
            return CompletableFuture.failedFuture(new KeeperException.NoWatcherException(path));
        }
        if (local) {
            announceRemoved(path, watches.remove(path, watcher, type));
            return CompletableFuture.completedFuture(null);
        }
        Record request = opCode == OpCode.checkWatches
                ? new CheckWatchesRequest(chroot.toServer(path), type.getIntValue())
                : new RemoveWatchesRequest(chroot.toServer(path), type.getIntValue());
        return call(opCode, request, null, path, err -> {
            check(err, path);
            Map<EventType, Set<Watcher>> removed = watches.remove(path, watcher, type);
            if (removed.isEmpty()) {
                // a concurrent call or event took it while the cluster answered
                throw new KeeperException.NoWatcherException(path);
            }
            announceRemoved(path, removed);
            return null;
        });
    }

    private void announceRemoved(String path, Map<EventType, Set<Watcher>> removed) {
        removed.forEach((event, ws) -> deliver(ws, new WatchedEvent(event, KeeperState.SyncConnected, path)));
    }

    // ---- the request path --------------------------------------------------------------------

    /**
     * Sends one request in the session's order; {@code response} (may be null) is filled from a
     * successful reply before {@code outcome} runs. The future completes on the thread that received
     * the reply, so that watches are registered before any later event is handled.
     */
    private <T> CompletableFuture<T> call(int opCode, Record request, Record response, String path, Outcome<T> outcome) {
        if (state.get() != State.CONNECTED) {
            return CompletableFuture.failedFuture(KeeperException.create(Code.SESSIONEXPIRED, path));
        }
        byte[] frame = JuteFrames.request(xid.getAndIncrement(), opCode, request);
        VoleryRequest r = VoleryRequest.zk(sessionId, frame, System.currentTimeMillis(), rings.nodeId());
        CompletableFuture<byte[]> sent = rings.submit(order, r)
                .orTimeout(rings.options().requestTimeoutMillis(), TimeUnit.MILLISECONDS);
        return sent.handle((reply, failure) -> {
            if (failure != null) {
                throw new CompletionException(lost(failure, path));
            }
            JuteFrames.Reply h = JuteFrames.reply(reply, response);
            if (h.err() == Code.SESSIONEXPIRED.intValue()) {
                onExpired();
            }
            try {
                return outcome.apply(h.err());
            } catch (KeeperException e) {
                throw new CompletionException(e);
            }
        });
    }

    /** What a caller sees of a request that got no reply. */
    private KeeperException lost(Throwable failure, String path) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
        if (state.get() != State.CONNECTED) {
            return KeeperException.create(Code.SESSIONEXPIRED, path);
        }
        if (cause instanceof TimeoutException) {
            log.warn("session 0x{}: no reply within {} ms", Long.toHexString(sessionId),
                    rings.options().requestTimeoutMillis());
            return KeeperException.create(Code.CONNECTIONLOSS, path);
        }
        log.warn("session 0x{}: request failed: {}", Long.toHexString(sessionId), cause.toString());
        return KeeperException.create(Code.SYSTEMERROR, path);
    }

    private static void check(int err, String path) throws KeeperException {
        if (err != 0) {
            throw KeeperException.create(Code.get(err), path);
        }
    }

    private static void validateAcl(List<ACL> acl) throws KeeperException {
        if (acl == null || acl.isEmpty() || acl.stream().anyMatch(java.util.Objects::isNull)) {
            // contains(null) would throw on immutable lists
            throw new KeeperException.InvalidACLException();
        }
    }

    private static void copyStat(Stat from, Stat to) {
        if (from == null || to == null) {
            return;
        }
        to.setCzxid(from.getCzxid());
        to.setMzxid(from.getMzxid());
        to.setCtime(from.getCtime());
        to.setMtime(from.getMtime());
        to.setVersion(from.getVersion());
        to.setCversion(from.getCversion());
        to.setAversion(from.getAversion());
        to.setEphemeralOwner(from.getEphemeralOwner());
        to.setDataLength(from.getDataLength());
        to.setNumChildren(from.getNumChildren());
        to.setPzxid(from.getPzxid());
    }

    /** Waits for an operation; its KeeperException is rethrown in the caller's thread. */
    private static <T> T await(CompletableFuture<T> f) throws KeeperException, InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof KeeperException k) {
                throw k;
            }
            if (c instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(c);
        }
    }

    /** The caller's view of an operation: completed on the session's event thread, in order with events. */
    private <T> CompletableFuture<T> async(CompletableFuture<T> internal) {
        CompletableFuture<T> out = new CompletableFuture<>();
        internal.whenComplete((v, e) -> events.execute(() -> {
            if (e == null) {
                out.complete(v);
            } else {
                out.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
        }));
        return out;
    }

    // ---- events and the session's end ----------------------------------------------------------

    private void onEvent(WatchEvent e) {
        EventType type = EventType.fromInt(e.type().code());
        String path = chroot.toClient(e.path());
        Set<Watcher> targets = watches.fire(type, path);
        if (!targets.isEmpty()) {
            // setWatches' events carry a negative zxid inside Volery; clients see -1, as from ZooKeeper.
            long zxid = e.zxid() < 0 ? WatchedEvent.NO_ZXID : e.zxid();
            deliver(targets, new WatchedEvent(type, KeeperState.SyncConnected, path, zxid));
        }
    }

    private void onExpired() {
        if (!state.compareAndSet(State.CONNECTED, State.EXPIRED)) {
            return;
        }
        rings.unregister(sessionId);
        log.info("session 0x{} expired", Long.toHexString(sessionId));
        Set<Watcher> all = new LinkedHashSet<>();
        all.add(defaultWatcher);
        all.addAll(watches.clear());
        deliver(all, new WatchedEvent(EventType.None, KeeperState.Expired, null));
    }

    /** Hands {@code event} to {@code watchers} (the default watcher too for state changes) in order. */
    private void deliver(Set<Watcher> watchers, WatchedEvent event) {
        Set<Watcher> targets = watchers;
        if (event.getType() == EventType.None && watchers.isEmpty()) {
            targets = defaultWatcher == null ? Set.of() : Set.of(defaultWatcher);
        }
        Set<Watcher> to = targets;
        events.execute(() -> {
            for (Watcher w : to) {
                if (w == null) {
                    continue;
                }
                try {
                    w.process(event);
                } catch (RuntimeException ex) {
                    log.error("session 0x{}: watcher failed on {}", Long.toHexString(sessionId), event, ex);
                }
            }
        });
    }

    /**
     * Closes the session: its ephemeral nodes are deleted in every partition and its watches end; the
     * default watcher gets the Closed state. Closes the ring access too if {@code connect} opened it.
     */
    @Override
    public void close() {
        if (state.get() == State.CLOSED) {
            return;
        }
        if (state.get() == State.CONNECTED) {
            try {
                await(call(OpCode.closeSession, null, null, null, err -> {
                    check(err, null);
                    return null;
                }));
            } catch (KeeperException e) {
                log.debug("session 0x{}: close answered {}", Long.toHexString(sessionId), e.code());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        state.set(State.CLOSED);
        rings.unregister(sessionId);
        watches.clear();
        deliver(Set.of(), new WatchedEvent(EventType.None, KeeperState.Closed, null));
        events.shutdown();
        if (ownsRings) {
            rings.close();
        }
    }

    @Override
    public String toString() {
        return "VoleryClient[session=0x" + Long.toHexString(sessionId) + " node=" + rings.nodeId() + " " + state.get() + "]";
    }
}
