package io.volery.copy;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import io.volery.server.tree.PathRules;
import io.volery.server.tree.Quotas;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * Copies a subtree from a {@link TreeSource} into a destination server, level by level (a node's parent is
 * always in place before it), with many writes in flight. What it carries over and what it cannot:
 * <ul>
 *   <li>data (null kept apart from empty) and ACLs; a node whose ACL would shut the copier out is created with a
 *       temporary ACL for the copier and given its own once everything below it is in place;</li>
 *   <li>persistent, container and TTL nodes (the last two only from a data directory: a live session cannot
 *       tell them apart); ephemeral nodes are skipped, their sessions do not move;</li>
 *   <li>sequential counters: a parent's next sequential child at the destination is numbered no lower than the
 *       source's cversion (what a restarted ZooKeeper would give it next), so numbered children made after the
 *       move sort after those made before it;</li>
 *   <li>quotas set on the copied subtree (the nodes under /zookeeper/quota), written after the data;</li>
 *   <li>not: versions, zxids and times (the destination's own), nor /zookeeper/config.</li>
 * </ul>
 */
final class TreeCopier {

    /** What to do with a node that already exists at the destination. */
    enum Merge {
        /** The destination must be empty below the copied path; a node found there anyway is an error. */
        NONE,
        /** Leave an existing node as it is (its data and ACL), and copy below it. */
        KEEP,
        /** Give an existing node the source's data and ACL, and copy below it; also how to resume a copy. */
        OVERWRITE
    }

    /** @param excluded subtrees left out (each path and what is below it), with their quotas */
    record Options(String path, Merge merge, boolean sequenceCounters, boolean quotas, boolean verify,
                   List<String> destinationDigests, List<String> excluded) {
    }

    /** What a copy did; {@link #ok()} when nothing failed and the verify pass (if run) found no difference. */
    static final class Report {
        final AtomicLong read = new AtomicLong();
        final AtomicLong created = new AtomicLong();
        final AtomicLong existing = new AtomicLong();
        final AtomicLong overwritten = new AtomicLong();
        final AtomicLong ephemeralsSkipped = new AtomicLong();
        final AtomicLong vanished = new AtomicLong();
        final AtomicLong containers = new AtomicLong();
        final AtomicLong ttlNodes = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong aclsSetAfter = new AtomicLong();
        final AtomicLong ancestorsCreated = new AtomicLong();
        final AtomicLong quotaNodes = new AtomicLong();
        final AtomicLong countersAdvanced = new AtomicLong();
        final AtomicLong counterIncrements = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong verified = new AtomicLong();
        final AtomicLong differences = new AtomicLong();
        final AtomicLong unverifiable = new AtomicLong();
        final ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();
        boolean verifyRan;
        boolean dryRun;
        boolean dumped;
        long retried;
        int counters;

        void error(String message) {
            errors.incrementAndGet();
            if (messages.size() < 50) {
                messages.add("error: " + message);
            }
        }

        void difference(String message) {
            differences.incrementAndGet();
            if (messages.size() < 50) {
                messages.add("differs: " + message);
            }
        }

        boolean ok() {
            return errors.get() == 0 && differences.get() == 0;
        }

        void print(PrintStream out) {
            if (dumped) {
                out.printf("dump: read %d nodes; wrote %d (%d containers, %d TTL; the root's record besides), %d bytes of"
                        + " data; %d ephemeral nodes skipped%n", read.get(), created.get(), containers.get(), ttlNodes.get(),
                        bytes.get(), ephemeralsSkipped.get());
                return;
            }
            if (dryRun) {
                out.printf("dry run: read %d nodes; would create %d (%d containers, %d TTL), %d bytes of data; %d ephemeral"
                        + " nodes would be skipped; %d parents' sequential counters would be checked%n", read.get(),
                        created.get(), containers.get(), ttlNodes.get(), bytes.get(), ephemeralsSkipped.get(), counters);
                return;
            }
            out.printf("read %d nodes; created %d (%d containers, %d TTL), %d bytes of data%n", read.get(), created.get(),
                    containers.get(), ttlNodes.get(), bytes.get());
            out.printf("skipped %d ephemeral nodes (sessions do not move); %d vanished while copying%n",
                    ephemeralsSkipped.get(), vanished.get());
            if (existing.get() > 0 || ancestorsCreated.get() > 0) {
                out.printf("found %d already at the destination (%d overwritten); created %d missing ancestors%n",
                        existing.get(), overwritten.get(), ancestorsCreated.get());
            }
            out.printf("quota nodes: %d; ACLs set after their subtree: %d%n", quotaNodes.get(), aclsSetAfter.get());
            out.printf("sequential counters advanced: %d parents, %d increments%n", countersAdvanced.get(), counterIncrements.get());
            if (verifyRan) {
                out.printf("verify: %d nodes compared, %d differ, %d not readable or ACL hidden at the destination%n", verified.get(),
                        differences.get(), unverifiable.get());
            }
            out.printf("requests tried again after a connection loss: %d; errors: %d%n", retried, errors.get());
            messages.forEach(out::println);
        }
    }

    /** A parent whose destination counter may lag the source's. */
    private record Counter(String path, int sourceCversion) {
    }

    private static final String PLACEHOLDER = "volery-copy-counter";
    private static final String QUOTA_ROOT = Quotas.QUOTA_ROOT;
    private static final int READ_CHUNK = 5_000;

    private final TreeSource source;
    private final AsyncSession dest;
    private final DumpFile.Writer sink;
    private final Options options;
    private final PrintStream progress;
    private final Report report = new Report();
    private final List<ACL> temporaryAcl;
    private final Set<Id> copierIds = new HashSet<>();
    private final ConcurrentLinkedQueue<SourceNode> aclsAfter = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Counter> counters = new ConcurrentLinkedQueue<>();
    private final ExecutorService followUps = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "volery-copy");
        t.setDaemon(true);
        return t;
    });
    private boolean warnedOpenTemporaryAcl;

    TreeCopier(TreeSource source, AsyncSession dest, Options options, PrintStream progress) {
        this(source, dest, null, options, progress);
    }

    /**
     * @param dest null for a dry run or a dump
     * @param sink where a dump goes, or null
     */
    TreeCopier(TreeSource source, AsyncSession dest, DumpFile.Writer sink, Options options, PrintStream progress) {
        this.source = source;
        this.dest = dest;
        this.sink = sink;
        this.options = options;
        this.progress = progress;
        copierIds.add(ZooDefs.Ids.ANYONE_ID_UNSAFE);
        for (String userPassword : options.destinationDigests()) {
            try {
                copierIds.add(new Id("digest", DigestAuthenticationProvider.generateDigest(userPassword)));
            } catch (java.security.NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
        temporaryAcl = options.destinationDigests().isEmpty() ? ZooDefs.Ids.OPEN_ACL_UNSAFE
                : new ArrayList<>(List.of(new ACL(ZooDefs.Perms.ALL, copierIds.stream().filter(i -> i.getScheme().equals("digest")).findFirst().orElseThrow())));
    }

    Report report() {
        return report;
    }

    Report run() {
        try {
            String path = options.path();
            if (source.read(List.of(path)).join().get(0) == null) {
                throw new CopyException("the source has no node " + path);
            }
            if (dest == null) {
                // a dry run or a dump: the same walk, nodes counted (and written to the file) instead of created
                copySubtree(path, this::copied);
                if (options.quotas()) {
                    copyQuotas(path);
                }
                report.dryRun = sink == null;
                report.dumped = sink != null;
                report.counters = counters.size();
                return report;
            }
            preflight(path);
            copySubtree(path, this::copied);
            if (options.quotas()) {
                copyQuotas(path);
            }
            if (options.sequenceCounters()) {
                advanceCounters();
            }
            setAclsAfter();
            if (options.verify()) {
                verify(path, this::copied);
                if (options.quotas() && source.read(List.of(quotaRoot(path))).join().get(0) != null) {
                    verify(quotaRoot(path), this::quotaCopied);
                }
            }
            return report;
        } finally {
            report.retried = dest == null ? 0 : dest.retried();
            followUps.shutdownNow();
        }
    }

    /** The quota nodes of the copied subtree, after its data. */
    private void copyQuotas(String path) {
        String quotaRoot = quotaRoot(path);
        if (source.read(List.of(quotaRoot)).join().get(0) == null) {
            return;
        }
        if (!quotaRoot.equals(QUOTA_ROOT) && dest != null) {
            ensureAncestors(quotaRoot);
        }
        long before = report.created.get() + report.existing.get();
        copySubtree(quotaRoot, this::quotaCopied);
        report.quotaNodes.addAndGet(report.created.get() + report.existing.get() - before);
    }

    /** Where the quotas of {@code path} and below it live. */
    private static String quotaRoot(String path) {
        return path.equals("/") ? QUOTA_ROOT : QUOTA_ROOT + path;
    }

    /** Whether a node of the quota tree is copied: not that of an excluded subtree. */
    private boolean quotaCopied(String quotaPath) {
        return !excluded(quotaPath.substring(QUOTA_ROOT.length()));
    }

    /** Whether a node is copied: not /zookeeper's (the quotas have their own pass), not excluded. */
    private boolean copied(String path) {
        return !isSystem(path) && !excluded(path);
    }

    private boolean excluded(String path) {
        for (String e : options.excluded()) {
            if (path.equals(e) || path.startsWith(e + "/")) {
                return true;
            }
        }
        return false;
    }

    /** /zookeeper and what is below it, but for the quota tree, which has its own pass. */
    private static boolean isSystem(String path) {
        return path.equals("/zookeeper") || path.startsWith("/zookeeper/");
    }

    private static String child(String parent, String name) {
        return parent.equals("/") ? "/" + name : parent + "/" + name;
    }


    /** Refuses a non-empty destination unless merging; creates the copied path's missing ancestors. */
    private void preflight(String path) {
        if (options.merge() == Merge.NONE) {
            var kids = dest.getChildren(path).join();
            if (kids.ok()) {
                List<String> taken = kids.value().stream().filter(k -> !isSystem(child(path, k))).sorted().toList();
                if (!taken.isEmpty()) {
                    throw new CopyException("the destination already has " + taken.size() + " node(s) below " + path + " ("
                            + String.join(", ", taken.subList(0, Math.min(5, taken.size())))
                            + (taken.size() > 5 ? ", ..." : "") + "); give --merge keep or --merge overwrite to copy into it"
                            + " (overwrite also resumes an interrupted copy)");
                }
            } else if (kids.code() != Code.NONODE) {
                throw new CopyException("cannot list " + path + " at the destination: " + AsyncSession.describe(kids.code(), path));
            }
        }
        ensureAncestors(path);
    }

    /** Creates the path's missing ancestors at the destination: persistent, empty, open to anyone (reported). */
    private void ensureAncestors(String path) {
        List<String> missing = new ArrayList<>();
        for (String p = PathRules.parent(path); !p.equals("/"); p = PathRules.parent(p)) {
            if (dest.exists(p).join().code() == Code.NONODE) {
                missing.add(0, p);
            } else {
                break;
            }
        }
        for (String p : missing) {
            var o = dest.create(p, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT, 0).join();
            if (o.ok()) {
                report.ancestorsCreated.incrementAndGet();
            } else if (o.code() != Code.NODEEXISTS) {
                throw new CopyException("cannot create " + p + " at the destination: " + AsyncSession.describe(o.code(), p));
            }
        }
    }

    /** Copies {@code root} (unless it is "/") and every node below it that {@code copied} accepts. */
    private void copySubtree(String root, Predicate<String> copied) {
        List<String> level;
        if (root.equals("/") || root.equals(QUOTA_ROOT)) {
            // both exist on every server: only the root's data and ACL are carried over
            SourceNode top = source.read(List.of(root)).join().get(0);
            report.read.incrementAndGet();
            if (root.equals("/")) {
                if (dest != null) {
                    copyRootNode(top);
                } else {
                    noteCounter(top);
                    record(top); // a dump keeps the root's data and ACL
                }
            }
            level = top.children().stream().map(c -> child(root, c)).filter(copied).sorted().toList();
        } else {
            level = List.of(root);
        }
        long lastProgress = System.nanoTime();
        while (!level.isEmpty()) {
            List<String> next = Collections.synchronizedList(new ArrayList<>());
            for (int from = 0; from < level.size(); from += READ_CHUNK) {
                List<SourceNode> nodes = source.read(level.subList(from, Math.min(level.size(), from + READ_CHUNK))).join();
                List<CompletableFuture<?>> writes = new ArrayList<>(nodes.size());
                for (SourceNode n : nodes) {
                    report.read.incrementAndGet();
                    if (n == null) {
                        report.vanished.incrementAndGet();
                    } else if (n.kind() == SourceNode.Kind.EPHEMERAL) {
                        report.ephemeralsSkipped.incrementAndGet();
                    } else {
                        writes.add(copyNode(n).thenAccept(inPlace -> {
                            if (inPlace) {
                                noteCounter(n);
                                for (String c : n.children()) {
                                    String p = child(n.path(), c);
                                    if (copied.test(p)) {
                                        next.add(p);
                                    }
                                }
                            }
                        }));
                    }
                }
                CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).join();
                if (System.nanoTime() - lastProgress > 2_000_000_000L) {
                    lastProgress = System.nanoTime();
                    progress.printf("volery-copy: read %d, created %d, errors %d%n", report.read.get(), report.created.get(),
                            report.errors.get());
                }
            }
            Collections.sort(next);
            level = next;
        }
    }

    /** The root exists everywhere: only its data and ACL are carried over, when they differ. */
    private void copyRootNode(SourceNode top) {
        noteCounter(top);
        var d = dest.getData("/").join();
        if (d.ok() && !Arrays.equals((byte[]) d.value()[0], top.data()) && options.merge() != Merge.KEEP) {
            var o = dest.setData("/", top.data()).join();
            if (!o.ok()) {
                report.error("cannot set the root's data: " + AsyncSession.describe(o.code(), "/"));
            }
        }
        var a = dest.getAcl("/").join();
        if (a.ok() && !sameAcl(a.value(), top.acl()) && options.merge() != Merge.KEEP) {
            aclsAfter.add(top);
        }
    }

    private void noteCounter(SourceNode n) {
        if (n.path().startsWith(QUOTA_ROOT + "/")) {
            return; // the quota tree holds only zookeeper_limits and zookeeper_stats, never numbered children
        }
        long copiedChildren = n.children().size();
        if (n.cversion() > copiedChildren || (n.path().equals("/") && n.cversion() > 0)) {
            counters.add(new Counter(n.path(), n.cversion()));
        }
    }

    /** Whether the ACL lets the copier do everything it may need (create, delete and read below it). */
    private boolean grantsCopier(List<ACL> acl) {
        for (ACL a : acl) {
            if (a.getPerms() == ZooDefs.Perms.ALL && copierIds.contains(a.getId())) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameAcl(List<ACL> a, List<ACL> b) {
        return new HashSet<>(a).equals(new HashSet<>(b));
    }

    /**
     * Whether an ACL entry is shown redacted: ZooKeeper 3.9 (and Volery) answer getACL of a node whose ACL does
     * not give the reader ADMIN with each digest id as {@code user:x}; a real digest is 28 characters of base64.
     */
    static boolean redacted(ACL entry) {
        return entry.getId().getScheme().equals("digest") && entry.getId().getId().endsWith(":x");
    }

    private static List<ACL> redact(List<ACL> acl) {
        List<ACL> shown = new ArrayList<>(acl.size());
        for (ACL a : acl) {
            String id = a.getId().getId();
            shown.add(a.getId().getScheme().equals("digest") && id.indexOf(':') > 0
                    ? new ACL(a.getPerms(), new Id("digest", id.substring(0, id.indexOf(':')) + ":x")) : a);
        }
        return shown;
    }

    /** Creates one node; completes with whether it is now at the destination (its children may follow). */
    private CompletableFuture<Boolean> copyNode(SourceNode n) {
        if (dest == null) {
            created(n);
            record(n);
            return CompletableFuture.completedFuture(true);
        }
        boolean direct = grantsCopier(n.acl());
        if (!direct && temporaryAcl == ZooDefs.Ids.OPEN_ACL_UNSAFE && !warnedOpenTemporaryAcl) {
            warnedOpenTemporaryAcl = true;
            progress.println("volery-copy: warning: nodes whose ACL shuts out the copier are open to anyone until their"
                    + " subtree is copied (give --to-auth digest:user:password to create them for that user instead)");
        }
        CreateMode mode = switch (n.kind()) {
            case CONTAINER -> CreateMode.CONTAINER;
            case TTL -> CreateMode.PERSISTENT_WITH_TTL;
            default -> CreateMode.PERSISTENT;
        };
        return dest.create(n.path(), n.data(), direct ? n.acl() : temporaryAcl, mode, n.ttl())
                .thenComposeAsync(o -> {
                    if (o.ok()) {
                        created(n);
                        if (!direct) {
                            aclsAfter.add(n);
                        }
                        return CompletableFuture.completedFuture(true);
                    }
                    if (o.code() == Code.NODEEXISTS) {
                        return existing(n);
                    }
                    report.error("cannot create " + n.path() + " at the destination: " + AsyncSession.describe(o.code(), n.path())
                            + hint(o.code(), n));
                    return CompletableFuture.completedFuture(false);
                }, followUps);
    }

    private void record(SourceNode n) {
        if (sink != null) {
            try {
                sink.write(n);
            } catch (java.io.IOException e) {
                throw new CopyException("cannot write the dump: " + e.getMessage(), e);
            }
        }
    }

    private void created(SourceNode n) {
        report.created.incrementAndGet();
        report.bytes.addAndGet(n.data() == null ? 0 : n.data().length);
        if (n.kind() == SourceNode.Kind.CONTAINER) {
            report.containers.incrementAndGet();
        } else if (n.kind() == SourceNode.Kind.TTL) {
            report.ttlNodes.incrementAndGet();
        }
    }

    private static String hint(Code code, SourceNode n) {
        if ((code == Code.UNIMPLEMENTED || code == Code.BADARGUMENTS) && n.kind() == SourceNode.Kind.TTL) {
            return " (TTL nodes need zookeeper.extendedTypesEnabled=true on a ZooKeeper destination)";
        }
        if (code == Code.NOAUTH) {
            return " (give --to-auth with an identity the destination's ACLs admit)";
        }
        return "";
    }

    /**
     * A node already there: ours from a create tried again after a connection loss (same data), or someone
     * else's, which the merge mode decides about.
     */
    private CompletableFuture<Boolean> existing(SourceNode n) {
        return dest.getData(n.path()).thenComposeAsync(d -> {
            if (!d.ok()) {
                report.error("cannot read " + n.path() + " at the destination: " + AsyncSession.describe(d.code(), n.path()));
                return CompletableFuture.completedFuture(false);
            }
            boolean sameData = Arrays.equals((byte[]) d.value()[0], n.data());
            switch (options.merge()) {
                case NONE -> {
                    if (!sameData) {
                        report.error(n.path() + " appeared at the destination during the copy with other data; left as it is");
                        return CompletableFuture.completedFuture(false);
                    }
                    // our own create, applied before a connection loss and tried again
                    report.created.incrementAndGet();
                    aclsAfter.add(n);
                    return CompletableFuture.completedFuture(true);
                }
                case KEEP -> {
                    report.existing.incrementAndGet();
                    return CompletableFuture.completedFuture(true);
                }
                default -> {
                    report.existing.incrementAndGet();
                    aclsAfter.add(n);
                    if (sameData) {
                        return CompletableFuture.completedFuture(true);
                    }
                    return dest.setData(n.path(), n.data()).thenApply(s -> {
                        if (s.ok()) {
                            report.overwritten.incrementAndGet();
                        } else {
                            report.error("cannot overwrite " + n.path() + ": " + AsyncSession.describe(s.code(), n.path()));
                        }
                        return true;
                    });
                }
            }
        }, followUps);
    }

    /**
     * Brings each noted parent's next sequential number up to the source's cversion: probes it with a
     * sequential child (created and deleted), then creates and deletes a placeholder child as many times as it
     * lags, 250 pairs to a multi, and probes again. Each pair counts one creation at Volery, one or two at
     * ZooKeeper; overshooting only leaves a gap in the numbering, never a number used twice.
     */
    private void advanceCounters() {
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (Counter c : counters) {
            all.add(CompletableFuture.runAsync(() -> advance(c), followUps));
            if (all.size() >= 64) {
                CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
                all.clear();
            }
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }

    private void advance(Counter c) {
        String probePrefix = child(c.path(), PLACEHOLDER + "-probe-");
        String placeholder = child(c.path(), PLACEHOLDER);
        boolean advanced = false;
        for (int round = 0; round < 8; round++) {
            var made = dest.create(probePrefix, new byte[0], temporaryAcl, CreateMode.PERSISTENT_SEQUENTIAL, 0).join();
            if (!made.ok()) {
                if (made.code() != Code.NONODE) { // NONODE: a container reaped meanwhile
                    report.error("cannot probe the sequential counter of " + c.path() + ": "
                            + AsyncSession.describe(made.code(), c.path()));
                }
                return;
            }
            String name = made.value();
            long seen = Long.parseLong(name.substring(name.length() - 10));
            dest.delete(name).join();
            long lag = c.sourceCversion() - (seen + 1);
            if (lag <= 0) {
                if (advanced) {
                    report.countersAdvanced.incrementAndGet();
                }
                return;
            }
            advanced = true;
            while (lag > 0) {
                int pairs = (int) Math.min(250, lag);
                List<Op> ops = new ArrayList<>(pairs * 2);
                for (int i = 0; i < pairs; i++) {
                    ops.add(Op.create(placeholder, new byte[0], temporaryAcl, CreateMode.PERSISTENT));
                    ops.add(Op.delete(placeholder, -1));
                }
                var m = dest.multi(ops).join();
                if (!m.ok()) {
                    report.error("cannot advance the sequential counter of " + c.path() + ": "
                            + AsyncSession.describe(m.code(), c.path()) + firstError(m.value()));
                    return;
                }
                report.counterIncrements.addAndGet(pairs);
                lag -= pairs;
            }
        }
        report.error("the sequential counter of " + c.path() + " did not reach " + c.sourceCversion() + " in 8 rounds");
    }

    private static String firstError(List<OpResult> results) {
        if (results == null) {
            return "";
        }
        for (OpResult r : results) {
            if (r instanceof OpResult.ErrorResult e && e.getErr() != 0) {
                return " (" + Code.get(e.getErr()) + ")";
            }
        }
        return "";
    }

    /** Gives nodes created with the temporary ACL (or overwritten) the source's ACL. */
    private void setAclsAfter() {
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (SourceNode n : aclsAfter) {
            all.add(dest.setAcl(n.path(), n.acl()).thenAccept(o -> {
                if (o.ok()) {
                    report.aclsSetAfter.incrementAndGet();
                } else {
                    report.error("cannot set the ACL of " + n.path() + ": " + AsyncSession.describe(o.code(), n.path()));
                }
            }));
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Reads the source again and compares every node it holds now with the destination: data, ACL and the
     * children (but for ephemerals, the counter placeholders and /zookeeper), for the quota tree too (but for
     * the stats, which each server counts itself, and /zookeeper/quota's own data and ACL). A live source
     * written meanwhile shows those writes here. A parent's children are compared once the next level has
     * been read, which tells the ephemeral ones apart.
     */
    private void verify(String root, Predicate<String> copied) {
        report.verifyRan = true;
        List<String> level = List.of(root);
        // parent -> {children expected (copied and still to be read), children at the destination}
        java.util.Map<String, Set<String>[]> parents = new java.util.concurrent.ConcurrentHashMap<>();
        while (!level.isEmpty()) {
            List<String> next = Collections.synchronizedList(new ArrayList<>());
            java.util.Map<String, Set<String>[]> nextParents = new java.util.concurrent.ConcurrentHashMap<>();
            for (int from = 0; from < level.size(); from += READ_CHUNK) {
                List<SourceNode> nodes = source.read(level.subList(from, Math.min(level.size(), from + READ_CHUNK))).join();
                List<CompletableFuture<?>> checks = new ArrayList<>();
                for (SourceNode n : nodes) {
                    if (n == null || n.kind() == SourceNode.Kind.EPHEMERAL) {
                        continue;
                    }
                    Set<String> want = java.util.concurrent.ConcurrentHashMap.newKeySet();
                    for (String c : n.children()) {
                        if (copied.test(child(n.path(), c))) {
                            next.add(child(n.path(), c));
                            want.add(c);
                        }
                    }
                    checks.add(compare(n, copied).thenAccept(have -> {
                        if (have != null) {
                            @SuppressWarnings("unchecked")
                            Set<String>[] sets = new Set[] {want, have};
                            nextParents.put(n.path(), sets);
                        }
                    }));
                }
                CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).join();
                // this level's gone and ephemeral nodes are not expected at their parents
                for (int i = 0; i < nodes.size(); i++) {
                    SourceNode n = nodes.get(i);
                    if (n == null || n.kind() == SourceNode.Kind.EPHEMERAL) {
                        String path = level.get(from + i);
                        Set<String>[] sets = parents.get(PathRules.parent(path));
                        if (sets != null) {
                            sets[0].remove(PathRules.name(path));
                        }
                    }
                }
            }
            compareChildren(parents);
            parents = nextParents;
            level = next;
        }
        compareChildren(parents);
    }

    private void compareChildren(java.util.Map<String, Set<String>[]> parents) {
        parents.forEach((path, sets) -> {
            if (!sets[0].equals(sets[1])) {
                Set<String> extra = new java.util.TreeSet<>(sets[1]);
                extra.removeAll(sets[0]);
                Set<String> missing = new java.util.TreeSet<>(sets[0]);
                missing.removeAll(sets[1]);
                report.difference(path + ": children missing at the destination " + missing + ", only there " + extra);
            }
        });
    }

    /** Compares a node's data and ACL; completes with its children at the destination, or null if unread. */
    private CompletableFuture<Set<String>> compare(SourceNode n, Predicate<String> copied) {
        var d = dest.getData(n.path());
        var a = dest.getAcl(n.path());
        var c = dest.getChildren(n.path());
        return CompletableFuture.allOf(d, a, c).thenApply(x -> {
            report.verified.incrementAndGet();
            if (d.join().code() == Code.NONODE) {
                report.difference(n.path() + " is missing at the destination");
                return null;
            }
            if (d.join().code() == Code.NOAUTH) {
                report.unverifiable.incrementAndGet();
                return null;
            }
            if (!d.join().ok() || !a.join().ok() || !c.join().ok()) {
                report.error("cannot read " + n.path() + " at the destination to verify it");
                return null;
            }
            boolean quotaRoot = n.path().equals(QUOTA_ROOT);
            byte[] there = (byte[]) d.join().value()[0];
            if (!quotaRoot && !n.path().endsWith("/" + Quotas.STATS) && !Arrays.equals(there, n.data())) {
                report.difference(n.path() + ": data " + show(n.data()) + " at the source, " + show(there) + " at the destination");
            }
            List<ACL> acl = a.join().value();
            if (quotaRoot) {
                // the server's own node: its ACL is the destination's business
            } else if (acl.stream().anyMatch(TreeCopier::redacted) && sameAcl(acl, redact(n.acl()))) {
                report.unverifiable.incrementAndGet(); // the destination hides it from the copier as the source did
            } else if (!sameAcl(acl, n.acl())) {
                report.difference(n.path() + ": ACL " + n.acl() + " at the source, " + a.join().value() + " at the destination");
            }
            Set<String> have = new HashSet<>();
            for (String k : c.join().value()) {
                if (copied.test(child(n.path(), k))) {
                    have.add(k);
                }
            }
            return have;
        });
    }

    private static String show(byte[] data) {
        if (data == null) {
            return "null";
        }
        String s = new String(data, 0, Math.min(data.length, 40), StandardCharsets.UTF_8);
        return "'" + s + (data.length > 40 ? "...' (" + data.length + " bytes)" : "'");
    }
}
