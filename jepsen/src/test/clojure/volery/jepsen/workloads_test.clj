(ns volery.jepsen.workloads-test
  "The workloads place their znodes where they mean to, as Volery's own partitioner does, under both
  strategies: registers x in partition 1 and y in partition 2 (so a write of both is a request to two
  partitions, and a pause of partition 2 holds y only), the pipeline's x and y likewise, the transfer's two
  accounts apart, and two top-level names in every partition."
  (:require [clojure.test :refer [deftest is testing]]
            [volery.jepsen.workloads :as w])
  (:import (io.volery.server.config VoleryConfig$Partitioning)
           (io.volery.server.internal PathPartitioner)))

(defn- volery-owner [strategy n path]
  (.ownerOf (PathPartitioner. (int-array (range 1 (inc n)))
                              (if (= strategy :hash) VoleryConfig$Partitioning/HASH VoleryConfig$Partitioning/SUBTREE))
            path))

(defmacro ^:private with-cluster [strategy n & body]
  `(let [pc# @w/partition-count ps# @w/partitioning]
     (reset! w/partition-count ~n)
     (reset! w/partitioning ~strategy)
     (try ~@body
          (finally (reset! w/partition-count pc#) (reset! w/partitioning ps#)))))

(deftest every-workload-path-is-where-volerys-partitioner-puts-it
  (doseq [strategy [:subtree :hash] n [2 3]]
    (testing (str strategy " with " n " partitions")
      (with-cluster strategy n
        (let [owner (partial volery-owner strategy n)
              reg (w/register-paths)
              {pipe :path} (w/pipeline-paths)]
          (doseq [k (range 40) r [0 1]]
            (is (= (inc r) (owner (reg k r))) (str "register " k "/" r " at " (reg k r))))
          (doseq [p (range 40) k [:x :y]]
            (is (= ({:x 1 :y 2} k) (owner (pipe p k))) (str "pipeline " p " " k " at " (pipe p k))))
          (let [names (w/toplevel-names)]
            (is (= (mapcat #(repeat 2 %) (range 1 (inc n))) (map #(owner (str "/" %)) names))
                (str "top-level names " names)))
          (doseq [p [1 2]]
            (is (= p (owner (w/path-in (str "/" (w/top-level-in "jepsen-acct" p)) "balance" p))))))))))

(deftest under-subtree-the-paths-are-the-ones-earlier-runs-used
  ;; stored histories of earlier sessions name these paths; subtree placement must not rename them
  (with-cluster :subtree 2
    (let [reg (w/register-paths)]
      (is (= (str "/" (w/top-level-in "jepsen-reg" 1) "/k7") (reg 7 0)))
      (is (= (str "/" (w/top-level-in "jepsen-reg" 2) "/k7") (reg 7 1)))
      (is (= "/" (reg -1 0))))))
