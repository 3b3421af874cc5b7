package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.eyrie.multicast.LoopbackPorts;
import io.volery.server.VoleryCluster;
import io.volery.server.backtoback.EmbeddedZooKeeper;
import io.volery.server.config.VoleryConfig;
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

    @ParameterizedTest(name = "{0}")
    @EnumSource(Coordinator.class)
    void twoBrokersServeATopicAndOutliveTheirController(Coordinator coordinator) throws Exception {
        EmbeddedZooKeeper zookeeper = null;
        VoleryCluster volery = null;
        List<KafkaServer> brokers = new ArrayList<>();
        try {
            String connect;
            if (coordinator == Coordinator.ZOOKEEPER) {
                zookeeper = Clients.listeningZooKeeper(dir);
                connect = zookeeper.connectString();
            } else {
                VoleryConfig.Partitioning partitioning = coordinator == Coordinator.VOLERY_HASH
                        ? VoleryConfig.Partitioning.HASH : VoleryConfig.Partitioning.SUBTREE;
                volery = new VoleryCluster(2, 3, 0, 500, o -> o.withPartitioning(partitioning));
                connect = volery.connectString();
            }
            Map<Integer, Integer> ports = new HashMap<>();
            for (int id = 1; id <= 2; id++) {
                ports.put(id, LoopbackPorts.free());
                brokers.add(broker(id, ports.get(id), connect + "/kafka"));
            }
            String bootstrap = "127.0.0.1:" + ports.get(1) + ",127.0.0.1:" + ports.get(2);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 4, (short) 2))).all().get(60, TimeUnit.SECONDS);
                awaitLeaders(admin, -1);
                produce(bootstrap, 0, 100);
                assertEquals(range(0, 100), consume(bootstrap, 100));

                int controller = admin.describeCluster().controller().get(30, TimeUnit.SECONDS).id();
                KafkaServer dying = brokers.get(controller - 1);
                dying.shutdown();
                dying.awaitShutdown();
                int survivor = 3 - controller;
                Clients.eventually("broker " + survivor + " became the controller", () -> {
                    try {
                        return admin.describeCluster().controller().get(10, TimeUnit.SECONDS).id() == survivor;
                    } catch (Exception e) {
                        return false;
                    }
                });
                awaitLeaders(admin, controller);
                String rest = "127.0.0.1:" + ports.get(survivor);
                produce(rest, 100, 200);
                assertEquals(range(100, 200), consume(rest, 100), "the group reads on from its committed offsets");

                // what the brokers keep in the coordination service, read back through it
                ZooKeeper zk = Clients.zooKeeper(connect, 10_000, null);
                try {
                    assertEquals(List.of(String.valueOf(survivor)), zk.getChildren("/kafka/brokers/ids", false));
                    String elected = new String(zk.getData("/kafka/controller", false, null), StandardCharsets.UTF_8);
                    assertTrue(elected.contains("\"brokerid\":" + survivor), elected);
                    assertEquals(new TreeSet<>(List.of("0", "1", "2", "3")),
                            new TreeSet<>(zk.getChildren("/kafka/brokers/topics/" + TOPIC + "/partitions", false)));
                } finally {
                    zk.close();
                }
            }
        } finally {
            for (KafkaServer b : brokers) {
                b.shutdown();
                b.awaitShutdown();
            }
            Clients.stop(volery, zookeeper);
        }
    }

    private KafkaServer broker(int id, int port, String zookeeperConnect) {
        Properties p = new Properties();
        p.put("broker.id", String.valueOf(id));
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("log.dirs", dir.resolve("broker-" + id).toString());
        p.put("zookeeper.connect", zookeeperConnect);
        p.put("zookeeper.session.timeout.ms", "10000");
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
