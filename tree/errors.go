package tree

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fdyno/fdyno"
)

// Errors, as categories for errors.Is. The detail types below wrap them.
// Errors for bad input ([ErrInvalidPath], [ErrInvalidItem],
// [ErrInvalidCursor]) also match [fdyno.ErrValidation], DynamoDB's
// ValidationException; none of these errors wraps an fdb.Error, so a
// retry loop never retries them.
var (
	// ErrNotFound: no object (or, for DeleteTree and Move, nothing at all)
	// at the path.
	ErrNotFound = errors.New("tree: not found")
	// ErrNotLink: GetLink of an object that is not a symbolic link.
	ErrNotLink = errors.New("tree: not a link")
	// ErrExists: Move to a path that holds an object or a directory.
	ErrExists = errors.New("tree: destination exists")
	// ErrInvalidPath: an empty path, an empty component, or a component
	// with the reserved character, not UTF-8, or too long ([PathError]).
	ErrInvalidPath = errors.New("tree: invalid path")
	// ErrInvalidItem: an item with the key attributes or an attribute name
	// that starts with the reserved character ([ItemError]).
	ErrInvalidItem = errors.New("tree: invalid item")
	// ErrInvalidCursor: a List cursor that is malformed or belongs to
	// another directory ([CursorError]).
	ErrInvalidCursor = errors.New("tree: invalid cursor")
	// ErrLinkCycle: Get met the same link twice ([LinkError]).
	ErrLinkCycle = errors.New("tree: symbolic link cycle")
	// ErrTooManyLinks: Get followed more than Options.MaxLinks links
	// ([LinkError]).
	ErrTooManyLinks = errors.New("tree: too many symbolic links")
	// ErrTooLarge: a DeleteTree or Move would exceed the bounds of one
	// transaction ([TooLargeError]).
	ErrTooLarge = errors.New("tree: subtree too large for one transaction")
	// ErrSchema: the table's key schema is not the tree's.
	ErrSchema = errors.New("tree: table key schema must be Key (S, HASH) and Child (S, RANGE)")
	// ErrNoWatch: Watch on a tree opened without Options.Watch.
	ErrNoWatch = errors.New("tree: watch not enabled (Options.Watch)")
	// ErrCorrupt: a row that the tree's layout does not allow, such as a
	// link whose target is not an object key.
	ErrCorrupt = errors.New("tree: corrupt row")
)

// PathError is a bad path; it wraps [ErrInvalidPath].
type PathError struct {
	Op     string
	Path   Path
	Reason string
}

func (e *PathError) Error() string {
	return fmt.Sprintf("tree: %s %q: invalid path: %s", e.Op, strings.Join(e.Path, "/"), e.Reason)
}

func (e *PathError) Unwrap() error { return ErrInvalidPath }

// Is matches [fdyno.ErrValidation] too.
func (e *PathError) Is(target error) bool { return target == fdyno.ErrValidation }

func (t *Tree) pathError(op string, p Path, reason string) error {
	return &PathError{Op: op, Path: append(Path(nil), p...), Reason: reason}
}

// ItemError is a bad item; it wraps [ErrInvalidItem].
type ItemError struct {
	Op        string
	Attribute string
	Reason    string
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("tree: %s: invalid item: attribute %q %s", e.Op, e.Attribute, e.Reason)
}

func (e *ItemError) Unwrap() error { return ErrInvalidItem }

// Is matches [fdyno.ErrValidation] too.
func (e *ItemError) Is(target error) bool { return target == fdyno.ErrValidation }

// CursorError is a List cursor that cannot be used; it wraps
// [ErrInvalidCursor].
type CursorError struct{ Reason string }

func (e *CursorError) Error() string { return "tree: invalid cursor: " + e.Reason }

func (e *CursorError) Unwrap() error { return ErrInvalidCursor }

// Is matches [fdyno.ErrValidation] too.
func (e *CursorError) Is(target error) bool { return target == fdyno.ErrValidation }

// LinkError is a chain of symbolic links Get could not resolve; it wraps
// [ErrLinkCycle] or [ErrTooManyLinks]. Chain holds the paths visited, the
// first being the one asked for.
type LinkError struct {
	Chain []Path
	Err   error
}

func (e *LinkError) Error() string {
	parts := make([]string, len(e.Chain))
	for i, p := range e.Chain {
		parts[i] = p.String()
	}
	return fmt.Sprintf("%v: %s", e.Err, strings.Join(parts, " -> "))
}

func (e *LinkError) Unwrap() error { return e.Err }

// TooLargeError is a DeleteTree or Move that would exceed Options.MaxRows
// rows or Options.MaxBytes bytes of writes; it wraps [ErrTooLarge]. Rows
// and Bytes are what was counted when the bound was passed (a lower bound
// of the subtree's size).
type TooLargeError struct {
	Op       string
	Path     Path
	Rows     int
	Bytes    int
	MaxRows  int
	MaxBytes int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("tree: %s %q: subtree too large for one transaction: at least %d rows, %d bytes (bounds %d rows, %d bytes)",
		e.Op, e.Path.String(), e.Rows, e.Bytes, e.MaxRows, e.MaxBytes)
}

func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

// notFound is ErrNotFound for op at p.
func notFound(op string, p Path) error {
	return fmt.Errorf("tree: %s %q: %w", op, p.String(), ErrNotFound)
}

// corrupt is ErrCorrupt for the row at key.
func corrupt(key, why string) error { return fmt.Errorf("tree: row %q: %s: %w", key, why, ErrCorrupt) }

// errExists is ErrExists for op at p.
func errExists(op string, p Path) error {
	return fmt.Errorf("tree: %s %q: %w", op, p.String(), ErrExists)
}
