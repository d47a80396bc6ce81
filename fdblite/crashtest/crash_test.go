package crashtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testseed"
)

// The child process: TestMain runs writerMain instead of the tests when
// envDir is set.
const (
	envDir    = "FDBLITE_CRASHTEST_DIR"
	envRound  = "FDBLITE_CRASHTEST_ROUND"
	envRounds = "FDBLITE_CRASH_ROUNDS" // soak: how many kills (default defaultRounds)
	envSeed   = "FDBLITE_CRASH_SEED"   // replay: the seed of the kill moments

	defaultRounds = 40
	writers       = 8 // concurrent writer goroutines in the child
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envProbe); mode != "" {
		os.Exit(probeMain(mode, os.Getenv(envDir)))
	}
	if dir := os.Getenv(envDir); dir != "" {
		round, _ := strconv.Atoi(os.Getenv(envRound))
		os.Exit(writerMain(dir, round))
	}
	os.Exit(m.Run())
}

// op is one write of a generated transaction.
type op struct {
	kind  byte // 's' set, 'c' clear, 'r' clear range, 'a' atomic add, 'v' versionstamped key
	key   string
	end   string // clear range end
	lo    int    // a clear range's begin and end among the k/ keys
	hi    int
	value []byte
}

// opsFor generates transaction id's writes. The writer and the checker both
// call it: the checker knows what a transaction wrote from its id alone.
// Every transaction writes its marker t/<id> and one versionstamped key
// vs/<stamp> holding its id, neither ever cleared, so the checker can tell
// from the database which transactions are present and at which version.
func opsFor(id uint64) []op {
	r := rand.New(rand.NewPCG(id, 0x5eed))
	name := idString(id)
	ops := []op{{kind: 's', key: "t/" + name, value: []byte(name)}}
	for n := 1 + r.IntN(5); n > 0; n-- {
		switch x := r.IntN(10); {
		case x < 5:
			v := []byte(name)
			if r.IntN(20) == 0 {
				v = bytes.Repeat(v, 500) // 8 KB: groups span many pages
			}
			ops = append(ops, op{kind: 's', key: kKey(r.IntN(200)), value: v})
		case x < 7:
			ops = append(ops, op{kind: 'a', key: fmt.Sprintf("c/%d", r.IntN(10)), value: le64(int64(id%97 + 1))})
		case x < 9:
			ops = append(ops, op{kind: 'c', key: kKey(r.IntN(200))})
		default:
			a := r.IntN(200)
			b := a + 1 + r.IntN(5)
			ops = append(ops, op{kind: 'r', key: kKey(a), end: kKey(b), lo: a, hi: b})
		}
	}
	return append(ops, op{kind: 'v', key: "vs/", value: []byte(name)})
}

func kKey(n int) string         { return fmt.Sprintf("k/%03d", n) }
func idString(id uint64) string { return fmt.Sprintf("%016x", id) }

func le64(n int64) []byte {
	b := make([]byte, 8)
	binary.LittleEndian.PutUint64(b, uint64(n))
	return b
}

// stamp is the 10-byte versionstamp of a commit at version v (fdblite
// commits one transaction per version: the batch order is 0).
func stamp(v int64) string {
	b := make([]byte, 10)
	binary.BigEndian.PutUint64(b, uint64(v))
	return string(b)
}

// writerMain is the child: it opens the durable database in dir, dumps it to
// stdout, then commits generated transactions from several goroutines,
// printing "ACK <id> <version> <stamp>" once each commit succeeded, until it
// is killed.
func writerMain(dir string, round int) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "crashtest writer:", err)
		return 3
	}
	db, err := fdblitetest.OpenDir(dir)
	if err != nil {
		return fail(err)
	}
	var out sync.Mutex
	emit := func(line string) {
		out.Lock()
		defer out.Unlock()
		os.Stdout.WriteString(line + "\n") // one write: the line reaches the pipe whole
	}
	rv, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		return tr.GetReadVersion().Get()
	})
	if err != nil {
		return fail(err)
	}
	_, err = db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		var buf bytes.Buffer
		it := rt.GetRange(fdb.KeyRange{Begin: fdb.Key(""), End: fdb.Key("\xff")}, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
		for it.Advance() {
			kv, err := it.Get()
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&buf, "K %x %x\n", []byte(kv.Key), kv.Value)
		}
		fmt.Fprintf(&buf, "RV %d\nREADY\n", rv.(int64))
		_, err := os.Stdout.Write(buf.Bytes())
		return nil, err
	})
	if err != nil {
		return fail(err)
	}
	var next atomic.Uint64
	next.Store(uint64(round) << 32)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				id := next.Add(1)
				v, st, err := commit(db, id)
				if err != nil {
					errs <- err
					return
				}
				emit(fmt.Sprintf("ACK %d %d %x", id, v, st))
			}
		}()
	}
	wg.Wait()
	return fail(<-errs)
}

// commit runs transaction id until it commits, returning its committed
// version and versionstamp.
func commit(db fdb.Database, id uint64) (int64, []byte, error) {
	ops := opsFor(id)
	tr, err := db.CreateTransaction()
	if err != nil {
		return 0, nil, err
	}
	for {
		// A read of a key others write: commits conflict and retry too.
		tr.Get(fdb.Key(kKey(int(id % 200)))).MustGet()
		for _, o := range ops {
			switch o.kind {
			case 's':
				tr.Set(fdb.Key(o.key), o.value)
			case 'c':
				tr.Clear(fdb.Key(o.key))
			case 'r':
				tr.ClearRange(fdb.KeyRange{Begin: fdb.Key(o.key), End: fdb.Key(o.end)})
			case 'a':
				tr.Add(fdb.Key(o.key), o.value)
			case 'v':
				k := append([]byte(o.key), make([]byte, 10)...)
				k = binary.LittleEndian.AppendUint32(k, uint32(len(o.key)))
				tr.SetVersionstampedKey(fdb.Key(k), o.value)
			}
		}
		vs := tr.GetVersionstamp()
		err := tr.Commit().Get()
		if err == nil {
			v, err := tr.GetCommittedVersion()
			if err != nil {
				return 0, nil, err
			}
			st, err := vs.Get()
			if err != nil {
				return 0, nil, err
			}
			return v, []byte(st), nil
		}
		if err := tr.OnError(err.(fdb.Error)).Get(); err != nil {
			return 0, nil, err
		}
	}
}

// round is what the parent learned from one child.
type round struct {
	n     int // the round number (ids of its commits are n<<32 + i)
	ready bool
	rv    int64             // the child's first read version
	dump  map[string]string // the database as the child found it
	acked map[uint64]int64  // acknowledged commits: id -> version
	lines int
}

// runChild starts a writer on dir, kills it with SIGKILL at a random
// moment (sometimes while it opens and recovers, mostly while it writes),
// and returns what it reported. kill=false lets it only dump.
func runChild(t *testing.T, dir string, n int, r *rand.Rand, kill bool) round {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envDir+"="+dir, envRound+"="+strconv.Itoa(n))
	if n%2 == 1 {
		// A 20 ms MVCC window: the group commit copies log rows into the
		// key table every few milliseconds, so kills land in that step
		// too, and reads after the restart come from the key table.
		cmd.Env = append(cmd.Env, "FDBLITE_DURABLE_WINDOW_US=20000")
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	res := round{n: n, dump: map[string]string{}, acked: map[uint64]int64{}}
	readyc := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			res.lines++
			f := strings.Split(sc.Text(), " ")
			switch {
			case !res.ready && (len(f) != 3 || f[0] != "K") && f[0] != "RV" && f[0] != "READY":
				// Killed in the middle of its dump (a partial last line):
				// the round is skipped.
			case len(f) == 3 && f[0] == "K":
				k, _ := hex.DecodeString(f[1])
				v, _ := hex.DecodeString(f[2])
				res.dump[string(k)] = string(v)
			case len(f) == 2 && f[0] == "RV":
				res.rv, _ = strconv.ParseInt(f[1], 10, 64)
			case len(f) == 1 && f[0] == "READY":
				res.ready = true
				close(readyc)
			case len(f) == 4 && f[0] == "ACK":
				id, _ := strconv.ParseUint(f[1], 10, 64)
				v, _ := strconv.ParseInt(f[2], 10, 64)
				if want := hex.EncodeToString([]byte(stamp(v))); f[3] != want {
					t.Errorf("round %d: commit %d at version %d: versionstamp %s, want %s", n, id, v, f[3], want)
				}
				res.acked[id] = v
			default:
				t.Errorf("round %d: unexpected line %q", n, sc.Text())
			}
		}
		done <- sc.Err()
	}()
	if !kill {
		select {
		case <-readyc:
		case <-time.After(time.Minute):
			t.Fatalf("round %d: the checker did not start; stderr:\n%s", n, stderr.String())
		}
	} else if r.IntN(4) == 0 {
		// The thing tested is a kill at a random moment: here maybe
		// before READY, during open and recovery.
		time.Sleep(time.Duration(r.IntN(60)) * time.Millisecond)
	} else {
		select {
		case <-readyc:
			time.Sleep(time.Duration(r.IntN(150)) * time.Millisecond) // a kill at a random moment
		case <-time.After(time.Minute):
			t.Fatalf("round %d: the writer did not start; stderr:\n%s", n, stderr.String())
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	if err := <-done; err != nil {
		t.Fatalf("round %d: reading the writer: %v", n, err)
	}
	werr := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("round %d: the writer exited on its own (%v); stderr:\n%s", n, werr, stderr.String())
	}
	return res
}

// model is the database the acknowledged (and present) commits add up to.
type model struct {
	kv         map[string]string
	maxVersion int64 // newest version of any present commit so far
	commits    int   // present commits applied
}

func (m *model) apply(id uint64, v int64) {
	for _, o := range opsFor(id) {
		switch o.kind {
		case 's':
			m.kv[o.key] = string(o.value)
		case 'c':
			delete(m.kv, o.key)
		case 'r': // only k/ keys fall in a clear range
			for n := o.lo; n < o.hi; n++ {
				delete(m.kv, kKey(n))
			}
		case 'a':
			cur := make([]byte, 8)
			copy(cur, m.kv[o.key])
			sum := int64(binary.LittleEndian.Uint64(cur)) + int64(binary.LittleEndian.Uint64(o.value))
			m.kv[o.key] = string(le64(sum))
		case 'v':
			m.kv[o.key+stamp(v)] = string(o.value)
		}
	}
	m.commits++
	m.maxVersion = max(m.maxVersion, v)
}

// settle applies the commits of the previous child that the database holds:
// every acknowledged one, and those that committed without being
// acknowledged (found by their marker and versionstamped key in dump), in
// version order. It reports every acknowledged commit missing and every
// commit present in part.
func (m *model) settle(t *testing.T, n int, prev round, dump map[string]string) {
	t.Helper()
	versions := map[uint64]int64{}
	for k, v := range dump {
		if rest, ok := strings.CutPrefix(k, "vs/"); ok && len(rest) == 10 {
			id, err := strconv.ParseUint(v, 16, 64)
			if err != nil {
				t.Errorf("round %d: vs key %x holds %q", n, k, v)
				continue
			}
			versions[id] = int64(binary.BigEndian.Uint64([]byte(rest[:8])))
		}
	}
	type commit struct {
		id uint64
		v  int64
	}
	var present []commit
	for id, v := range prev.acked {
		if _, ok := dump["t/"+idString(id)]; !ok {
			t.Errorf("round %d: acknowledged commit %d (version %d) is missing after the kill", n, id, v)
		}
		if got, ok := versions[id]; ok && got != v {
			t.Errorf("round %d: commit %d acknowledged at version %d, stamped %d", n, id, v, got)
		}
		present = append(present, commit{id, v})
	}
	for k := range dump {
		rest, ok := strings.CutPrefix(k, "t/")
		if !ok {
			continue
		}
		id, _ := strconv.ParseUint(rest, 16, 64)
		if _, acked := prev.acked[id]; acked || id>>32 != uint64(prev.n) {
			continue
		}
		v, ok := versions[id]
		if !ok {
			t.Errorf("round %d: unacknowledged commit %d is present in part (marker without its versionstamped key)", n, id)
			continue
		}
		present = append(present, commit{id, v})
	}
	slices.SortFunc(present, func(a, b commit) int { return int(a.v - b.v) })
	for i, c := range present {
		if c.v <= m.maxVersion {
			t.Errorf("round %d: commit %d at version %d is not above the versions of earlier runs (%d)", n, c.id, c.v, m.maxVersion)
		}
		if i > 0 && c.v == present[i-1].v {
			t.Errorf("round %d: commits %d and %d share version %d", n, c.id, present[i-1].id, c.v)
		}
	}
	for _, c := range present {
		m.apply(c.id, c.v)
	}
}

// diff reports where dump and the model differ (a handful at most).
func (m *model) diff(t *testing.T, n int, dump map[string]string) {
	t.Helper()
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf("round %d: "+format, append([]any{n}, args...)...)
		}
	}
	for k, want := range m.kv {
		if got, ok := dump[k]; !ok {
			report("key %q missing (want %x)", k, want)
		} else if got != want {
			report("key %q = %x, want %x", k, got, want)
		}
	}
	for k, got := range dump {
		if _, ok := m.kv[k]; !ok {
			report("key %q = %x should not exist", k, got)
		}
	}
	if bad > 10 {
		t.Errorf("round %d: ... %d differences in all", n, bad)
	}
}

// TestCrashRecovery kills a writer of random transactions (sets, clears,
// clear ranges, atomic adds, versionstamped keys) with SIGKILL many times
// and checks after each kill, on reopening, that every acknowledged commit
// is present, that unacknowledged commits are present whole or not at all,
// and that versions (and versionstamps) keep increasing across restarts.
// FDBLITE_CRASH_ROUNDS=N sets the number of kills (a soak run). A failing
// run logs its seed; FDBLITE_CRASH_SEED=<seed> replays its kill moments
// (transactions are a function of their id alone, see opsFor).
func TestCrashRecovery(t *testing.T) {
	rounds := defaultRounds
	if s := os.Getenv(envRounds); s != "" {
		var err error
		if rounds, err = strconv.Atoi(s); err != nil {
			t.Fatalf("%s: %v", envRounds, err)
		}
	}
	if testing.Short() {
		rounds = 5
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(testseed.Seed(t, envSeed), 1))
	m := &model{kv: map[string]string{}}
	var prev round
	acked, killsWhileWriting := 0, 0
	for n := 0; n <= rounds; n++ {
		last := n == rounds
		cur := runChild(t, dir, n, r, !last)
		if !cur.ready {
			// Killed while opening: it committed nothing, and the next
			// child checks the previous one's commits.
			continue
		}
		if n > 0 {
			m.settle(t, n, prev, cur.dump)
		}
		m.diff(t, n, cur.dump)
		if cur.rv <= m.maxVersion {
			t.Errorf("round %d: first read version %d is not above the last commit %d", n, cur.rv, m.maxVersion)
		}
		if t.Failed() {
			t.Fatalf("stopping after round %d", n)
		}
		acked += len(cur.acked)
		if len(cur.acked) > 0 {
			killsWhileWriting++
		}
		prev = cur
	}
	t.Logf("%d kills (%d while committing), %d acknowledged commits, %d commits present at the end, %d keys",
		rounds, killsWhileWriting, acked, m.commits, len(m.kv))
}
