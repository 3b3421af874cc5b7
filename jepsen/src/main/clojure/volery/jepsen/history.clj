(ns volery.jepsen.history
  "A history in Jepsen's format: operations {:index :time :type :process :f :value}, :time in
  nanoseconds since the test began, :type :invoke then :ok, :fail or :info (indeterminate);
  faults are :info operations of process :nemesis. Written as history.edn, one operation a line."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]))

(defn recorder
  "An empty history that many threads append to."
  []
  {:start (System/nanoTime) :ops (atom [])})

(defn record!
  "Appends op (with :type :process :f :value), stamping :index and :time; returns it."
  [{:keys [start ops]} op]
  (let [stamped (volatile! nil)]
    (swap! ops (fn [v]
                 (let [o (merge (array-map :index (count v) :time (- (System/nanoTime) start)) op)]
                   (vreset! stamped o)
                   (conj v o))))
    @stamped))

(defn ops [rec] @(:ops rec))

(defn write! [history file]
  (with-open [w (io/writer file)]
    (binding [*out* w *print-length* nil *print-level* nil]
      (doseq [op history] (prn op)))))

(defn read-history [file]
  (with-open [r (java.io.PushbackReader. (io/reader file))]
    (vec (take-while some? (repeatedly #(edn/read {:eof nil} r))))))

(defn pairs
  "Invocations with their completions, by process: [[invoke completion-or-nil] ...]."
  [history]
  (loop [[op & more] history open {} out []]
    (cond
      (nil? op) (into out (map (fn [inv] [inv nil]) (vals open)))
      (not (integer? (:process op))) (recur more open out)
      (= :invoke (:type op)) (recur more (assoc open (:process op) op) out)
      :else (if-let [inv (open (:process op))]
              (recur more (dissoc open (:process op)) (conj out [inv op]))
              (recur more open out)))))
