package tree

// keys.go is the only file that builds or parses the tree's rows. The
// layout is dynamotree's, so a table written by either is read by both.
// With the reserved character R (default "¦"), a table with hash key
// "Key" (S) and range key "Child" (S) holds, for an object at A/B/C:
//
//	Key=R               Child=A    listing row: A is a child of the root
//	Key=R A R           Child=B    listing row: B is a child of A/
//	Key=R A R B R       Child=C    listing row: C is a child of A/B/
//	Key=R A R B R C     Child=R    the object row: its attributes, and, for
//	                               a symbolic link, attribute R holding the
//	                               target's object key (R T1 R T2 …)
//
// A directory's key ends with R and an object's key does not (components
// are never empty), so a Query on a directory's key returns exactly its
// listing rows, and no listing row has Child R.
//
// Watch counters, when enabled (Options.Watch), are FoundationDB keys
// outside the table: (<Options.Watch>, <directory key>) holding a
// little-endian int64 that every change of the directory's listing adds 1
// to (write.go says which).

import (
	"encoding/binary"
	"hash/fnv"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
	"github.com/apple/foundationdb/bindings/go/src/fdb/tuple"
	"github.com/fdyno/fdyno"
)

// Attribute names of the table's key schema (dynamotree's).
const (
	KeyAttribute   = "Key"
	ChildAttribute = "Child"
)

// DefaultReserved is the reserved character unless Options.Reserved names
// another: U+00A6 BROKEN BAR, dynamotree's default.
const DefaultReserved = "¦"

// Size limits a path must meet, DynamoDB's key limits: a Key value is at
// most MaxKeyBytes bytes of UTF-8 and a Child value at most
// MaxComponentBytes.
const (
	MaxKeyBytes       = 2048
	MaxComponentBytes = 1024
)

// objectKey is the Key of p's object row: R p1 R p2 … R pn.
func (t *Tree) objectKey(p Path) string {
	var b strings.Builder
	for _, c := range p {
		b.WriteString(t.r)
		b.WriteString(c)
	}
	return b.String()
}

// dirKey is the Key of the listing rows of p's children: the object key
// followed by R; the root's is R alone.
func (t *Tree) dirKey(p Path) string { return t.objectKey(p) + t.r }

// objectRowKey is the table key of p's object row.
func (t *Tree) objectRowKey(p Path) fdyno.Item {
	return fdyno.Item{KeyAttribute: fdyno.S(t.objectKey(p)), ChildAttribute: fdyno.S(t.r)}
}

// listingRow is the listing row of child name in directory dir; it is also
// its table key, having no other attributes.
func (t *Tree) listingRow(dir Path, name string) fdyno.Item {
	return fdyno.Item{KeyAttribute: fdyno.S(t.dirKey(dir)), ChildAttribute: fdyno.S(name)}
}

// objectRow is p's object row with attributes it (already validated).
func (t *Tree) objectRow(p Path, it fdyno.Item) fdyno.Item {
	row := make(fdyno.Item, len(it)+2)
	for k, v := range it {
		row[k] = v
	}
	row[KeyAttribute] = fdyno.S(t.objectKey(p))
	row[ChildAttribute] = fdyno.S(t.r)
	return row
}

// linkRow is the object row of a symbolic link at p to target.
func (t *Tree) linkRow(p, target Path) fdyno.Item {
	return fdyno.Item{
		KeyAttribute:   fdyno.S(t.objectKey(p)),
		ChildAttribute: fdyno.S(t.r),
		t.r:            fdyno.S(t.objectKey(target)),
	}
}

// movedRow is an object row with its Key changed to p's.
func (t *Tree) movedRow(row fdyno.Item, p Path) fdyno.Item {
	moved := maps.Clone(row)
	moved[KeyAttribute] = fdyno.S(t.objectKey(p))
	return moved
}

// objectRowQuery is the Query of p's object row, projected to Key and the
// reserved attribute (a link's target): one row or none.
func (t *Tree) objectRowQuery(p Path) fdyno.QueryInput {
	return fdyno.QueryInput{
		KeyConditionExpression:    "#k = :k AND #c = :c",
		ProjectionExpression:      "#k, #r",
		ExpressionAttributeNames:  map[string]string{"#k": KeyAttribute, "#c": ChildAttribute, "#r": t.r},
		ExpressionAttributeValues: map[string]fdyno.Value{":k": fdyno.S(t.objectKey(p)), ":c": fdyno.S(t.r)},
		Limit:                     1,
	}
}

// listQuery is the Query of dir's listing rows, limit at a time (0: no
// limit), projected to Child.
func (t *Tree) listQuery(dir Path, limit int) fdyno.QueryInput {
	return fdyno.QueryInput{
		KeyConditionExpression:    "#k = :d",
		ProjectionExpression:      "#c",
		ExpressionAttributeNames:  map[string]string{"#k": KeyAttribute, "#c": ChildAttribute},
		ExpressionAttributeValues: map[string]fdyno.Value{":d": fdyno.S(t.dirKey(dir))},
		Limit:                     limit,
	}
}

// parseObjectKey parses an object key (a link's target) back into a path.
// It accepts exactly what objectKey produces for a valid path.
func (t *Tree) parseObjectKey(s string) (Path, error) {
	if !strings.HasPrefix(s, t.r) {
		return nil, t.pathError("parse", nil, "an object key starts with the reserved character")
	}
	p := Path(strings.Split(s[len(t.r):], t.r))
	if err := t.checkPath("parse", p); err != nil {
		return nil, err
	}
	return p, nil
}

// checkComponent reports why c cannot be a path component, or "".
func (t *Tree) checkComponent(c string) string {
	switch {
	case c == "":
		return "empty component"
	case !utf8.ValidString(c):
		return "component is not valid UTF-8"
	case strings.Contains(c, t.r):
		return "component contains the reserved character"
	case len(c) > MaxComponentBytes:
		return "component longer than 1024 bytes"
	}
	return ""
}

// checkPath validates p as the path of an object (at least one component).
func (t *Tree) checkPath(op string, p Path) error {
	if len(p) == 0 {
		return t.pathError(op, p, "empty path")
	}
	return t.checkDir(op, p)
}

// checkDir validates p as a directory path (the root, empty, included).
func (t *Tree) checkDir(op string, p Path) error {
	n := 0
	for _, c := range p {
		if why := t.checkComponent(c); why != "" {
			return t.pathError(op, p, why)
		}
		n += len(t.r) + len(c)
	}
	// The longest Key a path uses is its directory key (objectKey+R) when
	// it has children, so the object key must leave room for that.
	if n+len(t.r) > MaxKeyBytes {
		return t.pathError(op, p, "path longer than 2048 bytes encoded")
	}
	return nil
}

// Cursor format: version byte, 8-byte FNV-1a of the directory key, then the
// last child name returned. The hash binds a cursor to its directory.
const cursorVersion = 1

func (t *Tree) dirHash(dir string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(dir))
	return h.Sum64()
}

func (t *Tree) encodeCursor(dir Path, last string) []byte {
	b := make([]byte, 9, 9+len(last))
	b[0] = cursorVersion
	binary.BigEndian.PutUint64(b[1:], t.dirHash(t.dirKey(dir)))
	return append(b, last...)
}

// decodeCursor returns the last child name a cursor of dir's listing
// holds, or an error wrapping ErrInvalidCursor.
func (t *Tree) decodeCursor(dir Path, c []byte) (string, error) {
	if len(c) < 10 || c[0] != cursorVersion {
		return "", &CursorError{Reason: "malformed"}
	}
	if binary.BigEndian.Uint64(c[1:9]) != t.dirHash(t.dirKey(dir)) {
		return "", &CursorError{Reason: "cursor of another directory"}
	}
	name := string(c[9:])
	if why := t.checkComponent(name); why != "" {
		return "", &CursorError{Reason: why}
	}
	return name, nil
}

// watchKey is the FoundationDB key of the watch counter of the directory
// whose key (dirKey) is dir.
func (t *Tree) watchKey(dir string) fdb.Key {
	return t.watch.Pack(tuple.Tuple{dir})
}

// rowDir returns the key of the directory whose listing a row is part of:
// a listing row's own Key, or for an object row the key of the object's
// parent (its Key up to and including its last R), whose entry the
// object is.
func (t *Tree) rowDir(row fdyno.Item) string {
	key := row[KeyAttribute].S()
	if row[ChildAttribute].S() != t.r {
		return key
	}
	return key[:strings.LastIndex(key, t.r)+len(t.r)]
}

// one is the operand of the counters' atomic add.
var one = []byte{1, 0, 0, 0, 0, 0, 0, 0}
