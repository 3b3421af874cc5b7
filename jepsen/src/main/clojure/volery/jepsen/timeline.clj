(ns volery.jepsen.timeline
  "An HTML timeline of a history, in the spirit of Jepsen's timeline.html: one column per
  process, time downwards, each operation a box from invocation to completion coloured by its
  outcome (ok green, fail pink, info orange); nemesis faults are bands across the page."
  (:require [clojure.string :as str]
            [volery.jepsen.history :as h]))

(def ^:private px-per-ms 0.5)
(def ^:private col-width 110)

(defn- esc [s] (-> (str s) (str/replace "&" "&amp;") (str/replace "<" "&lt;") (str/replace ">" "&gt;") (str/replace "\"" "&quot;")))

(defn html
  "The timeline page of history as a string."
  [history title]
  (let [pairs (h/pairs history)
        end-time (reduce max 1 (map :time history))
        procs (sort (distinct (map (comp :process first) pairs)))
        col (zipmap procs (range))
        y (fn [t] (* px-per-ms (/ t 1e6)))
        nemesis (filter #(= :nemesis (:process %)) history)
        box (fn [[inv done]]
              (let [t0 (:time inv) t1 (or (:time done) end-time)
                    type (or (:type done) :info)]
                (format "<div class=\"op %s\" style=\"left:%dpx;top:%.1fpx;height:%.1fpx\" title=\"%s\">%s</div>"
                        (name type) (+ 60 (* col-width (col (:process inv)))) (y t0) (max 2.0 (- (y t1) (y t0)))
                        (esc (str "process " (:process inv) " " (name (:f inv)) " " (pr-str (:value inv))
                                  " -> " (name type) " " (pr-str (:value done)) (when (:error done) (str " " (:error done)))
                                  " [" (long (/ t0 1e6)) " ms, " (long (/ (- t1 t0) 1e6)) " ms]"))
                        (esc (str (name (:f inv)) " " (pr-str (if (= :ok type) (:value done) (:value inv))))))))
        band (fn [op]
               (format "<div class=\"nemesis\" style=\"top:%.1fpx\">%s</div>" (y (:time op))
                       (esc (str (long (/ (:time op) 1e6)) " ms: " (name (:f op)) " " (pr-str (:value op))))))]
    (str "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" (esc title) "</title><style>"
         "body{font:11px sans-serif;margin:0}h1{font-size:14px;margin:8px}"
         ".wrap{position:relative;height:" (long (+ 100 (y end-time))) "px}"
         ".op{position:absolute;width:" (- col-width 6) "px;overflow:hidden;border-radius:2px;white-space:nowrap;font-size:10px}"
         ".ok{background:#b5e6b5}.fail{background:#f5b8c8}.info{background:#ffd28a}"
         ".nemesis{position:absolute;left:0;right:0;border-top:1px dashed #c00;color:#c00;padding-left:4px;font-size:10px}"
         ".head{position:absolute;top:0;font-weight:bold}"
         "</style></head><body><h1>" (esc title) " &mdash; " (count pairs) " operations, "
         (long (/ end-time 1e9)) " s; hover an operation for details</h1><div class=\"wrap\">"
         (str/join (map box pairs))
         (str/join (map band nemesis))
         "</div></body></html>")))
