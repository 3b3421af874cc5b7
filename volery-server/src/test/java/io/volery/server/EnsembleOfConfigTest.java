package io.volery.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.volery.server.config.VoleryConfig;
import io.volery.server.config.VoleryConfigTest;
import io.volery.server.tree.EnsembleConfig.Member;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What {@code volery start} publishes in /zookeeper/config from the configuration file (ADR 097). */
class EnsembleOfConfigTest {

    @Test
    void everyNodeWithAClientPortAtItsAdvertisedAddress() {
        VoleryConfig c = VoleryConfig.parse(VoleryConfigTest.GOOD + "node.2.advertisedClientAddress = 203.0.113.5:12181\n",
                "volery.cfg");
        assertEquals(List.of(new Member(1, "10.0.0.1", 7001, "10.0.0.1", 2181),
                new Member(2, "10.0.0.2", 7001, "203.0.113.5", 12181),
                new Member(3, "10.0.0.3", 7001, "0.0.0.0", 2181),
                new Member(4, "10.0.0.4", 7001, "10.0.0.4", 2181)), VoleryMain.ensembleOf(c));
    }
}
