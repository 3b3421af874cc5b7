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

;; ------------------------------------------------------------------------------------ pipeline

(defn- last-at-most
  "The largest value in sorted set vs that is at most a, or 0 (the value a register is created with)."
  [vs a]
  (or (when vs (first (rsubseq vs <= a))) 0))

(defn pipeline-check
  "Checks the :pipeline workload's bursts call by call. Every writer w writes its registers x and y with
  increasing values in its session's order (a multi writes one value to both), and toggles its third, z (a
  top-level node: a create with data v sets it to v, a delete taking value v makes it absent), with the same
  counter, so ZooKeeper's promises (FIFO order per session, linearizable writes, and, in Volery, linearizable
  reads) give, for a read of w's register k that returns v (or, of z, absent):
    :own-read      a read of the reader's own register returns exactly its last write to it before the
                   read in its session's order (pipelined or not);
    :session-order once a session has read any value a of w (any register), its later reads of w's
                   register k return at least w's last write to k at or below a: w wrote those before a,
                   in its order, so they were applied before a was (absent: that write was a delete, or a
                   later delete of w's was sent before the read came back);
    :stale-read    likewise for any read sent after a write of w was acknowledged or after another read of
                   w's registers came back with a (by anyone): at least w's last write to k at or below it;
    :never-written v is 0 or a value w sent to k (not as a delete) before the read came back.
  A read of the root's children (:c :children, :present the writers whose z it listed) is a read of every
  writer's z that found the node without its value, or found none: listed, w's last change at or below the floor
  was a create, or a later create of w's was sent before the read came back, and w's writes up to the first such
  create were applied (the floor for what follows); not listed, the same with deletes.
  Sound for a correct server (times are taken outside the calls: send before, reply after); a burst that
  ended :info keeps the calls that completed :ok."
  [history]
  (let [batches (filter #(and (integer? (:process %)) (= :batch (:f %)) (#{:ok :info} (:type %))) history)
        calls-of (fn [b] (:calls (:value b)))
        unrecorded (set (map :process (remove calls-of batches))) ; bursts whose calls are unknown
        all-calls (mapcat (fn [b] (map #(assoc % :s (:process b)) (calls-of b))) batches)
        ;; a multi writes its value to each register it names: writes at one place of the writer's order
        writes (mapcat #(case (:c %)
                          (:write :create) [%]
                          :delete [(assoc % :del? true)]
                          :multi (for [k (:ks %)] (cond-> (assoc % :k k) (and (= k :z) (= :delete (:zop %))) (assoc :del? true)))
                          nil)
                       all-calls)
        ;; [w k] -> sorted set of the values w sent to k; [w k v] -> when it was sent; [w v] of z's deletes
        written (reduce (fn [m {:keys [w k v]}] (update m [w k] (fnil conj (sorted-set)) v)) {} writes)
        sent-at (into {} (map (fn [{:keys [w k v t0]}] [[w k v] t0]) writes))
        deleted (set (for [{:keys [w v del?]} writes :when del?] [w v]))
        ;; w's register k holds nothing after its write f (0: the initial state, absent for z)
        absent-after? (fn [w k f] (and (= k :z) (or (zero? f) (contains? deleted [w f]))))
        ;; w's first write to k after f that is a delete (or a create), sent before t1
        next-change (fn [w k f t1 delete?]
                      (first (filter #(and (= delete? (contains? deleted [w %]))
                                           (or (nil? t1) (some-> (sent-at [w k %]) (< t1))))
                                     (subseq (written [w k]) > f))))
        ;; whether a read of w's k that came back at t1 may follow w's write f: it returned v, or (z) found no node
        ;; (absent), or (a root read) found the node without its value (some)
        at-least? (fn [{:keys [w k v absent t1] :as r} f]
                    (cond absent (or (absent-after? w k f) (next-change w k f t1 true))
                          (:some r) (or (not (absent-after? w k f)) (next-change w k f t1 false))
                          :else (>= v f)))
        ;; what such a read shows applied (every write of w up to it), given f
        applied (fn [{:keys [w k v absent t1] :as r} f]
                  (cond absent (if (absent-after? w k f) f (next-change w k f t1 true))
                        (:some r) (if (absent-after? w k f) (next-change w k f t1 false) f)
                        :else v))
        ;; a read of the root's children is a read of every writer's z that found the node or not
        z-writers (sort (keep (fn [[[w k] _]] (when (and (= k :z) (not (unrecorded w))) w)) written))
        expand (fn [{:keys [c code present] :as call}]
                 (if (= :children c)
                   (when (= :ok code)
                     (for [w z-writers]
                       (-> (dissoc call :present)
                           (assoc :c :read :w w :k :z :v nil :root true)
                           (assoc (if (contains? present w) :some :absent) true))))
                   [call]))
        reads (filter #(and (= :read (:c %)) (= :ok (:code %))) (mapcat expand all-calls))
        violations (transient [])
        add! (fn [kind call detail] (conj! violations (merge {:kind kind :call (dissoc call :code)} detail)))]
    ;; per session, in its order
    (doseq [[s bs] (group-by :process batches)]
      (loop [[call & more] (mapcat expand (mapcat calls-of bs)) own {} seen {}]
        (when call
          (let [{:keys [c w k v code absent]} call]
            (cond
              (not= :ok code) (recur more own seen)
              (#{:write :create :delete} c) (recur more (assoc own k v) seen)
              (= :multi c) (recur more (into own (for [k (:ks call)] [k v])) seen)
              (= w s) (let [e (get own k 0)
                            none? (absent-after? w k e)]
                        (when-not (cond absent none? (:some call) (not none?) :else (and (not none?) (= v e)))
                          (add! :own-read call {:expected (if none? :absent e)}))
                        (recur more own seen))
              :else (let [floor (last-at-most (written [w k]) (get seen w 0))]
                      (when-not (at-least? call floor)
                        (add! :session-order call {:at-least floor :seen-of-writer (get seen w 0)}))
                      (recur more own (update seen w (fnil max 0) (or (applied call floor) 0)))))))))
    ;; in real time: every acknowledgement and read reply raises a floor for reads sent after it
    (let [events (sort-by (juxt first second)
                          (concat (for [{:keys [w v t1 code]} writes :when (and (= :ok code) t1)] [t1 1 :ack w v nil])
                                  (mapcat (fn [r] [[(:t0 r) 0 :send r] [(:t1 r) 1 :reply r]]) reads)))]
      (loop [[[_ _ e a b] & more] events floors {} at-send {}]
        (when e
          (case e
            :ack (recur more (update floors a (fnil max 0) b) at-send)
            :send (recur more floors (assoc at-send a (get floors (:w a) 0)))
            :reply (let [{:keys [w k v t1]} a
                         floor (last-at-most (written [w k]) (get at-send a 0))]
                     (when-not (at-least? a floor)
                       (add! :stale-read a {:at-least floor}))
                     (when-not (or (nil? v) (zero? v) (unrecorded w)
                                   (and (some-> (sent-at [w k v]) (< t1)) (not (and (= k :z) (deleted [w v])))))
                       (add! :never-written a {}))
                     (recur more (update floors w (fnil max 0) (or (applied a floor) 0)) at-send))))))
    (let [vs (persistent! violations)
          others (filter #(not= (:w %) (:s %)) reads)
          z-writes (filter #(and (= :ok (:code %)) (or (and (#{:create :delete} (:c %)) (= :z (:k %))) (:zop %))) all-calls)]
      {:valid? (cond (empty? reads) :unknown :else (empty? vs))
       ;; ZooKeeper promises this much (its reads may be stale: a follower answers them), not :valid?
       :sequentially-consistent? (cond (empty? reads) :unknown :else (not-any? #(not= :stale-read (:kind %)) vs))
       :batch-count (count batches) :call-count (count all-calls) :reads-checked (count reads)
       :reads-of-other-sessions (count others)
       :reads-of-other-sessions-above-zero (count (filter #(some-> (:v %) pos?) others))
       :reads-of-other-sessions-top-level (frequencies (for [r others :when (and (= :z (:k r)) (not (:root r)))]
                                                         (if (:absent r) :absent :present)))
       :root-reads (count (filter #(and (= :children (:c %)) (= :ok (:code %))) all-calls))
       :root-reads-showing-others (count (filter #(and (:root %) (:some %) (not= (:w %) (:s %))) reads))
       :writes-acknowledged (count (filter #(and (#{:write :multi} (:c %)) (= :ok (:code %))) all-calls))
       :multis-acknowledged (count (filter #(and (= :multi (:c %)) (= :ok (:code %))) all-calls))
       :top-level-changes-acknowledged (count z-writes)
       :top-level-multis-acknowledged (count (filter :zop z-writes))
       :longest-burst (reduce max 0 (map (comp count calls-of) (filter calls-of batches)))
       :violation-count (count vs)
       ;; [kind register read] -> how many
       :violations-by-kind (into (sorted-map) (frequencies (map (juxt :kind (comp :k :call)) vs)))
       :violations (vec (take 10 vs))})))
