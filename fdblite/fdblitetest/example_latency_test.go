package fdblitetest_test

import (
	"fmt"
	"log"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno/fdblite/fdblitetest"
)

// Three reads issued together are one wave of round trips; waited for one
// by one, three waves. Under the latency model the difference is time:
// about one read delay against three.
func ExampleCountRoundTrips() {
	db, err := fdblitetest.OpenDatabase("example-count-round-trips") // a test would use OpenIsolated(t)
	if err != nil {
		log.Fatal(err)
	}
	if err := fdblitetest.SetLatency(db, fdblitetest.Latency{GRV: time.Millisecond, Read: 5 * time.Millisecond}); err != nil {
		log.Fatal(err)
	}
	defer fdblitetest.SetLatency(db, fdblitetest.Latency{})
	keys := []fdb.Key{fdb.Key("a"), fdb.Key("b"), fdb.Key("c")}

	together, err := fdblitetest.CountRoundTrips(db, func() error {
		_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			var fs []fdb.FutureByteSlice
			for _, k := range keys {
				fs = append(fs, rt.Get(k)) // started, not waited for
			}
			for _, f := range fs {
				if _, err := f.Get(); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	oneByOne, err := fdblitetest.CountRoundTrips(db, func() error {
		_, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
			for _, k := range keys {
				if _, err := rt.Get(k).Get(); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("together:  ", together)
	fmt.Println("one by one:", oneByOne)
	// Output:
	// together:   rv=1 waves=1 commits=0
	// one by one: rv=1 waves=3 commits=0
}
