package io.volery.server.clients;

import static io.volery.server.clients.KafkaBrokers.TOPIC;
import static io.volery.server.clients.KafkaBrokers.awaitController;
import static io.volery.server.clients.KafkaBrokers.awaitLeaders;
import static io.volery.server.clients.KafkaBrokers.consume;
import static io.volery.server.clients.KafkaBrokers.controller;
import static io.volery.server.clients.KafkaBrokers.produce;
import static io.volery.server.clients.KafkaBrokers.range;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.eyrie.multicast.LoopbackPorts;
import io.volery.server.CuttableProxy;
import io.volery.server.VoleryCluster;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import io.volery.server.config.VoleryConfig;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Apache Kafka 3.9 in ZooKeeper mode, the heaviest classic ZooKeeper user, runs on Volery unchanged: two real
 * brokers (in this JVM) keep their registrations, controller election, topic and partition state and ISR changes
 * in a chroot of the coordination service (ephemeral and sequential nodes, watches, conditional multis that check
 * the controller epoch's version). A topic of four partitions, replicated twice, takes records and a consumer
 * group reads them; then the controller broker shuts down: the other wins the election through its watch on
 * {@code /controller}, takes over the partitions, and the group reads on from its committed offsets, exactly the
 * records that followed. The same run against a real ZooKeeper 3.9.5 shows the scenario itself is sound.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaOnVoleryTest {
    @TempDir
    Path dir;

    enum Coordinator { ZOOKEEPER, VOLERY_SUBTREE, VOLERY_HASH }


    /** The coordination service (ZooKeeper or Volery) and the brokers on it, closed in reverse. */
    private final class Setup implements AutoCloseable {
        final EmbeddedZooKeeper zookeeper;
        final VoleryCluster volery;
        /** Every server's client address, and one of them (what a proxy relays to). */
        final String connect;
        final InetSocketAddress first;
        final Map<Integer, Integer> ports = new HashMap<>();
        final Map<Integer, KafkaServer> brokers = new HashMap<>();

        Setup(Coordinator coordinator) throws Exception {
            if (coordinator == Coordinator.ZOOKEEPER) {
                zookeeper = Clients.listeningZooKeeper(dir);
                volery = null;
                connect = zookeeper.connectString();
            } else {
                VoleryConfig.Partitioning partitioning = coordinator == Coordinator.VOLERY_HASH
                        ? VoleryConfig.Partitioning.HASH : VoleryConfig.Partitioning.SUBTREE;
                zookeeper = null;
                volery = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning));
                connect = volery.connectString();
            }
            String[] one = connect.split(",")[0].split(":");
            first = new InetSocketAddress(one[0], Integer.parseInt(one[1]));
        }

        /** Starts broker {@code id} with the coordination service at {@code zookeeperConnect} (a chroot added). */
        void start(int id, String zookeeperConnect) {
            ports.put(id, LoopbackPorts.free());
            brokers.put(id, KafkaBrokers.start(id, ports.get(id), zookeeperConnect + "/kafka", dir.resolve("broker-" + id),
                    Map.of()));
        }

        String bootstrap(int... ids) {
            return java.util.Arrays.stream(ids).mapToObj(id -> "127.0.0.1:" + ports.get(id))
                    .collect(java.util.stream.Collectors.joining(","));
        }

        void stop(int id) {
            KafkaServer b = brokers.remove(id);
            b.shutdown();
            b.awaitShutdown();
        }

        /** What the brokers keep in the coordination service, read back through it: the live brokers, the controller. */
        void assertRegistered(List<String> live, int controller) throws Exception {
            ZooKeeper zk = Clients.zooKeeper(connect, 10_000, null);
            try {
                assertEquals(live, zk.getChildren("/kafka/brokers/ids", false).stream().sorted().toList());
                String elected = new String(zk.getData("/kafka/controller", false, null), StandardCharsets.UTF_8);
                assertTrue(elected.contains("\"brokerid\":" + controller), elected);
                assertEquals(new TreeSet<>(List.of("0", "1", "2", "3")),
                        new TreeSet<>(zk.getChildren("/kafka/brokers/topics/" + TOPIC + "/partitions", false)));
            } finally {
                zk.close();
            }
        }

        @Override
        public void close() throws InterruptedException {
            for (int id : List.copyOf(brokers.keySet())) {
                stop(id);
            }
            Clients.stop(volery, zookeeper);
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Coordinator.class)
    void twoBrokersServeATopicAndOutliveTheirController(Coordinator coordinator) throws Exception {
        try (Setup s = new Setup(coordinator)) {
            s.start(1, s.connect);
            s.start(2, s.connect);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", s.bootstrap(1, 2)))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 4, (short) 2))).all().get(60, TimeUnit.SECONDS);
                awaitLeaders(admin, 4, -1);
                produce(s.bootstrap(1, 2), 0, 100);
                assertEquals(range(0, 100), consume(s.bootstrap(1, 2), 100));

                int controller = controller(admin);
                s.stop(controller);
                int survivor = 3 - controller;
                awaitController(admin, survivor);
                awaitLeaders(admin, 4, controller);
                produce(s.bootstrap(survivor), 100, 200);
                assertEquals(range(100, 200), consume(s.bootstrap(survivor), 100),
                        "the group reads on from its committed offsets");
                s.assertRegistered(List.of(String.valueOf(survivor)), survivor);
            }
        }
    }

    /**
     * Broker 2 reaches the coordination service through a relay that the test cuts: its session expires there,
     * its registration (an ephemeral node) goes, and the controller (broker 1 all along, or after winning the
     * election if broker 2 held it) sees it go through its child watch and moves every partition to broker 1.
     * When the relay comes back, broker 2's client finds its session expired, opens a new one and registers again
     * (Kafka checks the ephemeral node's owner against its new session), and rejoins every partition's in-sync
     * replicas; the group reads on, exactly the records that followed.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(Coordinator.class)
    void aBrokerCutOffFromTheCoordinationServiceIsReplacedAndComesBack(Coordinator coordinator) throws Exception {
        try (Setup s = new Setup(coordinator)) {
            CuttableProxy relay = new CuttableProxy(s.first);
            int relayPort = Integer.parseInt(relay.connectString().split(":")[1]);
            try {
                s.start(1, s.connect);
                s.start(2, relay.connectString());
                try (Admin admin = Admin.create(Map.of("bootstrap.servers", s.bootstrap(1)))) {
                    admin.createTopics(List.of(new NewTopic(TOPIC, 4, (short) 2))).all().get(60, TimeUnit.SECONDS);
                    awaitLeaders(admin, 4, -1);
                    produce(s.bootstrap(1), 0, 100);
                    assertEquals(range(0, 100), consume(s.bootstrap(1), 100));

                    relay.cut();
                    awaitController(admin, 1);
                    awaitLeaders(admin, 4, 2);
                    s.assertRegistered(List.of("1"), 1);
                    produce(s.bootstrap(1), 100, 200);

                    relay = new CuttableProxy(s.first, relayPort);
                    Clients.eventually("broker 2 registered again and back in every partition's in-sync replicas", () -> {
                        try {
                            TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                                    .get(10, TimeUnit.SECONDS).get(TOPIC);
                            return d.partitions().stream().allMatch(p -> p.isr().stream().anyMatch(n -> n.id() == 2));
                        } catch (Exception e) {
                            return false;
                        }
                    });
                    s.assertRegistered(List.of("1", "2"), 1);
                    assertEquals(range(100, 200), consume(s.bootstrap(1), 100),
                            "the group reads on from its committed offsets");
                }
            } finally {
                relay.close();
            }
        }
    }
}
