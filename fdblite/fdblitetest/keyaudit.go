package fdblitetest

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// KeyAuditKey is the special key of fdblite's key audit: written "on" it
// counts, per conflict range, the committed transactions that write it or
// take a read conflict on it, from zero; "off" (or a clear) stops it; it
// reads as the JSON report [ReadKeyAudit] decodes. The audit finds the
// keys that would be hot on a cluster, where one storage team serves each
// key whatever the cluster's size.
var KeyAuditKey = fdb.Key("\xff\xff/fdblite/keyaudit")

// KeyAudit is the report of fdblite's key audit: the committed
// transactions counted, and the 64 conflict ranges of each kind that the
// most of them touched, most first.
type KeyAudit struct {
	Transactions int64
	Writes       []AuditedRange
	Reads        []AuditedRange
}

// AuditedRange is one conflict range [Begin, End) and the number of
// committed transactions that added it.
type AuditedRange struct {
	Begin, End fdb.Key
	Count      int64
}

// StartKeyAudit turns db's key audit on, counting from zero.
func StartKeyAudit(db fdb.Database) error { return setKeyAudit(db, "on") }

// StopKeyAudit turns db's key audit off.
func StopKeyAudit(db fdb.Database) error { return setKeyAudit(db, "off") }

func setKeyAudit(db fdb.Database, v string) error {
	_, err := db.Transact(func(tr fdb.Transaction) (any, error) {
		if err := tr.Options().SetSpecialKeySpaceEnableWrites(); err != nil {
			return nil, err
		}
		tr.Set(KeyAuditKey, []byte(v))
		return nil, nil
	})
	if err != nil {
		return fmt.Errorf("fdblitetest: key audit %s: %w", v, err)
	}
	return nil
}

// ReadKeyAudit reads db's key audit report.
func ReadKeyAudit(db fdb.Database) (KeyAudit, error) {
	raw, err := db.ReadTransact(func(rt fdb.ReadTransaction) (any, error) {
		return rt.Get(KeyAuditKey).Get()
	})
	if err != nil {
		return KeyAudit{}, fmt.Errorf("fdblitetest: read key audit: %w", err)
	}
	b, _ := raw.([]byte)
	if b == nil {
		return KeyAudit{}, errors.New("fdblitetest: the database has no key audit (not fdblite?)")
	}
	type wireRange struct {
		Begin, End string
		Count      int64
	}
	var w struct {
		Transactions  int64
		Writes, Reads []wireRange
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return KeyAudit{}, fmt.Errorf("fdblitetest: key audit report: %w", err)
	}
	out := KeyAudit{Transactions: w.Transactions}
	for _, side := range []struct {
		in  []wireRange
		out *[]AuditedRange
	}{{w.Writes, &out.Writes}, {w.Reads, &out.Reads}} {
		for _, r := range side.in {
			begin, err1 := hex.DecodeString(r.Begin)
			end, err2 := hex.DecodeString(r.End)
			if err := errors.Join(err1, err2); err != nil {
				return KeyAudit{}, fmt.Errorf("fdblitetest: key audit report: %w", err)
			}
			*side.out = append(*side.out, AuditedRange{Begin: begin, End: end, Count: r.Count})
		}
	}
	return out, nil
}

// HotRange is a conflict range that more than a given share of the
// audited transactions added.
type HotRange struct {
	AuditedRange
	Kind  string  // "written" or "read with a conflict"
	Share float64 // of the audited transactions
}

// Hot returns the ranges written, or read with a conflict, by more than
// share of a's transactions: the writes first, then the reads, most first
// within each kind.
func (a KeyAudit) Hot(share float64) []HotRange {
	var out []HotRange
	for _, side := range []struct {
		kind   string
		ranges []AuditedRange
	}{{"written", a.Writes}, {"read with a conflict", a.Reads}} {
		for _, r := range side.ranges {
			s := float64(r.Count) / float64(a.Transactions)
			if s <= share {
				break // most first
			}
			out = append(out, HotRange{AuditedRange: r, Kind: side.kind, Share: s})
		}
	}
	return out
}

// Describe says what h is and how many of total transactions touched it,
// its key named by name.
func (h HotRange) Describe(name string, total int64) string {
	return fmt.Sprintf("%s %s by %d of %d transactions (%.0f%%)", name, h.Kind, h.Count, total, 100*h.Share)
}
