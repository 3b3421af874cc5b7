(ns volery.jepsen.core-test
  "The runner's command line: one workload, or several that run at once on one cluster."
  (:require [clojure.test :refer [deftest is]]
            [volery.jepsen.core :as core]
            [volery.jepsen.net :as net]))

(deftest one-workload-is-a-single-run
  (let [o (core/parse-args ["--workload" "register" "--nemesis" "kill,pause" "--time-limit" "300"])]
    (is (= :register (:workload o)))
    (is (nil? (:workloads o)))
    (is (= [:kill :pause] (:nemesis o)))
    (is (= 300 (:time-limit o)))))

(deftest a-comma-separated-list-runs-the-workloads-together
  (let [o (core/parse-args ["--workload" "register,set,unique-ids,queue,transfer" "--nemesis" "restart"])]
    (is (= [:register :set :unique-ids :queue :transfer] (:workloads o)))
    (is (= [:restart] (:nemesis o)))))

(deftest the-default-test-network-is-slot-0
  ;; the CI's run; matrix-runs.sh sets JEPSEN_NET=1 for its own
  (when-not (or (System/getenv "JEPSEN_NET") (System/getProperty "jepsen.net"))
    (is (= "10.77.0.11" (net/node-ip 1)))
    (is (= "jepn1" (net/netns-name 1)))))
