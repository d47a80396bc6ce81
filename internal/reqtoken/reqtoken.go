// Package reqtoken keeps the records that make a request carrying a
// ClientRequestToken idempotent: one record per token, holding the digest
// of the request that used it and when the token expires, and an entry in
// expiry order so that expired records are found and removed a few at a
// time by later requests. The caller gives the keys ([Keys]; the root
// package's keys.go lays them out) and the digest, reads the token's
// record in the request's transaction with [Start] and [Check.Wait], and
// writes it with [Check.Record] once the request is done.
package reqtoken

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Keys are the keys of the token records.
type Keys struct {
	// Token returns the key of token's record.
	Token func(token string) fdb.Key
	// Expiry returns the key of token's entry in expiry order.
	Expiry func(expiry int64, token string) fdb.Key
	// Expired returns the range of the expiry entries whose expiry is at
	// or before now.
	Expired func(now int64) fdb.KeyRange
}

// Errors of a check.
var (
	// ErrMismatch is a token whose unexpired record holds another
	// request's digest.
	ErrMismatch = errors.New("the token was used for a different request")
	// ErrCorrupt is a stored record Record.Encode cannot have written.
	ErrCorrupt = errors.New("bad length or version")
)

// Record is the stored value of a token's record:
//
//	0x01 expiry:int64 big-endian Unix nanoseconds  digest:32 bytes (SHA-256 of the request)
type Record struct {
	Expiry int64
	Digest [sha256.Size]byte
}

const recordVersion = 0x01

// Encode returns r's stored form.
func (r Record) Encode() []byte {
	b := make([]byte, 0, 1+8+sha256.Size)
	b = append(b, recordVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(r.Expiry))
	return append(b, r.Digest[:]...)
}

// DecodeRecord parses a stored record, failing with [ErrCorrupt] on
// anything Encode cannot produce.
func DecodeRecord(b []byte) (Record, error) {
	if len(b) != 1+8+sha256.Size || b[0] != recordVersion {
		return Record{}, ErrCorrupt
	}
	var r Record
	r.Expiry = int64(binary.BigEndian.Uint64(b[1:9]))
	copy(r.Digest[:], b[9:])
	return r, nil
}

// Check is a token's record, read in a request's transaction.
type Check struct {
	tr     fdb.Transaction
	keys   Keys
	token  string
	now    time.Time
	f      fdb.FutureByteSlice
	old    Record
	hadOld bool
	// expiredRead reads the expiry entries of expired records; expired
	// holds them once Wait has waited, and Record removes them.
	expiredRead fdb.RangeResult
	expired     []fdb.KeyValue
}

// Start starts the read of token's record in tr: a read with a conflict,
// so two transactions with one token never both commit. The read of up to
// cleanup expired records of any token, as of now, starts with it.
func Start(tr fdb.Transaction, keys Keys, token string, now time.Time, cleanup int) *Check {
	// Snapshot: the expired records are nobody's business but cleanup's,
	// and two transactions clearing the same one do not conflict.
	expired := tr.Snapshot().GetRange(keys.Expired(now.UnixNano()),
		fdb.RangeOptions{Limit: cleanup, Mode: fdb.StreamingModeWantAll})
	return &Check{tr: tr, keys: keys, token: token, now: now, f: tr.Get(keys.Token(token)), expiredRead: expired}
}

// Wait waits for the record: done if it holds the request of digest (a
// retry: nothing to do), [ErrMismatch] if it holds another.
func (c *Check) Wait(digest [sha256.Size]byte) (done bool, err error) {
	v, err := c.f.Get()
	if err != nil {
		return false, err
	}
	if v != nil {
		rec, err := DecodeRecord(v)
		if err != nil {
			return false, err
		}
		if rec.Expiry > c.now.UnixNano() {
			if rec.Digest != digest {
				return false, ErrMismatch
			}
			return true, nil
		}
		c.old, c.hadOld = rec, true // expired: as if absent
	}
	if c.expired, err = c.expiredRead.GetSliceWithError(); err != nil {
		return false, err
	}
	for _, kv := range c.expired {
		// The entry was read as a snapshot: a conflict on the token's
		// record keeps Record from removing a record that another
		// transaction renewed meanwhile.
		if err := c.tr.AddReadConflictKey(c.keys.Token(string(kv.Value))); err != nil {
			return false, err
		}
	}
	return false, nil
}

// Record writes the token's record for the request of digest, valid for
// window, replacing an expired one, and removes the expired records of
// other tokens Wait read.
func (c *Check) Record(digest [sha256.Size]byte, window time.Duration) {
	if c.hadOld {
		c.tr.Clear(c.keys.Expiry(c.old.Expiry, c.token))
	}
	for _, kv := range c.expired {
		if tok := string(kv.Value); tok != c.token {
			c.tr.Clear(c.keys.Token(tok))
		}
		c.tr.Clear(kv.Key)
	}
	exp := c.now.Add(window).UnixNano()
	c.tr.Set(c.keys.Token(c.token), Record{Expiry: exp, Digest: digest}.Encode())
	c.tr.Set(c.keys.Expiry(exp, c.token), []byte(c.token))
}
