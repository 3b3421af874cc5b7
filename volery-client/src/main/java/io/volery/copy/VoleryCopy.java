package io.volery.copy;

import io.volery.server.tree.PathRules;
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
        description = {"Copies znodes from a ZooKeeper-compatible server, a ZooKeeper data directory or a dump into another server or a dump.",
                "Carries data, ACLs, container and TTL nodes (from a data directory), sequential counters and quotas;"
                        + " skips ephemeral nodes; versions, zxids and times are the destination's own."})
public final class VoleryCopy implements Callable<Integer> {

    @Option(names = "--from", description = "Source connect string, e.g. zk1:2181,zk2:2181 (a chroot suffix works as in any client).")
    String from;

    @Option(names = "--from-datadir", description = "Source: a ZooKeeper dataDir (holding version-2/); stop the server for a point-in-time copy.")
    File fromDataDir;

    @Option(names = "--from-datalogdir", description = "The source's dataLogDir, when its transaction logs are kept apart.")
    File fromDataLogDir;

    @Option(names = "--from-file", description = "Source: a dump written by --to-file.")
    File fromFile;

    @Option(names = "--from-client-config", description = "A ZooKeeper client properties file for the source session "
            + "(TLS: zookeeper.client.secure, zookeeper.ssl.*; SASL: zookeeper.sasl.*), instead of the JVM's system properties.")
    File fromClientConfig;

    @Option(names = "--to", description = "Destination connect string, e.g. 127.0.0.1:2181 (required unless --dry-run).")
    String to;

    @Option(names = "--to-client-config", description = "A ZooKeeper client properties file for the destination session.")
    File toClientConfig;

    @Option(names = "--to-file", description = "Destination: write a dump file (a logical backup; restore it with --from-file).")
    File toFile;

    @Option(names = "--dry-run", description = "Read the source and report what would be copied; write nothing.")
    boolean dryRun;

    @Option(names = "--path", description = "The subtree to copy, to the same path (default: /, or the dump's own path with --from-file).")
    String path;

    @Option(names = "--exclude", description = "A subtree to leave out, with its quotas (repeatable), e.g. /app/logs.")
    List<String> exclude = new ArrayList<>();

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
        String asked = path;
        TreeCopier.Merge mergeMode = TreeCopier.Merge.valueOf(merge.toUpperCase(Locale.ROOT));
        List<String> digests = toAuth.stream().filter(a -> a.startsWith("digest:")).map(a -> a.substring("digest:".length())).toList();
        try (TreeSource source = openSource();
             AsyncSession dest = to == null ? null : AsyncSession.connect(to, toClientConfig, sessionTimeoutMs, toAuth, maxOutstanding);
             DumpFile.Writer dump = toFile == null ? null
                     : new DumpFile.Writer(toFile, source.describe(), pathFor(source, asked), source.knowsNodeKinds())) {
            path = pathFor(source, asked);
            TreeCopier.Options options = new TreeCopier.Options(path, mergeMode, !noCounters, !noQuotas, !noVerify, digests,
                    exclude);
            out.println("volery-copy: from " + source.describe()
                    + (dryRun ? " (dry run)" : toFile != null ? " to the dump " + toFile : " to " + to) + ", path " + path);
            if (!source.knowsNodeKinds()) {
                out.println("volery-copy: this source shows container and TTL nodes as persistent: they are copied so"
                        + " (copy from --from-datadir to keep them)");
            }
            TreeCopier copier = new TreeCopier(source, dest, dump, options, err);
            TreeCopier.Report report = copier.run();
            if (dump != null) {
                dump.seal();
            }
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

    /**
     * The subtree to copy: as asked, else / (or a dump's own). A dump knows nothing above its path, so a path
     * outside it is refused rather than restored from made-up ancestors.
     */
    private static String pathFor(TreeSource source, String asked) {
        if (source instanceof DumpFile.Source dump) {
            String held = dump.path();
            if (asked == null) {
                return held;
            }
            if (!held.equals("/") && !asked.equals(held) && !asked.startsWith(held + "/")) {
                throw new CopyException("the dump holds " + held + " and what is below it; --path " + asked + " is not in it");
            }
            return asked;
        }
        return asked == null ? "/" : asked;
    }

    private String usageProblem() {
        if ((from != null ? 1 : 0) + (fromDataDir != null ? 1 : 0) + (fromFile != null ? 1 : 0) != 1) {
            return "give exactly one source: --from CONNECT, --from-datadir DIR or --from-file DUMP";
        }
        if ((to != null ? 1 : 0) + (toFile != null ? 1 : 0) + (dryRun ? 1 : 0) != 1) {
            return "give exactly one destination: --to CONNECT, --to-file DUMP or --dry-run (only read the source)";
        }
        if (fromClientConfig != null && from == null) {
            return "--from-client-config goes with --from";
        }
        for (File f : new File[] {fromClientConfig, toClientConfig}) {
            if (f != null && !f.isFile()) {
                return "no client configuration file " + f;
            }
        }
        if (fromDataLogDir != null && fromDataDir == null) {
            return "--from-datalogdir goes with --from-datadir";
        }
        if (path != null && PathRules.problem(path) != null) {
            return "--path '" + path + "': " + PathRules.problem(path);
        }
        if (path != null && (path.equals("/zookeeper") || path.startsWith("/zookeeper/"))) {
            return "--path " + path + ": /zookeeper is the server's own; quotas come with the subtree they limit";
        }
        for (String e : exclude) {
            if (PathRules.problem(e) != null || e.equals("/")) {
                return "--exclude '" + e + "': " + (e.equals("/") ? "that is everything" : PathRules.problem(e));
            }
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
        if (fromFile != null) {
            return new DumpFile.Source(fromFile);
        }
        return new LiveSource(AsyncSession.connect(from, fromClientConfig, sessionTimeoutMs, fromAuth, maxOutstanding));
    }
}
