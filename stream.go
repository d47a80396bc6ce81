package fdyno

import (
	"encoding/binary"
	"errors"
	"github.com/fdyno/fdyno/internal/streamrec"
	"hash/fnv"
	"math/big"
	"math/bits"
	"strconv"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Change streams. When a table's schema has a StreamViewType,
// every Put, Update and Delete that changes an item also writes a change
// record, in the same transaction as the change, at
//
//	v/<shard>/<versionstamp>/<part>     (keys.go)
//
// The versionstamp is FoundationDB's commit versionstamp (10 bytes) and a
// 2-byte order within the transaction, so records sort in commit order and
// the changes of one transaction in the order they were made. That 12-byte
// value is the record's sequence number.
//
// Invariants:
//
//  1. A change record commits if and only if its change commits: both are
//     written by writeItem in one transaction. A write that fails its
//     condition writes nothing and has no record; a write that leaves the
//     item as it was (an identical Put, an Update that changes nothing, a
//     Delete of an absent item) has no record either, as in DynamoDB
//     Streams.
//  2. Sequence numbers are unique and increase in commit order, and within
//     one transaction in the order of its changes (the write-order key
//     below), across all shards of a table.
//  3. Every record of a shard is in the shard's range, whole: its parts are
//     consecutive keys, each value at most streamPartSize+1 bytes, the last
//     flagged as last.
//  4. Each record bumps its shard's change marker (an atomic ADD, which
//     never conflicts), so a watch on the markers sees every new record.
//
// The per-transaction order. FoundationDB has no transaction-local storage,
// so the order comes from a key, ("v", "o", slot), that each change writes
// with the transaction's read version rv and the order n it used. A change
// reads the key at snapshot isolation: reading your writes, it sees this
// transaction's own earlier value, and a value tagged rv can only have been
// written by this transaction (any other transaction with read version rv
// commits after rv, so its write is invisible at rv). Seeing rv, the
// change takes n+1; seeing anything else, it takes 0. Snapshot reads add no
// conflicts and the writes are blind, so writers never conflict on the key;
// slot = rv mod StreamShards spreads the key over as many keys as the table
// has stream shards. This needs snapshot read-your-writes, FoundationDB's
// default: a caller's transaction must not set snapshot_ryw_disable. Every
// change reads and writes the key, whoever owns its transaction
// (transactor.go), so no Transactor can make two records of one
// transaction share an order; the read is started with the item's own
// (orderPrefetch), so it costs no wave of reads.

// Stream limits.
const (
	// MaxChangesPerTransaction is the most changes to one table's items
	// that one transaction can record: the per-transaction order is a
	// 16-bit number.
	MaxChangesPerTransaction = 1 << 16
	// streamPartSize is the most record bytes per key, inside
	// FoundationDB's 100,000-byte value limit.
	streamPartSize = 64 * 1024
	// maxChangeBytes bounds an item's encoding plus its change record,
	// inside FoundationDB's 10 MB transaction limit.
	maxChangeBytes = 8 << 20
	// Part flags, the first byte of each part's value.
	partMore = 0x00
	partLast = 0x01
)

// EventName is the type of change a stream record describes.
type EventName string

// The event names of DynamoDB Streams.
const (
	EventNameInsert EventName = "INSERT"
	EventNameModify EventName = "MODIFY"
	EventNameRemove EventName = "REMOVE"
)

// StreamRecord is one change record, DynamoDB Streams' Record with its
// StreamRecord fields inlined. See
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_StreamRecord.html.
type StreamRecord struct {
	// TableName is the table the change was made in.
	TableName string
	// EventName is INSERT (the item did not exist), MODIFY or REMOVE.
	EventName EventName
	// SequenceNumber orders the records of the table: a 29-digit decimal
	// number, increasing in commit order. It is the cursor to resume
	// reading after this record.
	SequenceNumber string
	// ApproximateCreationDateTime is the writer's clock when the change
	// was made, to the microsecond.
	ApproximateCreationDateTime time.Time
	// Keys holds the item's key attributes.
	Keys Item
	// NewImage is the item after the change (NEW_IMAGE and
	// NEW_AND_OLD_IMAGES views; nil for REMOVE).
	NewImage Item
	// OldImage is the item before the change (OLD_IMAGE and
	// NEW_AND_OLD_IMAGES views; nil for INSERT).
	OldImage Item
	// StreamViewType is the table's view type when the change was made.
	StreamViewType StreamViewType
	// SizeBytes is the size of the stored record.
	SizeBytes int
	// UserIdentity is set for deletions made by the service itself: Time
	// to Live deletions carry Type "Service" and PrincipalID
	// "dynamodb.amazonaws.com", as in DynamoDB. It is nil otherwise.
	UserIdentity *UserIdentity
}

// UserIdentity says who made a change, for TTL deletions.
type UserIdentity struct {
	// Type is "Service" for Time to Live deletions.
	Type string
	// PrincipalID is "dynamodb.amazonaws.com" for Time to Live deletions.
	PrincipalID string
}

// ttlIdentity is the identity of Time to Live deletions.
var ttlIdentity = UserIdentity{Type: "Service", PrincipalID: "dynamodb.amazonaws.com"}

// seqNo is a sequence number: the 10-byte commit versionstamp and the
// 2-byte order within the transaction, big-endian, so byte order is
// sequence order.
type seqNo [tupleVersionstampLen]byte

// seqDigits is the length of a sequence number's decimal form: 2^96 has 29
// digits. DynamoDB's sequence numbers are 21 to 40 digits.
const seqDigits = 29

// String returns the zero-padded decimal form, whose string order is the
// sequence order.
func (s seqNo) String() string {
	// Long division of the 96-bit number by 10, 29 times: no big.Int on
	// the read path.
	hi := uint64(binary.BigEndian.Uint32(s[:4]))
	lo := binary.BigEndian.Uint64(s[4:])
	var d [seqDigits]byte
	for i := seqDigits - 1; i >= 0; i-- {
		var r uint64
		hi, r = hi/10, hi%10
		lo, r = bits.Div64(r, lo, 10)
		d[i] = '0' + byte(r)
	}
	return string(d[:])
}

func (s seqNo) less(o seqNo) bool { return string(s[:]) < string(o[:]) }

// parseSequenceNumber parses the decimal form of a sequence number.
// Anything else is a *ValidationError; it never allocates more than the
// fixed 29 digits justify.
func parseSequenceNumber(field, s string) (seqNo, error) {
	var seq seqNo
	fail := func(reason string) (seqNo, error) {
		return seqNo{}, &ValidationError{Path: field, Reason: "Invalid SequenceNumber: " + reason}
	}
	if len(s) != seqDigits {
		return fail("must be " + strconv.Itoa(seqDigits) + " decimal digits")
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fail("must be " + strconv.Itoa(seqDigits) + " decimal digits")
		}
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.BitLen() > 8*tupleVersionstampLen {
		return fail("out of range")
	}
	n.FillBytes(seq[:])
	return seq, nil
}

// hasStream reports whether the table records its changes.
func (st *tableState) hasStream() bool { return st.schema.StreamViewType != "" }

// streamShards returns the number of stream shards (StreamShards, default
// 1).
func (st *tableState) streamShards() int { return max(st.schema.StreamShards, 1) }

// streamShardOf returns the shard of the item whose hash key is hv: FNV-1a
// of its type and bytes, so all changes of one item (and of one partition)
// land in one shard.
func (st *tableState) streamShardOf(hv Value) int {
	n := st.streamShards()
	if n == 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte{byte(hv.typ)})
	h.Write([]byte(hv.s))
	return int(h.Sum32() % uint32(n))
}

// pendingRecord is a change record checked and encoded, not yet written.
type pendingRecord struct {
	keys  tableKeys
	shard int
	order uint16
	slot  int
	rv    int64
	data  []byte
	buf   []byte // a free byte, then data
	parts []fdb.KeyValue
	// ordered is set when the record took its order from the write-order
	// key orderKey, which it then updates.
	ordered  bool
	orderKey fdb.Key
}

// errOldUnknown reports a bug: a change record needs the old item, which
// writeItem reads when the caller did not (needsOld).
var errOldUnknown = errors.New("fdyno: internal error: change record without the old item")

// prepareRecord returns the change record of c (nil if c changes nothing),
// with its sequence order taken, having written nothing. at is the
// writer's clock (the handle's, [WithClock]), the record's
// ApproximateCreationDateTime.
func prepareRecord(tr fdb.Transaction, c itemChange, at time.Time) (*pendingRecord, error) {
	encLen := len(c.enc)
	st := c.st
	if !c.oldKnown {
		return nil, errOldUnknown // writeItem reads it for tables that need it
	}
	var event byte
	switch {
	case c.old == nil && c.new == nil:
		return nil, nil
	case c.old == nil:
		event = streamrec.EventInsert
	case c.new == nil:
		event = streamrec.EventRemove
	case c.old.Equal(c.new):
		return nil, nil
	default:
		event = streamrec.EventModify
	}
	it := c.new
	if it == nil {
		it = c.old
	}
	keys := Item{st.hash.Name: it[st.hash.Name]}
	if st.rng.Name != "" {
		keys[st.rng.Name] = it[st.rng.Name]
	}
	view := st.schema.StreamViewType
	var newImg, oldImg Item
	if view == StreamViewTypeNewImage || view == StreamViewTypeNewAndOldImages {
		newImg = c.new
	}
	if view == StreamViewTypeOldImage || view == StreamViewTypeNewAndOldImages {
		oldImg = c.old
	}
	// One buffer holds the record behind the part flag of its first part,
	// so a record of one part is written without another copy.
	var newEnc, oldEnc []byte
	if newImg != nil {
		newEnc = c.enc
	}
	if oldImg != nil && newImg == nil { // a whole old image, not a delta
		oldEnc = c.oldEnc
	}
	buf, err := streamrec.Append(make([]byte, 1, 64+len(newEnc)+len(oldEnc)), recordItems, &streamrec.Record[Value]{
		Event: event, ByTTL: c.byTTL, View: viewCodes[view], Micros: at.UnixMicro(), Keys: keys, New: newImg, Old: oldImg, NewEnc: newEnc, OldEnc: oldEnc})
	if err != nil {
		return nil, err
	}
	data := buf[1:]
	if encLen+len(data) > maxChangeBytes {
		return nil, &ValidationError{Reason: "Item size has exceeded the maximum allowed size for a table with a " + string(view) + " stream (item and change record " +
			strconv.Itoa(encLen+len(data)) + " > " + strconv.Itoa(maxChangeBytes) + " bytes)"}
	}
	p := &pendingRecord{keys: st.keys, shard: st.streamShardOf(keys[st.hash.Name]), data: data, buf: buf}
	p.ordered = true
	rv, err := c.orders.readVersion(tr)
	if err != nil {
		return nil, err
	}
	p.slot, p.rv = int(uint64(rv)%uint64(st.streamShards())), rv
	p.orderKey = st.keys.streamOrderKey(p.slot)
	last, err := c.orders.read(tr, p.orderKey)
	if err != nil {
		return nil, err
	}
	if len(last) == 10 && int64(binary.BigEndian.Uint64(last)) == rv {
		n := int(binary.BigEndian.Uint16(last[8:])) + 1
		if n >= MaxChangesPerTransaction {
			return nil, &ValidationError{Reason: "a transaction may change at most " + strconv.Itoa(MaxChangesPerTransaction) + " items of a table with a stream"}
		}
		p.order = uint16(n)
	}
	return p, p.pack()
}

// orderPrefetch is the read of a stream table's order key, started with a
// transaction's item reads (TransactWrite, BatchWrite) so that ordering
// the transaction's change records costs no wave of reads of its own.
// Only the table's first record in the transaction may take the
// prefetched value: later ones read the key again and see the order the
// first one wrote. A prefetch belongs to one attempt of one transaction.
type orderPrefetch struct {
	f    fdb.FutureByteSlice
	used bool
}

// startOrderPrefetches starts, in tr, the read of the order key of every
// stream table among states, once per key.
func startOrderPrefetches(tr fdb.ReadTransaction, states []*tableState) (*orderPrefetches, error) {
	var out *orderPrefetches
	for _, st := range states {
		if !st.hasStream() {
			continue
		}
		if out == nil {
			// The read version only: it arrives with the reads' own.
			rv, err := tr.GetReadVersion().Get()
			if err != nil {
				return nil, err
			}
			out = &orderPrefetches{rv: rv, keys: make(map[string]*orderPrefetch, 1)}
		}
		key := st.keys.streamOrderKey(int(uint64(out.rv) % uint64(st.streamShards())))
		if out.keys[string(key)] == nil {
			out.keys[string(key)] = &orderPrefetch{f: tr.Snapshot().Get(key)}
		}
	}
	return out, nil
}

// orderPrefetches are a transaction's order-key prefetches by key, and
// its read version, which chose the keys.
type orderPrefetches struct {
	rv   int64
	keys map[string]*orderPrefetch
}

// readVersion returns tr's read version, known to m if it is not nil.
func (m *orderPrefetches) readVersion(tr fdb.Transaction) (int64, error) {
	if m != nil {
		return m.rv, nil
	}
	return tr.GetReadVersion().Get()
}

// read returns the value of the order key key: the prefetched one if key
// was prefetched and no record took it yet, else read now.
func (m *orderPrefetches) read(tr fdb.Transaction, key fdb.Key) ([]byte, error) {
	if m != nil {
		if o := m.keys[string(key)]; o != nil && !o.used {
			o.used = true
			return o.f.Get()
		}
	}
	return tr.Snapshot().Get(key).Get()
}

// pack builds the keys and values of the record's parts, once its order
// is known, so that write cannot fail.
func (p *pendingRecord) pack() error {
	if len(p.data) <= streamPartSize {
		p.buf[0] = partLast
		key, err := p.keys.streamRecordKey(p.shard, p.order, 0)
		p.parts = []fdb.KeyValue{{Key: key, Value: p.buf}}
		return err
	}
	for part, off := 0, 0; off < len(p.data); part++ {
		end := min(off+streamPartSize, len(p.data))
		v := make([]byte, 0, end-off+1)
		if end == len(p.data) {
			v = append(v, partLast)
		} else {
			v = append(v, partMore)
		}
		key, err := p.keys.streamRecordKey(p.shard, p.order, part)
		if err != nil {
			return err
		}
		p.parts = append(p.parts, fdb.KeyValue{Key: key, Value: append(v, p.data[off:end]...)})
		off = end
	}
	return nil
}

// write sets the record's parts, the write-order key and the shard's
// change marker. A nil record writes nothing.
func (p *pendingRecord) write(tr fdb.Transaction) {
	if p == nil {
		return
	}
	for _, kv := range p.parts {
		tr.SetVersionstampedKey(kv.Key, kv.Value)
	}
	if p.ordered {
		var order [10]byte
		binary.BigEndian.PutUint64(order[:], uint64(p.rv))
		binary.BigEndian.PutUint16(order[8:], p.order)
		tr.Set(p.orderKey, order[:])
	}
	tr.Add(p.keys.streamMarkerKey(p.shard), one64)
}

// one64 is the little-endian 64-bit 1 of atomic ADDs.
var one64 = []byte{1, 0, 0, 0, 0, 0, 0, 0}

// Change records are stored in package internal/streamrec's form, with
// the item codec's encoding for the items inside.
var (
	recordItems = streamrec.Items[Value]{
		Encode: func(it map[string]Value) ([]byte, error) { return EncodeItem(it) },
		Decode: func(b []byte) (map[string]Value, error) { return DecodeItem(b) },
		Equal:  Value.Equal,
	}
	eventNames = [...]EventName{streamrec.EventInsert: EventNameInsert, streamrec.EventModify: EventNameModify, streamrec.EventRemove: EventNameRemove}
	viewCodes  = map[StreamViewType]byte{StreamViewTypeKeysOnly: streamrec.ViewKeysOnly, StreamViewTypeNewImage: streamrec.ViewNewImage,
		StreamViewTypeOldImage: streamrec.ViewOldImage, StreamViewTypeNewAndOldImages: streamrec.ViewNewAndOldImages}
	viewNames = [...]StreamViewType{streamrec.ViewKeysOnly: StreamViewTypeKeysOnly, streamrec.ViewNewImage: StreamViewTypeNewImage,
		streamrec.ViewOldImage: StreamViewTypeOldImage, streamrec.ViewNewAndOldImages: StreamViewTypeNewAndOldImages}
)

// encodeRecord returns the stored form of a change record; see
// [streamrec.Append].
func encodeRecord(event byte, byTTL bool, view StreamViewType, at time.Time, keys, newImg, oldImg Item) ([]byte, error) {
	return streamrec.Append(nil, recordItems, &streamrec.Record[Value]{Event: event, ByTTL: byTTL, View: viewCodes[view], Micros: at.UnixMicro(), Keys: keys, New: newImg, Old: oldImg})
}

// decodeRecord parses a record encodeRecord produced, for table name with
// sequence number seq. Anything else is a *CorruptError, never a panic.
func decodeRecord(table string, seq seqNo, b []byte) (StreamRecord, error) {
	r, err := streamrec.Decode(recordItems, b)
	if e, ok := err.(*streamrec.Error); ok {
		return StreamRecord{}, &CorruptError{What: "stream record", Offset: e.Offset, Reason: e.Reason}
	} else if err != nil {
		return StreamRecord{}, err
	}
	rec := StreamRecord{TableName: table, EventName: eventNames[r.Event], SequenceNumber: seq.String(), StreamViewType: viewNames[r.View], SizeBytes: len(b),
		ApproximateCreationDateTime: time.UnixMicro(r.Micros).UTC(), Keys: r.Keys, NewImage: r.New, OldImage: r.Old}
	if r.ByTTL {
		id := ttlIdentity
		rec.UserIdentity = &id
	}
	return rec, nil
}
