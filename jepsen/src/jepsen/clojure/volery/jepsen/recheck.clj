(ns volery.jepsen.recheck
  "Re-checks a stored history.edn with Jepsen's own checkers, for users who can reach Clojars
  (lein with-profile +jepsen). Not built by Maven: Jepsen is not on Maven Central.
  The registers go to Knossos one register at a time (Jepsen's independent keys [k r]); the
  two-register multi (write-both) has no single-register model and is left to Porcupine."
  (:require [clojure.pprint :refer [pprint]]
            [jepsen.checker :as checker]
            [jepsen.history :as history]
            [jepsen.independent :as independent]
            [knossos.model :as model]
            [volery.jepsen.history :as h]))

(defn- registers->independent [ops]
  (->> ops
       (remove #(= :write-both (:f %)))
       (map (fn [{:keys [f value] :as op}]
              (if (and (integer? (:process op)) (#{:read :write :cas} f))
                (let [[k r v] value] (assoc op :value (independent/tuple [k r] v)))
                op)))))

(defn checker-for [workload]
  (case workload
    "register" (independent/checker (checker/linearizable {:model (model/cas-register 0) :algorithm :linear}))
    "set" (checker/set)
    "unique-ids" (checker/unique-ids)
    "queue" (checker/total-queue)))

(defn -main [workload file]
  (let [ops (h/read-history file)
        ops (if (= "register" workload) (registers->independent ops) ops)
        ;; the write-both ops were dropped: renumber
        hist (history/history (vec (map-indexed #(assoc %2 :index %1) ops)))
        result (checker/check (checker-for workload) {:name (str "volery-" workload)} hist {})]
    (pprint result)
    (shutdown-agents)
    (System/exit (if (true? (:valid? result)) 0 1))))
