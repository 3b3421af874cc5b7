// Command porcupine-checker checks the register operations of a Jepsen history.edn for
// linearizability with Porcupine and prints the verdict as an EDN map on standard output.
//
//	porcupine-checker [-timeout 60s] [-html linear.html] history.edn
//
// Register operations (Jepsen's independent tuples, one key = a pair of registers x (0) and y (1)
// that live in different partitions):
//
//	{:f :read       :value [k r v]}        read register r of pair k, v is the value read
//	{:f :write      :value [k r v]}
//	{:f :cas        :value [k r [old new]]}
//	{:f :write-both :value [k v]}          a multi that sets both registers of pair k to v
//
// Every register starts at 0. :fail operations did not happen; :info operations may have happened
// at any time after their invocation (reads that ended :info are dropped, they change nothing).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

type regInput struct {
	key    int64
	f      string
	reg    int   // 0 or 1; -1 for write-both
	value  int64 // read: value read; write/write-both: value written; cas: new value
	old    int64 // cas: expected value
	hasOut bool  // false for an :info write or cas: its effect is unknown
}

type pair [2]int64

func registerModel() porcupine.Model {
	return porcupine.Model{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[int64][]porcupine.Operation{}
			keys := []int64{}
			for _, op := range history {
				k := op.Input.(regInput).key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
			out := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				out = append(out, byKey[k])
			}
			return out
		},
		Init: func() interface{} { return pair{0, 0} },
		Step: func(state, input, output interface{}) (bool, interface{}) {
			s := state.(pair)
			in := input.(regInput)
			switch in.f {
			case "read":
				return s[in.reg] == in.value, s
			case "write":
				s[in.reg] = in.value
				return true, s
			case "write-both":
				return true, pair{in.value, in.value}
			case "cas":
				if !in.hasOut { // unknown outcome: a cas whose precondition fails changes nothing
					if s[in.reg] == in.old {
						s[in.reg] = in.value
					}
					return true, s
				}
				if s[in.reg] != in.old {
					return false, s
				}
				s[in.reg] = in.value
				return true, s
			}
			return false, s
		},
		DescribeOperation: func(input, output interface{}) string {
			in := input.(regInput)
			name := []string{"x", "y"}
			switch in.f {
			case "read":
				return fmt.Sprintf("read %s -> %d", name[in.reg], in.value)
			case "write":
				return fmt.Sprintf("write %s %d", name[in.reg], in.value)
			case "cas":
				return fmt.Sprintf("cas %s %d->%d", name[in.reg], in.old, in.value)
			default:
				return fmt.Sprintf("write-both %d", in.value)
			}
		},
		DescribeState: func(state interface{}) string {
			s := state.(pair)
			return fmt.Sprintf("x=%d y=%d", s[0], s[1])
		},
	}
}

func num(v interface{}) (int64, bool) {
	i, ok := v.(int64)
	return i, ok
}

// toInput reads a register operation's :value; ok is false for operations of other workloads.
func toInput(f string, value interface{}) (regInput, bool) {
	vec, ok := value.([]interface{})
	if !ok {
		return regInput{}, false
	}
	switch f {
	case "read", "write", "cas":
		if len(vec) != 3 {
			return regInput{}, false
		}
		k, ok1 := num(vec[0])
		r, ok2 := num(vec[1])
		if !ok1 || !ok2 || r < 0 || r > 1 {
			return regInput{}, false
		}
		in := regInput{key: k, f: f, reg: int(r)}
		if f == "cas" {
			ov, ok := vec[2].([]interface{})
			if !ok || len(ov) != 2 {
				return regInput{}, false
			}
			in.old, _ = num(ov[0])
			in.value, _ = num(ov[1])
		} else {
			in.value, _ = num(vec[2])
		}
		return in, true
	case "write-both":
		if len(vec) != 2 {
			return regInput{}, false
		}
		k, ok1 := num(vec[0])
		v, ok2 := num(vec[1])
		return regInput{key: k, f: f, reg: -1, value: v}, ok1 && ok2
	}
	return regInput{}, false
}

type pending struct {
	input regInput
	call  int64
	index int64
}

func main() {
	timeout := flag.Duration("timeout", 60*time.Second, "give up (verdict :unknown) after this long")
	html := flag.String("html", "", "write Porcupine's visualization of the history here")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: porcupine-checker [-timeout 60s] [-html out.html] history.edn")
		os.Exit(2)
	}
	file, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "porcupine-checker:", err)
		os.Exit(2)
	}
	defer file.Close()

	open := map[int64]pending{}
	var ops []porcupine.Operation
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	line := 0
	infos := 0
	for scanner.Scan() {
		line++
		text := strings.TrimSpace(scanner.Text())
		if text == "" {
			continue
		}
		v, err := parseEDN(text)
		if err != nil {
			fmt.Fprintf(os.Stderr, "porcupine-checker: %s:%d: %v\n", flag.Arg(0), line, err)
			os.Exit(2)
		}
		m, ok := v.(map[interface{}]interface{})
		if !ok {
			continue
		}
		typ, _ := m[Keyword("type")].(Keyword)
		fk, _ := m[Keyword("f")].(Keyword)
		proc, isClient := num(m[Keyword("process")])
		if !isClient { // the nemesis
			continue
		}
		t, _ := num(m[Keyword("time")])
		idx, _ := num(m[Keyword("index")])
		switch typ {
		case "invoke":
			in, ok := toInput(string(fk), m[Keyword("value")])
			if ok {
				open[proc] = pending{input: in, call: t, index: idx}
			}
		case "ok", "fail", "info":
			p, ok := open[proc]
			if !ok {
				continue
			}
			delete(open, proc)
			in := p.input
			switch typ {
			case "ok":
				if in.f == "read" {
					done, ok := toInput(string(fk), m[Keyword("value")])
					if !ok {
						continue
					}
					in.value = done.value
				}
				in.hasOut = true
				ops = append(ops, porcupine.Operation{ClientId: int(proc), Input: in, Call: t, Output: true, Return: t, Metadata: idx})
				ops[len(ops)-1].Call = p.call
			case "info":
				infos++
				if in.f != "read" {
					ops = append(ops, porcupine.Operation{ClientId: int(proc), Input: in, Call: p.call, Output: nil, Return: math.MaxInt64})
				}
			}
		}
	}
	if err := scanner.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "porcupine-checker:", err)
		os.Exit(2)
	}
	// operations still open at the end are indeterminate, like :info
	for proc, p := range open {
		if p.input.f != "read" {
			ops = append(ops, porcupine.Operation{ClientId: int(proc), Input: p.input, Call: p.call, Return: math.MaxInt64})
		}
	}
	// Porcupine's visualization numbers clients from 0; process ids grow as clients crash
	model := registerModel()
	result, info := porcupine.CheckOperationsVerbose(model, ops, *timeout)
	keys := len(model.Partition(ops))
	verdict := map[porcupine.CheckResult]string{porcupine.Ok: "true", porcupine.Illegal: "false", porcupine.Unknown: ":unknown"}[result]
	fmt.Printf("{:valid? %s, :checker \"porcupine v1.3.1\", :op-count %d, :key-count %d, :indeterminate %d",
		verdict, len(ops), keys, infos)
	if result == porcupine.Illegal {
		fmt.Printf(", :bad-keys %s", badKeys(ops, info))
	}
	fmt.Println("}")
	if *html != "" {
		if err := porcupine.VisualizePath(model, info, *html); err != nil {
			fmt.Fprintln(os.Stderr, "porcupine-checker: visualization:", err)
		}
	}
}

// badKeys names the keys whose partial linearizations do not cover all their operations.
func badKeys(ops []porcupine.Operation, info porcupine.LinearizationInfo) string {
	model := registerModel()
	parts := model.Partition(ops)
	partials := info.PartialLinearizations()
	var bad []string
	for i, part := range parts {
		if i >= len(partials) {
			break
		}
		longest := 0
		for _, l := range partials[i] {
			if len(l) > longest {
				longest = len(l)
			}
		}
		if longest < len(part) {
			bad = append(bad, fmt.Sprint(part[0].Input.(regInput).key))
		}
	}
	return "[" + strings.Join(bad, " ") + "]"
}
