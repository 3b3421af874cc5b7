package io.volery.server.clients;

import static io.volery.server.clients.ExternalProcess.run;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Older ZooKeeper Java clients, still inside many deployed services, against Volery: the 3.5, 3.6, 3.7 and 3.8
 * lines' last releases, each in its own JVM with only its own jars (Maven copies them to
 * target/old-zookeeper-clients; they are not on this JVM's class path), run one scripted session
 * (src/test/resources/clients/OldClientSession.java, compiled by java's source launcher against that client's API,
 * which 3.4's already has): creates of every classic mode and their errors, data, exists and child watches, versioned
 * writes, multi across the two partitions committed and rolled back with per-operation results, digest ACLs and
 * refusals, a second session seeing the first one's ephemeral go when it closes, pipelined reads, sync. The
 * transcript must be the one the same client prints against ZooKeeper 3.9.5. (3.4.14 cannot connect to any server
 * on Java 14 or later, ZOOKEEPER-3779, so it is not run.)
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OldJavaClientsTest extends VoleryBesideZooKeeper {
    private static final Path CLIENTS = Path.of("target", "old-zookeeper-clients").toAbsolutePath();
    private static final Path SESSION = Path.of("src", "test", "resources", "clients", "OldClientSession.java")
            .toAbsolutePath();

    @ParameterizedTest(name = "ZooKeeper client {0}")
    @ValueSource(strings = {"3.5.10", "3.6.4", "3.7.2", "3.8.4"})
    void anOlderClientSeesWhatItSeesAgainstZooKeeper(String version) throws Exception {
        Path jars = CLIENTS.resolve(version);
        assertTrue(Files.isDirectory(jars), jars + " (Maven copies it in generate-test-resources)");
        String classPath = String.join(File.pathSeparator, jars.resolve("zookeeper-" + version + ".jar").toString(),
                jars.resolve("zookeeper-jute-" + version + ".jar").toString(),
                CLIENTS.resolve("slf4j-api-1.7.36.jar").toString());
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ExternalProcess.Outcome oracle = run(List.of(java, "-cp", classPath, SESSION.toString(),
                zookeeper.connectString()), 120);
        ExternalProcess.Outcome volery = run(List.of(java, "-cp", classPath, SESSION.toString(),
                cluster.connectString()), 120);
        Path out = CLIENTS.resolve("session-" + version);
        Files.writeString(Path.of(out + "-zookeeper.out"), oracle.output());
        Files.writeString(Path.of(out + "-volery.out"), volery.output());

        ExternalProcess.assertSameTranscript(oracle, volery, "session B closed");
    }
}
