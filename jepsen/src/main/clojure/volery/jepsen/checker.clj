(ns volery.jepsen.checker
  "The checks of a history: linearizability of registers (Porcupine, a Go program), and Jepsen's
  set, unique-ids, total-queue and a transfer invariant in Clojure. Each returns a map with
  :valid? true, false or :unknown, like Jepsen's checkers."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.java.shell :as sh]
            [clojure.set :as set]
            [clojure.string :as str]
            [volery.jepsen.history :as h]))

(defn- client-completions [history type f]
  (filter #(and (integer? (:process %)) (= type (:type %)) (= f (:f %))) history))

(defn- invoked-values [history f]
  (set (map :value (client-completions history :invoke f))))

(defn linearizable
  "Runs the Porcupine checker binary on history-file; writes its visualization to html-file."
  [checker-bin history-file html-file]
  (if-not (and checker-bin (.canExecute (io/file checker-bin)))
    {:valid? :unknown :error (str "the Porcupine checker is not built (" checker-bin "): install Go and rebuild")}
    (let [{:keys [exit out err]} (sh/sh checker-bin "-timeout" "120s" "-html" (str html-file) (str history-file))]
      (if (zero? exit)
        (assoc (edn/read-string out) :visualization (.getName (io/file html-file)))
        {:valid? :unknown :error (str "porcupine-checker exited " exit ": " err)}))))

(defn set-check
  "Every acknowledged add is in the final read; nothing never added is."
  [history]
  (let [attempted (invoked-values history :add)
        added (set (map :value (client-completions history :ok :add)))
        final (last (client-completions history :ok :read))]
    (if-not final
      {:valid? :unknown :error "no final read succeeded"}
      (let [read (set (:value final))
            lost (set/difference added read)
            unexpected (set/difference read attempted)
            recovered (set/difference (set/intersection read attempted) added)]
        {:valid? (and (empty? lost) (empty? unexpected))
         :attempt-count (count attempted) :acknowledged-count (count added) :read-count (count read)
         :lost (sort lost) :unexpected (sort unexpected) :recovered-count (count recovered)}))))

(defn unique-ids-check
  "No id is handed out twice."
  [history]
  (let [ids (map :value (client-completions history :ok :generate))
        dups (into (sorted-map) (filter #(> (val %) 1) (frequencies ids)))]
    {:valid? (empty? dups) :attempted-count (count (client-completions history :invoke :generate))
     :acknowledged-count (count ids) :duplicated dups
     :range (when (seq ids) [(apply min ids) (apply max ids)])}))

(defn queue-check
  "Jepsen's total queue: every acknowledged enqueue is dequeued (or drained) exactly once, and
  nothing is dequeued that was never enqueued. A dequeue that ended indeterminate may have taken an
  element: lost elements up to their number are reported, not counted against the queue."
  [history]
  (let [attempted (invoked-values history :enqueue)
        enqueued (set (map :value (client-completions history :ok :enqueue)))
        drains (filter #(= :drain (:f %)) (filter #(#{:ok :info} (:type %)) history))
        dequeued (concat (map :value (client-completions history :ok :dequeue)) (mapcat :value drains))
        freq (frequencies dequeued)
        duplicated (into (sorted-map) (filter #(> (val %) 1) freq))
        unexpected (set/difference (set dequeued) attempted)
        lost (set/difference enqueued (set dequeued))
        info-dequeues (count (client-completions history :info :dequeue))]
    {:valid? (cond (not (some #(= :ok (:type %)) drains)) :unknown
                   :else (and (empty? duplicated) (empty? unexpected) (<= (count lost) info-dequeues)))
     :attempt-count (count attempted) :acknowledged-count (count enqueued) :dequeued-count (count dequeued)
     :lost (sort lost) :indeterminate-dequeues info-dequeues :duplicated duplicated :unexpected (sort unexpected)}))

(defn transfer-check
  "Every read of both balances (a multiRead) sees the total they started with."
  [history total]
  (let [reads (filter #(and (integer? (:process %)) (= :ok (:type %)) (#{:read :final-read} (:f %))) history)
        bad (remove #(= total (+ (:a (:value %)) (:b (:value %)))) reads)]
    {:valid? (cond (empty? reads) :unknown
                   :else (empty? bad))
     :read-count (count reads) :total total
     :transfers-ok (count (client-completions history :ok :transfer))
     :bad-reads (vec (take 10 bad))
     :final (:value (last (filter #(= :final-read (:f %)) reads)))}))

(defn stats
  "Counts by type and by :f, like Jepsen's stats checker."
  [history]
  (let [done (filter #(and (integer? (:process %)) (not= :invoke (:type %))) history)
        count-of (fn [ops t] (count (filter #(= t (:type %)) ops)))
        summary (fn [ops] {:count (count ops) :ok-count (count-of ops :ok)
                           :fail-count (count-of ops :fail) :info-count (count-of ops :info)})]
    (assoc (summary done)
           :valid? (pos? (count-of done :ok))
           :by-f (into (sorted-map) (for [[f ops] (group-by :f done)] [f (summary ops)])))))

(defn merge-valid
  "false if any is false, else :unknown if any is unknown, else true."
  [vs]
  (cond (some false? vs) false
        (some #{:unknown} vs) :unknown
        :else true))
