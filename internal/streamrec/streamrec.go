// Package streamrec is the stored form of a change record: its event, the
// stream view it was written under, its time, the item's keys and its new
// and old images, an old image beside a new one stored as a delta. It is
// generic over the value type V; the items inside are encoded by the
// caller's item codec ([Items]). The root package's stream.go writes
// records with [Append] and reads them with [Decode], which turns anything
// but what Append writes into an [*Error], never a panic.
package streamrec

import (
	"encoding/binary"
	"maps"
	"slices"
	"strconv"
)

// Version is the first byte of an encoded record.
const Version = 0x01

// Events and views, as the encoding numbers them.
const (
	EventInsert = 1
	EventModify = 2
	EventRemove = 3

	ViewKeysOnly        = 1
	ViewNewImage        = 2
	ViewOldImage        = 3
	ViewNewAndOldImages = 4
)

// Flags and image markers of the encoding.
const (
	flagTTL     = 0x01
	imageAbsent = 0x00
	imageDelta  = 0x01
)

// Items is the caller's item codec and value equality.
type Items[V any] struct {
	Encode func(map[string]V) ([]byte, error)
	Decode func([]byte) (map[string]V, error)
	Equal  func(a, b V) bool
}

// Record is a change record.
type Record[V any] struct {
	Event byte // EventInsert, EventModify or EventRemove
	ByTTL bool // deleted by the TTL sweeper
	View  byte // ViewKeysOnly ... ViewNewAndOldImages
	// Micros is the creation time in Unix microseconds.
	Micros   int64
	Keys     map[string]V
	New, Old map[string]V // nil when absent
	// NewEnc and OldEnc, if not nil, are the encodings of New and Old,
	// already made, for Append to reuse.
	NewEnc, OldEnc []byte
}

// Error is bytes that are not a record Append wrote.
type Error struct {
	Offset int
	Reason string
}

func (e *Error) Error() string { return e.Reason + " at offset " + strconv.Itoa(e.Offset) }

// Append appends the stored form of r to b:
//
//	record = version:0x01 event:1 flags:1 view:1 micros:varint
//	         keys:uvarint-length item   new:image   old:(image | delta)
//	image  = 0x00 (absent) | uvarint(len+1) item
//	delta  = 0x01 changed:uvarint-length item   count:uvarint { name:uvarint-length bytes }
//
// where item is the item codec's encoding. When both images are present
// the old one is always a delta (appendDelta); otherwise never. An item
// encoding is never shorter than 2 bytes, so an image's first byte is
// never 0x01.
func Append[V any](b []byte, items Items[V], r *Record[V]) ([]byte, error) {
	var flags byte
	if r.ByTTL {
		flags |= flagTTL
	}
	b = append(b, Version, r.Event, flags, r.View)
	b = binary.AppendVarint(b, r.Micros)
	k, err := items.Encode(r.Keys)
	if err != nil {
		return nil, err
	}
	b = append(binary.AppendUvarint(b, uint64(len(k))), k...)
	newEnc := r.NewEnc
	if r.New != nil && newEnc == nil {
		if newEnc, err = items.Encode(r.New); err != nil {
			return nil, err
		}
	}
	switch {
	case r.New == nil:
		b = append(b, imageAbsent)
	default:
		b = append(binary.AppendUvarint(b, uint64(len(newEnc))+1), newEnc...)
	}
	switch {
	case r.Old == nil:
		return append(b, imageAbsent), nil
	case r.New != nil:
		return appendDelta(append(b, imageDelta), items, r.Old, r.New)
	}
	oldEnc := r.OldEnc
	if oldEnc == nil {
		if oldEnc, err = items.Encode(r.Old); err != nil {
			return nil, err
		}
	}
	return append(binary.AppendUvarint(b, uint64(len(oldEnc))+1), oldEnc...), nil
}

// appendDelta appends the old image as a delta against the new one: the
// attributes of old that new lacks or holds with another value (an item,
// length-prefixed), then the names, in increasing byte order, of the
// attributes new has and old lacks. An update usually changes a few
// attributes, so a NEW_AND_OLD_IMAGES record is about one image long.
func appendDelta[V any](b []byte, items Items[V], old, new map[string]V) ([]byte, error) {
	changed := map[string]V{}
	for k, v := range old {
		if w, ok := new[k]; !ok || !items.Equal(v, w) {
			changed[k] = v
		}
	}
	var added []string
	for k := range new {
		if _, ok := old[k]; !ok {
			added = append(added, k)
		}
	}
	slices.Sort(added)
	enc, err := items.Encode(changed)
	if err != nil {
		return nil, err
	}
	b = append(binary.AppendUvarint(b, uint64(len(enc))), enc...)
	b = binary.AppendUvarint(b, uint64(len(added)))
	for _, k := range added {
		b = append(binary.AppendUvarint(b, uint64(len(k))), k...)
	}
	return b, nil
}

// applyDelta returns the old image that the delta at b[*off:] (after its
// changed attributes) describes against new, advancing *off. It accepts
// only what appendDelta writes.
func applyDelta[V any](items Items[V], new, changed map[string]V, b []byte, off *int) (map[string]V, error) {
	fail := func(reason string) (map[string]V, error) {
		return nil, &Error{Offset: *off, Reason: "old image delta: " + reason}
	}
	for k, v := range changed {
		if w, ok := new[k]; ok && items.Equal(v, w) {
			return fail("attribute " + strconv.Quote(k) + " did not change")
		}
	}
	count, n := binary.Uvarint(b[*off:])
	if n <= 0 || count > uint64(len(new)) {
		return fail("bad count")
	}
	*off += n
	old := maps.Clone(new)
	prev := ""
	for i := range int(count) {
		l, n := binary.Uvarint(b[*off:])
		if n <= 0 || l > uint64(len(b)-*off-n) {
			return fail("bad name length")
		}
		*off += n
		name := string(b[*off : *off+int(l)])
		*off += int(l)
		if _, ok := new[name]; !ok || i > 0 && name <= prev {
			return fail("names not in the new image, or not in increasing order")
		}
		if _, ok := changed[name]; ok {
			return fail("attribute " + strconv.Quote(name) + " both added and changed")
		}
		delete(old, name)
		prev = name
	}
	maps.Copy(old, changed)
	return old, nil
}

// Decode parses a record Append produced. Anything else is an *Error, or
// the error of the caller's item decoder, never a panic; lengths are
// checked against the bytes that remain before use.
func Decode[V any](items Items[V], b []byte) (Record[V], error) {
	var r Record[V]
	fail := func(off int, reason string) (Record[V], error) {
		return Record[V]{}, &Error{Offset: off, Reason: reason}
	}
	if len(b) < 4 || b[0] != Version {
		return fail(0, "unknown format")
	}
	if b[1] < EventInsert || b[1] > EventRemove {
		return fail(1, "bad event")
	}
	if b[2]&^flagTTL != 0 {
		return fail(2, "bad flags")
	}
	if b[3] < ViewKeysOnly || b[3] > ViewNewAndOldImages {
		return fail(3, "bad view type")
	}
	r.Event, r.ByTTL, r.View = b[1], b[2]&flagTTL != 0, b[3]
	off := 4
	micros, n := binary.Varint(b[off:])
	if n <= 0 {
		return fail(off, "bad time")
	}
	r.Micros = micros
	off += n
	item := func(optional bool) (map[string]V, error) {
		l, n := binary.Uvarint(b[off:])
		if n <= 0 || l > uint64(len(b)-off-n)+1 {
			return nil, &Error{Offset: off, Reason: "bad length"}
		}
		off += n
		if optional {
			if l == 0 {
				return nil, nil
			}
			l--
		}
		if l > uint64(len(b)-off) {
			return nil, &Error{Offset: off, Reason: "bad length"}
		}
		it, err := items.Decode(b[off : off+int(l)])
		if err != nil {
			return nil, err
		}
		off += int(l)
		return it, nil
	}
	var err error
	if r.Keys, err = item(false); err != nil {
		return Record[V]{}, err
	}
	if r.New, err = item(true); err != nil {
		return Record[V]{}, err
	}
	switch {
	case off < len(b) && b[off] == imageDelta && r.New != nil:
		off++
		changed, err := item(false)
		if err != nil {
			return Record[V]{}, err
		}
		if r.Old, err = applyDelta(items, r.New, changed, b, &off); err != nil {
			return Record[V]{}, err
		}
	case r.New != nil && (off >= len(b) || b[off] != imageAbsent):
		return fail(off, "old image beside a new image is not a delta")
	default:
		if r.Old, err = item(true); err != nil {
			return Record[V]{}, err
		}
	}
	if off != len(b) {
		return fail(off, "trailing bytes")
	}
	return r, nil
}
