package fdyno

import (
	"bytes"
	"github.com/fdyno/fdyno/internal/number"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// The item codec: how fdyno stores an item's attributes as a FoundationDB
// value. The format (version 1) is
//
//	item   = version:0x01 map
//	map    = count:uvarint { name value }      names in strictly increasing byte order
//	name   = len:uvarint bytes
//	value  = 0x01 len bytes                    S
//	       | 0x02 len text                     N, canonical decimal text
//	       | 0x03 len bytes                    B
//	       | 0x04 | 0x05                       BOOL false | true
//	       | 0x06                              NULL
//	       | 0x07 map                          M
//	       | 0x08 count { value }              L
//	       | 0x09 count { len bytes }          SS, strictly increasing bytes
//	       | 0x0a count { len text }           NS, strictly increasing value
//	       | 0x0b count { len bytes }          BS, strictly increasing bytes
//
// uvarint is encoding/binary's unsigned varint in its shortest form.
//
// Invariants:
//
//  1. Same item, same bytes: names and set members are in canonical order
//     and numbers in canonical text, so the encoding of an item is unique
//     and a decoded item re-encodes to exactly its input.
//  2. Decoding accepts only what encoding produces: anything else is a
//     *CorruptError, never a panic. Every count and length is checked
//     against the bytes that remain before anything is allocated, and
//     nesting is limited to MaxNestingDepth, so hostile input cannot make
//     the decoder allocate more than a small multiple of its size or
//     exhaust the stack.
//  3. A decoded item is valid by Item.Validate: names, S values and SS
//     members are valid UTF-8 on both sides of the codec.
//
// Numbers are stored as their canonical text rather than packed (BCD or
// base-100). Most stored numbers are short (counts, prices, timestamps), so
// text costs at most a few bytes more than a packed form; in exchange the
// decoder allocates nothing per number (N values share the decoded item's
// string) and checks canonical form with a single scan, and the golden
// vectors stay readable.
const codecVersion = 1

// Value tags of the item codec. They are part of the stored format and
// must never be renumbered.
const (
	tagS     = 0x01
	tagN     = 0x02
	tagB     = 0x03
	tagFalse = 0x04
	tagTrue  = 0x05
	tagNULL  = 0x06
	tagM     = 0x07
	tagL     = 0x08
	tagSS    = 0x09
	tagNS    = 0x0a
	tagBS    = 0x0b
)

// encoder holds scratch space for sorting map names; its buffers are
// pooled, so steady-state encoding allocates only the result.
type encoder struct {
	buf   []byte
	names []string
	err   bool
}

var encoderPool = sync.Pool{New: func() any { return new(encoder) }}

// AppendItem appends the encoding of it to dst and returns the extended
// slice. It fails with a *[ValidationError] if it is not a valid item (see
// [Item.Validate]); dst is then returned unchanged.
func AppendItem(dst []byte, it Item) ([]byte, error) {
	if h := encodeHook.Load(); h != nil {
		(*h)(it)
	}
	e := encoderPool.Get().(*encoder)
	e.buf, e.err = dst, false
	e.buf = append(e.buf, codecVersion)
	e.encodeMap(it, 1, true)
	out, failed := e.buf, e.err
	e.buf = nil
	if cap(e.names) > maxPooledNames {
		e.names = nil // do not keep the scratch of a huge map alive
	}
	encoderPool.Put(e)
	if failed {
		return dst, validationFailure(it)
	}
	return out, nil
}

// encodeHook, when set (by tests only), sees every item AppendItem
// encodes: tests count the encodings of a write's items with it.
var encodeHook atomic.Pointer[func(Item)]

// EncodeItem returns the encoding of it in a new slice of exactly its
// length; see [AppendItem].
func EncodeItem(it Item) ([]byte, error) {
	bp := bufferPool.Get().(*[]byte)
	buf, err := AppendItem((*bp)[:0], it)
	var out []byte
	if err == nil {
		out = bytes.Clone(buf)
	}
	if cap(buf) <= maxPooledBuffer {
		*bp = buf[:0]
	}
	bufferPool.Put(bp)
	return out, err
}

// Bounds on the scratch space kept for reuse.
const (
	maxPooledBuffer = 1 << 20 // bytes of an encoding buffer
	maxPooledNames  = 1 << 12 // names of a map larger than smallMap
)

var bufferPool = sync.Pool{New: func() any { return new([]byte) }}

// validationFailure returns the error Validate gives for an item the
// encoder refused. The encoder checks the same rules without tracking
// paths, so Validate finds the same problem and names its path.
func validationFailure(it Item) error {
	if err := it.Validate(); err != nil {
		return err
	}
	return &ValidationError{Reason: "item cannot be encoded"}
}

func (e *encoder) uvarint(x uint64) {
	for x >= 0x80 {
		e.buf = append(e.buf, byte(x)|0x80)
		x >>= 7
	}
	e.buf = append(e.buf, byte(x))
}

func (e *encoder) bytes(s string) {
	e.uvarint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// smallMap is the size up to which encodeMap sorts a map's attributes on
// the stack: the name/value pairs are stored by array index (which needs no
// GC write barriers) and an index permutation is sorted, which also spares
// a second lookup of each value.
const smallMap = 32

type attribute struct {
	name  string
	value Value
}

func (e *encoder) encodeMap(m Item, depth int, top bool) {
	e.uvarint(uint64(len(m)))
	if len(m) <= smallMap {
		var (
			attrs [smallMap]attribute
			order [smallMap]uint8
			n     int
		)
		for k, v := range m {
			attrs[n] = attribute{k, v}
			// Insertion sort of the permutation as attributes arrive.
			j := n
			for j > 0 && attrs[order[j-1]].name > k {
				order[j] = order[j-1]
				j--
			}
			order[j] = uint8(n)
			n++
		}
		for _, i := range order[:n] {
			if e.encodeAttribute(attrs[i].name, attrs[i].value, depth, top) {
				return
			}
		}
		return
	}
	base := len(e.names)
	for k := range m {
		e.names = append(e.names, k)
	}
	slices.Sort(e.names[base:])
	for i := base; i < base+len(m); i++ {
		// Index e.names each time: nested maps may grow it.
		k := e.names[i]
		if e.encodeAttribute(k, m[k], depth, top) {
			break
		}
	}
	clear(e.names[base:])
	e.names = e.names[:base]
}

// encodeAttribute encodes one name and value of a map and reports whether
// encoding failed.
func (e *encoder) encodeAttribute(name string, v Value, depth int, top bool) bool {
	if len(name) > MaxAttributeNameLength || (top && name == "") || !utf8.ValidString(name) {
		e.err = true
		return true
	}
	e.bytes(name)
	e.encodeValue(v, depth)
	return e.err
}

func (e *encoder) encodeValue(v Value, depth int) {
	if depth > MaxNestingDepth {
		e.err = true
		return
	}
	switch v.typ {
	case TypeS:
		if !utf8.ValidString(v.s) {
			e.err = true
			return
		}
		e.buf = append(e.buf, tagS)
		e.bytes(v.s)
	case TypeN:
		if v.bad {
			e.err = true
			return
		}
		e.buf = append(e.buf, tagN)
		e.bytes(v.s)
	case TypeB:
		e.buf = append(e.buf, tagB)
		e.bytes(v.s)
	case TypeBOOL:
		if v.b {
			e.buf = append(e.buf, tagTrue)
		} else {
			e.buf = append(e.buf, tagFalse)
		}
	case TypeNULL:
		e.buf = append(e.buf, tagNULL)
	case TypeM:
		e.buf = append(e.buf, tagM)
		e.encodeMap(v.mapv(), depth+1, false)
	case TypeL:
		e.buf = append(e.buf, tagL)
		e.uvarint(uint64(len(v.listv())))
		for _, el := range v.listv() {
			e.encodeValue(el, depth+1)
			if e.err {
				return
			}
		}
	case TypeSS, TypeNS, TypeBS:
		if v.bad || len(v.setv()) == 0 {
			e.err = true
			return
		}
		e.buf = append(e.buf, tagSS+byte(v.typ-TypeSS))
		e.uvarint(uint64(len(v.setv())))
		for i, m := range v.setv() {
			if i > 0 && m == v.setv()[i-1] || v.typ == TypeSS && !utf8.ValidString(m) {
				e.err = true
				return
			}
			e.bytes(m)
		}
	default:
		e.err = true
	}
}

// DecodeItem decodes an item encoded by [AppendItem]. Corrupt, truncated
// or non-canonical input gives a *[CorruptError] (errors.Is [ErrCorrupt]).
//
// The strings of the result (names, S and N values, set members) share one
// copy of data, so holding any of them keeps that copy alive; data itself
// is not retained.
func DecodeItem(data []byte) (Item, error) {
	if len(data) == 0 {
		return nil, &CorruptError{What: "item", Reason: "empty input"}
	}
	if data[0] != codecVersion {
		return nil, &CorruptError{What: "item", Reason: "unknown format version " + strconv.Itoa(int(data[0]))}
	}
	d := decoder{s: string(data), off: 1}
	it, err := d.decodeMap(1, true)
	if err != nil {
		return nil, err
	}
	if d.off != len(d.s) {
		return nil, d.fail("trailing bytes")
	}
	return it, nil
}

// UnmarshalBinary decodes data into *it, replacing its contents; see
// [DecodeItem]. It implements encoding.BinaryUnmarshaler.
func (it *Item) UnmarshalBinary(data []byte) error {
	dec, err := DecodeItem(data)
	if err != nil {
		return err
	}
	*it = dec
	return nil
}

// MarshalBinary returns the encoding of it; see [EncodeItem]. It
// implements encoding.BinaryMarshaler.
func (it Item) MarshalBinary() ([]byte, error) { return EncodeItem(it) }

type decoder struct {
	s   string
	off int
}

func (d *decoder) fail(reason string) error {
	return &CorruptError{What: "item", Offset: d.off, Reason: reason}
}

// uvarint reads a shortest-form varint of at most 35 bits.
func (d *decoder) uvarint() (int, error) {
	var x uint64
	for i := 0; i < 5; i++ {
		if d.off >= len(d.s) {
			return 0, d.fail("truncated varint")
		}
		c := d.s[d.off]
		d.off++
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if c == 0 && i > 0 {
				return 0, d.fail("varint not in shortest form")
			}
			return int(x), nil
		}
	}
	return 0, d.fail("varint too long")
}

// count reads an element count and checks that the remaining input can
// hold that many elements of at least minSize bytes each.
func (d *decoder) count(minSize int) (int, error) {
	n, err := d.uvarint()
	if err != nil {
		return 0, err
	}
	if n > (len(d.s)-d.off)/minSize {
		return 0, d.fail("count " + strconv.Itoa(n) + " exceeds remaining input")
	}
	return n, nil
}

func (d *decoder) bytes() (string, error) {
	n, err := d.uvarint()
	if err != nil {
		return "", err
	}
	if n > len(d.s)-d.off {
		return "", d.fail("length " + strconv.Itoa(n) + " exceeds remaining input")
	}
	s := d.s[d.off : d.off+n]
	d.off += n
	return s, nil
}

func (d *decoder) decodeMap(depth int, top bool) (Item, error) {
	n, err := d.count(2) // a name length and a tag at least
	if err != nil {
		return nil, err
	}
	m := make(Item, n)
	prev := ""
	for i := 0; i < n; i++ {
		name, err := d.bytes()
		if err != nil {
			return nil, err
		}
		switch {
		case i > 0 && name <= prev:
			return nil, d.fail("names not in strictly increasing order")
		case top && name == "":
			return nil, d.fail("empty attribute name")
		case len(name) > MaxAttributeNameLength:
			return nil, d.fail("attribute name too long")
		case !utf8.ValidString(name):
			return nil, d.fail("attribute name not valid UTF-8")
		}
		prev = name
		v, err := d.decodeValue(depth)
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	return m, nil
}

func (d *decoder) decodeValue(depth int) (Value, error) {
	if depth > MaxNestingDepth {
		return Value{}, d.fail("nesting deeper than " + strconv.Itoa(MaxNestingDepth))
	}
	if d.off >= len(d.s) {
		return Value{}, d.fail("truncated value")
	}
	tag := d.s[d.off]
	d.off++
	switch tag {
	case tagS, tagB:
		start := d.off
		s, err := d.bytes()
		if err != nil {
			return Value{}, err
		}
		t := TypeS
		if tag == tagB {
			t = TypeB
		} else if !utf8.ValidString(s) {
			d.off = start
			return Value{}, d.fail("string not valid UTF-8")
		}
		return Value{typ: t, s: s}, nil
	case tagN:
		start := d.off
		s, err := d.bytes()
		if err != nil {
			return Value{}, err
		}
		if !number.IsCanonical(s) {
			d.off = start
			return Value{}, d.fail("number not in canonical form")
		}
		return Value{typ: TypeN, s: s}, nil
	case tagFalse, tagTrue:
		return Value{typ: TypeBOOL, b: tag == tagTrue}, nil
	case tagNULL:
		return Value{typ: TypeNULL, b: true}, nil
	case tagM:
		m, err := d.decodeMap(depth+1, false)
		if err != nil {
			return Value{}, err
		}
		return Value{typ: TypeM, x: m}, nil
	case tagL:
		n, err := d.count(1)
		if err != nil {
			return Value{}, err
		}
		list := make([]Value, n)
		for i := range list {
			if list[i], err = d.decodeValue(depth + 1); err != nil {
				return Value{}, err
			}
		}
		return Value{typ: TypeL, x: list}, nil
	case tagSS, tagNS, tagBS:
		n, err := d.count(1)
		if err != nil {
			return Value{}, err
		}
		if n == 0 {
			return Value{}, d.fail("empty set")
		}
		set := make([]string, n)
		for i := range set {
			start := d.off
			if set[i], err = d.bytes(); err != nil {
				return Value{}, err
			}
			if tag == tagNS {
				if !number.IsCanonical(set[i]) {
					d.off = start
					return Value{}, d.fail("number not in canonical form")
				}
				if i > 0 && number.Compare(set[i-1], set[i]) >= 0 {
					d.off = start
					return Value{}, d.fail("set members not in strictly increasing order")
				}
			} else if i > 0 && set[i-1] >= set[i] {
				d.off = start
				return Value{}, d.fail("set members not in strictly increasing order")
			} else if tag == tagSS && !utf8.ValidString(set[i]) {
				d.off = start
				return Value{}, d.fail("string not valid UTF-8")
			}
		}
		return Value{typ: TypeSS + Type(tag-tagSS), x: set}, nil
	}
	d.off--
	return Value{}, d.fail("unknown value tag 0x" + strconv.FormatUint(uint64(tag), 16))
}
