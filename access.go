package fdyno

import (
	"bytes"
	"errors"
)

// access.go lets a caller that decides who may do what check every item
// an operation touches, where it touches it. A handle made by
// [Table.Guarded] asks its [AccessGuard] before each read of a stored
// item (a Get, a condition's or a write's read of the old item, each row
// of a Query or Scan, each base item an index read fetches), before a
// Query reads its partition, before each index or stream read, before
// each write of an item, and before a backup or the start of
// point-in-time recovery reads the whole table, in the operation's own
// transaction. A restore opened [WithGuard] asks before it reads its
// source whole and before it writes each item of its target. A refusal
// fails the operation before it reads or writes that item; the
// transaction commits nothing, and a refused restore leaves no table.
//
// So what a request may touch is checked against what it actually
// touches, not against a second reading of the request: fdyno-server
// builds a guard from the decision its policies made (server/authz.go),
// and a request the decision did not foresee is refused instead of run.

// AccessGuard decides, at the point of access, whether an operation on a
// guarded handle may touch an item. Allow returns nil to allow, or the
// error the operation fails with (wrapped, so errors.Is and errors.As
// see it). It must be safe for concurrent use when the handle is.
type AccessGuard interface {
	Allow(a Access) error
}

// Access is one item, or one read not limited to one item, that an
// operation is about to touch.
type Access struct {
	// Table is the name of the guarded handle's table.
	Table string
	// Index names the index read, "" for the table's own items.
	Index string
	// Write is true for a write (put or delete) of the item, false for
	// a read.
	Write bool
	// Stream is true for a read of the table's change records.
	Stream bool
	// key is the item's packed key values (partition first), or, for a
	// Query's partition, its packed partition value; nil for a read of
	// the whole table or index (a Scan's rows are each checked as they
	// are read).
	key []byte
}

// InPartition reports whether the access is to an item of the partition
// whose packed value is p (see [PackPartition]).
func (a Access) InPartition(p []byte) bool {
	return a.key != nil && len(p) > 0 && bytes.HasPrefix(a.key, p)
}

// Whole reports whether the access reads rows of more than one partition
// whose partitions are not known in advance (an index or stream read);
// the items a Scan returns are checked one by one, with their keys. With
// Write, it is the write of every item of the table: a restore's target,
// asked when the restore starts.
func (a Access) Whole() bool { return a.key == nil }

// PackPartition returns the packed form of partition key value v, as
// [Access.InPartition] takes it. Values that DynamoDB treats as equal
// pack equally (a number's "1.0" and "1").
func PackPartition(v Value) ([]byte, error) {
	p, err := packKeyValues(v)
	if err != nil {
		return nil, errors.Join(errors.New("fdyno: PackPartition"), err)
	}
	return p, nil
}

// Guarded returns a handle on the same table whose operations ask g
// before they touch an item (see access.go). The handle shares t's
// schema cache and settings; g applies to the operations made through
// the returned handle only.
func (t *Table) Guarded(g AccessGuard) *Table {
	v := *t
	v.guard = g
	return &v
}

// allow asks t's guard, if any, about a.
func (t *Table) allow(a Access) error {
	if t.guard == nil {
		return nil
	}
	a.Table = t.name
	return t.guard.Allow(a)
}

// allowItem asks t's guard about the read or write of the item with
// packed key values kv.
func (t *Table) allowItem(write bool, kv []byte) error {
	if t.guard == nil {
		return nil
	}
	return t.guard.Allow(Access{Table: t.name, Write: write, key: kv})
}

// WithGuard makes the handles an operation opens guarded by g, as
// [Table.Guarded] makes them: [Open]'s, and the source and target tables
// of [RestoreTableFromBackup] and [RestoreTableToPointInTime], whose
// guard sees the read of the whole source and each item written into the
// target.
func WithGuard(g AccessGuard) Option {
	return func(o *options) { o.guard = g }
}
