;; Leiningen project for users with Clojars: the same client, workloads, nemeses and checkers as the
;; Maven build (src/main/clojure), plus volery.jepsen.recheck, which re-checks a stored history.edn
;; with Jepsen's own checkers (Knossos for the registers).
;;   lein run -- --workload register --nemesis kill --time-limit 300     (as jepsen/run.sh)
;;   lein with-profile +jepsen run -m volery.jepsen.recheck register store/.../history.edn
;; The Maven build puts Volery and ZooKeeper 3.9.5 on the classpath of the node processes; with
;; Leiningen, build Volery first (bin/volery builds it) and pass its classpath in VOLERY_CLASSPATH.
(defproject io.eyrie/volery-jepsen "0.1.0-SNAPSHOT"
  :description "Jepsen-style linearizability checks for Volery, the ZooKeeper-compatible service on Eyrie"
  :license {:name "Apache-2.0" :url "https://www.apache.org/licenses/LICENSE-2.0"}
  :dependencies [[org.clojure/clojure "1.12.6"]
                 [org.apache.zookeeper/zookeeper "3.9.5"
                  :exclusions [ch.qos.logback/logback-classic ch.qos.logback/logback-core]]
                 [io.dropwizard.metrics/metrics-core "4.1.12.1"]
                 [org.xerial.snappy/snappy-java "1.1.10.5"]
                 [org.slf4j/slf4j-simple "2.0.17"]]
  :source-paths ["src/main/clojure"]
  :test-paths ["src/test/clojure"]
  :jvm-opts ["-Xmx512m" "-Djepsen.checker=target/porcupine-checker" "-Djepsen.store=store"]
  :main volery.jepsen.core
  :profiles {:jepsen {:dependencies [[jepsen "0.3.5"]]
                      :source-paths ["src/jepsen/clojure"]}})
