package fdyno

import (
	"time"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Disabled streams. DynamoDB keeps a stream that UpdateTable disables
// readable for 24 hours: its records stay, its shard is closed at its
// last record. fdyno keeps one stream per table, which records nothing
// while disabled; the disabling transaction notes, in the table's
// metadata (TableDescription.DisabledStreams), the stream's label, its
// view type, the time and the sequence number of its last record. For
// DisabledStreamRetention after that time the stream operations (GetRecords,
// Records, Tail, TrimStream, consumers) read a disabled stream as an enabled
// one; since a disabled stream records nothing, every record they find
// precedes the disabling. fdyno-server serves the disabled stream under its
// own ARN, DISABLED, its one shard ending at LastSequenceNumber.

// markStreamEnd records, in the transaction tr that disables the table's
// stream (described by st, its one shard), the disabled stream, and
// drops the disabled streams older than DisabledStreamRetention. The
// last record is read in tr: a record committed after tr's read version
// and before tr conflicts with that read, and one committed after tr is
// not written (the writer reads the schema tr changes).
func (t *Table) markStreamEnd(tr fdb.Transaction, st *tableState) error {
	meta, err := readMeta(tr, st.keys, t.name)
	if err != nil {
		return err
	}
	kvs, err := tr.GetRange(st.keys.streamShardRange(0), fdb.RangeOptions{Limit: 1, Reverse: true}).GetSliceWithError()
	if err != nil {
		return err
	}
	now := t.now()
	ds := DisabledStream{StreamLabel: meta.streamLabel, StreamStartAfter: meta.streamStartAfter,
		StreamViewType: st.schema.StreamViewType, DisabledAt: now.UTC()}
	if ds.StreamLabel == "" && !meta.created.IsZero() {
		ds.StreamLabel = meta.created.UTC().Format(StreamLabelLayout)
	}
	if len(kvs) == 1 {
		vs, _, err := st.keys.splitStreamKey(0, kvs[0].Key)
		if err != nil {
			return err
		}
		ds.LastSequenceNumber = seqNo(vs).String()
	}
	var kept []DisabledStream
	for _, d := range meta.disabledStreams {
		if disabledStreamReadable(d, now) {
			kept = append(kept, d)
		}
	}
	meta.disabledStreams = append(kept, ds)
	return putMeta(tr, st.keys, meta)
}

// readableDisabled reports whether the table in state st, whose stream is
// disabled, disabled it less than DisabledStreamRetention ago by t's
// clock, so that its records are still readable.
func (t *Table) readableDisabled(rt fdb.ReadTransaction, st *tableState) (bool, error) {
	meta, err := readMeta(rt, st.keys, t.name)
	if err != nil {
		return false, err
	}
	ds := meta.disabledStreams
	return len(ds) > 0 && disabledStreamReadable(ds[len(ds)-1], t.now()), nil
}

// disabledStreamReadable reports whether d is still readable at now.
func disabledStreamReadable(d DisabledStream, now time.Time) bool {
	return now.Before(d.DisabledAt.Add(DisabledStreamRetention))
}
