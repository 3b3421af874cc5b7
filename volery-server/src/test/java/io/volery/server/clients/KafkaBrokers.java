package io.volery.server.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import kafka.server.KafkaConfig;
import kafka.server.KafkaServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Time;

/**
 * Real Kafka 3.9 brokers in ZooKeeper mode, in the test JVM, and what the Kafka tests do with them: a topic
 * ({@value #TOPIC}) written with acks=all and read by the consumer group "readers" from its committed offsets.
 */
public final class KafkaBrokers {
    public static final String TOPIC = "events";

    private KafkaBrokers() {
    }

    /** Polls {@code condition} until it holds; fails with {@code what} after {@link Clients#PATIENCE}. */
    public static void eventually(String what, java.util.function.BooleanSupplier condition) throws InterruptedException {
        Clients.eventually(what, condition);
    }

    public static int controller(Admin admin) throws Exception {
        return admin.describeCluster().controller().get(30, TimeUnit.SECONDS).id();
    }

    public static void awaitController(Admin admin, int id) throws InterruptedException {
        Clients.eventually("broker " + id + " is the controller", () -> {
            try {
                return controller(admin) == id;
            } catch (Exception e) {
                return false;
            }
        });
    }

    public static KafkaServer start(int id, int port, String zookeeperConnect, Path logDir, Map<String, String> overrides) {
        Properties p = new Properties();
        p.put("broker.id", String.valueOf(id));
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("log.dirs", logDir.toString());
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
        p.putAll(overrides);
        KafkaServer server = new KafkaServer(KafkaConfig.fromProps(p), Time.SYSTEM, scala.Option.empty(), false);
        server.startup();
        return server;
    }

    /** Waits until every partition of the topic has a leader other than {@code gone} and all its replicas' leader is known. */
    public static void awaitLeaders(Admin admin, int partitions, int gone) throws InterruptedException {
        Clients.eventually("every partition of " + TOPIC + " led by a live broker", () -> {
            try {
                TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get(10, TimeUnit.SECONDS).get(TOPIC);
                for (TopicPartitionInfo p : d.partitions()) {
                    if (p.leader() == null || p.leader().isEmpty() || p.leader().id() == gone) {
                        return false;
                    }
                }
                return d.partitions().size() == partitions;
            } catch (Exception e) {
                return false;
            }
        });
    }

    public static void produce(String bootstrap, int from, int to) throws Exception {
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
    public static TreeSet<String> consume(String bootstrap, int count) {
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

    public static TreeSet<String> range(int from, int to) {
        TreeSet<String> values = new TreeSet<>();
        for (int i = from; i < to; i++) {
            values.add("v" + i);
        }
        return values;
    }
}
