package tree

import (
	"sync"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// parallel.go issues a transaction's reads together. fdyno's reads return
// values, not futures, so reads in flight together take goroutines; every
// one of them ends before parallel returns and none has an effect outside
// the transaction, so a retried transaction is safe (FoundationDB
// transactions are safe for concurrent use by multiple goroutines).

// maxParallel bounds the reads one operation has in flight.
const maxParallel = 32

// parallel runs f(0), …, f(n-1) from at most maxParallel goroutines and
// returns the first error in index order.
func parallel(n int, f func(i int) error) error {
	if n == 1 {
		return f(0)
	}
	errs := make([]error, n)
	sem := make(chan struct{}, maxParallel)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = f(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Items one TransactGet reads: DynamoDB's 100, or, for whole objects (up
// to 400 KB each), 10, inside its 4 MB.
const (
	maxTransactGet      = 100
	maxTransactGetWhole = 10
)

// getRows reads the object rows of paths together, nil for a path with
// none: whole rows if full, else only Key and the reserved attribute.
func (t *Tree) getRows(rt fdb.ReadTransaction, paths []Path, full bool) ([]fdyno.Item, error) {
	rows := make([]fdyno.Item, len(paths))
	per := maxTransactGet
	if full {
		per = maxTransactGetWhole
	}
	for start := 0; start < len(paths); start += per {
		chunk := paths[start:min(start+per, len(paths))]
		in := fdyno.TransactGetInput{TransactItems: make([]fdyno.TransactGetItem, len(chunk))}
		for i, p := range chunk {
			in.TransactItems[i] = fdyno.TransactGetItem{Table: t.table, Key: t.objectRowKey(p)}
			if !full {
				in.TransactItems[i].ProjectionExpression = "#k, #r"
				in.TransactItems[i].ExpressionAttributeNames = map[string]string{"#k": KeyAttribute, "#r": t.r}
			}
		}
		out, err := fdyno.TransactGet(rt, in)
		if err != nil {
			return nil, err
		}
		for i, res := range out.Responses {
			rows[start+i] = res.Item
		}
	}
	return rows, nil
}
