(ns volery.jepsen.zk
  "The ZooKeeper Java client, as the workloads use it: every call is asynchronous and waited for
  with a deadline, so that a call stuck behind a fault ends as indeterminate instead of hanging
  its process."
  (:import (java.nio.charset StandardCharsets)
           (java.util List)
           (java.util.concurrent CountDownLatch TimeUnit)
           (org.apache.zookeeper AsyncCallback$Children2Callback AsyncCallback$DataCallback
                                 AsyncCallback$MultiCallback AsyncCallback$StatCallback
                                 AsyncCallback$StringCallback AsyncCallback$VoidCallback
                                 CreateMode KeeperException$Code Op OpResult$GetDataResult
                                 OpResult$ErrorResult Watcher Watcher$Event$KeeperState
                                 ZooDefs$Ids ZooKeeper)
           (org.apache.zookeeper.data Stat)))

(def session-timeout-ms 8000)

;; the client logs every refused connection with a stack trace; faults make many
(when-not (System/getProperty "org.slf4j.simpleLogger.log.org.apache.zookeeper")
  (System/setProperty "org.slf4j.simpleLogger.log.org.apache.zookeeper" "error"))

(defn connect
  "A client connected to one server, or an exception when it cannot connect within timeout-ms."
  [connect-string timeout-ms]
  (let [latch (CountDownLatch. 1)
        zk (ZooKeeper. ^String connect-string (int session-timeout-ms)
                       (reify Watcher
                         (process [_ e]
                           (when (= (.getState e) Watcher$Event$KeeperState/SyncConnected)
                             (.countDown latch)))))]
    (when-not (.await latch timeout-ms TimeUnit/MILLISECONDS)
      (future (.close zk 100))
      (throw (ex-info (str "could not connect to " connect-string " within " timeout-ms " ms")
                      {:type :connect-timeout})))
    zk))

(defn close! [^ZooKeeper zk]
  ;; closing waits for the server; a partitioned one would hold the caller
  (future (try (.close zk 1000) (catch Exception _))))

(defn bytes->str [^bytes b] (when b (String. b StandardCharsets/UTF_8)))
(defn str->bytes [^String s] (.getBytes s StandardCharsets/UTF_8))

(defn code
  "The keyword of a ZooKeeper result code: :ok, :bad-version, :no-node, :node-exists,
  :connection-loss, ..."
  [rc]
  (condp = (KeeperException$Code/get (int rc))
    KeeperException$Code/OK :ok
    KeeperException$Code/BADVERSION :bad-version
    KeeperException$Code/NONODE :no-node
    KeeperException$Code/NODEEXISTS :node-exists
    KeeperException$Code/NOTEMPTY :not-empty
    KeeperException$Code/CONNECTIONLOSS :connection-loss
    KeeperException$Code/SESSIONEXPIRED :session-expired
    KeeperException$Code/OPERATIONTIMEOUT :operation-timeout
    KeeperException$Code/SESSIONMOVED :session-moved
    (keyword (.toLowerCase (str (KeeperException$Code/get (int rc)))))))

(def definite-failures
  "Codes after which a write certainly did not happen."
  #{:bad-version :no-node :node-exists :not-empty})

(defn- await! [p timeout-ms]
  (let [r (deref p timeout-ms ::timeout)]
    (if (= r ::timeout) {:code :timeout} r)))

(defn get-data-async
  "Sends a getData; a promise of {:code :ok :data string :version n :t1 reply-nanos} or {:code ... :t1 ...}
  (:t1: System/nanoTime in the callback, after the reply arrived)."
  [^ZooKeeper zk path]
  (let [p (promise)]
    (.getData zk ^String path false
              (reify AsyncCallback$DataCallback
                (processResult [_ rc _ _ data stat]
                  (deliver p {:code (code rc) :data (bytes->str data)
                              :version (when stat (.getVersion ^Stat stat)) :t1 (System/nanoTime)})))
              nil)
    p))

(defn get-data
  "{:code :ok :data string :version n} or {:code ...}."
  [zk path timeout-ms]
  (await! (get-data-async zk path) timeout-ms))

(defn set-data-async
  "Sends a setData; a promise of {:code :version :t1}."
  [^ZooKeeper zk path ^String data version]
  (let [p (promise)]
    (.setData zk ^String path (str->bytes data) (int version)
              (reify AsyncCallback$StatCallback
                (processResult [_ rc _ _ stat]
                  (deliver p {:code (code rc) :version (when stat (.getVersion ^Stat stat)) :t1 (System/nanoTime)})))
              nil)
    p))

(defn set-data [zk path data version timeout-ms]
  (await! (set-data-async zk path data version) timeout-ms))

(defn create-async
  "Sends a create of path (mode :persistent or :sequential); a promise of {:code :ok :path created-path :t1}."
  [^ZooKeeper zk path ^String data mode]
  (let [p (promise)]
    (.create zk ^String path (str->bytes data) ZooDefs$Ids/OPEN_ACL_UNSAFE
             (if (= mode :sequential) CreateMode/PERSISTENT_SEQUENTIAL CreateMode/PERSISTENT)
             (reify AsyncCallback$StringCallback
               (processResult [_ rc _ _ name] (deliver p {:code (code rc) :path name :t1 (System/nanoTime)})))
             nil)
    p))

(defn create
  "Creates path (mode :persistent or :sequential); {:code :ok :path created-path}."
  [zk path data mode timeout-ms]
  (await! (create-async zk path data mode) timeout-ms))

(defn delete-async
  "Sends a delete; a promise of {:code :t1}."
  [^ZooKeeper zk path version]
  (let [p (promise)]
    (.delete zk ^String path (int version)
             (reify AsyncCallback$VoidCallback
               (processResult [_ rc _ _] (deliver p {:code (code rc) :t1 (System/nanoTime)})))
             nil)
    p))

(defn delete [zk path version timeout-ms]
  (await! (delete-async zk path version) timeout-ms))

(defn children-async
  "Sends a getChildren; a promise of {:code :ok :children [names] :t1}."
  [^ZooKeeper zk path]
  (let [p (promise)]
    (.getChildren zk ^String path false
                  (reify AsyncCallback$Children2Callback
                    (processResult [_ rc _ _ kids _] (deliver p {:code (code rc) :children (some-> kids vec) :t1 (System/nanoTime)})))
                  nil)
    p))

(defn children [zk path timeout-ms]
  (await! (children-async zk path) timeout-ms))

(defn multi-async
  "Sends ops (a list of org.apache.zookeeper.Op) to run atomically; a promise of {:code :ok :results [...] :t1}
  where a result of a getData op is {:data :version}."
  [^ZooKeeper zk ops]
  (let [p (promise)]
    (.multi zk ^Iterable ops
            (reify AsyncCallback$MultiCallback
              (processResult [_ rc _ _ results]
                (deliver p {:code (code rc)
                            :errors (when results
                                      (vec (for [r results :when (instance? OpResult$ErrorResult r)]
                                             (code (.getErr ^OpResult$ErrorResult r)))))
                            :results (when results
                                       (vec (for [r results]
                                              (when (instance? OpResult$GetDataResult r)
                                                {:data (bytes->str (.getData ^OpResult$GetDataResult r))
                                                 :version (.getVersion (.getStat ^OpResult$GetDataResult r))}))))
                            :t1 (System/nanoTime)})))
            nil)
    p))

(defn multi
  "Runs ops (a list of org.apache.zookeeper.Op) atomically: {:code :ok :results [...]} where a
  result of a getData op is {:data :version}."
  [zk ops timeout-ms]
  (await! (multi-async zk ops) timeout-ms))

(defn op-set-data ^Op [path ^String data version] (Op/setData path (str->bytes data) (int version)))
(defn op-check ^Op [path version] (Op/check path (int version)))
(defn op-get-data ^Op [path] (Op/getData path))
(defn op-create ^Op [path ^String data] (Op/create path (str->bytes data) ZooDefs$Ids/OPEN_ACL_UNSAFE CreateMode/PERSISTENT))
(defn op-delete ^Op [path version] (Op/delete path (int version)))

(defn ensure-path!
  "Creates path with data unless it exists; throws when the cluster does not answer."
  [zk path data timeout-ms]
  (let [{c :code} (create zk path data :persistent timeout-ms)]
    (when-not (#{:ok :node-exists} c)
      (throw (ex-info (str "could not create " path ": " c) {:code c})))))

(defn pipeline!
  "Sends calls, a vector of {:c :read|:write|:create|:delete|:children :path p :data s} or {:c :multi :paths [p ..] :data s}
  (a multi of setData of each path to s; with :zop :create or :delete and :zpath, it also creates :zpath with
  data s or deletes it), on one session without waiting between them (ZooKeeper's client
  keeps them in flight at once, in order), then waits for them all until one deadline. Returns, in call
  order, each call with :t0 (System/nanoTime just before it was handed to the client), :t1 (in its
  callback: after its reply arrived; absent if none came), :code, for a read :data and for :children :children. A call that got
  no answer by the deadline has :code :timeout."
  [zk calls timeout-ms]
  (let [sent (mapv (fn [{:keys [c path data paths] :as call}]
                     (let [t0 (System/nanoTime)]
                       [(assoc call :t0 t0)
                        (case c
                          :read (get-data-async zk path)
                          :write (set-data-async zk path data -1)
                          :multi (multi-async zk (cond-> (mapv #(op-set-data % data -1) paths)
                                                   (= :create (:zop call)) (conj (op-create (:zpath call) data))
                                                   (= :delete (:zop call)) (conj (op-delete (:zpath call) -1))))
                          :create (create-async zk path data :persistent)
                          :delete (delete-async zk path -1)
                          :children (children-async zk path))]))
                   calls)
        deadline (+ (System/currentTimeMillis) timeout-ms)]
    (mapv (fn [[call p]]
            (merge call (select-keys (await! p (max 0 (- deadline (System/currentTimeMillis)))) [:code :data :children :t1])))
          sent)))
