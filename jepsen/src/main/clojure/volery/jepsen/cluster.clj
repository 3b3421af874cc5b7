(ns volery.jepsen.cluster
  "The system under test as separate processes: a Volery cluster (2 partitions x 3 replicas by
  default, :partitions n for n, durable acceptor logs unless :storage :memory) or, for comparison, a ZooKeeper 3.9.5 ensemble. Each node runs in its own
  network namespace when the test may create them (see volery.jepsen.net), else on 127.0.0.1."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [volery.jepsen.net :as net])
  (:import (java.io File)
           (java.net InetSocketAddress Socket)
           (java.nio.charset StandardCharsets)
           (java.util.concurrent TimeUnit)))

(def java-bin (str (System/getProperty "java.home") "/bin/java"))

(def jvm-opts
  "Small, quick-starting JVMs: the machine is shared and runs six of them."
  ["-Xmx192m" "-Xss512k" "-XX:+UseSerialGC" "-XX:TieredStopAtLevel=1" "-XX:CICompilerCount=1"])

(defn- free-port
  "A free 127.0.0.1 port below the ephemeral range, so no outgoing connection takes it first."
  []
  (io.eyrie.multicast.LoopbackPorts/free))

(defn- sh! [& args]
  (let [p (.start (ProcessBuilder. ^java.util.List (vec args)))]
    (.waitFor p 10 TimeUnit/SECONDS)))

(def tls-password "jepsen-tls")

(defn- volery-config [{:keys [nodes partitions addr ring-port client-port dir tls? storage partitioning snap-max-age-s]}]
  (str/join
   "\n"
   (concat
    ["# written by volery.jepsen.cluster"]
    (for [i nodes] (str "node." i " = " (addr i) ":" (ring-port i)))
    (for [[p members] partitions i members] (str "node." i ".groups = " p))
    (for [i nodes] (str "node." i ".clientPort = " (client-port i)))
    (for [i nodes] (str "node." i ".clientHost = " (addr i)))
    (for [[p members] partitions] (str "ring." p ".acceptors = " (str/join "," members)))
    (for [[p _] partitions] (str "group." p ".ring = " p))
    ;; the ALL ring lives on partition 1's nodes, so pausing partition 2 leaves it working
    [(str "ring.0.acceptors = " (str/join "," (get partitions 1)))
     "ring.all = 0"
     (str "storage = " (name (or storage :durable)))
     (str "dataDir = " dir "/data")
     (str "logDir = " dir "/logs")
     "tickTime = 1000"
     "minSessionTimeout = 2000"
     "maxSessionTimeout = 20000"
     (str "partitioning = " (name (or partitioning :subtree)))
     "timeout.heartbeatMillis = 50"
     "timeout.suspectMillis = 500"
     "batch.maxBytes = 1114112"]
    (when snap-max-age-s [(str "snapMaxAgeSeconds = " snap-max-age-s)])
    ;; mutual TLS between the nodes (ADR 061) with host names verified (ADR 065): one certificate naming
    ;; every node's address, as the nodes share this directory
    (when tls?
      ["sslQuorum = true"
       (str "ssl.quorum.keyStore.location = " dir "/tls/node.p12")
       (str "ssl.quorum.keyStore.password = " tls-password)
       (str "ssl.quorum.trustStore.location = " dir "/tls/trust.p12")
       (str "ssl.quorum.trustStore.password = " tls-password)])
    [""])))

(defn- zookeeper-config [{:keys [nodes addr client-port dir]} i]
  (str/join
   "\n"
   (concat
    ["tickTime=1000" "initLimit=10" "syncLimit=5" "forceSync=yes"
     (str "dataDir=" dir "/zk-" i)
     (str "clientPort=" (client-port i))
     (str "clientPortAddress=" (addr i))
     "admin.enableServer=false" "4lw.commands.whitelist=*"
     "maxSessionTimeout=20000" "minSessionTimeout=2000"]
    (for [j nodes] (str "server." j "=" (addr j) ":" (+ 2888 (* 10 j)) ":" (+ 3888 (* 10 j))))
    [""])))

(defn create
  "A cluster description; nothing runs yet. opts: :system (:volery or :zookeeper), :dir,
  :classpath, :signals-off? (the mutation), :root-reads-anywhere? (-Dvolery.rootHome=false: each
  front end reads the root in its own partition, as before ADR 053), :netns? (use namespaces), :tls?
  (Volery's nodes talk mutual TLS, host names verified), :storage (Volery's acceptor logs, :durable by
  default or :memory, whose killed node comes back empty and rejoins, ADR 074),
  :partitions (Volery's partition count, 2 by default; partition p is nodes 3p-2..3p), :partitioning
  (:subtree by default, or :hash), :unordered-sessions?
  (-Dvolery.testing.unorderedSessions=true: front ends send a session's requests without FIFO order, the
  pipeline workload's mutation), :snap-max-age-s (Volery's snapMaxAgeSeconds, 60 unless given: runs that lose
  disks snapshot more often, so that the acceptors trim within the run)."
  [{:keys [system dir classpath signals-off? root-reads-anywhere? netns? partitions tls? storage unordered-sessions?
           partitioning snap-max-age-s]
    :or {system :volery partitions 2 storage :durable partitioning :subtree}}]
  (let [nodes (if (= system :zookeeper) [1 2 3] (vec (range 1 (inc (* 3 partitions)))))
        ports (into {} (for [i nodes] [i [(free-port) (free-port)]]))
        dir (.getAbsolutePath (io/file dir))]
    {:system system
     :nodes nodes
     :partitions (if (= system :zookeeper) {1 nodes}
                     (into (sorted-map) (for [p (range 1 (inc partitions))] [p (vec (range (- (* 3 p) 2) (inc (* 3 p))))])))
     :netns? netns?
     :dir dir
     :classpath classpath
     :signals-off? signals-off?
     :root-reads-anywhere? root-reads-anywhere?
     :unordered-sessions? unordered-sessions?
     :tls? (and tls? (not= system :zookeeper))
     :storage storage
     :partitioning partitioning
     :snap-max-age-s snap-max-age-s
     :addr (if netns? net/node-ip (constantly "127.0.0.1"))
     :ring-port (if netns? (constantly 7000) #(first (ports %)))
     :client-port (if netns? (constantly 2181) #(second (ports %)))
     :procs (atom {})}))

(defn connect-string [c i] (str ((:addr c) i) ":" ((:client-port c) i)))

(defn partition-of [c i] (some (fn [[p ms]] (when (some #{i} ms) p)) (:partitions c)))

(defn- command [c i]
  (let [cfg (str (:dir c) "/cluster.cfg")]
    (concat
     (when (:netns? c) (net/exec-prefix i))
     [java-bin] jvm-opts
     (when (:signals-off? c) ["-Deyrie.testing.signalsOff=true"])
     (when (:root-reads-anywhere? c) ["-Dvolery.rootHome=false"])
     (when (:unordered-sessions? c) ["-Dvolery.testing.unorderedSessions=true"])
     ;; JEPSEN_NODE_OPTS: extra JVM options for every node (comparisons, e.g. -Dvolery.frontEndAnswers=false)
     (when (= :volery (:system c))
       (remove str/blank? (str/split (or (System/getenv "JEPSEN_NODE_OPTS") "") #"\s+")))
     (if (= :zookeeper (:system c))
       ["-Dzookeeper.admin.enableServer=false" "-Dzookeeper.log.dir=." "-cp" (:classpath c)
        "org.apache.zookeeper.server.quorum.QuorumPeerMain" (str (:dir c) "/zoo-" i ".cfg")]
       ["-cp" (:classpath c) "io.volery.server.VoleryMain" "start" "--config" cfg "--node" (str i)]))))

(defn setup!
  "Writes the configuration and creates the namespaces."
  [c]
  (.mkdirs (io/file (:dir c) "logs"))
  (when (:netns? c) (net/setup! (count (:nodes c))))
  (if (= :zookeeper (:system c))
    (doseq [i (:nodes c)]
      (.mkdirs (io/file (:dir c) (str "zk-" i)))
      (spit (io/file (:dir c) (str "zk-" i) "myid") (str i "\n"))
      (spit (io/file (:dir c) (str "zoo-" i ".cfg")) (zookeeper-config c i)))
    (do
      (when (:tls? c)
        (let [ca (io.eyrie.multicast.DevCertificates/create (.toPath (io/file (:dir c) "tls")) tls-password)]
          (.signed ca "node" "CN=volery jepsen node"
                   (str/join "," (distinct (concat (for [i (:nodes c)] (str "ip:" ((:addr c) i))) ["dns:localhost" "ip:127.0.0.1"]))))))
      (spit (io/file (:dir c) "cluster.cfg") (volery-config c))))
  c)

(defn start-node! [c i]
  (let [log (io/file (:dir c) "logs" (str "node-" i ".out"))
        pb (doto (ProcessBuilder. ^java.util.List (vec (command c i)))
             (.redirectErrorStream true)
             (.redirectOutput (java.lang.ProcessBuilder$Redirect/appendTo log)))]
    (swap! (:procs c) assoc i (.start pb))))

(defn pid [c i] (some-> (get @(:procs c) i) (.pid)))

(defn alive? [c i] (boolean (some-> (get @(:procs c) i) (.isAlive))))

(defn kill-node!
  "kill -9, and waits until the process is gone."
  [c i]
  (when-let [^Process p (get @(:procs c) i)]
    (sh! "kill" "-CONT" (str (.pid p))) ; a paused process dies only once continued
    (.destroyForcibly p)
    (.waitFor p 10 TimeUnit/SECONDS)
    (swap! (:procs c) dissoc i)))

(defn wipe-node!
  "Deletes a (stopped) Volery node's data directory: its acceptor logs and snapshots, as a lost disk."
  [c i]
  (let [d (io/file (:dir c) "data" (str "node-" i))]
    (when (.exists d)
      (doseq [^File f (reverse (file-seq d))] (.delete f)))))

(declare four-letter)

(defn await-serving!
  "Waits up to ms milliseconds until node i answers ruok; false if it does not."
  [c i ms]
  (let [deadline (+ (System/currentTimeMillis) ms)]
    (loop []
      (cond (some-> (four-letter c i "ruok") (str/starts-with? "imok")) true
            (> (System/currentTimeMillis) deadline) false
            :else (do (Thread/sleep 100) (recur))))))

(defn pause-node! [c i] (some->> (pid c i) str (sh! "kill" "-STOP")))
(defn resume-node! [c i] (some->> (pid c i) str (sh! "kill" "-CONT")))

(defn start-all! [c] (doseq [i (:nodes c)] (start-node! c i)))
(defn kill-all! [c] (doseq [i (:nodes c)] (kill-node! c i)))

(defn four-letter
  "A four-letter word's answer from node i, or nil when it does not answer within a second."
  [c i word]
  (try
    (with-open [s (Socket.)]
      (.connect s (InetSocketAddress. ^String ((:addr c) i) (int ((:client-port c) i))) 1000)
      (.setSoTimeout s 1000)
      (.write (.getOutputStream s) (.getBytes ^String word StandardCharsets/US_ASCII))
      (String. (.readAllBytes (.getInputStream s)) StandardCharsets/UTF_8))
    (catch Exception _ nil)))

(defn coordinator
  "The node that node i sees as coordinator of ring r (Volery's mntr), or nil."
  [c i r]
  (some->> (four-letter c i "mntr")
           (re-find (re-pattern (str "volery_ring_" r "_coordinator\\s+(-?\\d+)")))
           second parse-long))

(defn dump-diagnostics!
  "Writes every live node's mntr and a thread dump (jstack of its JVM) under the cluster's
  diagnostics directory: what a cluster that did not recover was waiting for, before teardown
  kills it. Returns the directory."
  [c]
  (let [d (io/file (:dir c) "diagnostics")]
    (.mkdirs d)
    (doseq [i (:nodes c)]
      (spit (io/file d (str "mntr-" i ".txt")) (or (four-letter c i "mntr") "no answer\n"))
      (when-let [pid (pid c i)]
        (let [out (io/file d (str "jstack-" i ".txt"))
              p (.start (doto (ProcessBuilder. ^java.util.List ["jstack" (str pid)])
                          (.redirectErrorStream true)
                          (.redirectOutput out)))]
          (when-not (.waitFor p 30 TimeUnit/SECONDS)
            (.destroyForcibly p)))))
    d))

(defn teardown! [c]
  (kill-all! c)
  (when (:netns? c) (net/teardown! (count (:nodes c)))))

(defn log-tail [c i]
  (let [f (io/file (:dir c) "logs" (str "node-" i ".out"))]
    (when (.exists f)
      (let [lines (str/split-lines (slurp f))]
        (str/join "\n" (take-last 15 lines))))))
