package dcb

import (
	"container/heap"
	"fmt"
	"iter"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/fdyno/fdyno"
)

// ReadOptions narrow and order a read. The zero value reads every matching
// event, oldest first.
type ReadOptions struct {
	// After, if not zero, skips events at or before it (exclusive start,
	// in either direction).
	After Position
	// Before, if not zero, skips events at or after it (exclusive end):
	// with Backwards, the position to page back from.
	Before Position
	// Limit, if positive, is the most events the read returns.
	Limit int
	// Backwards returns the events newest first.
	Backwards bool
}

// Read returns the events matching q, in position order (newest first
// with opts.Backwards), each once even if it matches several items.
//
// Every query item is one range read per type (keys.go); a page reads its
// ranges in one wave, merges them k-way by position, then reads the events
// in a second wave (a page of [All] is one wave: it reads the events
// themselves). Given an fdb.Database, Read runs one transaction per page
// of [WithPageSize] events, so a long read outlives FoundationDB's
// five-second transaction limit; each page is consistent, and later pages
// see events committed since, past the last position returned. Given an
// fdb.Transaction or a snapshot, every page runs in it.
//
// An invalid query or options yield one error wrapping [ErrInvalidQuery]
// or [ErrInvalidOptions]; stored bytes that do not decode yield one
// wrapping [ErrCorrupt]; FoundationDB's errors are yielded wrapped. The
// sequence stops after an error.
func (s *Store) Read(tr fdb.ReadTransactor, q Query, opts ReadOptions) iter.Seq2[StoredEvent, error] {
	return func(yield func(StoredEvent, error) bool) {
		pl, err := s.k.plan(q)
		if err == nil && opts.Limit < 0 {
			err = fmt.Errorf("%w: negative limit %d", ErrInvalidOptions, opts.Limit)
		}
		if err != nil {
			yield(StoredEvent{}, err)
			return
		}
		lo, hi, left := opts.After, opts.Before, opts.Limit
		for {
			n := s.pageSize
			if left > 0 && left < n {
				n = left
			}
			pg, err := fdyno.ReadTransact(tr, func(rt fdb.ReadTransaction) (page, error) {
				return s.readPage(rt, pl, lo, hi, opts.Backwards, n)
			})
			if err != nil {
				yield(StoredEvent{}, fmt.Errorf("dcb: read: %w", err))
				return
			}
			for _, e := range pg.events {
				if !yield(e, nil) {
					return
				}
			}
			if !pg.more {
				return
			}
			last := pg.events[len(pg.events)-1].Position
			if opts.Backwards {
				hi = last
			} else {
				lo = last
			}
			if opts.Limit > 0 {
				if left -= len(pg.events); left == 0 {
					return
				}
			}
		}
	}
}

// page is one read transaction's result: up to n events, and whether more
// may follow.
type page struct {
	events []StoredEvent
	more   bool
}

// readPage reads the first n events of pl between lo and hi (exclusive) in
// the read's direction.
func (s *Store) readPage(tr fdb.ReadTransaction, pl plan, lo, hi Position, backwards bool, n int) (page, error) {
	ro := fdb.RangeOptions{Limit: n, Reverse: backwards, Mode: fdb.StreamingModeWantAll}
	rrs := make([]fdb.RangeResult, len(pl.prefixes))
	for i, p := range pl.prefixes {
		rrs[i] = tr.GetRange(span(p, lo, hi), ro)
	}
	runs := make([][]fdb.KeyValue, len(rrs))
	for i, rr := range rrs {
		kvs, err := rr.GetSliceWithError()
		if err != nil {
			return page{}, err
		}
		runs[i] = kvs
	}
	ps, vals, err := merge(pl, runs, backwards, n)
	if err != nil {
		return page{}, err
	}
	if !pl.values {
		fs := make([]fdb.FutureByteSlice, len(ps))
		for i, p := range ps {
			fs[i] = tr.Get(s.k.eventKey(p))
		}
		vals = make([][]byte, len(ps))
		for i, f := range fs {
			v, err := f.Get()
			if err != nil {
				return page{}, err
			}
			if v == nil {
				return page{}, fmt.Errorf("%w: index entry for position %s without its event", ErrCorrupt, ps[i])
			}
			vals[i] = v
		}
	}
	out, err := s.decodeEvents(tr, ps, vals)
	if err != nil {
		return page{}, err
	}
	return page{events: out, more: len(out) == n}, nil
}

// decodeEvents decodes the event values read at positions ps, reading the
// further parts of chunked ones in one more wave.
func (s *Store) decodeEvents(tr fdb.ReadTransaction, ps []Position, vals [][]byte) ([]StoredEvent, error) {
	type chunked struct {
		n     int
		first []byte
		rest  fdb.RangeResult
	}
	var parts map[int]chunked
	for i, v := range vals {
		n, first, ok, err := chunkHeader(v)
		if err != nil {
			return nil, fmt.Errorf("position %s: %w", ps[i], err)
		}
		if ok {
			if parts == nil {
				parts = map[int]chunked{}
			}
			rr := tr.GetRange(s.k.partsSpan(ps[i]), fdb.RangeOptions{Limit: n, Mode: fdb.StreamingModeWantAll})
			parts[i] = chunked{n: n, first: first, rest: rr}
		}
	}
	out := make([]StoredEvent, len(ps))
	for i, p := range ps {
		v := vals[i]
		if c, ok := parts[i]; ok {
			kvs, err := c.rest.GetSliceWithError()
			if err != nil {
				return nil, err
			}
			rest := make([][]byte, len(kvs))
			for j, kv := range kvs {
				rest[j] = kv.Value
			}
			if v, err = joinParts(c.n, c.first, rest); err != nil {
				return nil, fmt.Errorf("position %s: %w", p, err)
			}
		}
		typ, tags, data, err := decodeEvent(v)
		if err != nil {
			return nil, fmt.Errorf("position %s: %w", p, err)
		}
		out[i] = StoredEvent{Position: p, Type: typ, Tags: tags, Data: data}
	}
	return out, nil
}

// merge merges the runs (each sorted in the read's direction, each at most
// n entries) k-way into at most n distinct positions. A run that came back
// full may have more entries past its last one, so the merge stops there:
// no position beyond the least advanced full run is returned, and since
// that run alone holds n positions up to its end, a page is full unless
// every run was exhausted. For All, the values come along.
func merge(pl plan, runs [][]fdb.KeyValue, backwards bool, n int) ([]Position, [][]byte, error) {
	h := &cursorHeap{backwards: backwards}
	for i, r := range runs {
		if len(r) == 0 {
			continue
		}
		c := &cursor{run: r, prefix: pl.prefixes[i], full: len(r) == n}
		if err := c.load(); err != nil {
			return nil, nil, err
		}
		h.cs = append(h.cs, c)
	}
	heap.Init(h)
	var ps []Position
	var vals [][]byte
	for h.Len() > 0 && len(ps) < n {
		c := h.cs[0]
		if len(ps) == 0 || ps[len(ps)-1] != c.pos {
			ps = append(ps, c.pos)
			if pl.values {
				vals = append(vals, c.run[c.i].Value)
			}
		}
		c.i++
		if c.i == len(c.run) {
			if c.full {
				break // this run may continue past here: stop the page
			}
			heap.Pop(h)
			continue
		}
		if err := c.load(); err != nil {
			return nil, nil, err
		}
		heap.Fix(h, 0)
	}
	return ps, vals, nil
}

// cursor walks one range's entries.
type cursor struct {
	run    []fdb.KeyValue
	prefix []byte
	i      int
	pos    Position
	full   bool
}

func (c *cursor) load() error {
	p, err := positionOf(c.run[c.i].Key, c.prefix)
	c.pos = p
	return err
}

// cursorHeap orders cursors by their current position, in the read's
// direction.
type cursorHeap struct {
	cs        []*cursor
	backwards bool
}

func (h *cursorHeap) Len() int { return len(h.cs) }
func (h *cursorHeap) Less(i, j int) bool {
	c := h.cs[i].pos.Compare(h.cs[j].pos)
	if h.backwards {
		return c > 0
	}
	return c < 0
}
func (h *cursorHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *cursorHeap) Push(x any)    { h.cs = append(h.cs, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}
