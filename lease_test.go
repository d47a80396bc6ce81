package fdyno

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fdyno/fdyno/fdblite/fdblitetest"
	"github.com/fdyno/fdyno/internal/testtime"
	"pgregory.net/rapid"
)

// TestLeaseModel: TryLease and ReleaseLease against a model of one lease
// per job: a holder gets the lease when it is free, expired, or its own;
// not while another's runs; a release frees only the holder's own.
func TestLeaseModel(t *testing.T) {
	db := fdblitetest.Open(t)
	clock := testtime.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	now := clock.Now
	tbl := newTestTable(t, db, hashOnly, WithClock(now))
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		type lease struct {
			holder  string
			expires int64
		}
		model := map[string]lease{}
		jobs := []string{"ttl" + strconv.Itoa(n), "trim" + strconv.Itoa(n)} // fresh leases per run
		holders := []string{"s1", "s2", "s3"}
		rt.Repeat(map[string]func(*rapid.T){
			"take": func(rt *rapid.T) {
				job, h := rapid.SampledFrom(jobs).Draw(rt, "job"), rapid.SampledFrom(holders).Draw(rt, "holder")
				d := time.Duration(rapid.IntRange(1, 10).Draw(rt, "seconds")) * time.Second
				got, err := tbl.TryLease(db, job, h, d)
				if err != nil {
					rt.Fatal(err)
				}
				cur, held := model[job]
				want := !held || cur.holder == h || clock.Now().UnixMicro() >= cur.expires
				if got != want {
					rt.Fatalf("TryLease(%s, %s) = %v, want %v (lease %+v, now %d)", job, h, got, want, cur, clock.Now().UnixMicro())
				}
				if want {
					model[job] = lease{h, now().Add(d).UnixMicro()}
				}
			},
			"release": func(rt *rapid.T) {
				job, h := rapid.SampledFrom(jobs).Draw(rt, "job"), rapid.SampledFrom(holders).Draw(rt, "holder")
				if err := tbl.ReleaseLease(db, job, h); err != nil {
					rt.Fatal(err)
				}
				if cur, held := model[job]; held && cur.holder == h {
					delete(model, job)
				}
			},
			"wait": func(rt *rapid.T) {
				clock.Advance(time.Duration(rapid.IntRange(0, 6).Draw(rt, "wait")) * time.Second)
			},
		})
	})
}

// Holders racing for one free lease: exactly one gets it, because the
// lease is taken in a transaction that reads it.
func TestLeaseRace(t *testing.T) {
	db := fdblitetest.Open(t)
	tbl := newTestTable(t, db, hashOnly)
	var won atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := tbl.TryLease(db, "sweep", "holder"+string(rune('a'+i)), time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Errorf("%d holders got the lease, want 1", won.Load())
	}
}
