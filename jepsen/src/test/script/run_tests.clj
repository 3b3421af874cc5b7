;; The clojure-maven-plugin test script: runs the test namespaces it is given (a properties file
;; of ns.N = namespace, as the plugin writes it), prints one closing line "jepsen: N passed, M failed"
;; counting tests (deftests), and exits non-zero when any failed.
(ns volery.jepsen.test-runner
  (:require [clojure.test :as t])
  (:import (java.io FileInputStream)
           (java.util Properties)))

(let [props (doto (Properties.) (.load (FileInputStream. ^String (first *command-line-args*))))
      namespaces (sort (for [[k v] props :when (.startsWith ^String k "ns.")] (symbol v)))
      failed-vars (atom #{})
      test-count (atom 0)
      original t/report]
  (doseq [n namespaces] (require n))
  (binding [t/report (fn [m]
                       (original m)
                       (case (:type m)
                         :begin-test-var (swap! test-count inc)
                         (:fail :error) (swap! failed-vars conj (first t/*testing-vars*))
                         nil))]
    (apply t/run-tests namespaces))
  (shutdown-agents)
  (let [failed (count @failed-vars)]
    (println (str "jepsen: " (- @test-count failed) " passed, " failed " failed"))
    (when (zero? @test-count)
      (println "jepsen: no test ran: the plugin found no test namespace (is -Djepsen.test a namespace?)"))
    (flush)
    (System/exit (if (and (zero? failed) (pos? @test-count)) 0 1))))
