(ns volery.jepsen.nemesis
  "Faults, each a pair of actions (start, stop) on a cluster, recorded in the history as :info
  operations of process :nemesis:
    :kill               kill -9 of one node, restarted at the stop
    :pause              SIGSTOP of one node, SIGCONT at the stop
    :pause-partition    SIGSTOP of every node of Volery's partition 2 (the mutation check's fault)
    :partition-halves   the nodes cut into two random halves
    :partition-bridge   two halves that only one node hears both of (Jepsen's bridge)
    :partition-coordinator  a ring coordinator (ZooKeeper: the leader) cut from every other node
    :partition-partitions   Volery's partition 1 nodes cut from partition 2's (the mutation check's fault)
    :restart            every node killed (kill -9) and started again
    :lose-disk          kill -9 of one node and its data directory deleted (acceptor logs, snapshots): it
                        comes back empty at the stop (its acceptors rejoin, ADR 074; its replica takes a peer's
                        snapshot, ADR 063). Volery with durable storage only
    :restart-lose-disk  every node killed, one node's data directory deleted, and that node started first and
                        alone, so no peer can give it a snapshot; then the others (its learner is behind the
                        acceptors' trimmed logs and takes a peer's snapshot while running, ADR 103)"
  (:require [clojure.string :as str]
            [volery.jepsen.cluster :as cluster]
            [volery.jepsen.net :as net]))

(def all-faults [:kill :pause :pause-partition :partition-halves :partition-bridge :partition-coordinator
                 :partition-partitions :restart :lose-disk :restart-lose-disk])

(defn disk-fault? [f] (contains? #{:lose-disk :restart-lose-disk} f))

(defn partition-fault? [f] (str/starts-with? (name f) "partition-"))

(defn- complete-grudge
  "Each node of one component hears nothing from the others."
  [components]
  (into {} (for [c components n c] [n (set (remove (set c) (apply concat components)))])))

(defn- halves [nodes]
  (let [s (shuffle nodes) k (quot (count s) 2)]
    [(take k s) (drop k s)]))

(defn- bridge [nodes]
  (let [s (shuffle nodes) k (quot (count s) 2)
        a (take k s) b (drop (inc k) s) mid (nth s k)]
    ;; mid hears both halves; the halves do not hear each other
    (merge-with into (complete-grudge [a b]) {mid #{}})))

(defn- leader [c]
  (if (= :zookeeper (:system c))
    (some #(when (some->> (cluster/four-letter c % "srvr") (re-find #"Mode: leader")) %) (:nodes c))
    (let [ring (rand-nth (vec (cons 0 (keys (:partitions c)))))
          asker (rand-nth (:nodes c))]
      (cluster/coordinator c asker ring))))

(defn start!
  "Begins fault f; returns what to log as its value."
  [c f]
  (case f
    :kill (let [n (rand-nth (:nodes c))] (cluster/kill-node! c n) [n])
    :pause (let [n (rand-nth (:nodes c))] (cluster/pause-node! c n) [n])
    :pause-partition (let [ns (get (:partitions c) 2 (take 1 (:nodes c)))]
                       (doseq [n ns] (cluster/pause-node! c n)) (vec ns))
    :partition-halves (let [g (complete-grudge (halves (:nodes c)))] (net/cut! g) g)
    :partition-bridge (let [g (bridge (:nodes c))] (net/cut! g) g)
    :partition-coordinator (let [l (or (leader c) (rand-nth (:nodes c)))
                                 g (complete-grudge [[l] (remove #{l} (:nodes c))])]
                             (net/cut! g) {:isolated l :grudge g})
    :partition-partitions (let [g (complete-grudge (vals (:partitions c)))]
                            (when (< 1 (count (:partitions c))) (net/cut! g))
                            g)
    :restart (do (cluster/kill-all! c) (cluster/start-all! c) :all)
    :lose-disk (let [n (rand-nth (:nodes c))]
                 (cluster/kill-node! c n)
                 (cluster/wipe-node! c n)
                 [n])
    :restart-lose-disk (let [n (rand-nth (:nodes c))]
                         (cluster/kill-all! c)
                         (cluster/wipe-node! c n)
                         (cluster/start-node! c n)
                         (cluster/await-serving! c n 30000)
                         (doseq [i (:nodes c) :when (not= i n)] (cluster/start-node! c i))
                         {:wiped n})))

(defn stop!
  "Ends fault f that start! began with value v."
  [c f v]
  (case f
    (:kill :lose-disk) (doseq [n v] (cluster/start-node! c n))
    (:pause :pause-partition) (doseq [n v] (cluster/resume-node! c n))
    (:partition-halves :partition-bridge :partition-coordinator :partition-partitions) (net/heal! (:nodes c))
    (:restart :restart-lose-disk) nil)
  :healed)

(defn heal-all!
  "Undoes every fault: resumes, restarts what is down, removes every cut."
  [c]
  (doseq [n (:nodes c)] (cluster/resume-node! c n))
  (when (:netns? c) (net/heal! (:nodes c)))
  (doseq [n (:nodes c) :when (not (cluster/alive? c n))] (cluster/start-node! c n)))
