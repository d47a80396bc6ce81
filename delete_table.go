package fdyno

import (
	"errors"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/directory"
)

// delete_table.go: DeleteTable, and the system backup a table with
// point-in-time recovery leaves when it is deleted (pitr.go).

// DeleteTable removes table name and everything in it (items, chunks,
// index entries, change records) and bumps the metadata version, so the
// next operation through any handle fails with [ErrResourceNotFound].
//
// A table with point-in-time recovery enabled first gets, as in
// DynamoDB, a SYSTEM backup of its state just before deletion, named
// <table>$DeletedTableBackup, taken over many transactions through t; the
// deletion then checks, in its own transaction, that nothing was
// committed to the table since, and takes the backup again if something
// was (up to three times). The backup stays until DeleteBackup removes
// it (DynamoDB keeps it 35 days).
//
// Errors: [ErrValidation] for a bad name; [ErrResourceNotFound] if there
// is no such table. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteTable.html.
func DeleteTable(t fdb.Transactor, name string, opts ...Option) error {
	_, err := DeleteTableChecked(t, name, nil, opts...)
	return err
}

// DeleteTableChecked is [DeleteTable] that calls check, if not nil, in the
// deleting transaction with the table's description as it is deleted,
// and returns that description. An error from check aborts the deletion:
// nothing is deleted, and a deletion backup taken for it is removed.
// fdyno-server checks deletion protection this way.
func DeleteTableChecked(t fdb.Transactor, name string, check func(*TableDescription) error, opts ...Option) (*TableDescription, error) {
	o, err := buildOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := checkTableName("TableName", name); err != nil {
		return nil, err
	}
	tbl := newTable(name, tablePath(o.root, name))
	tbl.clock = o.clock
	for attempt := 1; ; attempt++ {
		sys, err := tbl.deletionBackup(t) // pitr.go
		if err != nil {
			return nil, err
		}
		d, err := Transact(t, func(tr fdb.Transaction) (*TableDescription, error) {
			d, err := tbl.Describe(tr)
			if err != nil {
				return nil, err
			}
			if check != nil {
				if err := check(d); err != nil {
					return nil, err
				}
			}
			st, meta, err := tbl.loadMeta(tr)
			if err != nil {
				return nil, err
			}
			if err := tbl.dropRecovery(tr, st, meta, sys); err != nil {
				return nil, err
			}
			if _, err := directory.Root().Remove(tr, tbl.path); err != nil {
				return nil, err
			}
			bumpMetadataVersion(tr)
			return d, nil
		})
		if err != nil && sys != nil {
			// Not deleted, or the backup missed a write (or the table's
			// recovery changed): the backup goes; it is taken again.
			_, _ = DeleteBackup(t, sys.BackupID, opts...)
		}
		if !errors.Is(err, errChangedSinceBackup) || attempt == maxDeletionBackups {
			return d, err
		}
	}
}

// maxDeletionBackups is how many times DeleteTable takes a table's
// deletion backup (pitr.go) before it gives up on a table written
// throughout.
const maxDeletionBackups = 3
