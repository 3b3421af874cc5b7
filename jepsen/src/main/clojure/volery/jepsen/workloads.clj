(ns volery.jepsen.workloads
  "The workloads of Jepsen's ZooKeeper test and ClickHouse Keeper's suite, as operations on the
  ZooKeeper API. A workload is a map:
    :setup!    (fn [zk timeout-ms]) creates what the operations need
    :generate  (fn [^java.util.Random rnd n]) the n-th operation to invoke: {:f .. :value ..}
    :invoke!   (fn [zk op timeout-ms]) runs it: the op with :type :ok, :fail or :info
    :final     operations run once after the faults have healed (final reads, draining)
    :checker   the key of its checker in volery.jepsen.checker
  The same functions serve the Maven-built runner and project.clj."
  (:require [clojure.string :as str]
            [volery.jepsen.zk :as zk])
  (:import (java.util Random)
           (java.util.zip CRC32)))

(def partition-count
  "How many partitions the Volery cluster under test has (the runner sets it; 2 by default)."
  (atom 2))

(def partitioning
  "How the Volery cluster under test places znodes, :subtree or :hash (the runner sets it)."
  (atom :subtree))

(defn- crc-partition [^String key]
  (let [crc (doto (CRC32.) (.update (.getBytes key "UTF-8")))]
    (inc (mod (.getValue crc) @partition-count))))

(defn partition-of-path
  "The Volery partition (1..n of an n-partition cluster) owning the absolute path p (not the root, not
  a quota node): :subtree hashes its first component with CRC32, :hash the whole path."
  [^String p]
  (if (= :hash @partitioning)
    (crc-partition p)
    (let [slash (.indexOf p "/" 1)]
      (crc-partition (subs p 1 (if (neg? slash) (count p) slash))))))

(defn partition-of-name
  "The Volery partition owning the top-level znode /s."
  [^String s]
  (partition-of-path (str "/" s)))

(defn- first-in
  "The first of the absolute paths that Volery places in partition p."
  [p paths]
  (first (filter #(= p (partition-of-path %)) paths)))

(defn top-level-in
  "The first name prefix-0, prefix-1, ... whose top-level znode Volery places in partition p."
  [prefix p]
  (subs (first-in p (map #(str "/" prefix "-" %) (range))) 1))

(defn path-in
  "The path dir/leaf if Volery places it in partition p, else the first of dir/leaf-1, dir/leaf-2, ... that
  it does. Under :subtree dir's first component places everything below it, so with dir placed in p this is
  dir/leaf; under :hash the leaf itself must be."
  [dir leaf p]
  (first-in p (cons (str dir "/" leaf) (map #(str dir "/" leaf "-" %) (next (range))))))

(defn- write-result
  "An :ok, :fail or :info completion of a write from a ZooKeeper result."
  [op {c :code :as r}]
  (cond (= c :ok) (assoc op :type :ok)
        (zk/definite-failures c) (assoc op :type :fail :error c)
        :else (assoc op :type :info :error c)))

(defn- read-failure [op {c :code}] (assoc op :type :fail :error c))

;; ---------------------------------------------------------------------------------- registers

(defn register-paths
  "Key k >= 0 is a pair of registers: x (0) in partition 1 and y (1) in partition 2. Key -1 is
  the root znode, which every partition holds and writes (a command to all partitions) and which
  each front end reads from its own partition: Figure 1 of the S-SMR paper in one register."
  []
  (let [dirs [(str "/" (top-level-in "jepsen-reg" 1)) (str "/" (top-level-in "jepsen-reg" 2))]
        placed (memoize (fn [k r] (path-in (dirs r) (str "k" k) (inc r))))]
    (fn [k r] (if (neg? k) "/" (placed k r)))))

(defn register-workload
  "opts: :keys (number of register pairs), :ops-per-key, :root-share (fraction of operations on
  the root register; 1.0 for the mutation check), :read-share (fraction of reads, 0.5)."
  [{:keys [keys ops-per-key root-share read-share] :or {keys 20 ops-per-key 150 root-share 0.15 read-share 0.5}}]
  (let [path (register-paths)
        dirs [(subs (path 0 0) 0 (str/last-index-of (path 0 0) "/"))
              (subs (path 0 1) 0 (str/last-index-of (path 0 1) "/"))]]
    {:name :register
     :checker :linearizable
     :setup! (fn [z t]
               (let [r (zk/set-data z "/" "0" -1 t)]
                 (when-not (= :ok (:code r)) (throw (ex-info (str "cannot reset / : " (:code r)) r))))
               (doseq [d dirs] (zk/ensure-path! z d "" t))
               (doseq [k (range keys) r [0 1]]
                 (let [p (path k r)
                       res (zk/set-data z p "0" -1 t)]
                   (when (= :no-node (:code res)) (zk/ensure-path! z p "0" t)))))
     :generate (fn [^Random rnd n]
                 (let [root? (< (.nextDouble rnd) root-share)
                       k (if root? -1 (min (quot n ops-per-key) (dec keys)))
                       r (if root? 0 (.nextInt rnd 2))
                       x (.nextDouble rnd)
                       reads (double read-share)
                       ;; the rest: 40% writes, 30% cas, 30% write-both (root: 60% cas)
                       writes (+ reads (* 0.4 (- 1 reads)))]
                   (cond
                     (< x reads) {:f :read :value [k r nil]}
                     (< x writes) {:f :write :value [k r (inc (.nextInt rnd 5))]}
                     (or root? (< x (+ writes (* 0.3 (- 1 reads)))))
                     {:f :cas :value [k r [(.nextInt rnd 6) (inc (.nextInt rnd 5))]]}
                     :else {:f :write-both :value [k (inc (.nextInt rnd 5))]})))
     :invoke! (fn [z {:keys [f value] :as op} t]
                (case f
                  :read (let [[k r] value
                              res (zk/get-data z (path k r) t)]
                          (if (= :ok (:code res))
                            (assoc op :type :ok :value [k r (parse-long (:data res))])
                            (read-failure op res)))
                  :write (let [[k r v] value]
                           (write-result op (zk/set-data z (path k r) (str v) -1 t)))
                  :cas (let [[k r [old new]] value
                             res (zk/get-data z (path k r) t)]
                         (cond (not= :ok (:code res)) (read-failure op res)
                               (not= (str old) (:data res)) (assoc op :type :fail :error :value-mismatch)
                               :else (write-result op (zk/set-data z (path k r) (str new) (:version res) t))))
                  :write-both (let [[k v] value]
                                (write-result op (zk/multi z [(zk/op-set-data (path k 0) (str v) -1)
                                                              (zk/op-set-data (path k 1) (str v) -1)] t)))))
     :final []}))

;; ----------------------------------------------------------------------------------- top level

(defn toplevel-names
  "Two top-level names in each partition (partition 1 also owns the root): four with two partitions."
  []
  (let [in (fn [p] (filter #(= p (partition-of-name %)) (map #(str "jepsen-top-" %) (range))))]
    (vec (mapcat #(take 2 (in %)) (range 1 (inc @partition-count))))))

(defn toplevel-workload
  "Whether each of four top-level znodes (two per partition) exists, as a register per name (1: it exists, 0: it does not)
  checked by the register model: write 1 creates it (NodeExists: it already did), write 0 deletes it
  (NoNode: it already did not), a read asks the node's owner (getData) or the root's owner (the root's
  children). Top-level creates and deletes wait for the node's owner and the root's owner only (ADR
  053), so a read through either must never miss an acknowledged change."
  [_]
  (let [names (toplevel-names)
        path (fn [k] (str "/" (names k)))]
    {:name :toplevel
     :checker :linearizable
     :setup! (fn [z t]
               (doseq [k (range (count names))]
                 (let [r (zk/delete z (path k) -1 t)]
                   (when-not (#{:ok :no-node} (:code r))
                     (throw (ex-info (str "cannot remove " (path k) ": " (:code r)) r))))))
     :generate (fn [^Random rnd _]
                 (let [k (.nextInt rnd (count names))
                       x (.nextInt rnd 100)]
                   (if (< x 50)
                     {:f :read :value [k 0 nil]}
                     {:f :write :value [k 0 (.nextInt rnd 2)]})))
     ;; a read asks the root's owner or the node's owner, half each (the runner passes :f and :value
     ;; only, so the choice is made here and recorded in the completion as :via)
     :invoke! (fn [z {:keys [f value] :as op} t]
                (let [[k r v] value]
                  (case f
                    :read (if (zero? (rand-int 2))
                            (let [res (zk/children z "/" t)
                                  op (assoc op :via :root)]
                              (if (= :ok (:code res))
                                (assoc op :type :ok :value [k r (if (some #{(names k)} (:children res)) 1 0)])
                                (read-failure op res)))
                            (let [res (zk/get-data z (path k) t)
                                  op (assoc op :via :owner)]
                              (case (:code res)
                                :ok (assoc op :type :ok :value [k r 1])
                                :no-node (assoc op :type :ok :value [k r 0])
                                (read-failure op res))))
                    :write (let [res (if (= v 1)
                                       (zk/create z (path k) "" :persistent t)
                                       (zk/delete z (path k) -1 t))]
                             (if (#{:node-exists :no-node} (:code res))
                               (assoc op :type :ok) ; it already was so: a write of the same value
                               (write-result op res))))))
     :final []}))

;; ----------------------------------------------------------------------------------------- set

(defn set-workload [_]
  (let [dir (str "/" (top-level-in "jepsen-set" 2))]
    {:name :set
     :checker :set
     :setup! (fn [z t] (zk/ensure-path! z dir "" t))
     :generate (fn [_ n] {:f :add :value n})
     :invoke! (fn [z {:keys [f value] :as op} t]
                (case f
                  :add (write-result op (zk/create z (str dir "/e" value) "" :persistent t))
                  :read (let [res (zk/children z dir t)]
                          (if (= :ok (:code res))
                            (assoc op :type :ok :value (into (sorted-set) (map #(parse-long (subs % 1)) (:children res))))
                            (read-failure op res)))))
     :final [{:f :read :value nil}]}))

;; ---------------------------------------------------------------------------------- unique ids

(defn unique-ids-workload [_]
  (let [dir (str "/" (top-level-in "jepsen-ids" 1))]
    {:name :unique-ids
     :checker :unique-ids
     :setup! (fn [z t] (zk/ensure-path! z dir "" t))
     :generate (fn [_ _] {:f :generate :value nil})
     :invoke! (fn [z op t]
                (let [res (zk/create z (str dir "/id-") "" :sequential t)]
                  (if (= :ok (:code res))
                    (assoc op :type :ok :value (parse-long (subs (:path res) (+ (count dir) 4))))
                    (write-result op res))))
     :final []}))

;; --------------------------------------------------------------------------------------- queue

(defn- seq-of [^String child] (parse-long (subs child (inc (.lastIndexOf child "-")))))
(defn- value-of [^String child] (parse-long (second (str/split child #"-"))))

(defn queue-workload [_]
  (let [dir (str "/" (top-level-in "jepsen-queue" 2))
        dequeue (fn [z op t]
                  (let [res (zk/children z dir t)]
                    (if-not (= :ok (:code res))
                      (read-failure op res)
                      (loop [[c & more] (sort-by seq-of (:children res))]
                        (if-not c
                          (assoc op :type :fail :error :empty)
                          (let [d (zk/delete z (str dir "/" c) -1 t)]
                            (case (:code d)
                              :ok (assoc op :type :ok :value (value-of c))
                              :no-node (recur more)
                              (assoc op :type :info :error (:code d)))))))))]
    {:name :queue
     :checker :queue
     :setup! (fn [z t] (zk/ensure-path! z dir "" t))
     :generate (fn [^Random rnd n] (if (< (.nextInt rnd 100) 50) {:f :enqueue :value n} {:f :dequeue :value nil}))
     :invoke! (fn [z {:keys [f value] :as op} t]
                (case f
                  :enqueue (write-result op (zk/create z (str dir "/q-" value "-") "" :sequential t))
                  :dequeue (dequeue z op t)
                  ;; the final drain: dequeues until the queue is empty
                  :drain (loop [got []]
                           (let [r (dequeue z {:f :dequeue} t)]
                             (case (:type r)
                               :ok (recur (conj got (:value r)))
                               :fail (if (= :empty (:error r))
                                       (assoc op :type :ok :value got)
                                       (assoc op :type :info :value got :error (:error r)))
                               (assoc op :type :info :value got :error (:error r)))))))
     :final [{:f :drain :value nil}]}))

;; ------------------------------------------------------------------------------------ pipeline

(defn pipeline-paths
  "Writer w's three registers: x in partition 1, y in partition 2, and z, a top-level node that w creates
  and deletes (its value: the data of its last create, or absent)."
  []
  (let [a (str "/" (top-level-in "jepsen-pipe" 1)) b (str "/" (top-level-in "jepsen-pipe" 2))
        placed (memoize (fn [w k] (case k :x (path-in a (str "w" w) 1) :y (path-in b (str "w" w) 2))))]
    {:dirs [a b]
     :path (fn [w k] (if (= k :z) (str "/jepsen-pipz-w" w) (placed w k)))}))

(defn pipeline-workload
  "Sessions that keep several requests in flight at once (ZooKeeper's pipelining), across both
  partitions and the root. Each process writes its own registers, x in partition 1 and y in partition 2,
  with the values 1, 2, 3, ... in its session's order (one counter for all), and a third, z, a top-level
  node it creates (data: the next value) and deletes (taking the next value too) in turn: under subtree
  partitioning a request every partition orders (ADRs 037, 046; nothing pipelines behind it, ADR 083). An
  operation is one burst (:f :batch) of 4 to 12 calls sent without waiting between them: own writes, own
  toggles of z, multis writing the same value to x and y (requests to both partitions, behind which
  single-partition ones pipeline, ADRs 041, 076 and 083), some of them toggling z too (requests to every
  partition), own reads, pairs of reads of another process's registers (in either order), and reads of the
  root's children (which writers' z exist). The completion's value holds every call with its result and its
  own send and reply times; the :pipeline checker takes the bursts apart and checks ZooKeeper's FIFO order and
  linearizability call by call. A burst with any call not :ok ends :info, and the process is replaced (a new
  session, new registers)."
  [_]
  (let [{:keys [dirs path]} (pipeline-paths)
        counters (atom {}) ; process -> the last value it wrote
        present (atom {}) ; process -> whether its z exists after what it has sent
        writers (atom []) ; processes whose registers exist
        next-value! (fn [p] (get (swap! counters update p (fnil inc 0)) p))
        ;; the next toggle of p's z: create it with data v, or delete it
        toggle! (fn [p] (if (get (swap! present update p not) p) :create :delete))
        to-call (fn [p step]
                  (let [[s a b] step]
                    (case s
                      :w (let [v (next-value! p)]
                           [{:c :write :w p :k a :v v :path (path p a) :data (str v)}])
                      :t (let [v (next-value! p) op (toggle! p)]
                           [{:c op :w p :k :z :v v :path (path p :z) :data (str v)}])
                      :m (let [v (next-value! p)]
                           [{:c :multi :w p :ks [:x :y] :v v :paths [(path p :x) (path p :y)] :data (str v)}])
                      :mz (let [v (next-value! p) op (toggle! p)]
                            [{:c :multi :w p :ks [:x :y :z] :zop op :v v :paths [(path p :x) (path p :y)]
                              :zpath (path p :z) :data (str v)}])
                      :r [{:c :read :w p :k a :path (path p a)}]
                      ;; the root's children: which writers' z exist (the root's owner answers, ADR 053)
                      :root [{:c :children :path "/"}]
                      :p (let [ws (remove #{p} @writers)]
                           (if (empty? ws)
                             [{:c :read :w p :k a :path (path p a)}]
                             (let [w (rand-nth (vec ws))]
                               [{:c :read :w w :k a :path (path w a)} {:c :read :w w :k b :path (path w b)}]))))))
        ;; a read's value: the register's number, or for z without its node, absent
        read-result (fn [{:keys [c k code data] :as r}]
                      (cond (and (= c :children) (= :ok code))
                            (assoc r :present (into (sorted-set) (keep #(some-> (re-matches #"jepsen-pipz-w(\d+)" %) second parse-long)
                                                                       (:children r))))
                            (not= c :read) r
                            (= :ok code) (assoc r :v (parse-long data))
                            (and (= k :z) (= :no-node code)) (assoc r :code :ok :v nil :absent true)
                            :else r))
        registers [:x :y :z]]
    {:name :pipeline
     :checker :pipeline
     :setup! (fn [z t] (doseq [d dirs] (zk/ensure-path! z d "" t)))
     :generate (fn [^Random rnd _]
                 {:f :batch
                  :value (vec (for [_ (range (+ 4 (.nextInt rnd 9)))]
                                (let [x (.nextInt rnd 100)
                                      i (.nextInt rnd 3)
                                      k (registers i)]
                                  (cond (< x 34) [:w (if (.nextBoolean rnd) :x :y)]
                                        (< x 40) [:m]
                                        (< x 46) [:t]
                                        (< x 49) [:mz]
                                        (< x 60) [:r k]
                                        (< x 64) [:root]
                                        :else [:p k (registers (mod (+ i 1 (.nextInt rnd 2)) 3))]))))})
     :invoke! (fn [z {:keys [value process] :as op} t]
                (let [p process
                      fresh? (not (contains? @counters p))
                      _ (when fresh? (swap! counters assoc p 0))
                      calls (cond->> (vec (mapcat #(to-call p %) value))
                              fresh? (into [{:c :create :w p :k :x :v 0 :path (path p :x) :data "0"}
                                            {:c :create :w p :k :y :v 0 :path (path p :y) :data "0"}]))
                      done (mapv #(dissoc (read-result %) :path :paths :zpath :data :children) (zk/pipeline! z calls t))
                      ok? (every? #(= :ok (:code %)) done)]
                  (when (and fresh? ok?) (swap! writers conj p))
                  (cond-> (assoc op :type (if ok? :ok :info) :value {:calls done})
                    (not ok?) (assoc :error (:code (first (remove #(= :ok (:code %)) done)))))))
     :final []}))

;; ------------------------------------------------------------------------------------ transfer

(def initial-balance 100)

(defn transfer-workload
  "Two counters in different partitions; a transfer is a multi (versioned setData on both), a
  read a multiRead of both. Their sum must stay 2 x initial-balance."
  [_]
  (let [a (path-in (str "/" (top-level-in "jepsen-acct" 1)) "balance" 1)
        b (path-in (str "/" (top-level-in "jepsen-acct" 2)) "balance" 2)
        read-both (fn [z t] (zk/multi z [(zk/op-get-data a) (zk/op-get-data b)] t))]
    {:name :transfer
     :checker :transfer
     :setup! (fn [z t]
               (doseq [p [a b]]
                 (zk/ensure-path! z (subs p 0 (str/last-index-of p "/")) "" t)
                 (zk/ensure-path! z p (str initial-balance) t)
                 (zk/set-data z p (str initial-balance) -1 t)))
     :generate (fn [^Random rnd _]
                 (if (< (.nextInt rnd 100) 50)
                   {:f :read :value nil}
                   {:f :transfer :value {:from (if (.nextBoolean rnd) :a :b) :amount (inc (.nextInt rnd 5))}}))
     :invoke! (fn [z {:keys [f value] :as op} t]
                (let [res (read-both z t)]
                  (if-not (= :ok (:code res))
                    (read-failure op res)
                    (let [[ra rb] (:results res)
                          balances {:a (parse-long (:data ra)) :b (parse-long (:data rb))}]
                      (if (#{:read :final-read} f)
                        (assoc op :type :ok :value balances)
                        (let [{:keys [from amount]} value
                              to (if (= from :a) :b :a)
                              after (-> balances (update from - amount) (update to + amount))]
                          (write-result op (zk/multi z [(zk/op-set-data a (str (:a after)) (:version ra))
                                                        (zk/op-set-data b (str (:b after)) (:version rb))] t))))))))
     :final [{:f :final-read :value nil}]}))

(def workloads
  {:register register-workload
   :toplevel toplevel-workload
   :set set-workload
   :unique-ids unique-ids-workload
   :queue queue-workload
   :transfer transfer-workload
   :pipeline pipeline-workload})

(defn workload [name opts]
  (if-let [w (workloads name)]
    (w opts)
    (throw (ex-info (str "unknown workload " name "; known: " (str/join ", " (map clojure.core/name (keys workloads))))
                    {:workload name}))))
