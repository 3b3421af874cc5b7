package io.volery.server.clients;

import io.volery.server.clients.ExternalProcess.Outcome;
import io.volery.server.VoleryCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * kazoo 2.11 (Python, from PyPI) runs a scripted session against Volery. The venv ({@link KazooVenv})
 * lives under target/ and is reused while it has kazoo; a machine that cannot build it skips the test, saying why.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KazooSessionTest {
    @Test
    void scriptedKazooSessionSeesZooKeeperSemantics() throws Exception {
        // here, not in a @BeforeAll: Surefire reports a test skipped there as no test at all, without the reason
        Path python = KazooVenv.python("kazoo", "kazoo==2.11.*");
        Path script = Files.createTempFile("kazoo_session", ".py");
        try (var in = KazooSessionTest.class.getResourceAsStream("/clients/kazoo_session.py");
             VoleryCluster cluster = new VoleryCluster(2, 3, 0, 500)) {
            Files.write(script, in.readAllBytes());
            Outcome o = run(List.of(python.toString(), script.toString(), cluster.connectString()), 90);
            List<String> lines = o.stdout().lines().toList();
            assertEquals(0, o.exit(), "kazoo script exit status; its output:\n" + o.output());
            assertEquals(List.of(
                    "create /kz",
                    "create /kz/a",
                    "get alpha version 0",
                    "set version 1",
                    "set with a stale version: BadVersionError",
                    "second create: NodeExistsError",
                    "delete of a parent: NotEmptyError",
                    "sequential /kz/s-0000000001",
                    "sequential /kz/s-0000000002",
                    "children a,s-0000000001,s-0000000002",
                    "stat numChildren 3",
                    "data watch CHANGED /kz/a",
                    "child watch CHILD /kz",
                    "ephemeral owned by the other session True",
                    "owner closed DELETED exists False",
                    "transaction /kz/t1 /kz2 version 3 True",
                    "failed transaction RolledBackError,BadVersionError,RuntimeInconsistency",
                    "rolled back: no /kz/t2, /kz2 kept True True",
                    "after recursive delete None None",
                    "done"), lines, "kazoo's view of the session; full output:\n" + o.output());
        } finally {
            Files.deleteIfExists(script);
        }
    }
}
