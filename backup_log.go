package fdyno

import (
	"encoding/binary"
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// backup_log.go is the backup log: while a backup takes it (the table's
// metadata lists the backup in captures), every write of the table sets,
// in its own transaction and with no read, the item's state after the
// transaction under the transaction's commit versionstamp (keys.go:
// ("l", vs, <key values>, part)). A backup reads the table over many
// transactions and replays this log over what it read (backup.go), so it
// holds the table exactly as it was at one version; docs/design.md
// explains why that is exact.
//
// A record is one or more parts, each at most logPartSize bytes of data
// behind a flag byte:
//
//	part 0      flags, the writer's clock (8 bytes, big-endian Unix
//	            microseconds), data
//	part n > 0  flags, data
//
// flags: partLastFlag on the record's last part, partDeletedFlag on a
// deletion (which has no data). The data is the item's encoding
// (codec.go). A record's parts stop at the first that has partLastFlag,
// so parts beyond it, left by an earlier write of the item in the same
// transaction, are ignored.

const (
	partLastFlag    = 1
	partDeletedFlag = 2
	// logPartSize keeps every value under FoundationDB's 100 KB limit.
	logPartSize = 90_000
)

// backupLogRecord returns the log record of c written at the writer's
// time at, as the keys and values SetVersionstampedKey takes.
func backupLogRecord(c itemChange, at time.Time) ([]fdb.KeyValue, error) {
	if !c.oldKnown || c.new != nil || c.old != nil {
		return splitParts(c.new == nil, c.enc, at, func(part int) fdb.Key { return c.st.keys.backupLogKey(c.kv, part) }), nil
	}
	// A known absent item stays absent: nothing to log.
	return nil, nil
}

// splitParts splits data into parts keyed by key, with the time header
// on part 0 (if at is not zero).
func splitParts(deleted bool, data []byte, at time.Time, key func(part int) fdb.Key) []fdb.KeyValue {
	var out []fdb.KeyValue
	for part, off := 0, 0; ; part++ {
		end := min(off+logPartSize, len(data))
		var flags byte
		if end == len(data) {
			flags |= partLastFlag
		}
		if deleted {
			flags |= partDeletedFlag
		}
		v := make([]byte, 0, 9+end-off)
		v = append(v, flags)
		if part == 0 && !at.IsZero() {
			v = binary.BigEndian.AppendUint64(v, uint64(at.UnixMicro()))
		}
		v = append(v, data[off:end]...)
		out = append(out, fdb.KeyValue{Key: key(part), Value: v})
		off = end
		if flags&partLastFlag != 0 {
			return out
		}
	}
}

// partsRecord is a record assembled from its parts.
type partsRecord struct {
	kv      []byte
	deleted bool
	micros  int64
	data    []byte
}

// partsJoiner assembles records from consecutive parts of one record key
// space. timed says whether part 0 carries the time header.
type partsJoiner struct {
	timed bool
	cur   *partsRecord
	next  int  // the part expected next
	done  bool // cur is complete; later parts of it are ignored
	what  string
}

// add takes the next part (kv and part number from its key) and returns
// the record it completes, if any.
func (j *partsJoiner) add(kv []byte, part int, v []byte) (*partsRecord, error) {
	corrupt := func(reason string) error { return &CorruptError{What: j.what, Reason: reason} }
	if part == 0 {
		j.cur, j.next, j.done = &partsRecord{kv: kv}, 0, false
	}
	if j.cur == nil || string(j.cur.kv) != string(kv) {
		return nil, corrupt("a part without its first part")
	}
	if j.done {
		return nil, nil // left by an earlier write in the same transaction
	}
	if part != j.next || len(v) < 1 {
		return nil, corrupt("parts out of order")
	}
	flags := v[0]
	v = v[1:]
	if part == 0 && j.timed {
		if len(v) < 8 {
			return nil, corrupt("a record without its time")
		}
		j.cur.micros = int64(binary.BigEndian.Uint64(v))
		v = v[8:]
	}
	j.cur.deleted = flags&partDeletedFlag != 0
	j.cur.data = append(j.cur.data, v...)
	j.next++
	if flags&partLastFlag == 0 {
		return nil, nil
	}
	j.done = true
	return j.cur, nil
}

// pitrID is the backup id of table tableID's point-in-time recovery base.
func pitrID(tableID string) string { return "pitr-" + tableID }
