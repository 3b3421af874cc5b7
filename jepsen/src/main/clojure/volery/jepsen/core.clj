(ns volery.jepsen.core
  "Runs one test: starts the cluster, runs a workload from concurrent processes while a nemesis
  injects faults, heals, runs the final operations, then checks the history and stores
  history.edn, results.edn and timeline.html.

    java -cp ... clojure.main -m volery.jepsen.core --workload register --nemesis kill,partition-halves --time-limit 300"
  (:require [clojure.java.io :as io]
            [clojure.pprint :as pprint]
            [clojure.string :as str]
            [volery.jepsen.checker :as checker]
            [volery.jepsen.cluster :as cluster]
            [volery.jepsen.history :as h]
            [volery.jepsen.net :as net]
            [volery.jepsen.nemesis :as nemesis]
            [volery.jepsen.timeline :as timeline]
            [volery.jepsen.workloads :as workloads]
            [volery.jepsen.zk :as zk])
  (:import (java.time LocalDateTime)
           (java.time.format DateTimeFormatter)
           (java.util Random)
           (java.util.concurrent.atomic AtomicLong)))

(def defaults
  {:system :volery :workload :register :nemesis [:partition-halves :kill] :time-limit 60
   :concurrency 8 :op-delay-ms 40 :op-timeout-ms 4000 :nemesis-interval-s 5 :fault-duration-s 6
   :signals-off? false :seed nil})

(defn- log [& xs] (println (str "[jepsen " (.format (LocalDateTime/now) (DateTimeFormatter/ofPattern "HH:mm:ss")) "] " (str/join " " xs))) (flush))

(defn- ready-node? [c i]
  (try
    (let [z (zk/connect (cluster/connect-string c i) 3000)]
      (try (= :ok (:code (zk/get-data z "/" 3000))) (finally (zk/close! z))))
    (catch Exception _ false)))

(defn await-ready!
  "Waits until every node answers a read of / through the ZooKeeper client."
  [c timeout-s]
  (let [deadline (+ (System/currentTimeMillis) (* 1000 timeout-s))]
    (loop [waiting (set (:nodes c))]
      (let [waiting (set (remove #(ready-node? c %) waiting))
            dead (filter #(not (cluster/alive? c %)) waiting)]
        (cond (empty? waiting) true
              (seq dead)
              (throw (ex-info (str "nodes " (sort dead) " exited; last log lines:\n"
                                   (str/join "\n" (for [i dead] (str "node " i ":\n" (cluster/log-tail c i)))))
                              {:dead dead}))
              (> (System/currentTimeMillis) deadline)
              (throw (ex-info (str "nodes " (sort waiting) " did not answer within " timeout-s " s; last log lines:\n"
                                   (str/join "\n" (for [i waiting] (str "node " i ":\n" (cluster/log-tail c i)))))
                              {:waiting waiting}))
              :else (recur waiting))))))

(defn- with-client
  "Calls f with a client of node i, retrying until f returns without throwing (deadline s)."
  [c i deadline-s f]
  (let [deadline (+ (System/currentTimeMillis) (* 1000 deadline-s))]
    (loop []
      (let [r (try (let [z (zk/connect (cluster/connect-string c i) 5000)]
                     (try [:ok (f z)] (finally (zk/close! z))))
                   (catch Exception e
                     (if (> (System/currentTimeMillis) deadline) (throw e) [:retry e])))]
        (if (= :ok (first r)) (second r) (recur))))))

(defn- worker
  "One Jepsen process slot: runs operations until the deadline; after an indeterminate outcome
  the process is replaced by a fresh one (id + concurrency) with a new connection, as in Jepsen."
  [{:keys [concurrency op-delay-ms op-timeout-ms]} c w rec slot deadline counter client-nodes ^Random rnd]
  (loop [process slot z nil]
    (when (< (System/currentTimeMillis) deadline)
      ;; Jepsen's binding of processes to nodes; with a concurrency that is a multiple of the
      ;; node count a replacement process stays on its slot's node
      (let [node (nth client-nodes (mod process (count client-nodes)))
            z (or z (try (zk/connect (cluster/connect-string c node) op-timeout-ms) (catch Exception _ nil)))]
        (if-not z
          (recur (+ process concurrency) nil)
          (let [op ((:generate w) rnd (.getAndIncrement ^AtomicLong counter))
                inv (h/record! rec (assoc op :type :invoke :process process))
                done (try ((:invoke! w) z (select-keys inv [:f :value :process]) op-timeout-ms)
                          (catch Exception e (assoc op :type :info :error (str (.getName (class e)) ": " (.getMessage e)))))
                done (h/record! rec (merge {:process process} (select-keys done [:type :f :value :error])))]
            (Thread/sleep (long (.nextInt rnd (int (max 1 (* 2 op-delay-ms))))))
            (cond
              (= :info (:type done)) (do (zk/close! z) (recur (+ process concurrency) nil))
              ;; a definite failure leaves the process as it is, but an expired session would fail
              ;; every later operation: reconnect
              (= :session-expired (:error done)) (do (zk/close! z) (recur process nil))
              :else (recur process z))))))))

(defn- record-all!
  "Records a nemesis operation in every history of the run (one per workload)."
  [recs op]
  (doseq [r recs] (h/record! r op)))

(defn- run-nemesis [{:keys [nemesis nemesis-interval-s fault-duration-s]} c recs deadline]
  (loop [faults (cycle nemesis)]
    (let [quiet-until (+ (System/currentTimeMillis) (* 1000 nemesis-interval-s))]
      (while (and (< (System/currentTimeMillis) quiet-until) (< (System/currentTimeMillis) deadline))
        (Thread/sleep 100)))
    (when (and (seq nemesis) (< (+ (System/currentTimeMillis) (* 1000 fault-duration-s)) deadline))
      (let [f (first faults)
            _ (record-all! recs {:type :info :process :nemesis :f (keyword (str "start-" (name f))) :value nil})
            v (nemesis/start! c f)]
        (record-all! recs {:type :info :process :nemesis :f (keyword (str "start-" (name f))) :value v})
        (log "fault" (name f) (pr-str v))
        (Thread/sleep (* 1000 fault-duration-s))
        (record-all! recs {:type :info :process :nemesis :f (keyword (str "stop-" (name f))) :value nil})
        (record-all! recs {:type :info :process :nemesis :f (keyword (str "stop-" (name f))) :value (nemesis/stop! c f v)})
        (recur (rest faults))))))

(defn- final-ops!
  "Runs the workload's final operations after healing, each retried until it completes :ok."
  [opts c w rec first-process]
  (doseq [[k op] (map-indexed vector (:final w))]
    (let [deadline (+ (System/currentTimeMillis) 90000)]
      (loop [process (+ first-process k)]
        (let [node (rand-nth (:nodes c))
              inv (h/record! rec (assoc op :type :invoke :process process))
              done (try (let [z (zk/connect (cluster/connect-string c node) 5000)]
                          (try ((:invoke! w) z (select-keys inv [:f :value]) (* 3 (:op-timeout-ms opts)))
                               (finally (zk/close! z))))
                        (catch Exception e (assoc op :type :info :error (.getMessage e))))]
          (h/record! rec (merge {:process process} (select-keys done [:type :f :value :error])))
          (when (and (not= :ok (:type done)) (< (System/currentTimeMillis) deadline))
            (recur (+ process 1000))))))))

(defn check
  "Checks a history; returns Jepsen's results map."
  [opts w history dir]
  (let [hfile (io/file dir "history.edn")
        wres (case (:checker w)
               :linearizable (checker/linearizable (:checker-bin opts) hfile (io/file dir "linear.html"))
               :set (checker/set-check history)
               :unique-ids (checker/unique-ids-check history)
               :queue (checker/queue-check history)
               :transfer (checker/transfer-check history (* 2 workloads/initial-balance))
               :pipeline (checker/pipeline-check history))
        st (checker/stats history)]
    {:valid? (checker/merge-valid [(:valid? wres) (:valid? st)])
     :workload wres
     :stats st}))

(defn- check-and-store!
  "Writes a workload's history, timeline and results into dir and returns its results map."
  [opts w history dir test-name faults seed recovery]
  (.mkdirs (io/file dir))
  (h/write! history (io/file dir "history.edn"))
  (spit (io/file dir "timeline.html") (timeline/html history test-name))
  (let [checked (check opts w history dir)
        results (assoc checked
                       :valid? (checker/merge-valid [(:valid? checked) (:valid? recovery)])
                       :recovery recovery
                       :test test-name :seed seed :time-limit (:time-limit opts)
                       :nemesis faults :signals-off? (:signals-off? opts) :tls? (boolean (:tls? opts))
                       :storage (:storage opts :durable) :dir (str dir))]
    (spit (io/file dir "results.edn") (with-out-str (pprint/pprint results)))
    (log "results" test-name ":valid?" (:valid? results) "->" (str (io/file dir "results.edn")))
    results))

(defn run-test
  "Runs one test with opts (see defaults); returns the results map, also written to
  <store>/<name>/<time>/results.edn. With :workloads (several workload names) the workloads run
  at the same time on the same cluster under the same faults, each with its own :concurrency
  processes, its own history and its own checker (in <dir>/<workload>/); the faults are recorded
  in every history and the run is valid when every workload is."
  [opts]
  (let [opts (merge defaults opts)
        netns (if (:no-netns? opts) "disabled by --no-netns" (net/netns-available?))
        faults (if (true? netns) (:nemesis opts)
                   ;; without namespaces: the partition between partitions becomes a pause of one
                   (let [kept (vec (distinct (keep #(cond (= % :partition-partitions) :pause-partition
                                                          (nemesis/partition-fault? %) nil
                                                          :else %)
                                                   (:nemesis opts))))]
                     (when (not= kept (:nemesis opts))
                       (log "network partitions are not available (" netns "): running" (pr-str kept)
                            "instead of" (pr-str (:nemesis opts))))
                     (if (and (empty? kept) (seq (:nemesis opts))) [:pause] kept)))
        ;; ZooKeeper is not meant to survive a lost disk (a wiped server may vote before it has synced) and
        ;; in-memory Volery has none to lose: there the disk faults are the kills they include
        faults (if (and (some nemesis/disk-fault? faults)
                        (or (= :zookeeper (:system opts)) (= :memory (:storage opts))))
                 (let [kept (vec (distinct (replace {:lose-disk :kill :restart-lose-disk :restart} faults)))]
                   (log "no disk to lose on" (name (:system opts)) (name (:storage opts :durable)) ": running"
                        (pr-str kept) "instead of" (pr-str faults))
                   kept)
                 faults)
        opts (assoc opts :nemesis faults)
        _ (reset! workloads/partition-count (if (= :zookeeper (:system opts)) 2 (:partitions opts 2)))
        _ (reset! workloads/partitioning (if (= :zookeeper (:system opts)) :subtree (:partitioning opts :subtree)))
        names (vec (or (seq (:workloads opts)) [(:workload opts)]))
        several? (> (count names) 1)
        test-name (str (name (:system opts)) "-" (str/join "+" (map name names)) "-"
                       (if (seq faults) (str/join "+" (map name faults)) "none")
                       (when (:signals-off? opts) "-signals-off")
                       (when (:unordered-sessions? opts) "-unordered-sessions")
                       (when (and (:tls? opts) (not= :zookeeper (:system opts))) "-tls")
                       (when (and (= :memory (:storage opts)) (not= :zookeeper (:system opts))) "-memory")
                       (when (and (= :hash (:partitioning opts)) (not= :zookeeper (:system opts))) "-hash"))
        dir (io/file (:store opts "store") test-name (.format (LocalDateTime/now) (DateTimeFormatter/ofPattern "yyyyMMdd'T'HHmmss")))
        _ (.mkdirs dir)
        c (cluster/create {:system (:system opts) :dir (io/file dir "cluster")
                           ;; the nodes run from this JVM's classpath (Maven puts Volery and ZooKeeper's
                           ;; server on it); VOLERY_CLASSPATH adds one, e.g. under Leiningen
                           :classpath (:classpath opts (str (some-> (System/getenv "VOLERY_CLASSPATH") (str ":"))
                                                            (System/getProperty "java.class.path")))
                           :signals-off? (:signals-off? opts) :root-reads-anywhere? (:root-reads-anywhere? opts)
                           :unordered-sessions? (:unordered-sessions? opts)
                           :partitions (:partitions opts 2)
                           :tls? (:tls? opts)
                           :storage (:storage opts :durable)
                           :partitioning (:partitioning opts :subtree)
                           :snap-max-age-s (when (some nemesis/disk-fault? faults) 10)
                           :netns? (true? netns)})
        runs (vec (for [wn names]
                    {:name wn :w (workloads/workload wn opts) :rec (atom nil)
                     :dir (if several? (io/file dir (name wn)) dir)
                     :test-name (if several? (str test-name "/" (name wn)) test-name)}))
        recovery (atom nil)
        seed (or (:seed opts) (System/currentTimeMillis))
        rnd (Random. seed)]
    (log "test" test-name "seed" seed "->" (str dir))
    (try
      (cluster/setup! c)
      (cluster/start-all! c)
      (await-ready! c 120)
      (log "cluster ready:" (str/join "," (map #(cluster/connect-string c %) (:nodes c))))
      (doseq [{:keys [w]} runs]
        (with-client c (first (:nodes c)) 60 (fn [z] ((:setup! w) z 5000))))
      ;; each history's clock starts with the workloads
      (doseq [{:keys [rec]} runs] (reset! rec (h/recorder)))
      (let [recs (mapv (comp deref :rec) runs)
            deadline (+ (System/currentTimeMillis) (* 1000 (:time-limit opts)))
            client-nodes (vec (or (:client-nodes opts) (:nodes c)))
            workers (doall (for [{:keys [w rec]} runs
                                 :let [counter (AtomicLong.)]
                                 slot (range (:concurrency opts))
                                 :let [r (Random. (.nextLong rnd))]]
                             (future (worker opts c w @rec slot deadline counter client-nodes r))))
            nem (future (run-nemesis opts c recs deadline))]
        (doseq [f workers] @f)
        @nem
        (log "healing")
        (record-all! recs {:type :info :process :nemesis :f :heal :value nil})
        (nemesis/heal-all! c)
        (record-all! recs {:type :info :process :nemesis :f :heal :value :all}))
      ;; a cluster that does not recover is a finding, not a reason to lose the history
      (reset! recovery (try (await-ready! c (:recovery-timeout-s opts 120)) {:valid? true}
                            (catch clojure.lang.ExceptionInfo e
                              (log "not recovered:" (.getMessage e))
                              (log "mntr and thread dumps of every node ->" (str (cluster/dump-diagnostics! c)))
                              {:valid? false :error (.getMessage e)})))
      (when (:valid? @recovery)
        (doseq [{:keys [w rec]} runs]
          (final-ops! opts c w @rec 1000000)))
      (finally
        (cluster/teardown! c)
        (doseq [f (file-seq (io/file dir "cluster" "data")) :when (.isFile f)] (.delete f))))
    (let [per (into (array-map)
                    (for [{wn :name w :w rec :rec wdir :dir tn :test-name} runs]
                      [wn (check-and-store! opts w (h/ops @rec) wdir tn faults seed @recovery)]))]
      (if-not several?
        (val (first per))
        (let [results {:valid? (checker/merge-valid (map :valid? (vals per)))
                       :workloads (into (array-map) (for [[wn r] per] [wn (select-keys r [:valid? :workload :stats])]))
                       :recovery @recovery
                       :test test-name :seed seed :time-limit (:time-limit opts)
                       :nemesis faults :signals-off? (:signals-off? opts) :dir (str dir)}]
          (spit (io/file dir "results.edn") (with-out-str (pprint/pprint results)))
          (log "results" test-name ":valid?" (:valid? results) "->" (str (io/file dir "results.edn")))
          results)))))

(defn parse-args [args]
  (loop [[a b & more :as all] args opts {}]
    (if (empty? all)
      opts
      (case a
        "--system" (recur more (assoc opts :system (keyword b)))
        "--workload" (recur more (let [ws (mapv keyword (str/split b #","))]
                                   (if (next ws) (assoc opts :workloads ws) (assoc opts :workload (first ws)))))
        "--nemesis" (recur more (assoc opts :nemesis (if (= b "none") [] (mapv keyword (str/split b #",")))))
        "--time-limit" (recur more (assoc opts :time-limit (parse-long b)))
        "--concurrency" (recur more (assoc opts :concurrency (parse-long b)))
        "--partitions" (recur more (assoc opts :partitions (parse-long b)))
        "--store" (recur more (assoc opts :store b))
        "--checker" (recur more (assoc opts :checker-bin b))
        "--read-share" (recur more (assoc opts :read-share (parse-double b)))
        "--root-share" (recur more (assoc opts :root-share (parse-double b)))
        "--seed" (recur more (assoc opts :seed (parse-long b)))
        "--op-timeout" (recur more (assoc opts :op-timeout-ms (parse-long b)))
        "--fault-duration" (recur more (assoc opts :fault-duration-s (parse-long b)))
        "--nemesis-interval" (recur more (assoc opts :nemesis-interval-s (parse-long b)))
        "--signals-off" (recur (if (some? b) (cons b more) more) (assoc opts :signals-off? true))
        "--unordered-sessions" (recur (if (some? b) (cons b more) more) (assoc opts :unordered-sessions? true))
        "--no-netns" (recur (if (some? b) (cons b more) more) (assoc opts :no-netns? true))
        "--tls" (recur (if (some? b) (cons b more) more) (assoc opts :tls? true))
        "--storage" (recur more (assoc opts :storage (keyword b)))
        "--partitioning" (recur more (assoc opts :partitioning (keyword b)))
        (throw (ex-info (str "unknown option " a) {}))))))

(defn -main [& args]
  (let [opts (merge {:checker-bin (System/getProperty "jepsen.checker" "target/porcupine-checker")
                     :store (System/getProperty "jepsen.store" "store")}
                    (parse-args (remove nil? args)))
        results (run-test opts)]
    (shutdown-agents)
    (System/exit (if (true? (:valid? results)) 0 1))))
