(ns volery.jepsen.net
  "The test network: each node in its own network namespace, joined to a bridge in the root
  namespace by a veth pair, with its own 10.77.<slot>.x address; the test's clients stay in the root
  namespace (10.77.<slot>.1), so a partition cuts nodes from each other but never from the clients, as
  in Jepsen. Partitions are blackhole routes inside the namespaces (iproute2 only: no iptables
  needed), added on both sides so that a cut is symmetric. Without root, nodes run on 127.0.0.1
  and partitions are unavailable."
  (:require [clojure.java.shell :as sh]
            [clojure.string :as str]))

(def slot
  "Which test network this run uses (0-199, JEPSEN_NET or -Djepsen.net, default 0): each slot has
  its own bridge, namespaces and 10.77.<slot>.0/24 subnet, so runs with different slots can share
  a machine (the CI run and a long run, say)."
  (let [v (or (System/getProperty "jepsen.net") (System/getenv "JEPSEN_NET") "0")
        n (parse-long (str/trim v))]
    (when-not (and n (<= 0 n 199))
      (throw (ex-info (str "JEPSEN_NET must be a number from 0 to 199, got " (pr-str v)) {:value v})))
    n))

(def bridge (str "jepbr" slot))
(def host-ip (str "10.77." slot ".1"))

(defn node-ip [i] (str "10.77." slot "." (+ 10 i)))
(defn netns-name [i] (if (zero? slot) (str "jepn" i) (str "jep" slot "n" i)))
(defn- veth [i side] (if (zero? slot) (str "jepv" i side) (str "jep" slot "v" i side)))

(defn- sh!! [& args]
  (let [{:keys [exit err out]} (apply sh/sh args)]
    (when-not (zero? exit)
      (throw (ex-info (str "command failed (" exit "): " (str/join " " args) ": " (str/trim (str err out)))
                      {:args args :exit exit})))
    out))

(defn- try-run! [& args] (zero? (:exit (apply sh/sh args))))

(defn netns-available?
  "True when this process may create network namespaces (root with iproute2); otherwise the
  reason why not."
  []
  (let [uid (str/trim (:out (sh/sh "id" "-u")))]
    (cond (not= "0" uid) "not root: network namespaces need root"
          (not (try-run! "ip" "-V")) "iproute2 (ip) is not installed"
          :else true)))

(defn teardown!
  "Removes the namespaces and bridge of an earlier run, if any."
  [n]
  (doseq [i (range 1 (inc n))]
    (try-run! "ip" "netns" "del" (netns-name i))
    (try-run! "ip" "link" "del" (veth i "h")))
  (try-run! "ip" "link" "del" bridge))

(defn setup!
  "Creates the bridge and one namespace per node 1..n."
  [n]
  (teardown! n)
  (sh!! "ip" "link" "add" bridge "type" "bridge")
  (sh!! "ip" "addr" "add" (str host-ip "/24") "dev" bridge)
  (sh!! "ip" "link" "set" bridge "up")
  (doseq [i (range 1 (inc n))
          :let [ns (netns-name i) h (veth i "h") in (veth i "n")]]
    (sh!! "ip" "netns" "add" ns)
    (sh!! "ip" "link" "add" h "type" "veth" "peer" "name" in)
    (sh!! "ip" "link" "set" in "netns" ns)
    (sh!! "ip" "link" "set" h "master" bridge "up")
    (sh!! "ip" "-n" ns "addr" "add" (str (node-ip i) "/24") "dev" in)
    (sh!! "ip" "-n" ns "link" "set" in "up")
    (sh!! "ip" "-n" ns "link" "set" "lo" "up")))

(defn heal!
  "Removes every cut between nodes."
  [nodes]
  (doseq [i nodes]
    (let [routes (:out (sh/sh "ip" "-n" (netns-name i) "route" "show" "type" "blackhole"))]
      (doseq [line (str/split-lines routes)
              :let [dst (second (re-find #"blackhole\s+(\S+)" line))]
              :when dst]
        (try-run! "ip" "-n" (netns-name i) "route" "del" "blackhole" dst)))))

(defn cut!
  "Applies a grudge: a map node -> the nodes it must not hear from. Every cut is made on both
  sides."
  [grudge]
  (let [pairs (set (for [[a bs] grudge b bs] [a b]))]
    (doseq [[a b] (into pairs (map (fn [[a b]] [b a]) pairs))]
      (sh!! "ip" "-n" (netns-name a) "route" "replace" "blackhole" (str (node-ip b) "/32")))))

(defn exec-prefix
  "The command prefix that runs a program inside node i's namespace."
  [i]
  ["ip" "netns" "exec" (netns-name i)])
