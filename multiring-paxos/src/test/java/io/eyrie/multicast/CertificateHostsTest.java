package io.eyrie.multicast;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a certificate names (ADR 065), on certificates the JDK's keytool made. */
class CertificateHostsTest {
    private static final String PASSWORD = "eyrie-test";

    @TempDir
    static Path dir;
    static X509Certificate ips;
    static X509Certificate wildcard;
    static X509Certificate onlyCommonName;
    static X509Certificate ipOnlyWithNameCn;

    @BeforeAll
    static void certificates() throws Exception {
        DevCertificates c = DevCertificates.create(dir.resolve("ca"), PASSWORD);
        c.signed("ips", "CN=ignored.example", "ip:127.0.0.2,ip:0:0:0:0:0:0:0:1");
        c.signed("wild", "CN=other.example", "dns:*.nodes.example,dns:Exact.Example");
        c.signed("iponly", "CN=named.example", "ip:10.1.2.3");
        ips = read(c.dir().resolve("ips.pem"));
        wildcard = read(c.dir().resolve("wild.pem"));
        ipOnlyWithNameCn = read(c.dir().resolve("iponly.pem"));
        // no subject alternative names at all: the subject's most specific common name is the host
        Path store = dir.resolve("plain.p12");
        Path pem = dir.resolve("plain.pem");
        String keytool = Paths.get(System.getProperty("java.home"), "bin", "keytool").toString();
        DevCertificates.run(dir, List.of(keytool, "-genkeypair", "-alias", "p", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=outer.example,O=Eyrie,CN=inner.example", "-validity", "2", "-keystore",
                store.toString(), "-storepass", PASSWORD, "-storetype", "PKCS12"));
        DevCertificates.run(dir, List.of(keytool, "-exportcert", "-alias", "p", "-rfc", "-file", pem.toString(),
                "-keystore", store.toString(), "-storepass", PASSWORD, "-storetype", "PKCS12"));
        onlyCommonName = read(pem);
    }

    private static X509Certificate read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    @Test
    void anAddressMustBeOneOfTheIpNames() {
        assertNull(CertificateHosts.mismatch(ips, "127.0.0.2"));
        assertNull(CertificateHosts.mismatch(ips, "::1"));
        assertNull(CertificateHosts.mismatch(ips, "0:0:0:0:0:0:0:1"));
        String other = CertificateHosts.mismatch(ips, "127.0.0.3");
        assertNotNull(other);
        assertTrue(other.contains("127.0.0.2") && other.contains("127.0.0.3"), other);
        // an address never matches a name; without DNS names a name is held against the common name only
        assertNotNull(CertificateHosts.mismatch(ips, "other.example"));
        assertNull(CertificateHosts.mismatch(ips, "ignored.example"));
        assertNotNull(CertificateHosts.mismatch(wildcard, "127.0.0.2"));
    }

    @Test
    void aNameMatchesADnsNameCaseAsideWithOneLabelForAWildcard() {
        assertNull(CertificateHosts.mismatch(wildcard, "n1.nodes.example"));
        assertNull(CertificateHosts.mismatch(wildcard, "N1.NODES.example."));
        assertNull(CertificateHosts.mismatch(wildcard, "exact.example"));
        assertNotNull(CertificateHosts.mismatch(wildcard, "nodes.example"));
        assertNotNull(CertificateHosts.mismatch(wildcard, "a.b.nodes.example"));
        assertNotNull(CertificateHosts.mismatch(wildcard, "other.example"), "the common name counts only without DNS names");
        assertNotNull(CertificateHosts.mismatch(wildcard, "x.exact.example"));
    }

    @Test
    void withoutDnsNamesTheMostSpecificCommonNameIsTheHost() {
        // RFC 2253 writes the most specific name first
        assertNull(CertificateHosts.mismatch(onlyCommonName, "outer.example"));
        assertNotNull(CertificateHosts.mismatch(onlyCommonName, "inner.example"));
        assertNull(CertificateHosts.mismatch(ipOnlyWithNameCn, "named.example"));
        assertNotNull(CertificateHosts.mismatch(onlyCommonName, "127.0.0.1"));
    }

    @Test
    void wildcardsNameOneLeftmostLabelUnderAtLeastTwo() {
        assertTrue(CertificateHosts.matches("*.a.example", "x.a.example"));
        assertFalse(CertificateHosts.matches("*.example", "x.example"));
        assertFalse(CertificateHosts.matches("*.*.example", "x.y.example"));
        assertFalse(CertificateHosts.matches("*.a.example", ".a.example"));
        assertTrue(CertificateHosts.isIpLiteral("10.0.0.255"));
        assertFalse(CertificateHosts.isIpLiteral("10.0.0.256"));
        assertFalse(CertificateHosts.isIpLiteral("10.0.0"));
        assertFalse(CertificateHosts.isIpLiteral("node1.example"));
    }
}
