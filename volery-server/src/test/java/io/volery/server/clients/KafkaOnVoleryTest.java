package io.volery.server.clients;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;
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

    private static final String TOPIC = "events";

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
            brokers.put(id, broker(id, ports.get(id), zookeeperConnect + "/kafka"));
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
                awaitLeaders(admin, -1);
                produce(s.bootstrap(1, 2), 0, 100);
                assertEquals(range(0, 100), consume(s.bootstrap(1, 2), 100));

                int controller = controller(admin);
                s.stop(controller);
                int survivor = 3 - controller;
                awaitController(admin, survivor);
                awaitLeaders(admin, controller);
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
                    awaitLeaders(admin, -1);
                    produce(s.bootstrap(1), 0, 100);
                    assertEquals(range(0, 100), consume(s.bootstrap(1), 100));

                    relay.cut();
                    awaitController(admin, 1);
                    awaitLeaders(admin, 2);
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

    private static int controller(Admin admin) throws Exception {
        return admin.describeCluster().controller().get(30, TimeUnit.SECONDS).id();
    }

    private static void awaitController(Admin admin, int id) throws InterruptedException {
        Clients.eventually("broker " + id + " is the controller", () -> {
            try {
                return controller(admin) == id;
            } catch (Exception e) {
                return false;
            }
        });
    }

    private KafkaServer broker(int id, int port, String zookeeperConnect) {
        Properties p = new Properties();
        p.put("broker.id", String.valueOf(id));
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("log.dirs", dir.resolve("broker-" + id).toString());
        p.put("zookeeper.connect", zookeeperConnect);
        p.put("zookeeper.session.timeout.ms", "6000");
        p.put("zookeeper.connection.timeout.ms", "30000");
        p.put("offsets.topic.replication.factor", "2");
        p.put("offsets.topic.num.partitions", "4");
        p.put("transaction.state.log.replication.factor", "2");
        p.put("transaction.state.log.min.isr", "1");
        p.put("min.insync.replicas", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("background.threads", "2");
        p.put("log.cleaner.enable", "false");
        // the last broker's controlled shutdown has nowhere to move its leaders: give up at once, not after 3 x 5 s
        p.put("controlled.shutdown.max.retries", "1");
        p.put("controlled.shutdown.retry.backoff.ms", "200");
        KafkaServer server = new KafkaServer(KafkaConfig.fromProps(p), Time.SYSTEM, scala.Option.empty(), false);
        server.startup();
        return server;
    }

    /** Waits until every partition of the topic has a leader other than {@code gone} and all its replicas' leader is known. */
    private static void awaitLeaders(Admin admin, int gone) throws InterruptedException {
        Clients.eventually("every partition of " + TOPIC + " led by a live broker", () -> {
            try {
                TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC);
                for (TopicPartitionInfo p : d.partitions()) {
                    if (p.leader() == null || p.leader().isEmpty() || p.leader().id() == gone) {
                        return false;
                    }
                }
                return d.partitions().size() == 4;
            } catch (Exception e) {
                return false;
            }
        });
    }

    private static void produce(String bootstrap, int from, int to) throws Exception {
        Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "acks", "all", "enable.idempotence", "true",
                "delivery.timeout.ms", "60000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = from; i < to; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }

    /** Reads {@code count} records as the group "readers", commits, and returns their values in order of value. */
    private static TreeSet<String> consume(String bootstrap, int count) {
        Map<String, Object> config = Map.of("bootstrap.servers", bootstrap, "group.id", "readers",
                "auto.offset.reset", "earliest", "enable.auto.commit", "false");
        TreeSet<String> values = new TreeSet<>();
        int records = 0;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            long deadline = System.nanoTime() + Clients.PATIENCE.toNanos() * 2;
            while (records < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                    records++;
                }
            }
            consumer.commitSync(Duration.ofSeconds(30));
            // nothing more than what was produced
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                values.add(r.value());
                records++;
            }
        }
        assertEquals(count, records, "records read (duplicates included)");
        return values;
    }

    private static TreeSet<String> range(int from, int to) {
        TreeSet<String> values = new TreeSet<>();
        for (int i = from; i < to; i++) {
            values.add("v" + i);
        }
        return values;
    }
}
