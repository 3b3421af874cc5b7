package io.volery.copy;

import java.io.File;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code volery-copy}: moves a ZooKeeper namespace (or a subtree of it) into Volery, from a running server or
 * from a ZooKeeper data directory; also between Volery clusters of different partitionings, and back into
 * ZooKeeper. Exit status: 0 copied and (unless --no-verify) verified; 1 finished with errors or differences
 * (listed); 2 a usage error; 3 it could not run (a server unreachable, a non-empty destination, a source it
 * cannot read).
 */
@Command(name = "volery-copy", version = "volery-copy 0.1.0 (ZooKeeper client 3.9.5)", mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {"Copies znodes from a ZooKeeper-compatible server or a ZooKeeper data directory into another server.",
                "Carries data, ACLs, container and TTL nodes (from a data directory), sequential counters and quotas;"
                        + " skips ephemeral nodes; versions, zxids and times are the destination's own."})
public final class VoleryCopy implements Callable<Integer> {

    @Option(names = "--from", description = "Source connect string, e.g. zk1:2181,zk2:2181 (a chroot suffix works as in any client).")
    String from;

    @Option(names = "--from-datadir", description = "Source: a ZooKeeper dataDir (holding version-2/); stop the server for a point-in-time copy.")
    File fromDataDir;

    @Option(names = "--from-datalogdir", description = "The source's dataLogDir, when its transaction logs are kept apart.")
    File fromDataLogDir;

    @Option(names = "--to", required = true, description = "Destination connect string, e.g. 127.0.0.1:2181.")
    String to;

    @Option(names = "--path", defaultValue = "/", description = "The subtree to copy, to the same path (default: ${DEFAULT-VALUE}).")
    String path;

    @Option(names = "--from-auth", description = "scheme:credential to add to the source session, e.g. digest:super:secret (repeatable).")
    List<String> fromAuth = new ArrayList<>();

    @Option(names = "--to-auth", description = "scheme:credential for the destination session (repeatable); a digest one also "
            + "owns nodes while their own ACL would shut the copier out.")
    List<String> toAuth = new ArrayList<>();

    @Option(names = "--merge", defaultValue = "none", description = "none (the destination must be empty below --path) | keep "
            + "(existing nodes stay as they are) | overwrite (existing nodes get the source's data and ACL; resumes an "
            + "interrupted copy) (default: ${DEFAULT-VALUE}).")
    String merge;

    @Option(names = "--no-sequence-counters", negatable = false, description = "Do not advance sequential counters.")
    boolean noCounters;

    @Option(names = "--no-quotas", negatable = false, description = "Do not copy the quotas under /zookeeper/quota.")
    boolean noQuotas;

    @Option(names = "--no-verify", negatable = false, description = "Skip the pass that compares source and destination.")
    boolean noVerify;

    @Option(names = "--max-outstanding", defaultValue = "500", description = "Requests in flight per session (default: ${DEFAULT-VALUE}).")
    int maxOutstanding;

    @Option(names = "--session-timeout-ms", defaultValue = "30000", description = "Session timeout (default: ${DEFAULT-VALUE}).")
    int sessionTimeoutMs;

    private PrintStream out = System.out;
    private PrintStream err = System.err;

    public static void main(String[] args) {
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command with these streams; returns the exit status. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        VoleryCopy copy = new VoleryCopy();
        copy.out = out;
        copy.err = err;
        CommandLine cli = new CommandLine(copy);
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(err, true));
        return cli.execute(args);
    }

    @Override
    public Integer call() {
        String problem = usageProblem();
        if (problem != null) {
            err.println("volery-copy: " + problem);
            return 2;
        }
        TreeCopier.Merge mergeMode = TreeCopier.Merge.valueOf(merge.toUpperCase(Locale.ROOT));
        List<String> digests = toAuth.stream().filter(a -> a.startsWith("digest:")).map(a -> a.substring("digest:".length())).toList();
        TreeCopier.Options options = new TreeCopier.Options(path, mergeMode, !noCounters, !noQuotas, !noVerify, digests);
        try (TreeSource source = openSource();
             AsyncSession dest = AsyncSession.connect(to, sessionTimeoutMs, toAuth, maxOutstanding)) {
            out.println("volery-copy: from " + source.describe() + " to " + to + ", path " + path);
            if (!source.knowsNodeKinds()) {
                out.println("volery-copy: a live source shows container and TTL nodes as persistent: they are copied so"
                        + " (copy from --from-datadir to keep them)");
            }
            TreeCopier copier = new TreeCopier(source, dest, options, err);
            TreeCopier.Report report = copier.run();
            report.print(out);
            return report.ok() ? 0 : 1;
        } catch (CopyException e) {
            err.println("volery-copy: " + e.getMessage());
            return 3;
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            err.println("volery-copy: " + (cause instanceof CopyException ? cause.getMessage() : cause.toString()));
            return 3;
        } catch (java.io.IOException e) {
            err.println("volery-copy: " + e.getMessage());
            return 3;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("volery-copy: interrupted");
            return 3;
        }
    }

    private String usageProblem() {
        if ((from == null) == (fromDataDir == null)) {
            return "give exactly one source: --from CONNECT or --from-datadir DIR";
        }
        if (fromDataLogDir != null && fromDataDir == null) {
            return "--from-datalogdir goes with --from-datadir";
        }
        if (!path.startsWith("/") || (path.length() > 1 && path.endsWith("/")) || path.contains("//")) {
            return "--path must be an absolute znode path such as / or /app, not '" + path + "'";
        }
        if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
            return "--path " + path + ": /zookeeper is the server's own; quotas come with the subtree they limit";
        }
        try {
            TreeCopier.Merge.valueOf(merge.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return "--merge must be none, keep or overwrite, not '" + merge + "'";
        }
        for (String a : concat(fromAuth, toAuth)) {
            int colon = a.indexOf(':');
            if (colon <= 0 || colon == a.length() - 1) {
                return "an auth must be scheme:credential, e.g. digest:user:password, not '" + a + "'";
            }
        }
        if (maxOutstanding < 1) {
            return "--max-outstanding must be at least 1";
        }
        return null;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private TreeSource openSource() throws java.io.IOException, InterruptedException {
        if (fromDataDir != null) {
            return new DataDirSource(fromDataDir, fromDataLogDir);
        }
        return new LiveSource(AsyncSession.connect(from, sessionTimeoutMs, fromAuth, maxOutstanding));
    }
}
