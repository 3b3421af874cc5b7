package io.volery.server.frontend;

import org.apache.zookeeper.server.auth.KerberosName;
import org.apache.zookeeper.server.auth.SaslServerCallbackHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import javax.security.auth.callback.Callback;
import javax.security.sasl.AuthorizeCallback;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Kerberos principal's identity, held against ZooKeeper 3.9.5's own server callback handler (which reads
 * its settings from system properties) over principals of one to three parts, rule sets and the four
 * host/realm settings.
 */
class KerberosNamesTest {
    private static final List<String> PRINCIPALS = List.of("bob@EXAMPLE.COM", "bob@OTHER.ORG",
            "admin/ops.example.com@EXAMPLE.COM", "svc/h1@OTHER.ORG", "bob", "a.b@EXAMPLE.COM", "x/@EXAMPLE.COM",
            "nobody@EXAMPLE.COM", "admin/ops.example.com@OTHER.ORG");
    private static final List<String> RULES = List.of("DEFAULT", "RULE:[1:$1]",
            "RULE:[2:$1@$0](admin@.*)s/admin/root/ DEFAULT", "RULE:[1:$1@$0](.*@OTHER\\.ORG)s/@.*// DEFAULT",
            "RULE:[2:$2]", "RULE:[1:$1/x] DEFAULT", "RULE:[1:$7] DEFAULT", "RULE:[2:$1;$2](.*;h1)s/;.*//g",
            "RULE:[1:$1](nobody)s/o/0/g RULE:[1:$1]", "");

    @AfterEach
    void zooKeeperDefaults() throws Exception {
        System.clearProperty("zookeeper.security.auth_to_local");
        System.clearProperty("zookeeper.kerberos.removeHostFromPrincipal");
        System.clearProperty("zookeeper.kerberos.removeRealmFromPrincipal");
        KerberosName.setConfiguration();
    }

    /** What ZooKeeper's server makes of {@code principal}, with its settings as system properties. */
    private static String zooKeepers(String principal) throws Exception {
        AuthorizeCallback ac = new AuthorizeCallback(principal, principal);
        new SaslServerCallbackHandler(Map.of()).handle(new Callback[]{ac});
        return ac.getAuthorizedID();
    }

    /**
     * ZooKeeper reads its default realm once, from the JVM's Kerberos configuration, when its class loads;
     * the comparison sets it, to none and to one the principals have.
     */
    @Test
    void identitiesAsZooKeeper() throws Exception {
        java.lang.reflect.Field field = KerberosName.class.getDeclaredField("defaultRealm");
        field.setAccessible(true);
        Object was = field.get(null);
        try {
            for (String realm : List.of("", "EXAMPLE.COM")) {
                field.set(null, realm);
                assertEquals(realm, new KerberosName("probe@X").getDefaultRealm());
                compareWithDefaultRealm(realm);
            }
        } finally {
            field.set(null, was);
        }
    }

    private void compareWithDefaultRealm(String defaultRealm) throws Exception {
        int compared = 0;
        for (String rules : RULES) {
            System.setProperty("zookeeper.security.auth_to_local", rules);
            KerberosName.setConfiguration();
            for (boolean noHost : new boolean[]{false, true}) {
                for (boolean noRealm : new boolean[]{false, true}) {
                    System.setProperty("zookeeper.kerberos.removeHostFromPrincipal", String.valueOf(noHost));
                    System.setProperty("zookeeper.kerberos.removeRealmFromPrincipal", String.valueOf(noRealm));
                    KerberosNames ours = new KerberosNames(rules, noHost, noRealm, defaultRealm);
                    for (String p : PRINCIPALS) {
                        assertEquals(zooKeepers(p), ours.identity(p), p + " with rules '" + rules + "', no host "
                                + noHost + ", no realm " + noRealm + ", default realm '" + defaultRealm + "'");
                        compared++;
                    }
                }
            }
        }
        assertEquals(RULES.size() * 4 * PRINCIPALS.size(), compared);
    }

    @Test
    void theDefaultRuleShortensTheDefaultRealmOnly() {
        KerberosNames names = new KerberosNames("DEFAULT", true, true, "EXAMPLE.COM");
        assertEquals("bob", names.identity("bob@EXAMPLE.COM"));
        assertEquals("admin", names.identity("admin/ops.example.com@EXAMPLE.COM"));
        assertEquals("bob@OTHER.ORG", names.identity("bob@OTHER.ORG"), "no rule: the whole principal");
        assertEquals("dora", names.identity("dora"), "a DIGEST-MD5 user is itself");
    }

    @Test
    void aMalformedRuleIsRefusedWithWhatIsWrong() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new KerberosNames("DEFAULT RULE:[x:$1]", false, false, ""));
        assertTrue(e.getMessage().contains("RULE:[x:$1]"), e.getMessage());
    }
}
