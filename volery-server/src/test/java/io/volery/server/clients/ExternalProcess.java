package io.volery.server.clients;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs another client's program (kazoo, go-zookeeper, the C client) for the client tests, and keeps what it printed. */
final class ExternalProcess {

    private ExternalProcess() {
    }

    /**
     * What a program did: {@code exit} (-1 when it overran and was killed, -2 when it could not start),
     * {@code stdout} alone (what the tests compare), and {@code output}, stdout and stderr together
     * (for failure messages).
     */
    record Outcome(int exit, String stdout, String output) {
    }

    static Outcome run(List<String> command, int timeoutSeconds) throws InterruptedException {
        return run(command, null, Map.of(), timeoutSeconds);
    }

    /** Runs {@code command} in {@code dir} (null: here) with {@code env} added; one that overruns is killed and reported. */
    static Outcome run(List<String> command, Path dir, Map<String, String> env, int timeoutSeconds)
            throws InterruptedException {
        try {
            ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(command));
            if (dir != null) {
                pb.directory(dir.toFile());
            }
            pb.environment().putAll(env);
            Process p = pb.start();
            p.getOutputStream().close();
            StringBuilder out = new StringBuilder();
            StringBuilder err = new StringBuilder();
            Thread outReader = drain(p.getInputStream(), out);
            Thread errReader = drain(p.getErrorStream(), err);
            boolean finished = p.waitFor(timeoutSeconds, TimeUnit.SECONDS);
            if (!finished) {
                p.destroyForcibly().waitFor();
            }
            outReader.join(5000);
            errReader.join(5000);
            String both = "--- stdout\n" + out + "--- stderr\n" + err;
            if (!finished) {
                return new Outcome(-1, out.toString(), "timed out after " + timeoutSeconds + " s: " + command + "\n" + both);
            }
            return new Outcome(p.exitValue(), out.toString(), both);
        } catch (IOException e) {
            return new Outcome(-2, "", "cannot run " + command + ": " + e);
        }
    }

    /** Reads a stream to its end on a daemon thread. */
    static Thread drain(InputStream in, StringBuilder into) {
        Thread t = new Thread(() -> {
            try {
                into.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                into.append("(output lost: ").append(e).append(')');
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * A scripted client session run against ZooKeeper 3.9.5 and against Volery: ZooKeeper's run must have gone
     * through to {@code lastLine}, and Volery's transcript must be the same, line by line.
     */
    static void assertSameTranscript(Outcome zookeeper, Outcome volery, String lastLine) {
        org.junit.jupiter.api.Assertions.assertEquals(0, zookeeper.exit(),
                "the session against ZooKeeper 3.9.5 failed:\n" + zookeeper.output());
        List<String> expected = zookeeper.stdout().lines().toList();
        org.junit.jupiter.api.Assertions.assertTrue(expected.contains(lastLine),
                "the whole script ran against ZooKeeper:\n" + zookeeper.output());
        List<String> actual = volery.stdout().lines().toList();
        org.junit.jupiter.api.Assertions.assertEquals(expected, actual, "Volery and ZooKeeper 3.9.5 differ ("
                + firstDifference(expected, actual) + "); Volery's output:\n" + volery.output());
        org.junit.jupiter.api.Assertions.assertEquals(0, volery.exit(),
                "the session against Volery failed:\n" + volery.output());
    }

    /** Where two transcripts part: the first line that differs, from each. */
    static String firstDifference(List<String> expected, List<String> actual) {
        for (int i = 0; i < Math.max(expected.size(), actual.size()); i++) {
            String e = i < expected.size() ? expected.get(i) : "(nothing)";
            String a = i < actual.size() ? actual.get(i) : "(nothing)";
            if (!e.equals(a)) {
                return "line " + (i + 1) + ": expected \"" + e + "\" but got \"" + a + "\"";
            }
        }
        return "no difference";
    }
}
