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
