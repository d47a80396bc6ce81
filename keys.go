package fdyno

// keys.go is the only file that builds or parses FoundationDB keys. Every
// key is a FoundationDB tuple, so the byte order of keys is the order of
// their elements, and that order is DynamoDB's:
//
//	dynodb/                                           the root directory (WithRoot)
//	    t/<token>, e/<expiry>/<token>                 ClientRequestToken records (transact_write.go)
//	dynodb/<table>/                                   one directory per table
//	    m                                             table metadata
//	    i/<hash>[/<range>]                            item head: the encoded item (codec.go)
//	    c/<hash>[/<range>]/<chunk>                    chunks of an item too large for one value
//	    x/<index>/<hashValue>…/<sortValue>…/<basePK>  secondary index entries (index.go)
//	    b/<index>                                     backfill progress of a new index (backfill.go)
//	    p/<bucket>/<hash>                             partition directory: parallel Scan segments (segment.go)
//	    v/<shard>/<versionstamp>/<part>               stream records, in commit order per shard
//	    v/<name>/…                                    stream state: markers, consumers, trim horizon (stream*.go)
//
// Key attribute values (<hash>, <range>, <hashValue>, <sortValue>) are one
// tuple element each:
//
//	S   tuple string (code 0x02) of the UTF-8 bytes: orders by bytes
//	B   tuple bytes (code 0x01) of the raw bytes: orders by bytes
//	N   tuple bytes (code 0x01) of the order-preserving number encoding
//	    below (internal/number: AppendKey): orders by numeric value
//
// A key attribute's type is fixed by the table's key schema, so an N and a
// B never meet in the same position and need no distinct codes.
//
// The number encoding, for a canonical number with adjusted exponent e
// (scientific notation, -130 ≤ e ≤ 125) and significant digits d1 d2 … dn
// (n ≤ 38, d1 ≠ 0, dn ≠ 0), taken in pairs (a lone last digit pairs with 0):
//
//	zero       0x02
//	positive   0x03  e+130         pair+1 …                 (bytes 1..100)
//	negative   0x01  255-(e+130)   100-pair …  0xff         (bytes 1..100)
//
// Sign first; then the exponent, inverted for negatives; then the digits,
// inverted for negatives, where the 0xff terminator makes a longer digit
// string (a larger magnitude) sort before its prefix. Digits have no
// trailing zeros, so every number has exactly one encoding, and byte order
// equals numeric order for every legal number.

import (
	"bytes"
	"encoding/binary"
	"github.com/fdyno/fdyno/internal/number"
	"strconv"
	"strings"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/subspace"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
)

// The keyspace of one table. DefaultRoot is the directory-layer path under
// which tables live unless [WithRoot] names another, so several
// applications or tenants can share a cluster without seeing each other's
// tables; each table is the directory root/<table>, and inside it:
//
//	("m",)                      the table's metadata, JSON (table_meta.go)
//	("i", <hash>[, <range>])    the item head: the encoded item, or a chunk
//	                            manifest (chunk.go) when the item is large
//	("c", <hash>[, <range>], n) chunk n (an int64 tuple element) of a large item
//	("x", <index>, <hashValue>…, <sortValue>…, <hash>[, <range>])
//	                            an index entry (index.go)
//	("b", <index>)              backfill progress of a CREATING index
//	                            (backfill.go)
//	("p", <bucket>, <hash>)     one empty entry per partition key, ordered
//	                            by a hash of the key (segment.go)
//	("n", "t", <field>, <shard>)  the table's counters, little-endian
//	("n", "x", <index>, <field>, <shard>)
//	                            an index's counters (counts.go)
//	("n", "p", <hash>, <field>) a partition's (item collection's) counters
//	("n", "r")                  progress of the counting pass (counts.go)
//	("v", …)                    change records and stream state (stream.go; see
//	                            the stream block at the end of this file)
//
// A chunk key extends its item key by one element, so all chunks of an
// item form one contiguous range that a single ClearRange removes.
const DefaultRoot = "dynodb"

// Subspace names inside a table's directory.
const (
	metaSubspace   = "m"
	itemSubspace   = "i"
	chunkSubspace  = "c"
	indexSubspace  = "x"
	streamSubspace = "v"
)

// metadataVersionKey is FoundationDB's cluster-wide metadata version. Every
// schema change bumps it (bumpMetadataVersion) in the transaction that makes
// the change, and every operation reads it to decide whether a table
// handle's cached schema is still current (table_state.go).
var metadataVersionKey = fdb.Key("\xff/metadataVersion")

// bumpMetadataVersion makes tr change the metadata version when it commits.
// The value must be a 14-byte versionstamp placeholder (10-byte stamp, then
// the 4-byte little-endian offset 0).
func bumpMetadataVersion(tr fdb.Transaction) {
	tr.SetVersionstampedValue(metadataVersionKey, make([]byte, 14))
}

// tablePath returns the directory-layer path of table name under root.
func tablePath(root []string, name string) []string {
	return append(append([]string(nil), root...), name)
}

// tableKeys holds the key prefixes of one table directory.
type tableKeys struct {
	meta   fdb.Key           // ("m",)
	items  subspace.Subspace // ("i", …)
	chunks subspace.Subspace // ("c", …)
	index  subspace.Subspace // ("x", …), for index.go
	stream subspace.Subspace // ("v", …), for stream.go
	all    fdb.KeyRange      // the whole directory

	backfill   subspace.Subspace // ("b", …), for backfill.go
	partitions subspace.Subspace // ("p", …), for segment.go
	counts     subspace.Subspace // ("n", …), for counts.go
	backupLog  subspace.Subspace // ("l", …), for backup_log.go
	leases     subspace.Subspace // ("w", …), for lease.go
}

func newTableKeys(dir subspace.Subspace) tableKeys {
	begin, end := dir.FDBRangeKeys()
	return tableKeys{
		meta:   dir.Pack(tuple.Tuple{metaSubspace}),
		items:  dir.Sub(itemSubspace),
		chunks: dir.Sub(chunkSubspace),
		index:  dir.Sub(indexSubspace),
		stream: dir.Sub(streamSubspace),
		all:    fdb.KeyRange{Begin: begin, End: end},
		// A separate subspace, not a field of m: every writer adds a
		// read conflict on m (write.go), so progress kept there would
		// abort concurrent writers at every batch.
		backfill:   dir.Sub(backfillSubspace),
		partitions: dir.Sub(partitionSubspace),
		counts:     dir.Sub(countSubspace),
		backupLog:  dir.Sub(backupLogSubspace),
		leases:     dir.Sub(leaseSubspace),
	}
}

// leaseSubspace holds the leases on a table's background work (lease.go):
// ("w", job) → the holder and the lease's expiry.
const leaseSubspace = "w"

// leaseKey returns the key of the lease on job.
func (k tableKeys) leaseKey(job string) fdb.Key { return k.leases.Pack(tuple.Tuple{job}) }

// itemKey returns the key of the item head whose packed key values
// (packKeyValues) are kv.
func (k tableKeys) itemKey(kv []byte) fdb.Key {
	return concatKey(k.items.Bytes(), kv)
}

// chunkPrefix returns the prefix of the chunk keys of the item whose packed
// key values are kv.
func (k tableKeys) chunkPrefix(kv []byte) fdb.Key {
	return concatKey(k.chunks.Bytes(), kv)
}

// chunkRange returns the range of every chunk of the item whose packed key
// values are kv.
func (k tableKeys) chunkRange(kv []byte) fdb.KeyRange {
	prefix := k.chunks.Bytes()
	p := make([]byte, 0, len(prefix)+len(kv)+1) // one allocation for both ends
	p = append(append(append(p, prefix...), kv...), 0xff)
	return fdb.KeyRange{Begin: fdb.Key(p[:len(p)-1]), End: fdb.Key(p)}
}

// chunkKey returns the key of chunk n of the item whose packed key values
// are kv.
func (k tableKeys) chunkKey(kv []byte, n int) fdb.Key {
	return concatKey(k.chunkPrefix(kv), tuple.Tuple{int64(n)}.Pack())
}

// splitChunkKey returns the packed key values and the chunk number of a
// key in the chunks subspace. Chunk numbers are non-negative int64 tuple
// elements, coded 0x14 (zero) to 0x1c followed by big-endian bytes.
func (k tableKeys) splitChunkKey(key fdb.Key) (kv []byte, n int, err error) {
	rest, ok := bytes.CutPrefix(key, k.chunks.Bytes())
	if !ok {
		return nil, 0, &CorruptError{What: "key", Reason: "not a chunk key"}
	}
	for i := len(rest) - 1; i >= 0 && i >= len(rest)-9; i-- {
		c := rest[i]
		if c < 0x14 || c > 0x1c || int(c-0x14) != len(rest)-i-1 {
			continue
		}
		t, terr := tuple.Unpack(rest[i:])
		if terr != nil || len(t) != 1 || checkTuple(rest[:i]) != nil {
			continue
		}
		if v, ok := t[0].(int64); ok && v >= 0 {
			return rest[:i], int(v), nil
		}
	}
	return nil, 0, &CorruptError{What: "key", Reason: "chunk key without a chunk number"}
}

// splitItemKey returns the packed key values of a key in the items
// subspace.
func (k tableKeys) splitItemKey(key fdb.Key) ([]byte, error) {
	rest, ok := bytes.CutPrefix(key, k.items.Bytes())
	if !ok {
		return nil, &CorruptError{What: "key", Reason: "not an item key"}
	}
	return rest, checkTuple(rest)
}

func concatKey(a, b []byte) fdb.Key {
	k := make([]byte, 0, len(a)+len(b))
	return append(append(k, a...), b...)
}

// keyAttr is a key attribute of a table's key schema.
type keyAttr struct {
	Name string
	Type Type
}

// reasonKeyMismatch is DynamoDB's refusal of a key whose attributes are
// not exactly those of the key schema.
const reasonKeyMismatch = "The provided key element does not match the schema"

// keyTypesMatch reports whether it holds the key attributes hash and rng
// (unless its Name is empty) with their declared types.
func keyTypesMatch(it Item, hash, rng keyAttr) bool {
	for _, k := range [...]keyAttr{hash, rng} {
		if v, ok := it[k.Name]; k.Name != "" && (!ok || v.typ != k.Type) {
			return false
		}
	}
	return true
}

// keyOf validates the key attributes of it against the table's key
// (hash, and rng unless its Name is empty) and returns their packed values.
// With exact, it is a Key parameter and may hold nothing else.
func keyOf(op string, it Item, hash, rng keyAttr, exact bool) ([]byte, error) {
	fail := func(reason string) error {
		return &ValidationError{Op: op, Reason: reason}
	}
	want := 1
	if rng.Name != "" {
		want = 2
	}
	if exact && len(it) != want {
		return nil, fail(reasonKeyMismatch)
	}
	hv, ok := it[hash.Name]
	if !ok {
		if exact {
			return nil, fail(reasonKeyMismatch)
		}
		return nil, fail("One or more parameter values were invalid: Missing the key " + hash.Name + " in the item")
	}
	if exact && hv.typ != hash.Type {
		// A Key's wrong type is a schema mismatch, not a Put item's
		// "Type mismatch for key".
		return nil, fail(reasonKeyMismatch)
	}
	if err := checkKeyValue(hash.Name, hv, hash.Type, true); err != nil {
		err.(*ValidationError).Op = op
		return nil, err
	}
	if rng.Name == "" {
		return packKeyValues(hv)
	}
	rv, ok := it[rng.Name]
	if !ok {
		if exact {
			return nil, fail(reasonKeyMismatch)
		}
		return nil, fail("One or more parameter values were invalid: Missing the key " + rng.Name + " in the item")
	}
	if exact && rv.typ != rng.Type {
		return nil, fail(reasonKeyMismatch)
	}
	if err := checkKeyValue(rng.Name, rv, rng.Type, false); err != nil {
		err.(*ValidationError).Op = op
		return nil, err
	}
	return packKeyValues(hv, rv)
}

// keyElement returns the tuple element of a key attribute value.
func keyElement(v Value) (tuple.TupleElement, error) {
	switch v.typ {
	case TypeS:
		return v.s, nil
	case TypeB:
		return []byte(v.s), nil
	case TypeN:
		if v.bad {
			_, err := number.Canonical(v.s)
			return nil, &ValidationError{Reason: err.Error()}
		}
		return number.AppendKey(nil, v.s), nil
	}
	return nil, &ValidationError{Reason: "key attributes must be S, N or B, not " + v.typ.String()}
}

// keyValue returns the value of type t held by a tuple element that
// keyElement produced.
func keyValue(el tuple.TupleElement, t Type) (Value, error) {
	switch t {
	case TypeS:
		if s, ok := el.(string); ok && s != "" {
			return Value{typ: TypeS, s: s}, nil
		}
	case TypeB:
		if b, ok := el.([]byte); ok && len(b) > 0 {
			return Value{typ: TypeB, s: string(b)}, nil
		}
	case TypeN:
		if b, ok := el.([]byte); ok {
			s, err := decodeNumberKey(b)
			if err != nil {
				return Value{}, err
			}
			return Value{typ: TypeN, s: s}, nil
		}
	}
	return Value{}, &CorruptError{What: "key", Reason: "element is not a " + t.String() + " key value"}
}

// packKeyValues packs key attribute values into a tuple key, in order:
// the bytes tuple.Tuple{keyElement(v)…}.Pack() returns, built directly
// (one allocation, no interface boxing) because every item operation packs
// its key. TestPackKeyValuesMatchesTuple holds the two equal.
func packKeyValues(values ...Value) ([]byte, error) {
	n := 0
	for _, v := range values {
		n += len(v.s) + 8
	}
	out := make([]byte, 0, n)
	for _, v := range values {
		switch v.typ {
		case TypeS:
			out = appendTupleBytes(append(out, tupleStringCode), v.s)
		case TypeB:
			out = appendTupleBytes(append(out, tupleBytesCode), v.s)
		case TypeN:
			if v.bad {
				_, err := number.Canonical(v.s)
				return nil, &ValidationError{Reason: err.Error()}
			}
			var buf [3 + (MaxNumberDigits+1)/2]byte
			out = appendTupleBytes(append(out, tupleBytesCode), string(number.AppendKey(buf[:0], v.s)))
		default:
			return nil, &ValidationError{Reason: "key attributes must be S, N or B, not " + v.typ.String()}
		}
	}
	return out, nil
}

// Tuple layer type codes of the elements fdyno packs.
const (
	tupleBytesCode  = 0x01
	tupleStringCode = 0x02
)

// appendTupleBytes appends the body of a tuple byte or string element:
// the bytes with each 0x00 escaped as 0x00 0xff, then a 0x00 terminator.
func appendTupleBytes(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, 0x00)
		if i < 0 {
			break
		}
		dst = append(append(dst, s[:i]...), 0x00, 0xff)
		s = s[i+1:]
	}
	return append(append(dst, s...), 0x00)
}

// unpackKeyValues parses a key packed by packKeyValues whose values have
// the given types. It fails with a *CorruptError, and never panics, on
// anything packKeyValues cannot produce.
func unpackKeyValues(key []byte, types ...Type) ([]Value, error) {
	if err := checkTuple(key); err != nil {
		return nil, err
	}
	t, err := tuple.Unpack(key)
	if err != nil {
		return nil, &CorruptError{What: "key", Reason: err.Error()}
	}
	if len(t) != len(types) {
		return nil, &CorruptError{What: "key", Reason: "has " + strconv.Itoa(len(t)) + " elements, want " + strconv.Itoa(len(types))}
	}
	values := make([]Value, len(t))
	for i, el := range t {
		if values[i], err = keyValue(el, types[i]); err != nil {
			return nil, err
		}
	}
	return values, nil
}

// checkTuple verifies that key is a well-formed tuple of the element kinds
// fdyno writes (byte strings and Unicode strings). tuple.Unpack trusts its
// input and can panic on truncated elements, so keys read from the
// database go through this first.
func checkTuple(key []byte) error {
	for i := 0; i < len(key); {
		switch key[i] {
		case 0x01, 0x02:
			i++
			for {
				j := bytes.IndexByte(key[i:], 0x00)
				if j < 0 {
					return &CorruptError{What: "key", Offset: len(key), Reason: "unterminated string element"}
				}
				i += j + 1
				if i < len(key) && key[i] == 0xff {
					i++ // an escaped 0x00 inside the element
					continue
				}
				break
			}
		default:
			return &CorruptError{What: "key", Offset: i, Reason: "unexpected tuple element code 0x" + strconv.FormatUint(uint64(key[i]), 16)}
		}
	}
	return nil
}

// The ranges of a key condition (query.go: keyConditionRange) are built
// from these facts of the packing: a key is its elements one after the
// other, each a type code, the value's bytes with 0x00 escaped as 0x00
// 0xff, and a 0x00 terminator, so
//
//   - the keys of one partition are those with the prefix P = pack(hash);
//     every sort element starts with 0x01 or 0x02, so they all lie in
//     [P, prefixEnd(P));
//   - the least key after a key k that ends with its last element is
//     next(k); after a key that other elements follow (an index entry's
//     index key, then its base item's key), prefixEnd(k);
//   - the strings that begin with s are exactly the elements that begin
//     with pack(s) minus its terminator, because the escaped form of a
//     string is a prefix code (TestKeyConditionRange checks this by brute
//     force): beginsWithRange.

// beginsWithRange returns the range [lo, hi) of the packed key values
// that start with the values fixed (a partition's, and a multi-attribute
// sort key's leading equalities) and whose next value begins with s.
func beginsWithRange(fixed []Value, s Value) (lo, hi []byte, err error) {
	k, err := packKeyValues(append(fixed[:len(fixed):len(fixed)], s)...)
	if err != nil {
		return nil, nil, err
	}
	lo = k[:len(k)-1]
	end, err := fdb.Strinc(lo)
	return lo, end, err
}

// next returns the least byte string greater than k.
func next(k []byte) []byte {
	return append(k[:len(k):len(k)], 0x00)
}

// segmentRange returns the range [lo, hi) of packed key values of segment
// seg of total, for a table whose hash key has type hashType.
//
// The segments split the partition keys' bytes evenly: every packed key
// starts with the hash element's type code (keys.go: 0x02 for S, 0x01 for
// N and B), so boundary i (0 < i < total) is that code followed by the
// 24-bit big-endian floor(i·2^24/total), and boundaries 0 and total are ""
// and "\xff", the ends of the whole i/ subspace. Boundaries strictly
// increase (total ≤ 10^6 < 2^24), so the segments are disjoint, non-empty
// ranges that cover the subspace exactly (TestSegmentRangesPartition).
// They are even in key bytes, not in items: keys clustered in a few
// leading bytes (such as small numbers) fall in few segments. They serve
// index scans and tables of format 1; a table's parallel Scan otherwise
// splits the partition directory by hash (segmentBuckets).
func segmentRange(hashType Type, seg, total int) (lo, hi []byte) {
	code := byte(tupleBytesCode)
	if hashType == TypeS {
		code = tupleStringCode
	}
	bound := func(i int) []byte {
		switch i {
		case 0:
			return []byte{}
		case total:
			return []byte{0xff}
		}
		v := uint64(i) << 24 / uint64(total)
		return []byte{code, byte(v >> 16), byte(v >> 8), byte(v)}
	}
	return bound(seg), bound(seg + 1)
}

// ---- The partition directories (segment.go) ----
//
//	p/<bucket>/<hash>                  the table's
//	p/<index>/<bucket>/<hashValue>     each secondary index's
//
// One empty entry per partition key value (the packed tuple element of
// the table's hash key, or the index's: the packed elements of all its
// partition attributes for a multi-attribute key) that has, or once had,
// an item or index entry. <bucket> is a tuple integer, partitionBucket of the
// packed value: a fixed 32-bit hash, so it is part of the stored format
// and must never change. The entries are ordered by (bucket, value), and
// parallel Scan segment s of n owns the buckets [⌊s·2^32/n⌋,
// ⌊(s+1)·2^32/n⌋): each partition, hence each item, belongs to exactly one
// segment whatever the keys look like, as in DynamoDB, where segments are
// slices of the partition-key hash. An index's directory sorts before the
// table's (a tuple string before a tuple integer), so the table's bucket
// ranges never meet an index's entries.

const partitionSubspace = "p"

// partitionBucket returns the bucket of the packed hash key value h:
// the high 32 bits of FNV-1a 64 of h, finalized with SplitMix64's mixer
// so that keys differing only in their last bytes spread over all buckets.
func partitionBucket(h []byte) uint32 {
	x := uint64(14695981039346656037)
	for _, b := range h {
		x ^= uint64(b)
		x *= 1099511628211
	}
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return uint32(x >> 32)
}

// partitionDir is the key prefix of one partition directory: p/ for the
// table, p/<index>/ for an index.
type partitionDir []byte

func (k tableKeys) tablePartitions() partitionDir { return partitionDir(k.partitions.Bytes()) }

func (k tableKeys) indexPartitions(index string) partitionDir {
	return partitionDir(k.partitions.Pack(tuple.Tuple{index}))
}

// key returns the directory entry of the partition whose packed hash key
// value is h.
func (d partitionDir) key(h []byte) fdb.Key {
	return concatKey(append(d[:len(d):len(d)], tuple.Tuple{int64(partitionBucket(h))}.Pack()...), h)
}

// split returns the packed hash key value of directory entry key, n
// tuple elements (an index's partition attributes; 1 for a table). It
// fails with a *CorruptError, and never panics, on a key segment.go did
// not write.
func (d partitionDir) split(key fdb.Key, elems int) ([]byte, error) {
	rest, ok := bytes.CutPrefix(key, d)
	if !ok {
		return nil, &CorruptError{What: "key", Reason: "not a partition key"}
	}
	// The bucket is a non-negative tuple integer: code 0x14+n, then n
	// big-endian bytes.
	if len(rest) == 0 || rest[0] < 0x14 || rest[0] > 0x14+5 || len(rest) < 1+int(rest[0]-0x14) {
		return nil, &CorruptError{What: "key", Reason: "bad partition bucket"}
	}
	n := int(rest[0] - 0x14)
	var bucket uint64
	for _, b := range rest[1 : 1+n] {
		bucket = bucket<<8 | uint64(b)
	}
	h := rest[1+n:]
	if _, tail, err := splitTuple(h, elems); err != nil || len(tail) != 0 {
		return nil, &CorruptError{What: "key", Reason: "bad partition key value"}
	}
	if bucket != uint64(partitionBucket(h)) {
		return nil, &CorruptError{What: "key", Reason: "partition bucket does not match its key"}
	}
	return h, nil
}

// buckets returns the directory entries of the buckets [lo, hi).
func (d partitionDir) buckets(lo, hi uint64) fdb.KeyRange {
	pack := func(b uint64) fdb.Key {
		return fdb.Key(append(d[:len(d):len(d)], tuple.Tuple{int64(b)}.Pack()...))
	}
	return fdb.KeyRange{Begin: pack(lo), End: pack(hi)}
}

// all returns the range of every entry of the directory.
func (d partitionDir) all() fdb.KeyRange { return d.buckets(0, 1<<32) }

// hashValue returns the packed hash key value at the head of the packed
// key values kv (a table's, or an index's key values followed by its
// base item's).
func hashValue(kv []byte) ([]byte, error) {
	return hashValues(kv, 1)
}

// hashValues returns the packed partition key values at the head of the
// packed key values kv, for a key of n partition attributes (more than
// one for a GSI's multi-attribute key, whose partition is the tuple of
// them all).
func hashValues(kv []byte, n int) ([]byte, error) {
	h, _, err := splitTuple(kv, n)
	return h, err
}

// segmentBuckets returns the buckets [lo, hi) of parallel Scan segment seg
// of total: ⌊seg·2^32/total⌋ and ⌊(seg+1)·2^32/total⌋, strictly increasing
// for total ≤ 2^32, so the segments partition the buckets exactly.
func segmentBuckets(seg, total int) (lo, hi uint64) {
	return uint64(seg) << 32 / uint64(total), uint64(seg+1) << 32 / uint64(total)
}

// partitionRange returns the keys under prefix (an item subspace's or an
// index's) of the partition whose packed hash key value is h, after the
// packed values after when after is not nil: items i/<h>/…, or index
// entries x/<index>/<h>/….
func partitionRange(prefix, h, after []byte) fdb.KeyRange {
	begin := concatKey(prefix, h)
	if after != nil {
		begin = concatKey(prefix, next(after))
	}
	return fdb.KeyRange{Begin: begin, End: concatKey(prefix, prefixEnd(h))}
}

// ---- Secondary indexes (index.go, backfill.go) ----
//
// An index entry's key is the index's prefix x/<index>/ followed by the
// index key values and then the base item's packed key values, all tuple
// elements one after the other:
//
//	x/<index>/<hashValue>…[/<sortValue>…]/<hash>[/<range>]
//
// (one value per partition attribute, then one per sort attribute, in key
// schema order: a GSI's multi-attribute key has up to four of each,
// index_keys.go), so the entries of one partition are ordered by the sort
// attributes left to right and those of one index key by base primary
// key, and an index key condition is a range of the same shape as a table's
// (query.go: keyConditionRange with prefixEnd). The entries of one index form the
// contiguous range indexRange, which one ClearRange removes.

// backfillSubspace holds b/<index>, the backfill progress of an index
// being built.
const backfillSubspace = "b"

// maxKeySize is FoundationDB's key size limit. An index entry key is the
// only key fdyno builds that can exceed it (index and base key values
// with many escaped 0x00 bytes): such an item is not indexed, and a write
// of one is refused (index.go).
const maxKeySize = 10_000

// indexPrefix returns the prefix x/<index>/ of index's entries.
func (k tableKeys) indexPrefix(index string) fdb.Key {
	return k.index.Pack(tuple.Tuple{index})
}

// indexRange returns the range of every entry of the index whose prefix
// is prefix.
func indexRange(prefix fdb.Key) fdb.KeyRange {
	return fdb.KeyRange{Begin: prefix, End: fdb.Key(prefixEnd(prefix))}
}

// indexKey returns the key of the entry under prefix whose packed index
// key values followed by base key values are rest.
func indexKey(prefix fdb.Key, rest []byte) fdb.Key {
	return concatKey(prefix, rest)
}

// splitIndexKey returns the bytes rest that follow prefix in an index
// entry key, the n index key values and then the base item's packed key
// values, and those key values kv. It fails with a *CorruptError, and
// never panics, on a key index.go did not write.
func splitIndexKey(prefix fdb.Key, key []byte, n int) (rest, kv []byte, err error) {
	rest, ok := bytes.CutPrefix(key, prefix)
	if !ok {
		return nil, nil, &CorruptError{What: "key", Reason: "not an entry of this index"}
	}
	_, kv, err = splitTuple(rest, n)
	return rest, kv, err
}

// splitTuple splits a packed tuple of byte and string elements after its
// first n elements.
func splitTuple(b []byte, n int) (head, tail []byte, err error) {
	if err := checkTuple(b); err != nil {
		return nil, nil, err
	}
	i := 0
	for range n {
		if i >= len(b) {
			return nil, nil, &CorruptError{What: "key", Offset: i, Reason: "too few elements"}
		}
		i++
		for {
			j := bytes.IndexByte(b[i:], 0x00)
			i += j + 1 // checkTuple: every element is terminated
			if i < len(b) && b[i] == 0xff {
				i++
				continue
			}
			break
		}
	}
	return b[:i], b[i:], nil
}

// prefixEnd returns the least byte string greater than every key that
// starts with k followed by a tuple element (whose codes are below 0xff).
func prefixEnd(k []byte) []byte {
	return append(k[:len(k):len(k)], 0xff)
}

// backfillKey returns the key of index's backfill progress.
func (k tableKeys) backfillKey(index string) fdb.Key {
	return k.backfill.Pack(tuple.Tuple{index})
}

// ---- Batches, transactions and TTL: ClientRequestToken records ----
//
// A TransactWrite's ClientRequestToken is remembered for
// [ClientRequestTokenWindow] in the content subspace of the root directory
// under which its first action's table lives ([WithRoot], default
// dynodb/). The directory layer gives every subdirectory (every table) a
// prefix of its own outside its parent's, so the root's own content
// subspace holds nothing else, and ListTables, which lists
// subdirectories, never reports these keys as a table:
//
//	root/ ("t", <token>)                  the request's digest and expiry (transact_write.go)
//	root/ ("e", <expiry>, <token>)        = <token>: the record by expiry, for its removal
//
// <token> is a tuple string; <expiry> an int64 tuple element, Unix
// nanoseconds, so the ("e",) range is in expiry order and the expired
// records are a prefix of it.
const (
	tokenSubspace  = "t"
	expirySubspace = "e"
)

// tokenKeys holds the key prefixes of the ClientRequestToken records under
// one root directory.
type tokenKeys struct {
	tokens   subspace.Subspace // ("t", …)
	byExpiry subspace.Subspace // ("e", …)
}

func newTokenKeys(root subspace.Subspace) tokenKeys {
	return tokenKeys{tokens: root.Sub(tokenSubspace), byExpiry: root.Sub(expirySubspace)}
}

// tokenKey returns the key of token's record.
func (k tokenKeys) tokenKey(token string) fdb.Key {
	return k.tokens.Pack(tuple.Tuple{token})
}

// expiryKey returns the key of token's entry in expiry order.
func (k tokenKeys) expiryKey(expiry int64, token string) fdb.Key {
	return k.byExpiry.Pack(tuple.Tuple{expiry, token})
}

// expiredRange returns the range of the expiry entries whose expiry is at
// or before now.
func (k tokenKeys) expiredRange(now int64) fdb.KeyRange {
	begin, _ := k.byExpiry.FDBRangeKeys()
	end := k.byExpiry.Pack(tuple.Tuple{now + 1})
	return fdb.KeyRange{Begin: begin, End: end}
}

// ---- Change streams (stream.go) ----
//
// Everything a table's stream keeps lives in its ("v", …) subspace. The
// second element tells the kinds apart: an integer (shard) for change
// records, a one-letter string for the stream's bookkeeping, so the two
// never share a range:
//
//	("v", shard, vs, part)   part (int ≥ 0) of the change record with
//	                         sequence number vs (a tuple versionstamp:
//	                         code 0x33, the 10-byte commit versionstamp,
//	                         the 2-byte per-transaction order); records of
//	                         a shard sort in commit order
//	("v", "m", shard)        the shard's change marker: a little-endian
//	                         64-bit count of the records ever written to it,
//	                         bumped with an atomic ADD (tails watch it)
//	("v", "n", shard)        records trimmed from the shard, atomic ADD
//	("v", "o", slot)         write order of the transaction whose read
//	                         version ≡ slot (mod shards): read version
//	                         (8 bytes) and last user version (2 bytes)
//	("v", "c", name)         a named consumer's checkpoint
//	("v", "r")               registration marker, bumped by every consumer
//	                         registration so a concurrent trim conflicts
//	("v", "t")               trim horizon: the last trimmed sequence number
//
// A record key is the shard prefix, 0x33, the 12-byte sequence number and
// the packed part number, so the keys of one record are contiguous and
// "after sequence number s" is the shard prefix, 0x33, s, 0xff.

// Stream bookkeeping names, the second element of their keys.
const (
	streamMarkerName     = "m"
	streamTrimmedName    = "n"
	streamOrderName      = "o"
	streamConsumerName   = "c"
	streamRegisterName   = "r"
	streamHorizonName    = "t"
	tupleVersionstampLen = 12   // bytes of a tuple versionstamp after its code
	tupleVersionstamp    = 0x33 // tuple code of a 96-bit versionstamp
)

// streamShardPrefix returns the prefix of the record keys of shard.
func (k tableKeys) streamShardPrefix(shard int) fdb.Key {
	return k.stream.Pack(tuple.Tuple{int64(shard)})
}

// streamShardRange returns the range of every record of shard.
func (k tableKeys) streamShardRange(shard int) fdb.KeyRange {
	p := k.streamShardPrefix(shard)
	return fdb.KeyRange{Begin: p, End: concatKey(p, []byte{0xff})}
}

// streamRecordKey returns the key of part of a record of shard written by
// the current transaction with per-transaction order user, in the form
// SetVersionstampedKey takes (placeholder offset appended).
func (k tableKeys) streamRecordKey(shard int, user uint16, part int) (fdb.Key, error) {
	return k.stream.PackWithVersionstamp(tuple.Tuple{int64(shard), tuple.IncompleteVersionstamp(user), int64(part)})
}

// streamKeyAt returns the first key of the record of shard whose
// versionstamp (sequence number) is seq; streamKeyAfter the first key
// after all its parts.
func (k tableKeys) streamKeyAt(shard int, seq [tupleVersionstampLen]byte) fdb.Key {
	p := k.streamShardPrefix(shard)
	key := make([]byte, 0, len(p)+2+len(seq))
	key = append(append(append(key, p...), tupleVersionstamp), seq[:]...)
	return key
}

func (k tableKeys) streamKeyAfter(shard int, seq [tupleVersionstampLen]byte) fdb.Key {
	return append(k.streamKeyAt(shard, seq), 0xff)
}

// streamRangeThrough returns the range of the records of shard up to and
// including the one with sequence number last.
func (k tableKeys) streamRangeThrough(shard int, last [tupleVersionstampLen]byte) fdb.KeyRange {
	return fdb.KeyRange{Begin: k.streamShardPrefix(shard), End: k.streamKeyAfter(shard, last)}
}

// splitStreamKey returns the versionstamp (the record's sequence number,
// stream.go) and part number of a record key of shard. It accepts only
// what streamRecordKey produces, and never panics on other bytes.
func (k tableKeys) splitStreamKey(shard int, key fdb.Key) (vs [tupleVersionstampLen]byte, part int, err error) {
	rest, ok := bytes.CutPrefix(key, k.streamShardPrefix(shard))
	if !ok || len(rest) < 1+tupleVersionstampLen+1 || rest[0] != tupleVersionstamp {
		return vs, 0, &CorruptError{What: "stream key", Reason: "not a record key of shard " + strconv.Itoa(shard)}
	}
	copy(vs[:], rest[1:1+tupleVersionstampLen])
	n, err := parseTupleUint(rest[1+tupleVersionstampLen:])
	if err != nil {
		return vs, 0, err
	}
	return vs, n, nil
}

// parseTupleUint parses one packed non-negative tuple integer (code 0x14
// for zero, 0x15..0x1c followed by that many big-endian bytes) that fills
// b, below 2^31.
func parseTupleUint(b []byte) (int, error) {
	if len(b) == 0 || b[0] < 0x14 || b[0] > 0x18 || len(b) != int(b[0]-0x14)+1 {
		return 0, &CorruptError{What: "stream key", Reason: "bad part number"}
	}
	n := 0
	for _, c := range b[1:] {
		n = n<<8 | int(c)
	}
	if n >= 1<<31 || len(b) > 1 && b[1] == 0 {
		return 0, &CorruptError{What: "stream key", Reason: "bad part number"}
	}
	return n, nil
}

// streamMarkerKey is the change marker of shard; streamTrimmedKey its
// trimmed-record count.
func (k tableKeys) streamMarkerKey(shard int) fdb.Key {
	return k.stream.Pack(tuple.Tuple{streamMarkerName, int64(shard)})
}

func (k tableKeys) streamTrimmedKey(shard int) fdb.Key {
	return k.stream.Pack(tuple.Tuple{streamTrimmedName, int64(shard)})
}

// streamOrderKey is the write-order key of slot.
func (k tableKeys) streamOrderKey(slot int) fdb.Key {
	return k.stream.Pack(tuple.Tuple{streamOrderName, int64(slot)})
}

// consumerKey is the checkpoint of consumer name; consumerRange holds
// every consumer's checkpoint.
func (k tableKeys) consumerKey(name string) fdb.Key {
	return k.stream.Pack(tuple.Tuple{streamConsumerName, name})
}

func (k tableKeys) consumerRange() fdb.KeyRange {
	p := k.stream.Pack(tuple.Tuple{streamConsumerName})
	return fdb.KeyRange{Begin: p, End: concatKey(p, []byte{0xff})}
}

// streamRegisterKey and streamHorizonKey are the registration marker and
// the trim horizon.
func (k tableKeys) streamRegisterKey() fdb.Key {
	return k.stream.Pack(tuple.Tuple{streamRegisterName})
}

func (k tableKeys) streamHorizonKey() fdb.Key {
	return k.stream.Pack(tuple.Tuple{streamHorizonName})
}

// itemCollectionRanges returns the ranges that hold the item collection
// of the partition key value whose packed form is hashKV: its items
// ("i", <hash>, …), their chunks ("c", <hash>, …) and their entries in
// each local secondary index ("x", <lsi>, <hash>, …), whose partition key
// is the table's.
func (k tableKeys) itemCollectionRanges(hashKV []byte, lsis []string) []fdb.KeyRange {
	prefixes := []fdb.Key{concatKey(k.items.Bytes(), hashKV), concatKey(k.chunks.Bytes(), hashKV)}
	for _, name := range lsis {
		prefixes = append(prefixes, concatKey(k.indexPrefix(name), hashKV))
	}
	ranges := make([]fdb.KeyRange, len(prefixes))
	for i, p := range prefixes {
		ranges[i] = fdb.KeyRange{Begin: p, End: fdb.Key(prefixEnd(p))}
	}
	return ranges
}

// countSubspace holds the exact counters (counts.go).
const countSubspace = "n"

// tableCountKey returns the key of shard shard of the table's counter
// field (countItems or countBytes).
func (k tableKeys) tableCountKey(field, shard int) fdb.Key {
	return k.counts.Pack(tuple.Tuple{"t", field, shard})
}

// tableCountRange is the range of every table counter.
func (k tableKeys) tableCountRange() fdb.ExactRange { return k.counts.Sub("t") }

// indexCountKey returns the key of shard shard of index's counter field.
func (k tableKeys) indexCountKey(index string, field, shard int) fdb.Key {
	return k.counts.Pack(tuple.Tuple{"x", index, field, shard})
}

// indexCountRange is the range of index's counters.
func (k tableKeys) indexCountRange(index string) fdb.ExactRange { return k.counts.Sub("x", index) }

// partitionCountKey returns the key of counter field of the item
// collection whose packed partition key value is hashKV.
func (k tableKeys) partitionCountKey(hashKV []byte, field int) fdb.Key {
	return concatKey(concatKey(k.counts.Sub("p").Bytes(), hashKV), tuple.Tuple{field}.Pack())
}

// partitionCountRange is the range of the counters of the item
// collection whose packed partition key value is hashKV.
func (k tableKeys) partitionCountRange(hashKV []byte) fdb.KeyRange {
	p := concatKey(k.counts.Sub("p").Bytes(), hashKV)
	return fdb.KeyRange{Begin: p, End: fdb.Key(prefixEnd(p))}
}

// countField returns the field of counter key key, the element at of
// its tuple in the counters' subspace.
func (k tableKeys) countField(key fdb.Key, at int) (int, error) {
	tup, err := k.counts.Unpack(key)
	if err != nil || len(tup) <= at {
		return 0, &CorruptError{What: "counter", Reason: "bad key"}
	}
	f, ok := tup[at].(int64)
	if !ok {
		return 0, &CorruptError{What: "counter", Reason: "bad key"}
	}
	return int(f), nil
}

// countProgressKey holds the counting pass's cursor (counts.go).
func (k tableKeys) countProgressKey() fdb.Key { return k.counts.Pack(tuple.Tuple{"r"}) }

// ---- Backups (backup.go, backup_log.go) ----
//
// While a backup takes it (tableMeta.captures), every write of a table
// also sets one record of the item's new state in the table's backup log:
//
//	("l", vs, <hash>[, <range>], part)   part of the item's state after the
//	                                     transaction whose commit
//	                                     versionstamp is vs (a tuple
//	                                     versionstamp, user version 0)
//
// The key values follow the versionstamp, so two writes of one item in
// one transaction set the same keys and the last one wins: the item's
// state after the transaction. Backups live in the content subspace of
// the root directory, beside the ClientRequestToken records:
//
//	root/ ("k", "b", id)                 the backup's record (JSON)
//	root/ ("k", "s", id)                 versionstamp at which its log starts
//	root/ ("k", "e", id)                 versionstamp at which its log ends: V
//	root/ ("k", "d", id, <hash>[, <range>], part)
//	                                     part of one item of the backup
//	root/ ("k", "r", id)                 progress of a restore (restore.go)
//	root/ ("k", "j", id)                 a restore's record (JSON), until
//	                                     its table is moved in
//
// Exports and imports (export.go, import.go) keep their records there too:
//
//	root/ ("k", "x", id)                 an export's record (JSON)
//	root/ ("k", "i", id)                 an import's record (JSON)
//	root/ ("k", "t", kind, token)        the export or import id a
//	                                     ClientToken made ("x" or "i")
//	root/ ("k", "w", kind, id)           the lease on running an export
//	                                     or import ("x" or "i"; lease.go's
//	                                     record)
//
// An export's snapshot is a backup of its own, hidden, whose id is
// exportSnapshotID(id).
const (
	backupLogSubspace = "l"
	backupSubspace    = "k"
	// restorePrefix starts the directory name, under the root, of a table
	// being restored (restore.go): no table name starts with '!'.
	restorePrefix = "!restore-"
	// importPrefix starts the directory name, under the root, of a table
	// being imported (import.go).
	importPrefix = "!import-"
)

// backupLogKey returns the key of part of the log record of the item with
// packed key values kv, in the form SetVersionstampedKey takes.
func (k tableKeys) backupLogKey(kv []byte, part int) fdb.Key {
	p := k.backupLog.Bytes()
	key := make([]byte, 0, len(p)+1+tupleVersionstampLen+len(kv)+10)
	key = append(append(key, p...), tupleVersionstamp)
	key = append(key, make([]byte, tupleVersionstampLen)...)
	key = append(key, kv...)
	key = append(key, tuple.Tuple{int64(part)}.Pack()...)
	var off [4]byte
	binary.LittleEndian.PutUint32(off[:], uint32(len(p)+1))
	return append(key, off[:]...)
}

// backupLogFrom returns the first log key at or after versionstamp vs.
func (k tableKeys) backupLogFrom(vs [tupleVersionstampLen]byte) fdb.Key {
	p := k.backupLog.Bytes()
	return append(append(append([]byte(nil), p...), tupleVersionstamp), vs[:]...)
}

// backupLogRange returns the log records with versionstamps in [from, to).
func (k tableKeys) backupLogRange(from, to [tupleVersionstampLen]byte) fdb.KeyRange {
	return fdb.KeyRange{Begin: k.backupLogFrom(from), End: k.backupLogFrom(to)}
}

// splitBackupLogKey returns the versionstamp, packed key values (keyElems
// elements) and part of a log key, never panicking on other bytes.
func (k tableKeys) splitBackupLogKey(key fdb.Key, keyElems int) (vs [tupleVersionstampLen]byte, kv []byte, part int, err error) {
	rest, ok := bytes.CutPrefix(key, k.backupLog.Bytes())
	if !ok || len(rest) < 1+tupleVersionstampLen+1 || rest[0] != tupleVersionstamp {
		return vs, nil, 0, &CorruptError{What: "backup log key", Reason: "not a log key"}
	}
	copy(vs[:], rest[1:1+tupleVersionstampLen])
	kv, part, err = splitKeyPart(rest[1+tupleVersionstampLen:], keyElems)
	return vs, kv, part, err
}

// splitKeyPart splits b, n byte or string tuple elements followed by one
// packed non-negative integer, into the elements and the integer.
func splitKeyPart(b []byte, n int) ([]byte, int, error) {
	i := 0
	for range n {
		if i >= len(b) || b[i] != 0x01 && b[i] != 0x02 {
			return nil, 0, &CorruptError{What: "key", Offset: i, Reason: "too few key elements"}
		}
		for i++; ; {
			j := bytes.IndexByte(b[i:], 0x00)
			if j < 0 {
				return nil, 0, &CorruptError{What: "key", Offset: len(b), Reason: "unterminated string element"}
			}
			i += j + 1
			if i < len(b) && b[i] == 0xff {
				i++
				continue
			}
			break
		}
	}
	part, err := parseTupleUint(b[i:])
	return b[:i], part, err
}

// backupKeys holds the key prefixes of the backups under one root.
type backupKeys struct {
	records  subspace.Subspace // ("k", "b", …)
	starts   subspace.Subspace // ("k", "s", …)
	ends     subspace.Subspace // ("k", "e", …)
	data     subspace.Subspace // ("k", "d", …)
	restores subspace.Subspace // ("k", "r", …)
	jobs     subspace.Subspace // ("k", "j", …)
	exports  subspace.Subspace // ("k", "x", …)
	imports  subspace.Subspace // ("k", "i", …)
	tokens   subspace.Subspace // ("k", "t", …)
	leases   subspace.Subspace // ("k", "w", …)
}

func newBackupKeys(root subspace.Subspace) backupKeys {
	s := root.Sub(backupSubspace)
	return backupKeys{records: s.Sub("b"), starts: s.Sub("s"), ends: s.Sub("e"), data: s.Sub("d"), restores: s.Sub("r"), jobs: s.Sub("j"),
		exports: s.Sub("x"), imports: s.Sub("i"), tokens: s.Sub("t"), leases: s.Sub("w")}
}

func (k backupKeys) exportRecord(id string) fdb.Key { return k.exports.Pack(tuple.Tuple{id}) }
func (k backupKeys) importRecord(id string) fdb.Key { return k.imports.Pack(tuple.Tuple{id}) }

// token returns the key of a ClientToken of kind "x" (exports) or "i"
// (imports).
func (k backupKeys) token(kind, token string) fdb.Key { return k.tokens.Pack(tuple.Tuple{kind, token}) }

// transferLease returns the key of the lease on running export or
// import id (kind "x" or "i").
func (k backupKeys) transferLease(kind, id string) fdb.Key {
	return k.leases.Pack(tuple.Tuple{kind, id})
}

// rebaseDataKey returns data key key of backup from as the same key of
// backup to, for copying one backup's items to another.
func (k backupKeys) rebaseDataKey(from, to string, key fdb.Key) (fdb.Key, error) {
	rest, ok := bytes.CutPrefix(key, k.dataPrefix(from))
	if !ok {
		return nil, &CorruptError{What: "backup key", Reason: "not a key of backup " + from}
	}
	return concatKey(k.dataPrefix(to), rest), nil
}

func (k backupKeys) record(id string) fdb.Key  { return k.records.Pack(tuple.Tuple{id}) }
func (k backupKeys) start(id string) fdb.Key   { return k.starts.Pack(tuple.Tuple{id}) }
func (k backupKeys) end(id string) fdb.Key     { return k.ends.Pack(tuple.Tuple{id}) }
func (k backupKeys) restore(id string) fdb.Key { return k.restores.Pack(tuple.Tuple{id}) }

// restoreJob returns the key of restore id's record.
func (k backupKeys) restoreJob(id string) fdb.Key { return k.jobs.Pack(tuple.Tuple{id}) }

// dataPrefix returns the prefix of backup id's items.
func (k backupKeys) dataPrefix(id string) fdb.Key { return k.data.Pack(tuple.Tuple{id}) }

// dataRange returns every item of backup id.
func (k backupKeys) dataRange(id string) fdb.KeyRange {
	p := k.dataPrefix(id)
	return fdb.KeyRange{Begin: p, End: concatKey(p, []byte{0xff})}
}

// itemRange returns the parts of the item kv of backup id.
func (k backupKeys) itemRange(id string, kv []byte) fdb.KeyRange {
	p := concatKey(k.dataPrefix(id), kv)
	return fdb.KeyRange{Begin: p, End: concatKey(p, []byte{0xff})}
}

// dataKey returns the key of part of the item kv of backup id.
func (k backupKeys) dataKey(id string, kv []byte, part int) fdb.Key {
	return concatKey(concatKey(k.dataPrefix(id), kv), tuple.Tuple{int64(part)}.Pack())
}

// splitDataKey returns the packed key values and part of a data key of
// backup id.
func (k backupKeys) splitDataKey(id string, key fdb.Key, keyElems int) ([]byte, int, error) {
	rest, ok := bytes.CutPrefix(key, k.dataPrefix(id))
	if !ok {
		return nil, 0, &CorruptError{What: "backup key", Reason: "not a key of backup " + id}
	}
	return splitKeyPart(rest, keyElems)
}
