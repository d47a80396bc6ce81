package fdyno

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// transfer_record.go keeps the records of exports and imports: one JSON
// value a job under the root's backup keys (keys.go), and the ClientToken
// that named it. Both kinds are read, written, found by token and listed
// the same way; a [transferRecords] says where a kind lives and what its
// errors are.

// clientTokenWindow is how long a ClientToken names its export or
// import, DynamoDB's 8 hours.
const clientTokenWindow = 8 * time.Hour

// storedToken is the value of a ClientToken's key.
type storedToken struct {
	ID      string
	Created time.Time
}

// transferRecords is one kind of job record, T (storedExport or
// storedImport).
type transferRecords[T any] struct {
	what        string                           // "export", "import": for messages
	tokenKind   string                           // the ClientToken's kind in keys.token
	key         func(backupKeys, string) fdb.Key // a record's key (keys.go)
	all         func(backupKeys) (fdb.KeyConvertible, fdb.KeyConvertible)
	notFound    func(id string) error
	errNotFound error // what notFound's errors wrap
	id          func(*T) string
	table       func(*T) string
}

// get reads record id; a missing one is the kind's not-found error.
func (r transferRecords[T]) get(rt fdb.ReadTransaction, keys backupKeys, id string) (*T, error) {
	raw, err := rt.Get(r.key(keys, id)).Get()
	if err != nil {
		return nil, err
	}
	if raw == nil {
		return nil, r.notFound(id)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, &CorruptError{What: r.what + " record", Reason: "cannot decode " + r.what + " " + id}
	}
	return &v, nil
}

// put writes v's record.
func (r transferRecords[T]) put(tr fdb.Transaction, keys backupKeys, v *T) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tr.Set(r.key(keys, r.id(v)), raw)
	return nil
}

// read reads record id under root, with the backup keys it lies under.
func (r transferRecords[T]) read(rt fdb.ReadTransactor, root []string, id string) (*T, backupKeys, error) {
	type res struct {
		v    *T
		keys backupKeys
	}
	got, err := ReadTransact(rt, func(tr fdb.ReadTransaction) (res, error) {
		keys, ok, err := openBackupKeys(tr, root)
		if err != nil {
			return res{}, err
		}
		if !ok {
			return res{}, r.notFound(id)
		}
		v, err := r.get(tr, keys, id)
		return res{v, keys}, err
	})
	return got.v, got.keys, err
}

// byToken returns the record a ClientToken made within its window, or
// nil.
func (r transferRecords[T]) byToken(tr fdb.ReadTransaction, keys backupKeys, token string, now time.Time) (*T, error) {
	raw, err := tr.Get(keys.token(r.tokenKind, token)).Get()
	if err != nil || raw == nil {
		return nil, err
	}
	var t storedToken
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, &CorruptError{What: "client token", Reason: "cannot decode the token " + token}
	}
	if now.After(t.Created.Add(clientTokenWindow)) {
		return nil, nil
	}
	v, err := r.get(tr, keys, t.ID)
	if errors.Is(err, r.errNotFound) {
		return nil, nil
	}
	return v, err
}

// setToken records that token names record id from now on.
func (r transferRecords[T]) setToken(tr fdb.Transaction, keys backupKeys, token, id string, now time.Time) error {
	raw, err := json.Marshal(storedToken{ID: id, Created: now})
	if err != nil {
		return err
	}
	tr.Set(keys.token(r.tokenKind, token), raw)
	return nil
}

// list returns the records in id order after the one named after (all
// if empty), of table (any if empty), at most max (no limit if 0), and
// the id of the last one returned when more may follow.
func (r transferRecords[T]) list(tr fdb.ReadTransaction, keys backupKeys, table, after string, max int) ([]*T, string, error) {
	begin, end := r.all(keys)
	if after != "" {
		begin = fdb.Key(append(r.key(keys, after), 0x00))
	}
	var out []*T
	it := tr.GetRange(fdb.KeyRange{Begin: begin, End: end}, fdb.RangeOptions{Mode: fdb.StreamingModeWantAll}).Iterator()
	for it.Advance() {
		row, err := it.Get()
		if err != nil {
			return nil, "", err
		}
		v := new(T)
		if err := json.Unmarshal(row.Value, v); err != nil {
			return nil, "", &CorruptError{What: r.what + " record", Reason: "cannot decode an " + r.what + " record"}
		}
		if table != "" && r.table(v) != table {
			continue
		}
		if max > 0 && len(out) == max {
			return out, r.id(out[len(out)-1]), nil
		}
		out = append(out, v)
	}
	return out, "", nil
}

// tryLease takes or renews holder's lease on running record id until d
// after now, unless another holder's has not expired (lease.go's rule,
// on the root's backup keys rather than a table's): several programs on
// one database run each export or import once at a time, and take over
// one whose runner died after its lease lapses. It reports whether
// holder holds the lease; a record that is gone is the kind's not-found
// error.
func (r transferRecords[T]) tryLease(tx fdb.Transactor, root []string, id, holder string, now time.Time, d time.Duration) (bool, error) {
	if id == "" || holder == "" || d <= 0 {
		return false, &ValidationError{Op: "TryLease", Reason: "a lease needs an id, a holder and a positive period"}
	}
	return Transact(tx, func(tr fdb.Transaction) (bool, error) {
		keys, ok, err := openBackupKeys(tr, root)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, r.notFound(id)
		}
		if _, err := r.get(tr, keys, id); err != nil {
			return false, err
		}
		key := keys.transferLease(r.tokenKind, id)
		raw, err := tr.Get(key).Get()
		if err != nil {
			return false, err
		}
		var cur leaseRecord
		if raw != nil && json.Unmarshal(raw, &cur) == nil && cur.Holder != holder && now.UnixMicro() < cur.Expires {
			return false, nil
		}
		v, err := json.Marshal(leaseRecord{Holder: holder, Expires: now.Add(d).UnixMicro()})
		if err != nil {
			return false, err
		}
		tr.Set(key, v)
		return true, nil
	})
}

// releaseLease gives up holder's lease on record id, if it holds it.
func (r transferRecords[T]) releaseLease(tx fdb.Transactor, root []string, id, holder string) error {
	_, err := Transact(tx, func(tr fdb.Transaction) (struct{}, error) {
		keys, ok, err := openBackupKeys(tr, root)
		if err != nil || !ok {
			return struct{}{}, err
		}
		key := keys.transferLease(r.tokenKind, id)
		raw, err := tr.Get(key).Get()
		if err != nil {
			return struct{}{}, err
		}
		var cur leaseRecord
		if raw != nil && json.Unmarshal(raw, &cur) == nil && cur.Holder == holder {
			tr.Clear(key)
		}
		return struct{}{}, nil
	})
	return err
}

// clockNow is the time by WithClock's clock (time.Now without one).
func (o options) clockNow() time.Time {
	if o.clock != nil {
		return o.clock()
	}
	return time.Now()
}
