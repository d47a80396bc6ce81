package fdyno

import (
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// table_properties.go: what a table keeps beside its schema in its
// metadata (`m`, table_meta.go): an identity (TableID,
// CreationDateTime), the labels of its streams (updatetable.go,
// stream_disabled.go), and a settings record the library stores for the
// program that serves the table and never reads: fdyno-server keeps
// there what DynamoDB reports but fdyno does not act on (billing mode,
// provisioned throughput, deletion protection, tags).
//
// Settings never change how items are read or written, so changing them
// does not bump FoundationDB's metadata version: handles keep their cached
// schema, and Describe reads the settings from `m` in its own
// transaction.

// WithSettings makes [Open] create the table with the settings record b
// when it creates it (with [WithSchema]); an existing table keeps its
// own. The library stores b as it is and returns it in
// [TableDescription.Settings].
func WithSettings(b []byte) Option {
	return func(o *options) { o.settings = slices.Clone(b) }
}

// UpdateSettings reads the table's settings record, lets f replace it and
// stores the result, in one transaction, and returns the table's
// description after the change. f gets nil for a table without settings
// and must not change its argument; returning nil removes the record. f
// may be called more than once (the transaction may be retried); an
// error from f aborts without a change.
//
// Errors: [ErrResourceNotFound] if the table was deleted; [ErrValidation]
// for a record larger than [MaxSettingsSize]. With a Transactor other
// than an fdb.Transaction, UpdateSettings runs its own transaction, which
// may be retried.
func (t *Table) UpdateSettings(tx fdb.Transactor, f func(settings []byte) ([]byte, error)) (*TableDescription, error) {
	return Transact(tx, func(tr fdb.Transaction) (*TableDescription, error) {
		st, meta, err := t.loadMeta(tr)
		if err != nil {
			return nil, err
		}
		next, err := f(slices.Clone(meta.settings))
		if err != nil {
			return nil, err
		}
		if err := checkSettings("UpdateTable", next); err != nil {
			return nil, err
		}
		meta.settings = slices.Clone(next)
		if err := putMeta(tr, st.keys, meta); err != nil {
			return nil, err
		}
		gsis, err := st.describeIndexes(tr)
		if err != nil {
			return nil, err
		}
		return t.description(st, meta, gsis), nil
	})
}
