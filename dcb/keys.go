package dcb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
)

// The keyspace of one store, under its namespace ns (a subspace or a
// directory), every element tuple-encoded:
//
//	ns/"m"                                  → format version (1 byte)
//	ns/"h"/<shard>/<stripe>                 → head: the 10-byte versionstamp of the last append that wrote it (heads.go; shard -1 or 0 to 255, stripe 0 to 7)
//	ns/"o"/<stripe>                         → per-transaction order: read version (8 bytes) + next event order (2); stripe: the read version's hash, 0 to 7
//	ns/"e"/<vs>                             → the event: type, tags, data (event.go)
//	ns/"t"/<type>/<vs>                      → empty (type index)
//	ns/"g"/<tag1>/…/<tagk>/0/<type>/<vs>    → empty (typed tag-subset index)
//	ns/"g"/<tag1>/…/<tagk>/1/<vs>           → empty (untyped tag-subset index)
//	ns/"c"/<vs>/<i>                         → part i (from 1) of an event stored in parts
//	ns/"i"/<key>                            → idempotency record: the positions of one append
//
// <vs> is a tuple versionstamp (code 0x33 and 12 bytes: the commit's 10-byte
// versionstamp and the event's 2-byte order in its transaction), so every
// index key ends in the event's Position and sorts by it.
//
// Every non-empty subset {tag1 < … < tagk} of an event's sorted, distinct
// tags has two g/ entries: one under the integer mark 0 followed by the
// event's type (the "_e" entries of the layout this package grew from) and
// one under the mark 1 with no type. The marks are integers, not strings,
// so no tag, however spelled, can be confused with them, and the entries
// of {a} never share a prefix with those of {a, b}. A query item is then
// one range read per (item, type):
//
//	types only:      t/<type>/                 one range per type
//	tags only:       g/<sorted tags>/1/        one range
//	types and tags:  g/<sorted tags>/0/<type>/ one range per type
//	All():           e/                        one range
//
// Write amplification: an event with n distinct tags writes 2 + 2·(2ⁿ − 1)
// keys (n = 0: 2; 1: 4; 3: 16; 8: 512), which is why [MaxTags] caps n.
const (
	// formatVersion is 2 since heads are sharded (heads.go); a store of
	// format 1 has one head key, ns/"h", and is refused by Open until
	// [Upgrade] has run (store.go).
	formatVersion = 2
	// legacyFormatVersion is the format of stores with one head key.
	legacyFormatVersion = 1

	markTyped   = int64(0)
	markUntyped = int64(1)

	tupleVersionstampCode = 0x33
	// indexSuffixLen is the length of a key's versionstamp suffix.
	indexSuffixLen = 1 + PositionLen
	// maxKeyBytes is FoundationDB's key size limit.
	maxKeyBytes = 10_000
)

// keys builds and parses the keys of one store. Its prefixes are computed
// once, at Open.
type keys struct {
	ns      []byte
	meta    fdb.Key
	heads   []byte // ns/"h" (in format 1, the one head key)
	order   []byte // ns/"o" (in format 1, the one order key)
	events  []byte // ns/"e"
	types   []byte // ns/"t"
	tags    []byte // ns/"g"
	idemp   []byte // ns/"i"
	chunks  []byte // ns/"c"
	typed   []byte // the typed mark, tuple-encoded
	untyped []byte // the untyped mark, tuple-encoded
}

func newKeys(ns []byte) *keys {
	p := func(t tuple.Tuple) []byte { return append(append([]byte{}, ns...), t.Pack()...) }
	return &keys{
		ns:      append([]byte{}, ns...),
		meta:    p(tuple.Tuple{"m"}),
		heads:   p(tuple.Tuple{"h"}),
		order:   p(tuple.Tuple{"o"}),
		events:  p(tuple.Tuple{"e"}),
		types:   p(tuple.Tuple{"t"}),
		tags:    p(tuple.Tuple{"g"}),
		idemp:   p(tuple.Tuple{"i"}),
		chunks:  p(tuple.Tuple{"c"}),
		typed:   tuple.Tuple{markTyped}.Pack(),
		untyped: tuple.Tuple{markUntyped}.Pack(),
	}
}

// appendString appends s's tuple encoding to b.
func appendString(b []byte, s string) []byte { return append(b, tuple.Tuple{s}.Pack()...) }

// typePrefix is the prefix of type t's index entries.
func (k *keys) typePrefix(t string) []byte {
	return appendString(append([]byte{}, k.types...), t)
}

// tagsPrefix is the prefix of the g/ entries of the sorted, distinct tags:
// with a type, the typed entries of that type; without, the untyped ones.
func (k *keys) tagsPrefix(tags []string, typ string, typed bool) []byte {
	b := append([]byte{}, k.tags...)
	for _, t := range tags {
		b = appendString(b, t)
	}
	if !typed {
		return append(b, k.untyped...)
	}
	return appendString(append(b, k.typed...), typ)
}

// eventIndexes is the prefixes of an event's index entries: its type's,
// then, for every non-empty subset of its sorted, distinct tags, the typed
// and the untyped g/ prefix (tagsPrefix's, with each tag encoded once).
func (k *keys) eventIndexes(typ string, tags []string) [][]byte {
	out := make([][]byte, 0, 1<<(len(tags)+1)-1)
	out = append(out, k.typePrefix(typ))
	enc := make([][]byte, len(tags))
	for j, t := range tags {
		enc[j] = appendString(nil, t)
	}
	typed := appendString(append([]byte{}, k.typed...), typ)
	for mask := 1; mask < 1<<len(tags); mask++ {
		set := append([]byte{}, k.tags...)
		for j := range tags {
			if mask&(1<<j) != 0 {
				set = append(set, enc[j]...)
			}
		}
		out = append(out, append(slices.Clip(set), typed...), append(set, k.untyped...))
	}
	return out
}

// headKey is the head of shard (0 to headShards-1, or anyShard) and
// stripe (0 to headStripes-1).
func (k *keys) headKey(shard, stripe int) fdb.Key {
	return append(append(fdb.Key{}, k.heads...), tuple.Tuple{int64(shard), int64(stripe)}.Pack()...)
}

// stripeBits sets the number of stripes of the order key and of each
// head, 2^stripeBits: a transaction writes the stripe its read version
// hashes to (Fibonacci hashing), so transactions spread their writes over
// the stripes, and the appends of one transaction share theirs.
const stripeBits = 3

// stripeOf is the stripe of the transactions of read version rv.
func stripeOf(rv int64) int {
	return int(uint64(rv) * 0x9E3779B97F4A7C15 >> (64 - stripeBits))
}

// orderKey is the order key of the transactions of read version rv.
func (k *keys) orderKey(rv int64) fdb.Key {
	return append(append(fdb.Key{}, k.order...), tuple.Tuple{int64(stripeOf(rv))}.Pack()...)
}

// idempotencyKey is the key of the idempotency record named id.
func (k *keys) idempotencyKey(id []byte) fdb.Key {
	return append(append([]byte{}, k.idemp...), tuple.Tuple{id}.Pack()...)
}

// span is the key range of prefix's entries with positions strictly after
// after and, unless before is zero, strictly before before.
func span(prefix []byte, after, before Position) fdb.KeyRange {
	begin := append(append([]byte{}, prefix...), tupleVersionstampCode)
	if !after.IsZero() {
		begin = append(append(begin, after[:]...), 0)
	}
	end := append(append([]byte{}, prefix...), tupleVersionstampCode+1)
	if !before.IsZero() {
		end = append(append(end[:len(end)-1], tupleVersionstampCode), before[:]...)
	}
	return fdb.KeyRange{Begin: fdb.Key(begin), End: fdb.Key(end)}
}

// laterSpan is the key range of prefix's entries whose commit version is
// after rv: every key a transaction with read version rv can write there.
func laterSpan(prefix []byte, rv int64) fdb.KeyRange {
	begin := append(append([]byte{}, prefix...), tupleVersionstampCode)
	begin = binary.BigEndian.AppendUint64(begin, uint64(rv)+1)
	end := append(append([]byte{}, prefix...), tupleVersionstampCode+1)
	return fdb.KeyRange{Begin: fdb.Key(begin), End: fdb.Key(end)}
}

// positionOf returns the position that ends key, an entry of prefix.
func positionOf(key []byte, prefix []byte) (Position, error) {
	var p Position
	if len(key) != len(prefix)+indexSuffixLen || key[len(prefix)] != tupleVersionstampCode || !bytes.HasPrefix(key, prefix) {
		return p, fmt.Errorf("%w: key %s is not an entry of %s", ErrCorrupt, fdb.Printable(key), fdb.Printable(prefix))
	}
	copy(p[:], key[len(prefix)+1:])
	return p, nil
}

// eventKey is the key of the event at p.
func (k *keys) eventKey(p Position) fdb.Key {
	b := make([]byte, 0, len(k.events)+indexSuffixLen)
	b = append(append(b, k.events...), tupleVersionstampCode)
	return append(b, p[:]...)
}

// stamped returns prefix's entry for the event of order n in the
// committing transaction, as SetVersionstampedKey takes it: the
// versionstamp's 10 bytes as a placeholder, then the order, then the
// placeholder's offset (4 bytes, little-endian).
func stamped(prefix []byte, n uint16) fdb.Key { return stampedWith(prefix, n, nil) }

// stampedPart is the key of part i of the event of order n in the
// committing transaction, as SetVersionstampedKey takes it.
func (k *keys) stampedPart(n uint16, i int) fdb.Key {
	return stampedWith(k.chunks, n, tuple.Tuple{int64(i)}.Pack())
}

// stampedWith is stamped with suffix after the order.
func stampedWith(prefix []byte, n uint16, suffix []byte) fdb.Key {
	b := make([]byte, 0, len(prefix)+indexSuffixLen+len(suffix)+4)
	b = append(append(b, prefix...), tupleVersionstampCode)
	b = append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)
	b = binary.BigEndian.AppendUint16(b, n)
	b = append(b, suffix...)
	return binary.LittleEndian.AppendUint32(b, uint32(len(prefix)+1))
}

// partsSpan is the key range of the parts of the event at p.
func (k *keys) partsSpan(p Position) fdb.KeyRange {
	b := append(append([]byte{}, k.chunks...), tupleVersionstampCode)
	b = append(b, p[:]...)
	kr, _ := fdb.PrefixRange(b)
	return kr
}

// stampedKeyLen is the length of prefix's stored entries.
func stampedKeyLen(prefix []byte) int { return len(prefix) + indexSuffixLen }

// headValue is the SetVersionstampedValue operand that stores the
// committing transaction's 10-byte versionstamp.
func headValue() []byte { return make([]byte, 14) }

// encodeOrder and decodeOrder read and write the per-transaction order
// key's value: the read version of the transaction that wrote it and the
// next free event order in that transaction.
func encodeOrder(rv int64, next int) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 10), uint64(rv))
	return binary.BigEndian.AppendUint16(b, uint16(next))
}

func decodeOrder(v []byte) (rv int64, next int, ok bool) {
	if len(v) != 10 {
		return 0, 0, false
	}
	return int64(binary.BigEndian.Uint64(v)), int(binary.BigEndian.Uint16(v[8:])), true
}

// positionAt builds the position of order n in a transaction whose
// versionstamp is vs.
func positionAt(vs []byte, n int) (Position, error) {
	var p Position
	if len(vs) != 10 {
		return p, fmt.Errorf("%w: versionstamp of %d bytes", ErrCorrupt, len(vs))
	}
	copy(p[:], vs)
	binary.BigEndian.PutUint16(p[10:], uint16(n))
	return p, nil
}

// recordValue is the SetVersionstampedValue operand of an idempotency
// record: the commit's 10-byte versionstamp, the first event order and
// the event count (2 bytes each), the digest of the events (32 bytes,
// [digestEvents]) and when the record expires (8 bytes, Unix nanoseconds,
// 0 for never). Records written before digests (14 bytes) still decode,
// with no digest and no expiry.
func recordValue(first, n int, digest [32]byte, expires int64) []byte {
	b := make([]byte, 10, recordBytes+4)
	b = binary.BigEndian.AppendUint16(b, uint16(first))
	b = binary.BigEndian.AppendUint16(b, uint16(n))
	b = append(b, digest[:]...)
	b = binary.BigEndian.AppendUint64(b, uint64(expires))
	return binary.LittleEndian.AppendUint32(b, 0)
}

// Sizes of an idempotency record: before digests, and now.
const (
	legacyRecordBytes = 14
	recordBytes       = 14 + 32 + 8
)

// record is a decoded idempotency record.
type record struct {
	vs       []byte
	first, n int
	digest   []byte // nil in a record written before digests
	expires  int64  // Unix nanoseconds; 0 never
}

func decodeRecord(v []byte) (record, error) {
	if len(v) != legacyRecordBytes && len(v) != recordBytes {
		return record{}, fmt.Errorf("%w: idempotency record of %d bytes", ErrCorrupt, len(v))
	}
	r := record{vs: v[:10], first: int(binary.BigEndian.Uint16(v[10:])), n: int(binary.BigEndian.Uint16(v[12:]))}
	if r.n == 0 || r.first+r.n > MaxEventsPerTransaction {
		return record{}, fmt.Errorf("%w: idempotency record for %d events from %d", ErrCorrupt, r.n, r.first)
	}
	if len(v) == recordBytes {
		r.digest = v[14:46]
		r.expires = int64(binary.BigEndian.Uint64(v[46:]))
	}
	return r, nil
}
