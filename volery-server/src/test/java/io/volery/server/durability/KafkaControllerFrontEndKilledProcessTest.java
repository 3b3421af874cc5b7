package io.volery.server.durability;

import static io.volery.server.clients.KafkaBrokers.TOPIC;
import static io.volery.server.clients.KafkaBrokers.awaitLeaders;
import static io.volery.server.clients.KafkaBrokers.consume;
import static io.volery.server.clients.KafkaBrokers.controller;
import static io.volery.server.clients.KafkaBrokers.eventually;
import static io.volery.server.clients.KafkaBrokers.produce;
import static io.volery.server.clients.KafkaBrokers.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.eyrie.multicast.LoopbackPorts;
import io.volery.server.ServerOfClient;
import io.volery.server.clients.KafkaBrokers;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three Kafka 3.9 brokers (in this JVM, ZooKeeper mode) on a Volery of six processes. The Volery node that serves
 * the Kafka controller's session is killed with kill -9: the controller's ZooKeeper client moves to another node
 * with its session, and with it its registrations and watches (ADR 079), so it stays the controller. Then another
 * broker stops without a controlled shutdown, so that only the controller's one-shot child watch on
 * {@code /brokers/ids}, set again through the new node, tells it the broker is gone: it must move that broker's
 * partitions to the others. Records written before and after are all read by the group from its committed offsets.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaControllerFrontEndKilledProcessTest {
    @Test
    void theControllerKeepsItsSessionAndWatchesWhenItsVoleryNodeIsKilled(@TempDir Path dir) throws Exception {
        try (ProcessCluster cluster = new ProcessCluster(dir, "durable", 1_000_000)) {
            cluster.startAll();
            Map<Integer, KafkaServer> brokers = new TreeMap<>();
            Map<Integer, Integer> ports = new TreeMap<>();
            try {
                for (int id = 1; id <= 3; id++) {
                    ports.put(id, LoopbackPorts.free());
                    // no controlled shutdown: a broker that stops just ends its session, and the controller learns it
                    // from its watch alone
                    brokers.put(id, KafkaBrokers.start(id, ports.get(id), cluster.connectString() + "/kafka",
                            dir.resolve("broker-" + id), Map.of("controlled.shutdown.enable", "false")));
                }
                String bootstrap = "127.0.0.1:" + ports.get(1) + ",127.0.0.1:" + ports.get(2) + ",127.0.0.1:" + ports.get(3);
                try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                    admin.createTopics(List.of(new NewTopic(TOPIC, 6, (short) 2))).all().get(60, TimeUnit.SECONDS);
                    awaitLeaders(admin, 6, -1);
                    produce(bootstrap, 0, 100);
                    assertEquals(range(0, 100), consume(bootstrap, 100));

                    int controller = controller(admin);
                    ZooKeeper controllers = brokers.get(controller).zkClient().currentZooKeeper();
                    long session = controllers.getSessionId();
                    int victim = cluster.nodeServing(controllers);
                    cluster.kill(victim);
                    eventually("the controller's client reconnected to another node",
                            () -> controllers.getState().isConnected() && ServerOfClient.port(controllers) != -1
                                    && ServerOfClient.port(controllers) != cluster.clientAddress(victim).getPort());
                    assertEquals(session, brokers.get(controller).zkClient().currentZooKeeper().getSessionId(),
                            "the controller's session survived its node's death");

                    int gone = controller == 3 ? 2 : 3;
                    KafkaServer stopping = brokers.remove(gone);
                    stopping.shutdown();
                    stopping.awaitShutdown();
                    awaitLeaders(admin, 6, gone); // only the watch on /brokers/ids tells the controller
                    assertEquals(controller, controller(admin), "still the controller");
                    produce(bootstrap, 100, 200);
                    assertEquals(range(100, 200), consume(bootstrap, 100), "the group reads on from its committed offsets");
                    try (ZooKeeper zk = cluster.session(victim == 1 ? 2 : 1)) {
                        List<String> live = zk.getChildren("/kafka/brokers/ids", false).stream().sorted().toList();
                        assertEquals(brokers.keySet().stream().map(String::valueOf).toList(), live);
                        assertTrue(!live.contains(String.valueOf(gone)));
                    }
                    int now = cluster.nodeServing(controllers);
                    assertNotEquals(victim, now);
                    System.out.println("Kafka controller " + controller + ": its session 0x" + Long.toHexString(session)
                            + " moved from killed Volery node " + victim + " to node " + now + "; broker " + gone
                            + " stopped and its partitions moved to " + brokers.keySet());
                }
            } finally {
                for (KafkaServer b : brokers.values()) {
                    b.shutdown();
                    b.awaitShutdown();
                }
            }
        }
    }
}
