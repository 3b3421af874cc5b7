// Command zkgo drives a ZooKeeper ensemble (ZooKeeper itself or Volery) with the unmodified Go
// client github.com/go-zookeeper/zk, for GoZkClientTest.
//
//	zkgo session CONNECT
//	    one scripted session; one deterministic line per step on stdout (results, error names,
//	    the Stat fields that do not depend on zxids or clocks, watch events, multi results, ACLs,
//	    a reconnection that keeps the session and its watches, a session expiry, the lock recipe,
//	    protected ephemeral sequential nodes); the same history gives the same lines on any server.
//	zkgo linearizability CONNECT SECONDS CLIENTS [cut]
//	    CLIENTS connections run random reads, writes and version-checked writes (CAS) on a few
//	    registers under different top-level nodes for SECONDS seconds; Porcupine checks the
//	    history against a per-register model. Prints "linearizable ops=N keys=K" (exit 0) or
//	    "NOT linearizable" (exit 1); ZKGO_VIZ names a file for Porcupine's visualization.
//	    With "cut", a nemesis closes a random client's TCP connection every 100-400 ms: the
//	    client reconnects (to any server) within its session, and the requests it had in flight
//	    end with connection loss, their outcome unknown.
//	zkgo selftest
//	    feeds the checker histories whose verdicts are known (four of them not linearizable: a
//	    read of a value never written, a stale read after a completed write, two successful CAS
//	    from one version, a lost write seen before it was sent) and exits 0 only if it gets each
//	    verdict right.
//
// CONNECT is a ZooKeeper connect string (host:port,host:port,...). Exit status 2 means the run
// itself failed (an unexpected error), with the reason on stderr.
package main

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/go-zookeeper/zk"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "session":
		if len(os.Args) != 3 {
			usage()
		}
		session(servers(os.Args[2]))
	case "linearizability":
		if len(os.Args) != 5 && (len(os.Args) != 6 || os.Args[5] != "cut") {
			usage()
		}
		seconds, err1 := strconv.Atoi(os.Args[3])
		clients, err2 := strconv.Atoi(os.Args[4])
		if err1 != nil || err2 != nil || seconds < 1 || clients < 1 {
			usage()
		}
		os.Exit(linearizability(servers(os.Args[2]), time.Duration(seconds)*time.Second, clients, len(os.Args) == 6))
	case "selftest":
		os.Exit(selftest())
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: zkgo session CONNECT | zkgo linearizability CONNECT SECONDS CLIENTS [cut] | zkgo selftest")
	os.Exit(2)
}

func servers(connect string) []string {
	return strings.Split(connect, ",")
}

// die reports an unexpected failure of the run itself.
func die(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "zkgo: "+format+"\n", args...)
	os.Exit(2)
}

// dropper is a dialer whose connection the script can cut, and whose next dial it can hold back:
// the client then sees its server go away and reconnects as it would after a network failure.
type dropper struct {
	mu   sync.Mutex
	conn net.Conn
	gate chan struct{} // while not nil, dials wait for it to close
}

func (d *dropper) dial(network, address string, timeout time.Duration) (net.Conn, error) {
	d.mu.Lock()
	gate := d.gate
	d.mu.Unlock()
	if gate != nil {
		<-gate
	}
	c, err := net.DialTimeout(network, address, timeout)
	d.mu.Lock()
	d.conn = c
	d.mu.Unlock()
	return c, err
}

// cut closes the connection and holds back the reconnection until release.
func (d *dropper) cut() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.gate = make(chan struct{})
	if d.conn != nil {
		d.conn.Close()
	}
}

// drop closes the connection; the client reconnects at once.
func (d *dropper) drop() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.conn == nil {
		return false
	}
	d.conn.Close()
	d.conn = nil
	return true
}

func (d *dropper) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	close(d.gate)
	d.gate = nil
}

// waitState waits until the connection is (want) or is not (!want) in state.
func waitState(c *zk.Conn, state zk.State, want bool) {
	for i := 0; i < 300; i++ {
		if (c.State() == state) == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	die("connection state stays %v (waiting for %v == %v)", c.State(), state, want)
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...interface{}) {}

// connect opens a session and waits until it is established.
func connect(srvs []string, timeout time.Duration) *zk.Conn {
	return connectWith(srvs, timeout, net.DialTimeout, nil)
}

// connectWith dials through dialer; onEvent, if not nil, hears the session's events after it is established.
func connectWith(srvs []string, timeout time.Duration, dialer zk.Dialer, onEvent func(zk.Event)) *zk.Conn {
	conn, events, err := zk.Connect(srvs, timeout, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false),
		zk.WithDialer(dialer))
	if err != nil {
		die("connect %v: %v", srvs, err)
	}
	deadline := time.After(15 * time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				die("connect %v: event channel closed", srvs)
			}
			if ev.State == zk.StateHasSession {
				go func() { // keep draining session events
					for ev := range events {
						if onEvent != nil {
							onEvent(ev)
						}
					}
				}()
				return conn
			}
		case <-deadline:
			die("connect %v: no session within 15 s", srvs)
		}
	}
}

// ---------------------------------------------------------------------------------------------
// session

var errNames = map[error]string{
	zk.ErrNoNode:                  "ErrNoNode",
	zk.ErrNoAuth:                  "ErrNoAuth",
	zk.ErrBadVersion:              "ErrBadVersion",
	zk.ErrNoChildrenForEphemerals: "ErrNoChildrenForEphemerals",
	zk.ErrNodeExists:              "ErrNodeExists",
	zk.ErrNotEmpty:                "ErrNotEmpty",
	zk.ErrSessionExpired:          "ErrSessionExpired",
	zk.ErrInvalidACL:              "ErrInvalidACL",
	zk.ErrAuthFailed:              "ErrAuthFailed",
	zk.ErrBadArguments:            "ErrBadArguments",
	zk.ErrAPIError:                "ErrAPIError",
	zk.ErrConnectionClosed:        "ErrConnectionClosed",
	zk.ErrSessionMoved:            "ErrSessionMoved",
	zk.ErrClosing:                 "ErrClosing",
	zk.ErrNothing:                 "ErrNothing",
	zk.ErrInvalidFlags:            "ErrInvalidFlags",
	zk.ErrNoServer:                "ErrNoServer",
}

// name is "OK" for nil, go-zookeeper's variable name for its errors, else the error's text.
func name(err error) string {
	if err == nil {
		return "OK"
	}
	if n, ok := errNames[err]; ok {
		return n
	}
	return err.Error()
}

type script struct {
	c1, c2 *zk.Conn
	srvs   []string
}

// say prints one line of the transcript, with the random part of protected names masked.
func say(format string, args ...interface{}) {
	fmt.Println(unguid(fmt.Sprintf(format, args...)))
}

// must stops the script on an error that no step expects.
func must(step string, err error) {
	if err != nil {
		die("%s: unexpected %v", step, err)
	}
}

// stat prints the Stat fields that are the same on any server for the same history.
func (s *script) stat(st *zk.Stat) string {
	if st == nil {
		return "stat=nil"
	}
	owner := "none"
	switch st.EphemeralOwner {
	case 0:
	case s.c1.SessionID():
		owner = "c1"
	case s.c2.SessionID():
		owner = "c2"
	default:
		owner = "other"
	}
	return fmt.Sprintf("version=%d cversion=%d aversion=%d dataLength=%d numChildren=%d ephemeralOwner=%s",
		st.Version, st.Cversion, st.Aversion, st.DataLength, st.NumChildren, owner)
}

func acls(list []zk.ACL) string {
	parts := make([]string, len(list))
	for i, a := range list {
		parts[i] = fmt.Sprintf("%d:%s:%s", a.Perms, a.Scheme, a.ID)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// event waits for one watch event; "none" if none arrives within 10 s.
func event(ch <-chan zk.Event) string {
	return eventWithin(ch, 10*time.Second)
}

func eventWithin(ch <-chan zk.Event, patience time.Duration) string {
	select {
	case ev := <-ch:
		if ev.Err != nil {
			return fmt.Sprintf("%s %s err=%s", ev.Type, ev.Path, name(ev.Err))
		}
		return fmt.Sprintf("%s %s", ev.Type, ev.Path)
	case <-time.After(patience):
		return fmt.Sprintf("none within %v", patience)
	}
}

// pending says whether an event is already there, without waiting.
func pending(ch <-chan zk.Event) string {
	select {
	case ev := <-ch:
		return fmt.Sprintf("%s %s", ev.Type, ev.Path)
	default:
		return "not yet"
	}
}

var guid = regexp.MustCompile(`_c_[0-9a-f]{32}-`)

func unguid(p string) string {
	return guid.ReplaceAllString(p, "_c_GUID-")
}

func (s *script) create(c *zk.Conn, label, path, data string, flags int32, acl []zk.ACL) string {
	p, err := c.Create(path, []byte(data), flags, acl)
	if err != nil {
		say("%s %s: %s", label, path, name(err))
		return ""
	}
	say("%s %s -> %s", label, path, p)
	return p
}

func (s *script) get(c *zk.Conn, label, path string) {
	data, st, err := c.Get(path)
	if err != nil {
		say("%s %s: %s", label, path, name(err))
		return
	}
	say("%s %s = %q %s", label, path, data, s.stat(st))
}

func (s *script) set(c *zk.Conn, label, path, data string, version int32) {
	st, err := c.Set(path, []byte(data), version)
	if err != nil {
		say("%s %s@%d: %s", label, path, version, name(err))
		return
	}
	say("%s %s@%d -> %s", label, path, version, s.stat(st))
}

func (s *script) del(c *zk.Conn, label, path string, version int32) {
	say("%s %s@%d: %s", label, path, version, name(c.Delete(path, version)))
}

func (s *script) exists(c *zk.Conn, label, path string) {
	ok, st, err := c.Exists(path)
	if err != nil {
		say("%s %s: %s", label, path, name(err))
		return
	}
	if !ok {
		say("%s %s: false", label, path)
		return
	}
	say("%s %s: true %s", label, path, s.stat(st))
}

// children prints the names in the order the server gave them (ZooKeeper's is its HashSet's,
// fixed for a given history), sorted instead when protected names (with their random GUIDs) are among them.
func (s *script) children(c *zk.Conn, label, path string) {
	kids, st, err := c.Children(path)
	if err != nil {
		say("%s %s: %s", label, path, name(err))
		return
	}
	order := "in server order"
	if strings.Contains(strings.Join(kids, " "), "_c_") {
		masked := make([]string, len(kids))
		for i, k := range kids {
			masked[i] = unguid(k)
		}
		sort.Strings(masked)
		kids = masked
		order = "sorted"
	}
	say("%s %s = [%s] (%s) %s", label, path, strings.Join(kids, " "), order, s.stat(st))
}

func multiResults(res []zk.MultiResponse, err error, s *script) string {
	parts := make([]string, len(res))
	for i, r := range res {
		switch {
		case r.Error != nil:
			parts[i] = name(r.Error)
		case r.String != "":
			parts[i] = "path=" + r.String
		case r.Stat != nil:
			parts[i] = fmt.Sprintf("stat(version=%d dataLength=%d)", r.Stat.Version, r.Stat.DataLength)
		default:
			parts[i] = "OK"
		}
	}
	return fmt.Sprintf("err=%s results=[%s]", name(err), strings.Join(parts, ", "))
}

// deleteAll removes path and everything below it, children first.
func deleteAll(c *zk.Conn, path string) error {
	kids, _, err := c.Children(path)
	if err == zk.ErrNoNode {
		return nil
	}
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := deleteAll(c, path+"/"+k); err != nil {
			return err
		}
	}
	if err := c.Delete(path, -1); err != nil && err != zk.ErrNoNode {
		return err
	}
	return nil
}

const (
	one = "/gozk-one" // Volery's default 2-partition layout puts these two in different partitions
	two = "/gozk-two"
)

func session(srvs []string) {
	s := &script{srvs: srvs}
	s.c1 = connect(srvs, 10*time.Second)
	cutter := &dropper{}
	s.c2 = connectWith(srvs, 10*time.Second, cutter.dial, nil)
	c1, c2 := s.c1, s.c2
	world := zk.WorldACL(zk.PermAll)
	say("sessions distinct %v", c1.SessionID() != c2.SessionID() && c1.SessionID() != 0 && c2.SessionID() != 0)

	// --- creates, errors, data and versions
	s.create(c1, "create", one, "one", 0, world)
	s.create(c1, "create", two, "two", 0, world)
	s.create(c2, "create again", one, "x", 0, world)
	s.create(c1, "create without parent", one+"/x/y", "", 0, world)
	s.create(c1, "create with no ACL", one+"/noacl", "", 0, []zk.ACL{})
	s.get(c1, "get", one)
	s.set(c1, "set", one, "uno", 0)
	s.set(c2, "set stale", one, "eins", 0)
	s.set(c2, "set any", one, "un", -1)
	s.get(c2, "get", one)
	s.exists(c1, "exists", one+"/missing")
	s.get(c1, "get missing", one+"/missing")
	s.set(c1, "set missing", one+"/missing", "", -1)

	// --- sequential and ephemeral nodes
	s.create(c1, "sequential", one+"/s-", "", zk.FlagSequence, world)
	s.create(c2, "sequential", one+"/s-", "", zk.FlagSequence, world)
	s.create(c1, "ephemeral", one+"/eph", "mine", zk.FlagEphemeral, world)
	s.exists(c2, "exists", one+"/eph")
	s.create(c1, "child of ephemeral", one+"/eph/child", "", 0, world)
	s.create(c2, "ephemeral sequential", one+"/es-", "", zk.FlagEphemeralSequential, world)
	s.exists(c1, "exists", one+"/es-0000000003")
	s.children(c1, "children", one)
	s.del(c1, "delete non-empty", one, -1)
	s.del(c1, "delete stale", one+"/s-0000000000", 3)
	s.del(c1, "delete", one+"/s-0000000000", 0)
	s.del(c1, "delete again", one+"/s-0000000000", -1)
	s.create(c1, "sequential after delete", one+"/s-", "", zk.FlagSequence, world)
	s.children(c2, "children", one)

	// --- watches
	_, _, w, err := c2.GetW(two)
	must("GetW", err)
	s.set(c1, "set watched", two, "deux", -1)
	say("c2 data watch: %s", event(w))
	_, _, w, err = c1.GetW(one)
	must("GetW", err)
	s.set(c1, "set own watched", one, "uno", -1)
	say("c1 data watch before its own set returned: %s", pending(w))
	_, _, w, err = c2.ChildrenW(one)
	must("ChildrenW", err)
	s.create(c1, "create under watched", one+"/c", "", 0, world)
	say("c2 child watch: %s", event(w))
	ok, _, w, err := c2.ExistsW(two + "/new")
	must("ExistsW", err)
	say("existsW %s/new: %v", two, ok)
	s.create(c1, "create watched", two+"/new", "n", 0, world)
	say("c2 exists watch: %s", event(w))
	ok, _, w, err = c2.ExistsW(two + "/new")
	must("ExistsW", err)
	say("existsW %s/new: %v", two, ok)
	_, _, w2, err := c2.GetW(two + "/new")
	must("GetW", err)
	s.del(c1, "delete watched", two+"/new", -1)
	say("c2 exists watch: %s", event(w))
	say("c2 data watch: %s", event(w2))
	_, _, w, err = c2.ChildrenW(two)
	must("ChildrenW", err)
	s.set(c1, "set parent of child-watched", two, "two", -1)
	say("c2 child watch after a data change: %s", pending(w))
	s.create(c1, "create under watched", two+"/kid", "", 0, world)
	say("c2 child watch: %s", event(w))

	// --- multi spanning both top-level nodes
	res, err := c1.Multi(
		&zk.CreateRequest{Path: one + "/m", Data: []byte("multi"), Acl: world, Flags: 0},
		&zk.SetDataRequest{Path: two, Data: []byte("2"), Version: -1},
		&zk.CheckVersionRequest{Path: one, Version: 3},
		&zk.DeleteRequest{Path: two + "/kid", Version: 0},
		&zk.CreateRequest{Path: two + "/ms-", Data: nil, Acl: world, Flags: zk.FlagSequence},
	)
	say("multi: %s", multiResults(res, err, s))
	s.get(c2, "get", one+"/m")
	s.get(c2, "get", two)
	res, err = c1.Multi(
		&zk.CreateRequest{Path: one + "/m2", Data: []byte("never"), Acl: world, Flags: 0},
		&zk.SetDataRequest{Path: two, Data: []byte("never"), Version: -1},
		&zk.CheckVersionRequest{Path: one, Version: 99},
		&zk.DeleteRequest{Path: one + "/m", Version: -1},
	)
	say("failing multi: %s", multiResults(res, err, s))
	res, err = c1.Multi(
		&zk.CreateRequest{Path: two + "/m3", Data: nil, Acl: world, Flags: 0},
		&zk.CreateRequest{Path: one + "/m", Data: nil, Acl: world, Flags: 0},
		&zk.SetDataRequest{Path: one, Data: []byte("never"), Version: -1},
	)
	say("failing multi: %s", multiResults(res, err, s))
	s.exists(c2, "rolled back", one+"/m2")
	s.exists(c2, "rolled back", two+"/m3")
	s.get(c2, "unchanged", two)
	s.get(c2, "unchanged", one+"/m")

	// --- ACLs and digest authentication
	must("AddAuth", c1.AddAuth("digest", []byte("alice:secret")))
	s.create(c1, "create digest-only", two+"/secret", "hidden", 0, zk.DigestACL(zk.PermAll, "alice", "secret"))
	a, st, err := c1.GetACL(two + "/secret")
	say("getACL %s/secret: %s %s %s", two, name(err), acls(a), s.stat(st))
	s.get(c1, "get with auth", two+"/secret")
	s.get(c2, "get without auth", two+"/secret")
	s.set(c2, "set without auth", two+"/secret", "x", -1)
	s.create(c2, "create below without auth", two+"/secret/kid", "", 0, world)
	must("AddAuth", c2.AddAuth("digest", []byte("alice:wrong")))
	s.get(c2, "get with a wrong password", two+"/secret")
	a, st, err = c1.GetACL(two)
	say("getACL %s: %s %s %s", two, name(err), acls(a), s.stat(st))
	st, err = c1.SetACL(two+"/secret", append(zk.WorldACL(zk.PermRead), zk.DigestACL(zk.PermAll, "alice", "secret")...), 5)
	say("setACL stale: %s", name(err))
	st, err = c1.SetACL(two+"/secret", append(zk.WorldACL(zk.PermRead), zk.DigestACL(zk.PermAll, "alice", "secret")...), 0)
	say("setACL: %s %s", name(err), s.stat(st))
	s.get(c2, "get after world read", two+"/secret")
	s.set(c2, "set after world read", two+"/secret", "x", -1)
	s.create(c1, "create auth ACL", one+"/authacl", "a", 0, zk.AuthACL(zk.PermRead|zk.PermWrite))
	a, _, err = c2.GetACL(one + "/authacl")
	say("getACL %s/authacl: %s %s", one, name(err), acls(a))
	s.set(c1, "set with auth ACL", one+"/authacl", "b", -1)
	s.del(c1, "delete", one+"/authacl", -1)
	s.del(c2, "delete without auth (DELETE is the parent's)", two+"/secret", -1)

	// --- sync
	p, err := c2.Sync(one)
	say("sync %s: %s %s", one, name(err), p)

	// --- an ephemeral goes with its closed session, seen from another connection
	c3 := connect(srvs, 10*time.Second)
	s.create(c3, "c3 ephemeral", one+"/c3eph", "", zk.FlagEphemeral, world)
	_, st, err = c1.Get(one + "/c3eph")
	must("Get", err)
	say("owner is c3: %v", st.EphemeralOwner == c3.SessionID())
	ok, _, w, err = c1.ExistsW(one + "/c3eph")
	must("ExistsW", err)
	c3.Close()
	say("c3 closed; c1 exists watch: %s", event(w))
	s.exists(c2, "after close", one+"/c3eph")

	// --- a session that expires while its client is cut off: its ephemeral goes, other sessions'
	// watches fire, and the client, back, hears that its session expired and starts a new one
	var expiredSeen int32
	cut4 := &dropper{}
	c4 := connectWith(srvs, 4*time.Second, cut4.dial, func(ev zk.Event) {
		if ev.State == zk.StateExpired {
			atomic.StoreInt32(&expiredSeen, 1)
		}
	})
	s.create(c4, "c4 ephemeral", one+"/c4eph", "", zk.FlagEphemeral, world)
	_, _, w, err = c1.ExistsW(one + "/c4eph")
	must("ExistsW", err)
	_, _, w4, err := c4.GetW(two)
	must("GetW", err)
	old4 := c4.SessionID()
	cut4.cut()
	say("c4 cut off (session timeout 4 s)")
	say("c1 exists watch: %s", eventWithin(w, 30*time.Second))
	s.exists(c2, "after expiry", one+"/c4eph")
	cut4.release()
	say("c4 back; its watch: %s", eventWithin(w4, 30*time.Second))
	for i := 0; c4.State() != zk.StateHasSession || c4.SessionID() == old4; i++ {
		if i == 1000 {
			die("c4 did not get a new session")
		}
		time.Sleep(20 * time.Millisecond)
	}
	say("c4 heard StateExpired %v, has a new session %v", atomic.LoadInt32(&expiredSeen) == 1, c4.SessionID() != old4)
	s.create(c4, "c4 ephemeral again", one+"/c4eph", "", zk.FlagEphemeral, world)
	s.exists(c2, "exists", one+"/c4eph")
	c4.Close()

	// --- c2 loses its connection and reconnects (with ZooKeeper 3.9.5's own server, the same one;
	// with Volery, another node): its session and its watches survive; go-zookeeper re-arms the
	// watches with setWatches relative to the last zxid it saw, so the changes made while it was
	// away fire at once, and the others stay armed.
	s.create(c1, "create", one+"/rw", "before", 0, world)
	s.create(c1, "create", two+"/rstay", "", 0, world)
	_, _, wData, err := c2.GetW(one + "/rw")
	must("GetW", err)
	_, _, wExist, err := c2.ExistsW(one + "/rnew")
	must("ExistsW", err)
	_, _, wChild, err := c2.ChildrenW(two)
	must("ChildrenW", err)
	_, _, wStay, err := c2.GetW(two + "/rstay")
	must("GetW", err)
	_, _, wGone, err := c2.ExistsW(one + "/rw")
	must("ExistsW", err)
	before := c2.SessionID()
	cutter.cut()
	waitState(c2, zk.StateHasSession, false)
	say("c2 cut off")
	s.set(c1, "set while c2 is away", one+"/rw", "after", -1)
	s.create(c1, "create while c2 is away", one+"/rnew", "", 0, world)
	cutter.release()
	waitState(c2, zk.StateHasSession, true)
	say("c2 reconnected, same session %v", c2.SessionID() == before)
	say("c2 data watch: %s", event(wData))
	say("c2 exists watch on a node then missing: %s", event(wExist))
	say("c2 exists watch on a node that was there: %s", event(wGone))
	say("c2 child watch still armed: %s", pending(wChild))
	s.get(c2, "get after reconnect", one+"/rw")
	s.create(c1, "create under watched", two+"/rkid", "", 0, world)
	say("c2 child watch: %s", event(wChild))
	s.set(c1, "set watched", two+"/rstay", "changed", -1)
	say("c2 data watch: %s", event(wStay))

	// --- the lock recipe: two connections, the second waits for the first to unlock
	lockPath := two + "/locks/l"
	l1 := zk.NewLock(c1, lockPath, world)
	l2 := zk.NewLock(c2, lockPath, world)
	var mu sync.Mutex
	var order []string
	note := func(what string) {
		mu.Lock()
		order = append(order, what)
		mu.Unlock()
	}
	must("lock c1", l1.Lock())
	note("c1 locked")
	done := make(chan error, 1)
	go func() {
		err := l2.Lock()
		note("c2 locked")
		done <- err
	}()
	// wait until c2's lock node is there: it is then waiting on c1's
	for i := 0; ; i++ {
		kids, _, err := c1.Children(lockPath)
		must("Children", err)
		if len(kids) == 2 {
			break
		}
		if i == 100 {
			die("c2's lock node did not appear")
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.children(c1, "lock nodes", lockPath)
	time.Sleep(300 * time.Millisecond)
	note("c1 unlocking")
	must("unlock c1", l1.Unlock())
	select {
	case err := <-done:
		must("lock c2", err)
	case <-time.After(10 * time.Second):
		die("c2 never got the lock")
	}
	mu.Lock()
	say("lock order: %s", strings.Join(order, ", "))
	mu.Unlock()
	s.children(c1, "lock nodes", lockPath)
	must("unlock c2", l2.Unlock())
	s.children(c1, "lock nodes", lockPath)
	say("unlock twice: %s", name(l2.Unlock()))

	// --- protected ephemeral sequential, containers
	p, err = c2.CreateProtectedEphemeralSequential(one+"/p-", []byte("protected"), world)
	say("protected ephemeral sequential: %s %s", name(err), p)
	s.exists(c1, "exists", p)
	s.create(c1, "container", two+"/ctr", "", zk.FlagContainer, world)
	p, err = c1.CreateContainer(two+"/ctr2", nil, zk.FlagContainer, world)
	say("createContainer: %s %s", name(err), p)
	s.create(c1, "in container", two+"/ctr2/x", "", zk.FlagEphemeral, world)
	s.exists(c2, "container", two+"/ctr2")

	// --- go-zookeeper's srvr helper: ZooKeeper 3.9 writes "built on 2026-02-11 20:18 UTC", which
	// v1.0.4's pattern (MM/DD/YYYY) does not match; every server must answer srvr all the same
	stats, ok := zk.FLWSrvr(srvs, 5*time.Second)
	errs := map[string]bool{}
	for _, st := range stats {
		if st.Error != nil {
			errs[st.Error.Error()] = true
		} else {
			errs["parsed"] = true
		}
	}
	var kinds []string
	for e := range errs {
		kinds = append(kinds, e)
	}
	sort.Strings(kinds)
	say("FLWSrvr on every server: ok=%v %s", ok, strings.Join(kinds, "; "))

	// --- the whole tree, then cleanup
	s.children(c1, "children", one)
	s.children(c1, "children", two)
	must("cleanup", deleteAll(c1, one))
	must("cleanup", deleteAll(c1, two))
	s.exists(c2, "after cleanup", one)
	s.exists(c2, "after cleanup", two)
	c1.Close()
	c2.Close()
	say("done")
}

// ---------------------------------------------------------------------------------------------
// linearizability

// regInput is one operation on one register (a znode). Values are unique per write.
type regInput struct {
	key     string
	kind    string // "read", "write" or "cas"
	value   string // write, cas: the value written
	version int32  // cas: the expected version
}

// regOutput is what the client saw. A read sees the value and its version; a write or successful
// cas sees the version it made; a cas that failed saw BadVersion. unknown: the outcome of a write
// or cas was lost with the connection.
type regOutput struct {
	value   string
	version int32
	ok      bool
	unknown bool
}

type regState struct {
	value   string
	version int32
}

func registerModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range history {
				k := op.Input.(regInput).key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			sort.Strings(keys)
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, byKey[k])
			}
			return out
		},
		Init: func() interface{} { return regState{value: "0", version: 0} },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(regState)
			in := input.(regInput)
			out := output.(regOutput)
			switch in.kind {
			case "read":
				return s.value == out.value && s.version == out.version, s
			case "write":
				next := regState{value: in.value, version: s.version + 1}
				if out.unknown {
					return true, next
				}
				return out.version == next.version, next
			case "cas":
				if s.version != in.version { // the version check fails: nothing changes
					return out.unknown || !out.ok, s
				}
				next := regState{value: in.value, version: s.version + 1}
				if out.unknown {
					return true, next
				}
				return out.ok && out.version == next.version, next
			}
			return false, s
		},
		DescribeOperation: func(input, output interface{}) string {
			in := input.(regInput)
			out := output.(regOutput)
			switch {
			case in.kind == "read":
				return fmt.Sprintf("get %s -> %s v%d", in.key, out.value, out.version)
			case out.unknown:
				return fmt.Sprintf("%s %s %s@%d -> ?", in.kind, in.key, in.value, in.version)
			case in.kind == "cas" && !out.ok:
				return fmt.Sprintf("cas %s %s@%d -> BadVersion", in.key, in.value, in.version)
			default:
				return fmt.Sprintf("%s %s %s@%d -> v%d", in.kind, in.key, in.value, in.version, out.version)
			}
		},
		DescribeState: func(state interface{}) string {
			s := state.(regState)
			return fmt.Sprintf("%s v%d", s.value, s.version)
		},
	}
}

var linKeys = []string{ // two top-level nodes in each of Volery's two default partitions
	"/golin-a/reg", "/golin-b/reg", "/golin-d/reg", "/golin-e/reg",
}

type counts struct {
	reads, writes, casOK, casFailed int
	failed, indeterminate           int
}

// indeterminate: the request may or may not have been applied (the connection was lost with it
// in flight, or it was never answered).
func indeterminate(err error) bool {
	switch err {
	case zk.ErrConnectionClosed, zk.ErrClosing, zk.ErrSessionExpired, zk.ErrSessionMoved, zk.ErrNoServer:
		return true
	}
	var netErr net.Error // the request could not be written whole: it may have reached the server
	if errors.As(err, &netErr) {
		return true
	}
	// connection loss (-4), operation timeout (-7) and other codes go-zookeeper has no name for
	return strings.HasPrefix(err.Error(), "unknown error")
}

func linearizability(srvs []string, length time.Duration, clients int, cut bool) int {
	setup := connect(srvs, 10*time.Second)
	for _, k := range linKeys {
		parent := k[:strings.LastIndex(k, "/")]
		if err := deleteAll(setup, parent); err != nil {
			die("setup: %v", err)
		}
		if _, err := setup.Create(parent, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			die("setup: create %s: %v", parent, err)
		}
		if _, err := setup.Create(k, []byte("0"), 0, zk.WorldACL(zk.PermAll)); err != nil {
			die("setup: create %s: %v", k, err)
		}
	}
	conns := make([]*zk.Conn, clients)
	droppers := make([]*dropper, clients)
	for i := range conns {
		droppers[i] = &dropper{}
		conns[i] = connectWith(srvs, 10*time.Second, droppers[i].dial, nil)
	}

	start := time.Now()
	now := func() int64 { return int64(time.Since(start)) }
	var (
		mu       sync.Mutex
		ops      []porcupine.Operation
		c        counts
		nextID   = int64(clients)
		written  int64
		wg       sync.WaitGroup
		deadline = start.Add(length)
	)
	record := func(op porcupine.Operation) {
		mu.Lock()
		ops = append(ops, op)
		mu.Unlock()
	}
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func(client int, conn *zk.Conn) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(client)*7919 + time.Now().UnixNano()))
			id := client
			count := func(f func(*counts)) {
				mu.Lock()
				f(&c)
				mu.Unlock()
			}
			lost := func() { // Jepsen's :info: this process is done, another takes its place
				id = int(atomic.AddInt64(&nextID, 1) - 1)
			}
			readFailed := func(key string, err error) {
				if indeterminate(err) {
					count(func(c *counts) { c.indeterminate++ })
					lost()
					return
				}
				count(func(c *counts) { c.failed++ })
				fmt.Fprintf(os.Stderr, "zkgo: read %s: %v\n", key, err)
			}
			for time.Now().Before(deadline) {
				key := linKeys[rng.Intn(len(linKeys))]
				switch r := rng.Intn(4); {
				case r < 2: // read
					call := now()
					data, st, err := conn.Get(key)
					ret := now()
					if err != nil {
						readFailed(key, err)
						continue // a read that failed changed nothing
					}
					record(porcupine.Operation{ClientId: id, Input: regInput{key: key, kind: "read"}, Call: call,
						Output: regOutput{value: string(data), version: st.Version}, Return: ret})
					count(func(c *counts) { c.reads++ })
				default: // write (r == 2) or cas (r == 3: read the version, then set with it)
					in := regInput{key: key, kind: "write", version: -1}
					if r == 3 {
						call := now()
						data, st, err := conn.Get(key)
						ret := now()
						if err != nil {
							readFailed(key, err)
							continue
						}
						record(porcupine.Operation{ClientId: id, Input: regInput{key: key, kind: "read"}, Call: call,
							Output: regOutput{value: string(data), version: st.Version}, Return: ret})
						count(func(c *counts) { c.reads++ })
						in.kind = "cas"
						in.version = st.Version
					}
					in.value = strconv.FormatInt(atomic.AddInt64(&written, 1), 10)
					call := now()
					st, err := conn.Set(key, []byte(in.value), in.version)
					ret := now()
					switch {
					case err == nil:
						record(porcupine.Operation{ClientId: id, Input: in, Call: call,
							Output: regOutput{version: st.Version, ok: true}, Return: ret})
						count(func(c *counts) {
							if in.kind == "cas" {
								c.casOK++
							} else {
								c.writes++
							}
						})
					case err == zk.ErrBadVersion && in.kind == "cas":
						record(porcupine.Operation{ClientId: id, Input: in, Call: call,
							Output: regOutput{ok: false}, Return: ret})
						count(func(c *counts) { c.casFailed++ })
					case indeterminate(err):
						// may take effect at any time after call: its return is the end of history
						record(porcupine.Operation{ClientId: id, Input: in, Call: call,
							Output: regOutput{unknown: true}, Return: -1})
						count(func(c *counts) { c.indeterminate++ })
						lost()
					default:
						count(func(c *counts) { c.failed++ })
						fmt.Fprintf(os.Stderr, "zkgo: %s %s: %v\n", in.kind, key, err)
					}
				}
			}
		}(i, conns[i])
	}
	cuts := 0
	if cut {
		rng := rand.New(rand.NewSource(time.Now().UnixNano()))
		for time.Now().Add(400 * time.Millisecond).Before(deadline) {
			time.Sleep(time.Duration(100+rng.Intn(300)) * time.Millisecond)
			if droppers[rng.Intn(clients)].drop() {
				cuts++
			}
		}
	}
	wg.Wait()
	end := now() + 1
	for i := range ops {
		if ops[i].Return < 0 {
			ops[i].Return = end
		}
	}
	for _, conn := range conns {
		conn.Close()
	}
	for _, k := range linKeys {
		_ = deleteAll(setup, k[:strings.LastIndex(k, "/")])
	}
	setup.Close()

	fmt.Printf("ops ok=%d (reads=%d writes=%d cas-ok=%d cas-badversion=%d) failed=%d indeterminate=%d "+
		"connection-cuts=%d\n", c.reads+c.writes+c.casOK+c.casFailed, c.reads, c.writes, c.casOK, c.casFailed,
		c.failed, c.indeterminate, cuts)
	return check(ops, len(linKeys))
}

// check runs Porcupine on ops and prints the verdict; 0 linearizable, 1 not, 2 undecided.
func check(ops []porcupine.Operation, keys int) int {
	model := registerModel()
	result, info := porcupine.CheckOperationsVerbose(model, ops, 120*time.Second)
	if viz := os.Getenv("ZKGO_VIZ"); viz != "" {
		if err := porcupine.VisualizePath(model, info, viz); err != nil {
			fmt.Fprintf(os.Stderr, "zkgo: visualization: %v\n", err)
		}
	}
	switch result {
	case porcupine.Ok:
		fmt.Printf("linearizable ops=%d keys=%d\n", len(ops), keys)
		return 0
	case porcupine.Illegal:
		fmt.Printf("NOT linearizable ops=%d keys=%d\n", len(ops), keys)
		return 1
	default:
		fmt.Printf("linearizability UNKNOWN (checker timed out) ops=%d keys=%d\n", len(ops), keys)
		return 2
	}
}

// ---------------------------------------------------------------------------------------------
// selftest: histories whose verdicts are known

func selftest() int {
	rd := func(client int, key, value string, version int32, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: regInput{key: key, kind: "read"},
			Output: regOutput{value: value, version: version}, Call: call, Return: ret}
	}
	wr := func(client int, key, value string, version int32, call, ret int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: regInput{key: key, kind: "write", value: value, version: -1},
			Output: regOutput{version: version, ok: true}, Call: call, Return: ret}
	}
	cas := func(client int, key, value string, expect int32, ok bool, call, ret int64) porcupine.Operation {
		out := regOutput{ok: ok}
		if ok {
			out.version = expect + 1
		}
		return porcupine.Operation{ClientId: client, Input: regInput{key: key, kind: "cas", value: value, version: expect},
			Output: out, Call: call, Return: ret}
	}
	lost := func(client int, key, value string, call int64) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: regInput{key: key, kind: "write", value: value, version: -1},
			Output: regOutput{unknown: true}, Call: call, Return: 1000}
	}
	cases := []struct {
		name string
		want bool
		ops  []porcupine.Operation
	}{
		{"concurrent writes and reads", true, []porcupine.Operation{
			wr(0, "x", "1", 1, 0, 10), wr(1, "x", "2", 2, 5, 15), rd(2, "x", "2", 2, 16, 20),
			rd(0, "y", "0", 0, 0, 3), cas(1, "y", "3", 0, true, 4, 8), cas(2, "y", "4", 0, false, 6, 9),
		}},
		{"a read of a value never written", false, []porcupine.Operation{
			wr(0, "x", "1", 1, 0, 10), rd(1, "x", "7", 1, 11, 12),
		}},
		{"a stale read after a completed write", false, []porcupine.Operation{
			rd(0, "y", "0", 0, 0, 1), wr(0, "x", "1", 1, 0, 10), rd(1, "x", "0", 0, 11, 12),
		}},
		{"two successful cas from one version", false, []porcupine.Operation{
			cas(0, "x", "1", 0, true, 0, 10), cas(1, "x", "2", 0, true, 0, 10),
		}},
		{"a lost write seen later", true, []porcupine.Operation{
			lost(0, "x", "1", 0), rd(1, "x", "0", 0, 5, 6), rd(1, "x", "1", 1, 20, 21), rd(2, "x", "1", 1, 30, 31),
		}},
		{"a lost write seen before it was sent", false, []porcupine.Operation{
			rd(1, "x", "1", 1, 0, 4), lost(0, "x", "1", 5),
		}},
	}
	bad := 0
	for _, tc := range cases {
		got := porcupine.CheckOperations(registerModel(), tc.ops)
		verdict := "linearizable"
		if !got {
			verdict = "NOT linearizable"
		}
		mark := "ok"
		if got != tc.want {
			mark = "WRONG"
			bad++
		}
		fmt.Printf("selftest %s: %s: %s\n", tc.name, verdict, mark)
	}
	if bad > 0 {
		fmt.Printf("selftest FAILED: %d wrong verdicts\n", bad)
		return 1
	}
	fmt.Println("selftest passed")
	return 0
}
