package io.volery.server.config;

import io.eyrie.multicast.ClusterConfig.ConfigException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

public class VoleryConfigTest {

    /** Two partitions of two replicas; line numbers below refer to this text. */
    public static final String GOOD = String.join("\n",
            "# a Volery cluster",                    // 1
            "node.1 = 10.0.0.1:7001",                 // 2
            "node.1.groups = 1",                      // 3
            "node.1.clientPort = 2181",               // 4
            "node.1.metricsPort = 9141",              // 5
            "node.2 = 10.0.0.2:7001",                 // 6
            "node.2.groups = 1",                      // 7
            "node.2.clientPort = 2181",               // 8
            "node.3 = 10.0.0.3:7001",                 // 9
            "node.3.groups = 2",                      // 10
            "node.3.clientPort = 2181",               // 11
            "node.3.clientHost = 0.0.0.0",            // 12
            "node.4 = 10.0.0.4:7001",                 // 13
            "node.4.groups = 2",                      // 14
            "node.4.clientPort = 2181",               // 15
            "ring.1.acceptors = 1,2",                 // 16
            "ring.2.acceptors = 3,4",                 // 17
            "ring.0.acceptors = 1,3,2",               // 18
            "group.1.ring = 1",                       // 19
            "group.2.ring = 2",                       // 20
            "ring.all = 0",                           // 21
            "tickTime = 1000",                        // 22
            "minSessionTimeout = 3000",               // 23
            "maxSessionTimeout = 15000",              // 24
            "jute.maxbuffer = 2097152",               // 25
            "partitioning = subtree",                 // 26
            "superDigest = super:D/InIHSb7yEEbrWz8b9l71RjZJU=", // 27
            "4lw.commands.whitelist = ruok, srvr, mntr", // 28
            "storage = memory",                       // 29
            "batch.maxMessages = 512",                // 30
            "");

    @Test
    void aRunningNodeTakesUpOtherNodesAddressesAndRefusesEverythingElse() {
        String moved = GOOD.replace("node.3 = 10.0.0.3:7001", "node.3 = 10.0.0.13:7001")
                .replace("node.3.clientPort = 2181", "node.3.clientPort = 2182\nnode.3.advertisedClientAddress = zk3:2182");
        assertNull(VoleryConfig.reloadRefusal(GOOD, moved, 1));
        assertNull(VoleryConfig.reloadRefusal(GOOD, GOOD.replace("# a Volery cluster", "# moved\n\n"), 1),
                "comments and blank lines are no change");
        assertNull(VoleryConfig.reloadRefusal(GOOD, GOOD.replace("node.1 = 10.0.0.1:7001", "node.1=10.0.0.1:7001"), 1),
                "nor is spacing");
        assertEquals("only other nodes' addresses can change while a node runs (restart every node for the rest): "
                        + "node.3: '10.0.0.3:7001' becomes '10.0.0.13:7001'; "
                        + "node.3.advertisedClientAddress added; node.3.clientPort: '2181' becomes '2182'",
                VoleryConfig.reloadRefusal(GOOD, moved, 3), "a node cannot move itself while it runs");
        assertEquals("only other nodes' addresses can change while a node runs (restart every node for the rest): "
                        + "tickTime: '1000' becomes '2000'",
                VoleryConfig.reloadRefusal(GOOD, GOOD.replace("tickTime = 1000", "tickTime = 2000"), 1));
        assertEquals("only other nodes' addresses can change while a node runs (restart every node for the rest): "
                        + "node.4.groups: '2' becomes '1'",
                VoleryConfig.reloadRefusal(GOOD, GOOD.replace("node.4.groups = 2", "node.4.groups = 1"), 1));
        String added = GOOD + "node.5 = 10.0.0.5:7001\nnode.5.groups = 2\n";
        assertEquals("only other nodes' addresses can change while a node runs (restart every node for the rest): "
                + "node.5 added; node.5.groups added", VoleryConfig.reloadRefusal(GOOD, added, 1));
        assertEquals("only other nodes' addresses can change while a node runs (restart every node for the rest): "
                        + "storage removed",
                VoleryConfig.reloadRefusal(GOOD, GOOD.replace("storage = memory", ""), 1),
                "a default left out where it was spelled out is a change");
    }

    @Test
    void readsVoleryKeysAndLeavesTheRingKeysToClusterConfig() {
        VoleryConfig c = VoleryConfig.parse(GOOD, "volery.cfg");
        assertEquals(4, c.nodes().size());
        assertEquals(new VoleryConfig.NodeSettings(1, "10.0.0.1", 2181, 9141), c.node(1));
        assertEquals(new VoleryConfig.NodeSettings(3, "0.0.0.0", 2181, 0), c.node(3));
        assertEquals(2, c.partitionOf(3));
        assertEquals(1000, c.tickTime());
        assertEquals(3000, c.minSessionTimeout());
        assertEquals(15000, c.maxSessionTimeout());
        assertEquals(2097152, c.juteMaxBuffer());
        assertEquals(VoleryConfig.Partitioning.SUBTREE, c.partitioning());
        assertEquals("super:D/InIHSb7yEEbrWz8b9l71RjZJU=", c.superDigest());
        assertEquals(java.util.Set.of("ruok", "srvr", "mntr"), c.fourLetterWords());
        assertEquals(512, c.cluster().parameters().batchMaxMessages());
        assertEquals(java.util.Set.of(1, 2), c.cluster().groups());
        assertNull(c.logDir());
    }

    @Test
    void sessionBoundsDefaultToTwoAndTwentyTicksAndEveryWordIsAnswered() {
        VoleryConfig c = VoleryConfig.parse(GOOD.replace("minSessionTimeout = 3000", "")
                .replace("maxSessionTimeout = 15000", "").replace("4lw.commands.whitelist = ruok, srvr, mntr", ""), "v.cfg");
        assertEquals(2000, c.minSessionTimeout());
        assertEquals(20000, c.maxSessionTimeout());
        assertEquals(VoleryConfig.FOUR_LETTER_WORDS, c.fourLetterWords());
    }

    @Test
    void aMisspelledKeyIsNamedWithItsLine() {
        assertError(GOOD.replace("tickTime = 1000", "tickTme = 1000"), "volery.cfg:22: tickTme: unknown key");
    }

    @Test
    void aBadNumberIsNamedWithItsKeyAndLine() {
        assertError(GOOD.replace("node.2.clientPort = 2181", "node.2.clientPort = 21x81"),
                "volery.cfg:8: node.2.clientPort: not a number: '21x81'");
        assertError(GOOD.replace("node.1.metricsPort = 9141", "node.1.metricsPort = 70000"),
                "volery.cfg:5: node.1.metricsPort: must be in [0, 65535], got 70000");
    }

    @Test
    void sessionBoundsOutsideTheTreesTwoToTwentyTicksAreRejected() {
        assertError(GOOD.replace("maxSessionTimeout = 15000", "maxSessionTimeout = 25000"),
                "volery.cfg:24: maxSessionTimeout: must be at most 20 ticks (20000 ms with tickTime 1000)");
        assertError(GOOD.replace("minSessionTimeout = 3000", "minSessionTimeout = 1000"),
                "volery.cfg:23: minSessionTimeout: must be at least 2 ticks (2000 ms with tickTime 1000)");
    }

    @Test
    void partitioningIsSubtreeOrHashAndAnythingElseIsNamed() throws Exception {
        assertEquals(VoleryConfig.Partitioning.HASH,
                VoleryConfig.parse(GOOD.replace("partitioning = subtree", "partitioning = hash"), "volery.cfg")
                        .partitioning());
        assertError(GOOD.replace("partitioning = subtree", "partitioning = range"),
                "volery.cfg:26: partitioning: expected subtree or hash, got 'range'");
    }

    @Test
    void aNodeWithoutClientPortIsNamed() {
        assertError(GOOD.replace("node.4.clientPort = 2181", ""),
                "volery.cfg: missing key node.4.clientPort (where ZooKeeper clients of node 4 connect)");
    }

    @Test
    void clientSettingsOfAnUnknownNodeAreNamed() {
        assertError(GOOD + "node.9.clientPort = 2181\n", "volery.cfg:31: node.9.clientPort: node 9 has no node.9 = host:port line");
    }

    @Test
    void aKeyGivenTwiceNamesBothLines() {
        assertError(GOOD + "tickTime = 500\n", "volery.cfg:31: key 'tickTime' already set on line 22");
    }

    @Test
    void anUnknownFourLetterWordIsNamed() {
        assertError(GOOD.replace("ruok, srvr, mntr", "ruok, kill"),
                "volery.cfg:28: 4lw.commands.whitelist: unknown four-letter word 'kill'");
    }

    @Test
    void ringErrorsStillComeFromClusterConfigWithTheirLine() {
        assertError(GOOD.replace("batch.maxMessages = 512", "batch.maxMessages = many"),
                "volery.cfg:30: batch.maxMessages: not a number: 'many'");
    }

    @Test
    void theDockerComposeClusterFileIsValidAndHasAServicePerNode() throws Exception {
        java.nio.file.Path docker = java.nio.file.Path.of("..", "docker").toAbsolutePath().normalize();
        VoleryConfig c = VoleryConfig.load(docker.resolve("volery.cfg"));
        assertEquals(java.util.Set.of(1, 2), c.cluster().groups(), "two partitions");
        // what VoleryNode checks at start: a request of jute.maxbuffer bytes fits one multicast message
        assertTrue(c.cluster().parameters().batchMaxBytes() >= c.juteMaxBuffer() + io.volery.server.VoleryNode.COMMAND_OVERHEAD_BYTES,
                "batch.maxBytes " + c.cluster().parameters().batchMaxBytes() + " must carry a request of jute.maxbuffer " + c.juteMaxBuffer() + " (VoleryNode refuses to start)");
        String compose = java.nio.file.Files.readString(docker.resolve("compose.yaml"));
        for (VoleryConfig.NodeSettings n : c.nodes().values()) {
            String host = c.cluster().node(n.id()).host();
            assertTrue(compose.contains("  " + host + ":\n") && compose.contains("hostname: " + host + "\n")
                            && compose.contains("\"--node\", \"" + n.id() + "\"]") && compose.contains("- " + host + "-data:/data"),
                    "compose.yaml runs node " + n.id() + " as service " + host + " with its own volume");
            // clients on the docker host reach each node through its published port, so /zookeeper/config lists that
            java.net.InetSocketAddress advertised = c.advertisedClientAddress(n.id());
            assertTrue(compose.contains("- \"" + advertised.getPort() + ":" + n.clientPort() + "\"")
                            && advertised.getHostString().equals("127.0.0.1"),
                    "node " + n.id() + " advertises the host port compose.yaml publishes: " + advertised);
            assertEquals(3, c.cluster().nodes().values().stream()
                    .filter(x -> x.groups()[0] == c.partitionOf(n.id())).count(), "three replicas per partition");
        }
    }

    @Test
    void eyrieSentPositionsMaxDefaultsToEyriesWindowAndMustBePositive() {
        assertEquals(4096, VoleryConfig.parse(GOOD, "volery.cfg").sentPositionsMax());
        assertEquals(32, VoleryConfig.parse(GOOD + "eyrie.sentPositionsMax = 32\n", "volery.cfg").sentPositionsMax());
        ConfigException e = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "eyrie.sentPositionsMax = 0\n", "volery.cfg"));
        assertTrue(e.getMessage().contains("eyrie.sentPositionsMax"), "the error should name the key: " + e.getMessage());
    }

    @Test
    void snapMaxAgeSecondsDefaultsToAMinuteAndZeroTurnsItOff() {
        assertEquals(60, VoleryConfig.parse(GOOD, "volery.cfg").snapMaxAgeSeconds());
        assertEquals(0, VoleryConfig.parse(GOOD + "snapMaxAgeSeconds = 0\n", "volery.cfg").snapMaxAgeSeconds());
        ConfigException e = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "snapMaxAgeSeconds = -1\n", "volery.cfg"));
        assertTrue(e.getMessage().contains("snapMaxAgeSeconds"), "the error should name the key: " + e.getMessage());
    }

    @Test
    void connectionLimitsDefaultToZooKeepersAndZeroMeansNone() {
        VoleryConfig c = VoleryConfig.parse(GOOD, "volery.cfg");
        assertEquals(60, c.connectionLimits().perAddress(), "ZooKeeper's maxClientCnxns default");
        assertEquals(0, c.connectionLimits().total(), "ZooKeeper's maxCnxns default: no limit");
        VoleryConfig set = VoleryConfig.parse(GOOD + "maxClientCnxns = 0\nmaxCnxns = 500\n", "volery.cfg");
        assertEquals(0, set.connectionLimits().perAddress());
        assertEquals(500, set.connectionLimits().total());
        assertError(GOOD + "maxClientCnxns = -1\n", "volery.cfg:31: maxClientCnxns: must be in [0, 2147483647], got -1");
        assertError(GOOD + "maxCnxns = many\n", "volery.cfg:31: maxCnxns: not a number: 'many'");
    }

    @Test
    void globalOutstandingLimitDefaultsToZooKeepersThousand() {
        assertEquals(1000, VoleryConfig.parse(GOOD, "volery.cfg").globalOutstandingLimit(), "ZooKeeper's default");
        assertEquals(50, VoleryConfig.parse(GOOD + "globalOutstandingLimit = 50\n", "volery.cfg").globalOutstandingLimit());
        assertError(GOOD + "globalOutstandingLimit = 0\n", "volery.cfg:31: globalOutstandingLimit: must be in [1, 2147483647], got 0");
    }

    @Test
    void theAdvertisedClientAddressDefaultsToTheClientHostAndPort() {
        VoleryConfig c = VoleryConfig.parse(GOOD + "node.2.advertisedClientAddress = 203.0.113.5:12181\n"
                + "node.4.advertisedClientAddress = [2001:db8::4]:2181\n", "volery.cfg");
        assertEquals("10.0.0.1:2181", text(c.advertisedClientAddress(1)));
        assertEquals("203.0.113.5:12181", text(c.advertisedClientAddress(2)));
        assertEquals("0.0.0.0:2181", text(c.advertisedClientAddress(3)));
        assertEquals("2001:db8::4:2181", text(c.advertisedClientAddress(4)));
        assertError(GOOD + "node.2.advertisedClientAddress = 203.0.113.5\n",
                "volery.cfg:31: node.2.advertisedClientAddress: expected host:port");
        assertError(GOOD + "node.2.advertisedClientAddress = host:0\n",
                "volery.cfg:31: node.2.advertisedClientAddress: expected host:port");
        assertError(GOOD + "node.2.advertisedClientAddress = 2001:db8::4:2181\n",
                "volery.cfg:31: node.2.advertisedClientAddress: expected host:port (an IPv6 address in brackets)");
    }

    private static String text(java.net.InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    private static void assertError(String text, String expectedStart) {
        ConfigException e = assertThrows(ConfigException.class, () -> VoleryConfig.parse(text, "volery.cfg"),
                "expected the configuration to be rejected with: " + expectedStart);
        assertTrue(e.getMessage().startsWith(expectedStart),
                "expected an error starting with\n  " + expectedStart + "\nbut got\n  " + e.getMessage());
    }

    @Test
    void saslUsersComeFromAJaasFileRelativeToTheConfiguration(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Files.writeString(dir.resolve("jaas.conf"), "Other {\n"
                + "  org.apache.zookeeper.server.auth.DigestLoginModule required user_bob=\"b\" user_eve=\"e\";\n};\n");
        java.nio.file.Path cfg = dir.resolve("volery.cfg");
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\nsasl.jaasSection = Other\n"
                + "sasl.superUsers = eve, root\n");
        VoleryConfig c = VoleryConfig.load(cfg);
        assertEquals(java.util.Set.of("bob", "eve"), c.sasl().users().users());
        assertEquals(java.util.Set.of("eve", "root"), c.sasl().superUsers());
        assertNull(VoleryConfig.parse(GOOD, "volery.cfg").sasl(), "no SASL unless configured");

        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\n");
        ConfigException noSection = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg));
        assertTrue(noSection.getMessage().contains(":31: sasl.jaasFile:") && noSection.getMessage().contains("no section 'Server'"),
                noSection.getMessage());
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = missing.conf\n");
        ConfigException missing = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg));
        assertTrue(missing.getMessage().contains("no such JAAS file"), missing.getMessage());
        java.nio.file.Files.writeString(dir.resolve("broken.conf"), "Server { this is not JAAS");
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = broken.conf\n");
        ConfigException broken = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg));
        assertTrue(broken.getMessage().contains("cannot read JAAS file"), broken.getMessage());
        ConfigException alone = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "sasl.superUsers = eve\n", "volery.cfg"));
        assertTrue(alone.getMessage().contains("sasl.superUsers: needs sasl.jaasFile"), alone.getMessage());
    }

    @Test
    void enforceQuotaKey() {
        assertFalse(VoleryConfig.parse(GOOD, "volery.cfg").enforceQuota(), "off unless set, as in ZooKeeper");
        VoleryConfig on = VoleryConfig.parse(GOOD + "enforceQuota = true\n", "volery.cfg");
        assertTrue(on.enforceQuota());
        assertTrue(io.volery.server.VoleryNode.Options.of(on, 1).enforceQuota(), "a node's options carry it");
        assertError(GOOD + "enforceQuota = yes\n", "volery.cfg:31: enforceQuota: must be true or false");
        // hash partitioning keeps no quota stats: enforcing would silently enforce nothing
        String hash = GOOD.replace("partitioning = subtree", "partitioning = hash");
        assertFalse(VoleryConfig.parse(hash + "enforceQuota = false\n", "volery.cfg").enforceQuota());
        assertError(hash + "enforceQuota = true\n", "volery.cfg:31: enforceQuota: needs partitioning = subtree");
        io.volery.server.VoleryNode.Options hashed = io.volery.server.VoleryNode.Options.at(null)
                .withPartitioning(VoleryConfig.Partitioning.HASH);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> hashed.withQuotaEnforcement(true));
        assertTrue(e.getMessage().startsWith("enforceQuota needs partitioning = subtree"), e.getMessage());
    }

    @Test
    void auditLogKeys() {
        assertNull(VoleryConfig.parse(GOOD, "volery.cfg").auditLog(1), "no audit log unless enabled");
        assertEquals(java.nio.file.Path.of("/var/log/volery/volery-2-audit.log"),
                VoleryConfig.parse(GOOD + "logDir = /var/log/volery\naudit.enable = true\n", "volery.cfg").auditLog(2));
        assertEquals(java.nio.file.Path.of("/audit/volery-1-audit.log"), VoleryConfig.parse(GOOD
                + "logDir = /var/log/volery\naudit.enable = true\naudit.logDir = /audit\n", "volery.cfg").auditLog(1));
        assertError(GOOD + "audit.enable = true\n",
                "volery.cfg:31: audit.enable: needs audit.logDir or logDir");
        assertError(GOOD + "audit.logDir = /audit\n", "volery.cfg:31: audit.logDir: needs audit.enable = true");
        assertError(GOOD + "audit.enable = on\n", "volery.cfg:31: audit.enable: must be true or false");
    }

    @Test
    void kerberosNamingKeys(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Files.writeString(dir.resolve("jaas.conf"), "Server {\n"
                + "  org.apache.zookeeper.server.auth.DigestLoginModule required user_bob=\"b\";\n};\n");
        java.nio.file.Path cfg = dir.resolve("volery.cfg");
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\nkerberos.removeHostFromPrincipal = true\n"
                + "kerberos.removeRealmFromPrincipal = TRUE\nsecurity.auth_to_local = RULE:[1:$1] DEFAULT\n");
        assertEquals(new io.volery.server.frontend.KerberosNames("RULE:[1:$1] DEFAULT", true, true, null),
                VoleryConfig.load(cfg).sasl().users().names());
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\n");
        assertEquals(io.volery.server.frontend.KerberosNames.defaults(), VoleryConfig.load(cfg).sasl().users().names());

        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\nsecurity.auth_to_local = RULE:[1:$1] NONSENSE\n");
        ConfigException rule = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg));
        assertTrue(rule.getMessage().contains(":32: security.auth_to_local: not an auth_to_local rule: 'NONSENSE'"),
                rule.getMessage());
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\nsasl.krb5Conf = nowhere/krb5.conf\n");
        ConfigException krb5 = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg));
        assertTrue(krb5.getMessage().contains("sasl.krb5Conf: no such file:"), krb5.getMessage());
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\nkerberos.removeHostFromPrincipal = maybe\n");
        ConfigException notBoolean = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg));
        assertTrue(notBoolean.getMessage().contains("kerberos.removeHostFromPrincipal: must be true or false"),
                notBoolean.getMessage());
        ConfigException alone = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "security.auth_to_local = DEFAULT\n", "volery.cfg"));
        assertTrue(alone.getMessage().contains("security.auth_to_local: needs sasl.jaasFile"), alone.getMessage());
    }

    @Test
    void authEnforcementAsZooKeepersKeys(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        assertEquals(io.volery.server.frontend.AuthEnforcement.OFF, VoleryConfig.parse(GOOD, "volery.cfg").authEnforcement());
        assertEquals(io.volery.server.frontend.AuthEnforcement.OFF, VoleryConfig.parse(GOOD
                + "enforce.auth.enabled = false\nenforce.auth.schemes = digest\n", "volery.cfg").authEnforcement());
        assertEquals(java.util.Set.of("digest", "ip"), VoleryConfig.parse(GOOD
                + "enforce.auth.enabled = TRUE\nenforce.auth.schemes = digest, ip\n", "volery.cfg").authEnforcement().schemes());

        ConfigException none = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "enforce.auth.enabled = true\n", "volery.cfg"));
        assertTrue(none.getMessage().contains("enforce.auth.schemes: must name at least one scheme"), none.getMessage());
        ConfigException unknown = assertThrows(ConfigException.class, () -> VoleryConfig.parse(GOOD
                + "enforce.auth.enabled = true\nenforce.auth.schemes = digest,kerberos\n", "volery.cfg"));
        assertTrue(unknown.getMessage().contains(":32: enforce.auth.schemes: authentication scheme kerberos is not available"),
                unknown.getMessage());
        ConfigException notBoolean = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "enforce.auth.enabled = yes\n", "volery.cfg"));
        assertTrue(notBoolean.getMessage().contains("enforce.auth.enabled: must be true or false, got 'yes'"),
                notBoolean.getMessage());
        ConfigException saslWithout = assertThrows(ConfigException.class,
                () -> VoleryConfig.parse(GOOD + "sessionRequireClientSASLAuth = true\n", "volery.cfg"));
        assertTrue(saslWithout.getMessage().contains("sessionRequireClientSASLAuth: enforcing sasl needs sasl.jaasFile"),
                saslWithout.getMessage());

        // sessionRequireClientSASLAuth means sasl alone, whatever enforce.auth.* say (as in ZooKeeper)
        java.nio.file.Files.writeString(dir.resolve("jaas.conf"), "Server {\n"
                + "  org.apache.zookeeper.server.auth.DigestLoginModule required user_bob=\"b\";\n};\n");
        java.nio.file.Path cfg = dir.resolve("volery.cfg");
        java.nio.file.Files.writeString(cfg, GOOD + "sasl.jaasFile = jaas.conf\nsessionRequireClientSASLAuth = true\n"
                + "enforce.auth.enabled = true\nenforce.auth.schemes = digest\n");
        assertEquals(java.util.Set.of("sasl"), VoleryConfig.load(cfg).authEnforcement().schemes());
        assertEquals(VoleryConfig.load(cfg).authEnforcement(),
                io.volery.server.VoleryNode.Options.of(VoleryConfig.load(cfg), 1).authEnforcement());
    }

    @Test
    void tlsForClientsAsZooKeepersKeys(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        io.volery.server.clients.TlsFiles tls = io.volery.server.clients.TlsFiles.create(dir.resolve("tls"));
        java.nio.file.Files.writeString(dir.resolve("trust.pw"), io.volery.server.clients.TlsFiles.PASSWORD + "\n");
        java.nio.file.Path cfg = dir.resolve("volery.cfg");
        String tlsLines = "node.1.secureClientPort = 2281\n"
                + "ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = " + io.volery.server.clients.TlsFiles.PASSWORD
                + "\nssl.trustStore.location = " + tls.trust() + "\nssl.trustStore.passwordPath = trust.pw\n"
                + "ssl.clientAuth = want\nclient.portUnification = true\n"
                + "X509AuthenticationProvider.superUser = " + io.volery.server.clients.TlsFiles.ADMIN + "\n";
        java.nio.file.Files.writeString(cfg, GOOD + tlsLines + "enforce.auth.enabled = true\nenforce.auth.schemes = x509\n");
        VoleryConfig c = VoleryConfig.load(cfg);
        assertEquals(io.volery.server.frontend.ClientTls.Auth.WANT, c.clientTls().auth());
        assertEquals(io.volery.server.clients.TlsFiles.ADMIN, c.clientTls().superUser());
        assertTrue(c.clientTls().portUnification());
        assertEquals(java.util.List.of("TLSv1.3", "TLSv1.2"), c.clientTls().protocols());
        assertEquals(2281, c.node(1).secureClientPort());
        assertEquals(2281, io.volery.server.VoleryNode.Options.of(c, 1).secureClientAddress().getPort());
        assertNull(io.volery.server.VoleryNode.Options.of(c, 2).secureClientAddress(), "node 2 has no secure port");
        assertEquals(java.util.Set.of("x509"), c.authEnforcement().schemes());
        assertNull(VoleryConfig.parse(GOOD, "volery.cfg").clientTls(), "no TLS unless configured");
        assertFalse(c.clientTls().verifiesClientHostnames(), "client host names unchecked by default, as ZooKeeper's client port");
        assertFalse(c.clientTls().reloadsFiles(), "stores read once by default, as ZooKeeper");
        java.nio.file.Files.writeString(cfg, GOOD + tlsLines + "client.certReload = true\n");
        assertTrue(VoleryConfig.load(cfg).clientTls().reloadsFiles());
        assertEquals(io.eyrie.multicast.TlsStore.Revocation.NONE, c.clientTls().revocation());
        java.nio.file.Files.writeString(cfg, GOOD + tlsLines + "ssl.crl = true\nssl.ocsp = true\n");
        assertEquals(io.eyrie.multicast.TlsStore.Revocation.CRL_AND_OCSP, VoleryConfig.load(cfg).clientTls().revocation());
        java.nio.file.Files.writeString(cfg, GOOD + tlsLines + "ssl.clientHostnameVerification = true\n");
        assertTrue(VoleryConfig.load(cfg).clientTls().verifiesClientHostnames());
        java.nio.file.Files.writeString(cfg, GOOD + tlsLines + "ssl.clientHostnameVerification = true\nssl.hostnameVerification = false\n");
        assertFalse(VoleryConfig.load(cfg).clientTls().verifiesClientHostnames(), "only with ssl.hostnameVerification, as ZooKeeper");

        // what an operator gets wrong is named with its key
        java.util.Map<String, String> wrong = new java.util.LinkedHashMap<>();
        wrong.put("node.1.secureClientPort = 2281\n", "node.1.secureClientPort: needs ssl.keyStore.location");
        wrong.put("ssl.clientAuth = need\n", "ssl.clientAuth: needs ssl.keyStore.location");
        wrong.put("ssl.clientHostnameVerification = true\n", "ssl.clientHostnameVerification: needs ssl.keyStore.location");
        wrong.put("ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = " + io.volery.server.clients.TlsFiles.PASSWORD
                + "\nssl.crl = true\n", "ssl.crl: needs ssl.trustStore.location");
        wrong.put("ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = " + io.volery.server.clients.TlsFiles.PASSWORD
                + "\nssl.clientHostnameVerification = yes\n", "ssl.clientHostnameVerification: must be true or false");
        wrong.put("ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = wrong\n",
                "ssl.keyStore.location: cannot use key store");
        wrong.put("ssl.keyStore.location = tls/none.p12\n", "ssl.keyStore.location: no such file");
        wrong.put("ssl.keyStore.location = tls/ca.pem\n", "ssl.keyStore.location: store type PEM is not supported");
        wrong.put("ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = " + io.volery.server.clients.TlsFiles.PASSWORD
                + "\nssl.clientAuth = sometimes\n", "ssl.clientAuth: must be need, want or none");
        wrong.put("ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = x\nssl.keyStore.passwordPath = trust.pw\n",
                "ssl.keyStore.passwordPath: set either");
        wrong.put("ssl.keyStore.location = tls/server.p12\nssl.keyStore.password = " + io.volery.server.clients.TlsFiles.PASSWORD
                + "\nX509AuthenticationProvider.superUser = admin\n", "X509AuthenticationProvider.superUser: not a distinguished name");
        wrong.put("enforce.auth.enabled = true\nenforce.auth.schemes = x509\n", "enforce.auth.schemes: enforcing x509 needs TLS");
        for (var w : wrong.entrySet()) {
            java.nio.file.Files.writeString(cfg, GOOD + w.getKey());
            ConfigException e = assertThrows(ConfigException.class, () -> VoleryConfig.load(cfg), w.getKey());
            assertTrue(e.getMessage().contains(w.getValue()), "for " + w.getKey() + " got " + e.getMessage());
        }
    }
}
