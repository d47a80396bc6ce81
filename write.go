package fdyno

import (
	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// write.go is the single write path: every write of an item, as decide
// (decide.go) judged it, ends in writeItem, which turns the old and new
// versions of one item into every key the change touches. Indexes and
// streams plug in here, and only here, so they can never disagree with
// the base item.

// writeItem applies c, as decide (decide.go) made it, in tr for the
// handle t, whose chunk threshold and clock (the change record's time) it
// uses. It checks everything first, so an error leaves tr untouched.
//
// Steps, in order:
//
//  0. read the old item if the table needs it (needsOld) and the request
//     did not read it (a handle validated with a stale schema), and
//     prepare the change record (stream.go), before any write;
//  1. conflict on the table's metadata key, so a concurrent DeleteTable
//     or schema change aborts this transaction instead of writing into a
//     removed directory;
//  2. clear the item's chunk range (no orphans, chunk.go invariant 2);
//  3. write the head: inline encoding, or manifest plus chunks;
//  4. index entries and counters: hooks below;
//  5. the partition directory entry (segment.go);
//  6. change record (stream.go).
func writeItem(tr fdb.Transaction, t *Table, c itemChange) error {
	if err := t.allowItem(true, c.kv); err != nil {
		return err
	}
	// While the counting pass runs, its cursor says whether this write
	// counts (counts_build.go); it is read with the old item, if not
	// with the request's own read.
	passed := c.passed
	if passed == nil {
		passed = startPassed(tr, c.st)
	}
	if !c.oldKnown && c.st.needsOld() {
		// The request did not need the old item and was validated with a
		// cached schema that did not either: read it now.
		l := loaderOf(tr)
		r := l.get(&c.st.keys, c.kv)
		var err error
		if c.old, c.oldEnc, err = l.load(&r); err != nil {
			return err
		}
		c.oldKnown = true
	}
	enc := c.enc
	if c.new != nil && enc == nil {
		return &CorruptError{What: "write", Reason: "a new item without its encoding"}
	}
	// Index entries are computed before the first write (index.go).
	ixw, err := indexWrites(c)
	if err != nil {
		return err
	}
	// Hook: counter differences (counts.go).
	counted, err := keyCounted(tr, c.st, passed, c.kv)
	if err != nil {
		return err
	}
	oldEntries, err := readOldEntries(tr, c, counted)
	if err != nil {
		return err
	}
	adds, err := countWrites(c, counted, oldEntries, ixw)
	if err != nil {
		return err
	}
	// The change record is encoded and its order taken with the checks.
	var rec *pendingRecord
	if c.st.hasStream() {
		if rec, err = prepareRecord(tr, c, t.now()); err != nil {
			return err
		}
	}
	// The backup log's record (backup_log.go), while a backup takes it.
	var logRec []fdb.KeyValue
	if c.st.capture {
		if logRec, err = backupLogRecord(c, t.now()); err != nil {
			return err
		}
	}
	// Checks are done; from here on, only writes.
	if err := tr.AddReadConflictKey(c.st.keys.meta); err != nil {
		return err
	}
	tr.ClearRange(c.st.keys.chunkRange(c.kv))
	switch {
	case c.new == nil:
		tr.Clear(c.st.keys.itemKey(c.kv))
	case len(enc) > t.chunkThreshold:
		writeChunked(tr, c.st.keys, c.kv, enc)
	default:
		tr.Set(c.st.keys.itemKey(c.kv), enc)
	}
	// Hook: index entries (index.go). For each index of c.st.schema,
	// the entry of c.old and of c.new, cleared/set where they differ.
	applyIndexWrites(tr, ixw)
	applyCounterAdds(tr, adds)

	// Hook: the partition directory (segment.go), for parallel scans.
	if err := writePartition(tr, c); err != nil {
		return err
	}

	// Change record (stream.go): v/<shard>/<versionstamp> with the keys
	// and the images the view type asks for.
	rec.write(tr)
	// Hook: the backup log (backup_log.go).
	for _, kv := range logRec {
		tr.SetVersionstampedKey(kv.Key, kv.Value)
	}
	return nil
}

// checkItemSize applies the item size limit maxSize to an item of size n
// ([Item.Size], as DynamoDB measures size), with DynamoDB's texts: the
// UpdateItem API reference's "Item size to update has exceeded the
// maximum allowed size" for an update's result, and PutItem's and
// BatchWriteItem's "Item size has exceeded the maximum allowed size"
// (captured from DynamoDB in the public conformance suite and moto's
// aws_verified tests), which name no sizes.
func checkItemSize(n, maxSize int, update bool) error {
	switch {
	case n <= maxSize:
		return nil
	case update:
		return &ValidationError{Reason: "Item size to update has exceeded the maximum allowed size"}
	}
	return &ValidationError{Reason: "Item size has exceeded the maximum allowed size"}
}
