(ns volery.jepsen.ci-test
  "The short version CI runs (about 5 minutes): registers over both partitions under a network
  partition and a kill -9 must be linearizable, with plain TCP and with TLS between the nodes, and under
  kills with in-memory acceptor logs (ADR 074) and through lost disks; pipelined sessions must keep their FIFO order and
  linearizability under the same faults, also under hash partitioning (registers, transfers and pipelines at
  once); and the
  mutation check: with Eyrie's signals off
  the same register workload must show a violation, with them on none, under the same fault."
  (:require [clojure.test :refer [deftest is testing]]
            [volery.jepsen.cluster :as cluster]
            [volery.jepsen.core :as core]))

(def base
  {:checker-bin (System/getProperty "jepsen.checker" "target/porcupine-checker")
   :store (System/getProperty "jepsen.store" "target/store")
   :concurrency 8})

(defn- faults-injected [results]
  (->> (volery.jepsen.history/read-history (str (:dir results) "/history.edn"))
       (filter #(and (= :nemesis (:process %)) (some? (:value %))))
       (map :f) frequencies))

(deftest registers-over-both-partitions-stay-linearizable-through-a-partition-and-a-kill
  (let [r (core/run-test (merge base {:workload :register :nemesis [:partition-halves :kill]
                                      :time-limit 60 :nemesis-interval-s 4 :fault-duration-s 6}))
        faults (faults-injected r)]
    (is (= true (:valid? r)) (str "expected a linearizable history, got :valid? " (:valid? r) ": " (:workload r)
                                  " (history in " (:dir r) ")"))
    (is (pos? (get faults (if (some #{:partition-halves} (:nemesis r)) :start-partition-halves :start-pause) 0))
        (str "expected a partition (or, without namespaces, a pause) to be injected, faults were " faults))
    (is (pos? (get faults :start-kill 0)) (str "expected a kill -9 to be injected, faults were " faults))
    (is (< 100 (get-in r [:stats :ok-count] 0)) (str "expected over 100 acknowledged operations, stats " (:stats r)))))

(deftest with-tls-between-the-nodes-registers-stay-linearizable-through-a-partition-and-a-kill
  ;; sslQuorum with host names verified (ADRs 061, 065): every ring link is redialled through TLS after the
  ;; cuts heal and the killed node restarts
  (let [r (core/run-test (merge base {:workload :register :nemesis [:partition-halves :kill] :tls? true
                                      :time-limit 30 :nemesis-interval-s 3 :fault-duration-s 5}))
        faults (faults-injected r)
        logs (->> (file-seq (java.io.File. (str (:dir r) "/cluster/logs"))) (filter #(.isFile %)) (map slurp)
                  (apply str))]
    (is (= true (:valid? r)) (str "expected a linearizable history over TLS, got :valid? " (:valid? r) ": "
                                  (:workload r) " (history in " (:dir r) ")"))
    (is (pos? (get faults :start-kill 0)) (str "expected a kill -9 to be injected, faults were " faults))
    (is (re-find #"TLS between nodes, host names verified" logs) "the nodes did not talk TLS")
    (is (< 50 (get-in r [:stats :ok-count] 0)) (str "expected over 50 acknowledged operations, stats " (:stats r)))))

(deftest with-in-memory-acceptors-registers-stay-linearizable-through-kills
  ;; storage = memory: each killed node comes back with empty acceptor logs and must rejoin its rings (read
  ;; the other acceptors above their promises) before it votes again (ADR 074); one node is down at a time
  (let [r (core/run-test (merge base {:workload :register :nemesis [:kill] :storage :memory
                                      :time-limit 40 :nemesis-interval-s 3 :fault-duration-s 5}))
        faults (faults-injected r)
        logs (->> (file-seq (java.io.File. (str (:dir r) "/cluster/logs"))) (filter #(.isFile %)) (map slurp)
                  (apply str))]
    (is (= true (:valid? r)) (str "expected a linearizable history with in-memory acceptors killed and restarted, got "
                                  ":valid? " (:valid? r) ": " (:workload r) " (history in " (:dir r) ")"))
    (is (pos? (get faults :start-kill 0)) (str "expected a kill -9 to be injected, faults were " faults))
    ;; a first start's rejoin holds "0..-1": this one held the ring's history
    (is (re-find #"acceptor rejoined holding instances \d+\.\.\d" logs)
        "no killed node rejoined its rings with the ring's history")
    (is (< 100 (get-in r [:stats :ok-count] 0)) (str "expected over 100 acknowledged operations, stats " (:stats r)))))

(deftest with-lost-disks-registers-stay-linearizable
  ;; a node killed with its data directory deleted comes back empty (acceptors rejoin, ADR 074; the replica
  ;; takes a peer's snapshot, ADR 063), and after a restart of every node the wiped one starts first and alone,
  ;; so none can give it a snapshot (once the acceptors trimmed, its learner takes one while running, ADR 103)
  (let [r (core/run-test (merge base {:workload :register :nemesis [:lose-disk :restart-lose-disk]
                                      :time-limit 45 :nemesis-interval-s 4 :fault-duration-s 5}))
        faults (faults-injected r)]
    (is (= true (:valid? r)) (str "expected a linearizable history through lost disks, got :valid? " (:valid? r) ": "
                                  (:workload r) " (history in " (:dir r) ")"))
    (is (pos? (get faults :start-lose-disk 0)) (str "expected a lost disk, faults were " faults))
    (is (pos? (get faults :start-restart-lose-disk 0)) (str "expected a restart with a lost disk, faults were " faults))
    (is (< 100 (get-in r [:stats :ok-count] 0)) (str "expected over 100 acknowledged operations, stats " (:stats r)))))

(deftest pipelined-sessions-keep-fifo-order-and-linearizability-through-a-partition-and-a-kill
  ;; ZooKeeper clients keep many requests in flight; each burst here mixes writes to both partitions and
  ;; reads of other sessions' registers (the :pipeline checker takes the bursts apart call by call)
  (let [r (core/run-test (merge base {:workload :pipeline :nemesis [:partition-halves :kill]
                                      :time-limit 40 :nemesis-interval-s 4 :fault-duration-s 6}))
        faults (faults-injected r)
        w (:workload r)]
    (is (= true (:valid? r)) (str "expected FIFO, linearizable pipelines, got :valid? " (:valid? r) ": " w
                                  " (history in " (:dir r) ")"))
    (is (pos? (get faults :start-kill 0)) (str "expected a kill -9 to be injected, faults were " faults))
    ;; not vacuous: bursts several calls deep, and reads that saw other sessions' writes
    (is (<= 6 (:longest-burst w 0)) (str w))
    (is (< 200 (:reads-of-other-sessions-above-zero w 0)) (str "too few reads saw other sessions' writes: " w))
    (is (< 500 (:writes-acknowledged w 0)) (str w))
    ;; and top-level creates and deletes (every partition orders them) in the same pipelines, seen by others
    (is (< 100 (:top-level-changes-acknowledged w 0)) (str w))
    (is (< 50 (get-in w [:reads-of-other-sessions-top-level :present] 0)) (str w))
    ;; and reads of the root's children that listed other sessions' top-level nodes
    (is (< 50 (:root-reads-showing-others w 0)) (str w))))

(deftest mutation-check-without-fifo-sessions-the-pipeline-checker-finds-reordered-requests
  ;; front ends that send a session's requests at once (-Dvolery.testing.unorderedSessions=true) let a write to
  ;; partition 2 be applied before the same session's earlier write to partition 1, and a read overtake the
  ;; session's own write: with no fault at all, 20 s show it (146 violations in 30 s when written; with top-level
  ;; toggles, session 45: 3,488 in 30 s, 324 of them on top-level nodes)
  (let [r (core/run-test (merge base {:workload :pipeline :nemesis [] :unordered-sessions? true :time-limit 20}))
        kinds (set (map :kind (get-in r [:workload :violations])))]
    (is (= false (get-in r [:workload :valid?]))
        (str "without FIFO sessions the pipeline checker must find a violation; it said " (:workload r)
             " (history in " (:dir r) ")"))
    (is (some #{:session-order :own-read} kinds) (str "expected a session-order or own-read violation, got " kinds))
    ;; among them top-level creates and deletes overtaken by (or overtaking) the session's other requests
    (is (some #(= :z (second %)) (keys (get-in r [:workload :violations-by-kind])))
        (str "expected a violation on a top-level node, got " (get-in r [:workload :violations-by-kind])))))

(deftest under-hash-partitioning-registers-transfers-and-pipelines-stay-correct-through-a-partition-and-a-kill
  ;; partitioning = hash: every node is placed by its whole path and every partition applies every create and
  ;; delete; the workloads place each register's leaf itself in its partition (workloads-test checks that against
  ;; Volery's partitioner), so a write of both registers and a transfer are requests to two partitions here too
  (let [r (core/run-test (merge base {:workloads [:register :transfer :pipeline] :partitioning :hash
                                      :nemesis [:partition-halves :kill]
                                      :time-limit 40 :nemesis-interval-s 4 :fault-duration-s 6}))
        ws (:workloads r)
        faults (faults-injected {:dir (str (:dir r) "/register")})]
    (is (= true (:valid? r)) (str "expected every workload to be valid under hash, got " (pr-str ws)
                                  " (histories in " (:dir r) ")"))
    (is (pos? (get faults :start-kill 0)) (str "expected a kill -9 to be injected, faults were " faults))
    (is (< 100 (get-in ws [:register :stats :ok-count] 0)) (str (get-in ws [:register :stats])))
    (is (< 50 (get-in ws [:transfer :workload :transfers-ok] 0)) (str (get-in ws [:transfer :workload])))
    (is (< 50 (get-in ws [:pipeline :workload :top-level-changes-acknowledged] 0)) (str (get-in ws [:pipeline :workload])))))

(def mutation
  "Every operation on the root znode, which every partition writes and, here, each front end reads
  from its own partition (-Dvolery.rootHome=false: as before ADR 053, whose reads at the root's owner
  and wait for its events would hide what this check is about, Eyrie's signals). Partition 1 is cut
  from partition 2 for 4 s at a time: without signals a write completes in partition 1 alone, and a
  read that partition 2 orders before it (its own ring runs on) answers the old value once the cut
  heals. Reads time out after 1.5 s (as :fail, they change nothing), so that processes on partition
  2 keep invoking reads during the cut; 12 processes, two on each node for the whole run."
  (merge base {:workload :register :root-share 1.0 :read-share 0.7 :nemesis [:partition-partitions]
               :root-reads-anywhere? true
               :concurrency 12 :time-limit 25 :nemesis-interval-s 3 :fault-duration-s 4 :op-timeout-ms 1500}))

(deftest mutation-check-without-signals-the-checker-finds-the-figure-1-violation
  ;; without signals the cluster may not recover after the cuts (seen twice in five runs): the
  ;; check needs the history only, so do not wait long for it
  ;; the violation needs a read to be ordered inside a cut; a run of 25 s finds it most times, not
  ;; always: up to three runs, the first that finds it ends the test
  (let [r (loop [k 1]
            (let [r (core/run-test (assoc mutation :signals-off? true :recovery-timeout-s 20))]
              (if (or (false? (get-in r [:workload :valid?])) (>= k 3)) r (recur (inc k)))))]
    (is (= false (get-in r [:workload :valid?]))
        (str "with Eyrie's signals off, a read ordered by partition 2 before a write to both partitions that had "
             "already completed must be found; the checker said " (:workload r) " (history in " (:dir r) ")"))))

(deftest mutation-check-with-signals-the-same-schedule-is-linearizable
  (let [r (core/run-test (assoc mutation :signals-off? false))]
    (is (= true (:valid? r))
        (str "with signals on the same workload and pauses must be linearizable; got " (:workload r)
             " (history in " (:dir r) ")"))))

(deftest a-cluster-that-does-not-recover-leaves-mntr-and-thread-dumps
  ;; what run-test writes when the cluster does not answer after the heal (session 27 had to
  ;; capture these by hand): every node's mntr and a jstack of its JVM
  (let [dir (java.io.File. (str (:store base) "/diagnostics-" (System/currentTimeMillis)))
        c (cluster/create {:system :volery :dir dir :partitions 2 :netns? false
                                         :classpath (System/getProperty "java.class.path")})]
    (try
      (cluster/setup! c)
      (cluster/start-all! c)
      (core/await-ready! c 120)
      (let [d (cluster/dump-diagnostics! c)]
        (doseq [i (:nodes c)]
          (is (re-find #"volery_commands_executed\s+\d+" (slurp (java.io.File. d (str "mntr-" i ".txt"))))
              (str "node " i "'s mntr"))
          (is (re-find #"VoleryMain|eyrie-" (slurp (java.io.File. d (str "jstack-" i ".txt"))))
              (str "node " i "'s thread dump"))))
      (finally
        (cluster/teardown! c)
        (doseq [f (file-seq (java.io.File. dir "data")) :when (.isFile f)] (.delete f))))))
