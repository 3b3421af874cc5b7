package io.volery.server.frontend;

import io.volery.server.tree.Acl;
import io.volery.server.tree.Id;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A request's ACL as the tree gets it, null strings included (kazoo writes each empty string as one). */
class JuteTranslatorAclTest {

    @Test
    void nullSchemesAndIdsAreEmptyStrings() {
        List<ACL> requested = List.of(
                new ACL(31, new org.apache.zookeeper.data.Id("auth", null)), // kazoo's make_acl('auth', '')
                new ACL(1, new org.apache.zookeeper.data.Id(null, "x")),
                new ACL(1, new org.apache.zookeeper.data.Id("world", "anyone")));
        assertEquals(List.of(new Acl(31, Id.AUTH_IDS), new Acl(1, new Id("", "x")), new Acl(1, Id.ANYONE)),
                JuteTranslator.acls(requested));
    }
}
