package fdyno

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
)

// The crash test through fdyno: a child process writes items (Put, Update,
// Delete, TransactWrite; a GSI, a stream, some items large enough to be
// chunked) to a table in a durable fdblite database and is killed with
// SIGKILL; the next child, on reopening, checks the table's storage
// invariants (index entries and chunks match the items: tableProblems),
// that the stream's last record for every key matches the item, and
// reports the items and records so the parent can check that every
// acknowledged write survived, that an unacknowledged one is there whole
// or not at all, and that stream sequence numbers keep increasing across
// restarts. FDYNO_CRASH_ROUNDS=N sets the number of kills.
//
// One seed draws the kill moments and every child's operations; a failing
// run logs it, and FDYNO_CRASH_SEED=<seed> replays its random choices
// (the moments the kills land in the writers' work still vary).

const (
	envCrashDir   = "FDYNO_CRASHTEST_DIR"
	envCrashRound = "FDYNO_CRASHTEST_ROUND"
	envCrashSeed  = "FDYNO_CRASH_SEED"
	crashWriters  = 4
	crashRounds   = 20
)

// crashSchema: hash pk, range sk, a sparse GSI on g, a stream with both
// images.
var crashSchema = TableSchema{
	KeySchema: []KeySchemaElement{{"pk", KeyTypeHash}, {"sk", KeyTypeRange}},
	AttributeDefinitions: []AttributeDefinition{{"pk", ScalarAttributeTypeS}, {"sk", ScalarAttributeTypeN},
		{"g", ScalarAttributeTypeS}},
	GlobalSecondaryIndexes: []GlobalSecondaryIndex{{IndexName: "byG",
		KeySchema:  []KeySchemaElement{{"g", KeyTypeHash}, {"sk", KeyTypeRange}},
		Projection: Projection{ProjectionType: ProjectionTypeAll}}},
	StreamViewType: StreamViewTypeNewAndOldImages,
	StreamShards:   2,
}

// crashKey names an item as "pk/sk".
func crashKey(it Item) string { return it["pk"].S() + "/" + it["sk"].N() }

// crashWrite is one write of a crash-test operation: key gets value v
// ("-": deleted).
type crashWrite struct{ key, v string }

// TestDurableCrashChild is the child's body; it is skipped unless the
// parent (TestDurableCrash) runs it.
func TestDurableCrashChild(t *testing.T) {
	dir := os.Getenv(envCrashDir)
	if dir == "" {
		t.Skip("the child of TestDurableCrash")
	}
	round, _ := strconv.Atoi(os.Getenv(envCrashRound))
	seed, _ := strconv.ParseUint(os.Getenv(envCrashSeed), 10, 64)
	if err := crashChild(dir, round, seed); err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
}

func crashChild(dir string, round int, seed uint64) error {
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		return err
	}
	tbl, err := Open(db, "Crash", WithRoot("crashtest"), WithSchema(crashSchema))
	if err != nil {
		return err
	}
	var out bytes.Buffer
	for _, p := range tableProblems(db, tbl) {
		fmt.Fprintf(&out, "PROBLEM %s\n", strings.ReplaceAll(p, "\n", " "))
	}
	items := map[string]string{}
	for it, err := range tbl.ScanAll(context.Background(), db, ScanInput{}) {
		if err != nil {
			return err
		}
		items[crashKey(it)] = it["v"].S()
		fmt.Fprintf(&out, "ITEM %s %s\n", crashKey(it), it["v"].S())
	}
	last := map[string]string{}
	prev := ""
	for r, err := range tbl.Records(context.Background(), db, "") {
		if err != nil {
			return err
		}
		if r.SequenceNumber <= prev {
			fmt.Fprintf(&out, "PROBLEM stream record %s after %s\n", r.SequenceNumber, prev)
		}
		prev = r.SequenceNumber
		v := "-"
		if r.NewImage != nil {
			v = r.NewImage["v"].S()
		}
		last[crashKey(r.Keys)] = v
		fmt.Fprintf(&out, "REC %s %s\n", r.SequenceNumber, v)
	}
	for k, v := range items {
		if last[k] != v {
			fmt.Fprintf(&out, "PROBLEM item %s has v=%s, its last stream record %q\n", k, v, last[k])
		}
	}
	for k, v := range last {
		if _, ok := items[k]; !ok && v != "-" {
			fmt.Fprintf(&out, "PROBLEM item %s is absent, its last stream record has v=%s\n", k, v)
		}
	}
	out.WriteString("READY\n")
	if _, err := os.Stdout.Write(out.Bytes()); err != nil {
		return err
	}

	var mu sync.Mutex
	emit := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		os.Stdout.WriteString(s + "\n")
	}
	errs := make(chan error, crashWriters)
	for w := 0; w < crashWriters; w++ {
		go func() {
			r := rand.New(rand.NewPCG(seed+uint64(round), uint64(w)))
			for n := 1; ; n++ {
				id := fmt.Sprintf("%d.%d.%d", round, w, n)
				_, err := crashOp(db, tbl, r, w, id, func(ws []crashWrite) {
					var b strings.Builder
					fmt.Fprintf(&b, "BEGIN %d %s", w, id)
					for _, x := range ws {
						fmt.Fprintf(&b, " %s=%s", x.key, x.v)
					}
					emit(b.String())
				})
				if err != nil {
					errs <- err
					return
				}
				emit("ACK " + id)
			}
		}()
	}
	return <-errs
}

// crashOp runs one random operation of writer w over its own keys (pk
// "w<w>-<n>"), announcing its writes first.
func crashOp(db fdb.Database, tbl *Table, r *rand.Rand, w int, id string, announce func([]crashWrite)) ([]crashWrite, error) {
	key := func() Item {
		return Item{"pk": S(fmt.Sprintf("w%d-%d", w, r.IntN(6))), "sk": NInt(int64(r.IntN(3)))}
	}
	item := func(k Item) Item {
		it := Item{"pk": k["pk"], "sk": k["sk"], "v": S(id)}
		if r.IntN(2) == 0 {
			it["g"] = S(fmt.Sprintf("g%d", r.IntN(3)))
		}
		if r.IntN(10) == 0 {
			it["big"] = B(bytes.Repeat([]byte(id), 2000)) // chunked
		}
		return it
	}
	switch x := r.IntN(10); {
	case x < 4:
		it := item(key())
		ws := []crashWrite{{crashKey(it), id}}
		announce(ws)
		_, err := tbl.Put(db, PutInput{Item: it})
		return ws, err
	case x < 6:
		k := key()
		ws := []crashWrite{{crashKey(k), id}}
		announce(ws)
		expr := "SET v = :v, g = :g"
		vals := map[string]Value{":v": S(id), ":g": S("g" + strconv.Itoa(r.IntN(3)))}
		if r.IntN(2) == 0 {
			expr = "SET v = :v REMOVE g"
			delete(vals, ":g")
		}
		_, err := tbl.Update(db, UpdateInput{Key: k, UpdateExpression: expr, ExpressionAttributeValues: vals})
		return ws, err
	case x < 8:
		k := key()
		ws := []crashWrite{{crashKey(k), "-"}}
		announce(ws)
		_, err := tbl.Delete(db, DeleteInput{Key: k})
		return ws, err
	default:
		a, b := key(), key()
		if crashKey(a) == crashKey(b) {
			b["sk"] = NInt(3)
		}
		it := item(a)
		ws := []crashWrite{{crashKey(a), id}, {crashKey(b), "-"}}
		announce(ws)
		_, err := TransactWrite(db, TransactWriteInput{TransactItems: []TransactWriteItem{
			{Put: &TransactPut{Table: tbl, Item: it}}, {Delete: &TransactDelete{Table: tbl, Key: b}}}})
		return ws, err
	}
}

// crashRun is what the parent read from one child.
type crashRun struct {
	ready    bool
	problems []string
	items    map[string]string
	recs     map[string]string // sequence number -> v
	maxSeq   string
	begun    map[int][]crashWrite // writer -> writes of its last operation begun
	begunID  map[int]string
	acked    map[string]bool
	ackOrder map[int][][]crashWrite // writer -> writes of its acknowledged operations, in order
}

func runCrashChild(t *testing.T, dir string, round int, seed uint64, r *rand.Rand, check bool) crashRun {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDurableCrashChild$")
	cmd.Env = append(os.Environ(), envCrashDir+"="+dir, envCrashRound+"="+strconv.Itoa(round), envCrashSeed+"="+strconv.FormatUint(seed, 10))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	run := crashRun{items: map[string]string{}, recs: map[string]string{}, begun: map[int][]crashWrite{},
		begunID: map[int]string{}, acked: map[string]bool{}, ackOrder: map[int][][]crashWrite{}}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "PROBLEM":
				run.problems = append(run.problems, sc.Text())
			case "ITEM":
				run.items[f[1]] = f[2]
			case "REC":
				run.recs[f[1]] = f[2]
				run.maxSeq = max(run.maxSeq, f[1])
			case "READY":
				run.ready = true
				close(ready)
			case "BEGIN":
				w, _ := strconv.Atoi(f[1])
				var ws []crashWrite
				for _, kv := range f[3:] {
					k, v, _ := strings.Cut(kv, "=")
					ws = append(ws, crashWrite{k, v})
				}
				run.begun[w], run.begunID[w] = ws, f[2]
			case "ACK":
				for w, id := range run.begunID {
					if id == f[1] {
						run.acked[id] = true
						run.ackOrder[w] = append(run.ackOrder[w], run.begun[w])
						delete(run.begun, w)
						delete(run.begunID, w)
					}
				}
			}
		}
		done <- sc.Err()
	}()
	select {
	case <-ready:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("round %d: the child did not start; stderr:\n%s", round, stderr.String())
	}
	if !check {
		time.Sleep(time.Duration(20+r.IntN(200)) * time.Millisecond) // the thing tested: a kill at a random moment
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("round %d: the child exited on its own; stderr:\n%s", round, stderr.String())
	}
	return run
}

// TestDurableCrash: see the comment at the top of this file.
func TestDurableCrash(t *testing.T) {
	rounds := crashRounds
	if s := os.Getenv("FDYNO_CRASH_ROUNDS"); s != "" {
		rounds, _ = strconv.Atoi(s)
	}
	if testing.Short() {
		rounds = 3
	}
	dir := t.TempDir()
	seed := testseed.Seed(t, envCrashSeed)
	r := rand.New(rand.NewPCG(seed, 2))
	want := map[string]string{} // key -> v of the last write that must be there
	var prev crashRun
	acked, unackedPresent := 0, 0
	for round := 0; round <= rounds; round++ {
		cur := runCrashChild(t, dir, round, seed, r, round == rounds)
		for _, p := range cur.problems {
			t.Errorf("round %d: %s", round, p)
		}
		// Apply the previous child's acknowledged writes, then decide for
		// each writer's unacknowledged last operation whether it is there
		// whole (applied) or not at all.
		for _, ops := range prev.ackOrder {
			for _, ws := range ops {
				for _, x := range ws {
					want[x.key] = x.v
				}
				acked++
			}
		}
		for w, ws := range prev.begun {
			applied, absent := 0, 0
			for _, x := range ws {
				got, ok := cur.items[x.key]
				if !ok {
					got = "-"
				}
				old, ok := want[x.key]
				if !ok {
					old = "-"
				}
				if got == x.v {
					applied++
				}
				if got == old {
					absent++
				}
			}
			switch {
			case applied == len(ws):
				for _, x := range ws {
					want[x.key] = x.v
				}
				if absent < len(ws) {
					unackedPresent++
				}
			case absent == len(ws):
			default:
				t.Errorf("round %d: writer %d's unacknowledged operation %s %v is present in part", round, w, prev.begunID[w], ws)
			}
		}
		for k, v := range want {
			got, ok := cur.items[k]
			if !ok {
				got = "-"
			}
			if got != v {
				t.Errorf("round %d: item %s has v=%s, want %s (acknowledged)", round, k, got, v)
			}
		}
		for k, v := range cur.items {
			if _, ok := want[k]; !ok {
				t.Errorf("round %d: item %s (v=%s) was never acknowledged nor begun", round, k, v)
			}
		}
		// Records the previous child wrote sort after every record that
		// existed when it started.
		for seq, v := range cur.recs {
			if _, old := prev.recs[seq]; !old && prev.ready && seq <= prev.maxSeq {
				t.Errorf("round %d: new record %s (v=%s) sorts before the newest of the previous run %s", round, seq, v, prev.maxSeq)
			}
		}
		if t.Failed() {
			t.Fatalf("stopping after round %d", round)
		}
		prev = cur
	}
	t.Logf("%d kills, %d acknowledged operations, %d unacknowledged present whole, %d items, %d stream records",
		rounds, acked, unackedPresent, len(prev.items), len(prev.recs))
}
