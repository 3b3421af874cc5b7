(ns volery.jepsen.checker-test
  "The checkers find the anomalies they are for, on small hand-made histories: a check that cannot
  fail would prove nothing in the runs."
  (:require [clojure.java.io :as io]
            [clojure.test :refer [deftest is testing]]
            [volery.jepsen.checker :as checker]
            [volery.jepsen.history :as h]
            [volery.jepsen.timeline :as timeline]))

(defn- history
  "Operations [process type f value] stamped with increasing :index and :time."
  [& ops]
  (vec (map-indexed (fn [i [p t f v]] {:index i :time (* 1000000 i) :type t :process p :f f :value v}) ops)))

(def checker-bin (System/getProperty "jepsen.checker" "target/porcupine-checker"))

(defn- porcupine [hist]
  (let [f (java.io.File/createTempFile "history" ".edn")
        html (java.io.File/createTempFile "linear" ".html")]
    (h/write! hist f)
    (checker/linearizable checker-bin f html)))

(deftest porcupine-rejects-a-stale-read-after-a-completed-write-to-both-partitions
  (let [r (porcupine (history [0 :invoke :write [-1 0 5]] [0 :ok :write [-1 0 5]]
                              [1 :invoke :read [-1 0 nil]] [1 :ok :read [-1 0 0]]))]
    (is (= false (:valid? r)) (str "a read of 0 after write 5 completed must not linearize; checker said " r))
    (is (= [-1] (:bad-keys r)) (str "the bad key is the root register -1; checker said " r))))

(deftest porcupine-accepts-overlapping-operations-and-an-indeterminate-cas
  (let [r (porcupine (history [0 :invoke :write [3 1 5]] [1 :invoke :read [3 1 nil]]
                              [1 :ok :read [3 1 5]] [0 :ok :write [3 1 5]]
                              [2 :invoke :cas [3 1 [5 7]]] [2 :info :cas [3 1 [5 7]]]
                              [:nemesis :info :start-kill [4]]
                              [1 :invoke :read [3 1 nil]] [1 :ok :read [3 1 7]]
                              [1 :invoke :write-both [3 2]] [1 :ok :write-both [3 2]]
                              [1 :invoke :read [3 0 nil]] [1 :ok :read [3 0 2]]))]
    (is (= true (:valid? r)) (str "the read of 5 overlaps the write; the :info cas may have taken effect; checker said " r))))

(deftest set-check-reports-a-lost-acknowledged-add-and-an-element-never-added
  (let [r (checker/set-check (history [0 :invoke :add 1] [0 :ok :add 1] [1 :invoke :add 2] [1 :ok :add 2]
                                      [2 :invoke :add 3] [2 :info :add 3]
                                      [3 :invoke :read nil] [3 :ok :read #{1 3 9}]))]
    (is (= false (:valid? r)))
    (is (= [2] (:lost r)) "add 2 was acknowledged but is missing from the final read")
    (is (= [9] (:unexpected r)) "9 was never added")
    (is (= 1 (:recovered-count r)) "the indeterminate add of 3 is present: recovered, not an error")))

(deftest unique-ids-check-reports-an-id-handed-out-twice
  (let [r (checker/unique-ids-check (history [0 :invoke :generate nil] [0 :ok :generate 7]
                                             [1 :invoke :generate nil] [1 :ok :generate 7]
                                             [2 :invoke :generate nil] [2 :ok :generate 8]))]
    (is (= false (:valid? r)))
    (is (= {7 2} (:duplicated r)))))

(deftest queue-check-reports-duplicates-and-losses-beyond-indeterminate-dequeues
  (let [base [[0 :invoke :enqueue 1] [0 :ok :enqueue 1] [0 :invoke :enqueue 2] [0 :ok :enqueue 2]
              [0 :invoke :enqueue 3] [0 :ok :enqueue 3]
              [1 :invoke :dequeue nil] [1 :ok :dequeue 1]]
        ok (apply history (concat base [[1 :invoke :dequeue nil] [1 :info :dequeue nil]
                                        [2 :invoke :drain nil] [2 :ok :drain [3]]]))
        dup (apply history (concat base [[2 :invoke :drain nil] [2 :ok :drain [1 2 3]]]))
        lost (apply history (concat base [[2 :invoke :drain nil] [2 :ok :drain [3]]]))]
    (is (= true (:valid? (checker/queue-check ok))) "2 may have been taken by the indeterminate dequeue")
    (is (= {1 2} (:duplicated (checker/queue-check dup))))
    (is (= false (:valid? (checker/queue-check dup))))
    (is (= false (:valid? (checker/queue-check lost))) "2 was acknowledged and never dequeued")))

(deftest transfer-check-reports-a-read-whose-sum-is-wrong
  (let [good (history [0 :invoke :read nil] [0 :ok :read {:a 90 :b 110}])
        bad (history [0 :invoke :read nil] [0 :ok :read {:a 90 :b 110}] [1 :invoke :final-read nil] [1 :ok :final-read {:a 95 :b 110}])]
    (is (= true (:valid? (checker/transfer-check good 200))))
    (is (= false (:valid? (checker/transfer-check bad 200))) "95 + 110 is not 200")))

(deftest timeline-shows-every-operation-and-fault
  (let [page (timeline/html (history [0 :invoke :read nil] [0 :ok :read 3] [:nemesis :info :start-kill [2]]
                                     [1 :invoke :write 4] [1 :info :write 4]) "t")]
    (is (re-find #"class=\"op ok\"" page))
    (is (re-find #"class=\"op info\"" page))
    (is (re-find #"start-kill \[2\]" page) "the fault is drawn")))

;; ------------------------------------------------------------------------------------ pipeline

(defn- call
  "A call of a burst: [kind writer register value sent replied code]; a read of z's value :absent found no node."
  [[c w k v t0 t1 code]]
  (cond-> {:c c :w w :k k :v (when-not (= :absent v) v) :t0 t0 :code (or code :ok)}
    t1 (assoc :t1 t1)
    (= :absent v) (assoc :absent true)))

(defn- root-read
  "A read of the root's children sent at t0, back at t1, listing the z nodes of writers ws."
  [t0 t1 & ws]
  {:c :children :t0 t0 :t1 t1 :code :ok :present (set ws)})

(defn- burst [p type & calls]
  [[p :invoke :batch []] [p type :batch {:calls (mapv #(if (map? %) % (call %)) calls)}]])

(defn- pipeline [& bursts]
  (checker/pipeline-check (apply history (apply concat bursts))))

(def ^:private created
  [[:create 1 :x 0 1 2] [:create 1 :y 0 1 2]])

(defn- kinds [r] (set (map :kind (:violations r))))

(deftest pipeline-check-accepts-fifo-pipelines-across-partitions
  (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10] [:write 1 :y 2 3 11] [:read 1 :x 1 3 12]
                                                        [:write 1 :x 3 4 13] [:read 1 :x 3 4 14] [:read 1 :y 2 4 15]]))
                    ;; while 1's burst is in flight: 2 reads y = 2, then x (3 is newer than what it needs: 1)
                    (burst 2 :ok [:read 1 :y 2 5 12] [:read 1 :x 3 5 13] [:read 1 :y 2 5 14])
                    ;; 3 reads x = 3 then y: 2, the last write to y below 3
                    (burst 3 :ok [:read 1 :x 3 20 21] [:read 1 :y 2 20 22]))]
    (is (= true (:valid? r)) (str "a FIFO history; checker said " r))
    (is (= 8 (:reads-checked r)))))

(deftest pipeline-check-rejects-a-read-that-overtook-its-own-sessions-write
  (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10] [:read 1 :x 0 3 9]])))]
    (is (= false (:valid? r)) (str "a pipelined read of the session's own register returned the value before its write; checker said " r))
    (is (= #{:own-read} (kinds r)) (str r))))

(deftest pipeline-check-rejects-a-write-of-one-partition-seen-before-an-earlier-write-of-the-other
  ;; 1 wrote x = 1 then y = 2 in its order; 2 reads y = 2 then x = 0, both calls in flight together, so only the
  ;; sessions' orders (not real time) tell that x = 1 must have been applied
  (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10] [:write 1 :y 2 3 11]]))
                    (burst 2 :ok [:read 1 :y 2 5 12] [:read 1 :x 0 5 13]))]
    (is (= false (:valid? r)) (str "checker said " r))
    (is (= #{:session-order} (kinds r)) (str r))
    (is (= false (:sequentially-consistent? r)) (str r))))

(deftest pipeline-check-rejects-stale-reads-after-an-acknowledgement-or-a-newer-read
  (testing "a read sent after the write was acknowledged"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10]]))
                      (burst 2 :ok [:read 1 :x 0 20 21]))]
      (is (= #{:stale-read} (kinds r)) (str r))
      (is (= true (:sequentially-consistent? r)) (str "a stale read alone is what ZooKeeper's followers may give; " r))))
  (testing "a read sent after another session's read came back newer (on the other register)"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10] [:write 1 :y 2 3 30]]))
                      (burst 2 :ok [:read 1 :y 2 4 12])
                      (burst 3 :ok [:read 1 :x 0 13 14]))]
      (is (= #{:stale-read} (kinds r)) (str r)))))

(deftest pipeline-check-rejects-values-never-written-or-not-yet-sent
  (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10]]))
                    (burst 2 :ok [:read 1 :x 7 4 5] [:read 1 :y 1 4 6]))]
    (is (= #{:never-written} (kinds r)) (str "7 was never written, 1 went to x, not y; " r))
    (is (= 2 (:violation-count r))))
  (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 30 40]]))
                    (burst 2 :ok [:read 1 :x 1 4 5]))]
    (is (= #{:never-written} (kinds r)) (str "read back before the write was sent; " r))))

(deftest pipeline-check-accepts-an-indeterminate-write-seen-or-not
  ;; the burst ended :info: write x = 1 may or may not have happened; once someone saw it, later reads must
  (let [ok (pipeline (apply burst 1 :info (concat created [[:write 1 :x 1 3 nil :connection-loss]]))
                     (burst 2 :ok [:read 1 :x 0 4 5])
                     (burst 3 :ok [:read 1 :x 1 6 7])
                     (burst 2 :ok [:read 1 :x 1 8 9]))
        bad (pipeline (apply burst 1 :info (concat created [[:write 1 :x 1 3 nil :connection-loss]]))
                      (burst 3 :ok [:read 1 :x 1 6 7])
                      (burst 2 :ok [:read 1 :x 0 8 9]))]
    (is (= true (:valid? ok)) (str ok))
    (is (= #{:stale-read} (kinds bad)) (str bad))))

(deftest pipeline-check-takes-a-multi-as-a-write-of-both-registers
  ;; 1: x = 1, then a multi setting both to 2, then y = 3
  (let [writes (concat created [[:write 1 :x 1 3 10] [:multi 1 nil 2 3 11] [:write 1 :y 3 3 12] [:read 1 :x 2 3 13]])
        mk (fn [& more] (let [[b1 b2] (apply burst 1 :ok writes)]
                          ;; the multi call names both registers
                          [[b1 (update-in b2 [3 :calls 3] assoc :ks [:x :y])] (apply burst 2 :ok more)]))
        ok (apply pipeline (mk [:read 1 :y 3 5 14] [:read 1 :x 2 5 15]))
        bad (apply pipeline (mk [:read 1 :y 2 5 14] [:read 1 :x 1 5 15]))]
    (is (= true (:valid? ok)) (str ok))
    (is (= 1 (:multis-acknowledged ok)) (str ok))
    (is (= #{:session-order} (kinds bad)) (str "y = 2 came from the multi, which set x = 2 too; " bad))))

;; z: a top-level node its writer creates (data: the value) and deletes (taking a value too), in turn

(deftest pipeline-check-accepts-top-level-toggles-in-session-order
  (let [r (pipeline (apply burst 1 :ok (concat created [[:read 1 :z :absent 3 9] [:create 1 :z 1 3 10] [:write 1 :x 2 3 11]
                                                        [:delete 1 :z 3 3 12] [:read 1 :z :absent 3 13]
                                                        [:create 1 :z 4 3 14] [:read 1 :z 4 3 15]]))
                    ;; 2 saw x = 2, so z's create 1 was applied; the delete 3 was sent before its read came back
                    (burst 2 :ok [:read 1 :x 2 5 12] [:read 1 :z :absent 5 16] [:read 1 :z 4 5 17])
                    ;; 3 read z before any create came back: absent is what it was
                    (burst 3 :ok [:read 1 :z :absent 4 5] [:read 1 :x 0 4 6]))]
    (is (= true (:valid? r)) (str "a FIFO history with top-level toggles; checker said " r))
    (is (= 3 (:top-level-changes-acknowledged r)) (str r))
    (is (= {:absent 2 :present 1} (:reads-of-other-sessions-top-level r)) (str r))))

(deftest pipeline-check-rejects-a-top-level-node-read-out-of-its-own-sessions-order
  (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10] [:read 1 :z :absent 3 11]])))]
    (is (= #{:own-read} (kinds r)) (str "the session's own create was not seen by its next read; " r)))
  (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10] [:delete 1 :z 2 3 11] [:read 1 :z 1 3 12]])))]
    (is (= #{:own-read} (kinds r)) (str "the session's own delete was not seen by its next read; " r))))

(deftest pipeline-check-rejects-a-top-level-change-overtaken-by-a-later-write-of-its-session
  ;; 1 creates z = 1, then writes x = 2 (pipelined, another partition's ring); 2 sees x = 2 and then no z
  (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10] [:write 1 :x 2 3 11]]))
                    (burst 2 :ok [:read 1 :x 2 5 12] [:read 1 :z :absent 5 13]))]
    (is (= #{:session-order} (kinds r)) (str r)))
  ;; a multi that deletes z at 2 (with x and y), then x = 3: after x = 3, z = 1 is the past
  (let [writes (concat created [[:create 1 :z 1 3 10] [:multi 1 nil 2 3 11] [:write 1 :x 3 3 12]])
        mk (fn [& more] (let [[b1 b2] (apply burst 1 :ok writes)]
                          [[b1 (update-in b2 [3 :calls 3] assoc :ks [:x :y :z] :zop :delete)] (apply burst 2 :ok more)]))
        ok (apply pipeline (mk [:read 1 :x 3 5 14] [:read 1 :z :absent 5 15]))
        bad (apply pipeline (mk [:read 1 :x 3 5 14] [:read 1 :z 1 5 15]))]
    (is (= true (:valid? ok)) (str ok))
    (is (= 1 (:top-level-multis-acknowledged ok)) (str ok))
    (is (= #{:session-order} (kinds bad)) (str "the multi deleted z before x = 3; " bad))))

(deftest pipeline-check-rejects-a-top-level-node-read-stale-or-never-created
  (testing "present after its delete was acknowledged"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 8] [:delete 1 :z 2 3 10]]))
                      (burst 2 :ok [:read 1 :z 1 20 21]))]
      (is (= #{:stale-read} (kinds r)) (str r))))
  (testing "absent after its create was acknowledged"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10]]))
                      (burst 2 :ok [:read 1 :z :absent 20 21]))]
      (is (= #{:stale-read} (kinds r)) (str r))))
  (testing "absent through a delete sent after the read came back"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10] [:delete 1 :z 2 30 31]]))
                      (burst 2 :ok [:read 1 :z :absent 20 21]))]
      (is (= #{:stale-read} (kinds r)) (str r))))
  (testing "a value that went to a delete"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 8] [:delete 1 :z 2 3 10]]))
                      (burst 2 :ok [:read 1 :z 2 4 5]))]
      (is (contains? (kinds r) :never-written) (str r)))))

(deftest pipeline-check-takes-a-root-read-as-a-read-of-every-writers-top-level-node
  (testing "the root lists what was created, not what was deleted"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10] [:write 1 :x 2 3 11]]))
                      (apply burst 3 :ok [[:create 3 :x 0 1 2] [:create 3 :y 0 1 2] [:create 3 :z 1 3 10] [:delete 3 :z 2 3 11]])
                      (burst 2 :ok (root-read 20 21 1) [:read 1 :z 1 22 23] (root-read 24 25 1 3)))]
      (is (= #{:stale-read} (kinds r)) (str "3's z was deleted (acknowledged) before the second root read; " r))
      (is (= 1 (:violation-count r)) (str r))
      (is (= 2 (:root-reads r)) (str r))))
  (testing "listed, so the next read of the node, in the same burst, must find it"
    ;; the planted bug of docs/jepsen.md, session 36: the root's owner answering before the node's owner applied the create
    (let [bad (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10]]))
                        (burst 2 :ok (root-read 5 8 1) [:read 1 :z :absent 5 9]))
          ok (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 3 10]]))
                       (burst 2 :ok (root-read 5 8) [:read 1 :z 1 5 9]))]
      (is (= #{:session-order} (kinds bad)) (str bad))
      (is (= true (:valid? ok)) (str ok))))
  (testing "listed, so w's earlier writes were applied"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:write 1 :x 1 3 10] [:create 1 :z 2 3 11]]))
                      (burst 2 :ok (root-read 5 8 1) [:read 1 :x 0 5 9]))]
      (is (= #{:session-order} (kinds r)) (str r))))
  (testing "listed before it was created"
    (let [r (pipeline (apply burst 1 :ok (concat created [[:create 1 :z 1 30 31]]))
                      (burst 2 :ok (root-read 5 6 1)))]
      (is (contains? (kinds r) :stale-read) (str r)))))
