package dcb

import (
	"errors"
)

// Errors from appends and reads. Test for them with errors.Is; the details
// of a failed append condition are an [*AppendConditionError] (errors.As).
// None of them wraps an fdb.Error, so a retry loop never retries them;
// FoundationDB's own errors are returned wrapped with %w, reachable with
// errors.As.
var (
	// ErrAppendConditionFailed: the store holds an event matching the
	// append condition's query after its position. Nothing was written.
	ErrAppendConditionFailed = errors.New("dcb: append condition failed")
	// ErrInvalidEvent: an event to append breaks a rule of [Event] or a
	// limit (type, tags, sizes). Nothing was written.
	ErrInvalidEvent = errors.New("dcb: invalid event")
	// ErrInvalidQuery: a query has no items and is not [All], or an item
	// has neither types nor tags.
	ErrInvalidQuery = errors.New("dcb: invalid query")
	// ErrInvalidPosition: a position's text form is malformed.
	ErrInvalidPosition = errors.New("dcb: invalid position")
	// ErrInvalidOptions: ReadOptions or Open's arguments are out of range.
	ErrInvalidOptions = errors.New("dcb: invalid options")
	// ErrTooLarge: an append would exceed FoundationDB's transaction size
	// limit ([MaxAppendBytes]) or an event its value limit
	// ([MaxEventBytes]). Nothing was written.
	ErrTooLarge = errors.New("dcb: append too large")
	// ErrCorrupt: stored bytes under the store's namespace do not decode
	// (not written by this package, or damaged).
	ErrCorrupt = errors.New("dcb: corrupt store")
	// ErrOldFormat: [Open] found a store of an older format, which this
	// version reads but whose appends it would not announce to that
	// version's subscribers (nor learn of that version's): see [Upgrade].
	ErrOldFormat = errors.New("dcb: store of an older format")
	// ErrIdempotencyKeyReused: [Store.AppendOnce] found the record of its
	// idempotency key written for other events. Nothing was written.
	ErrIdempotencyKeyReused = errors.New("dcb: idempotency key reused for other events")
	// ErrNotCommitted: [Appended.Positions] was asked for the positions of
	// an append whose transaction did not commit.
	ErrNotCommitted = errors.New("dcb: append not committed")
)

// AppendConditionError is the error of an append whose condition failed:
// Position is the first (lowest) position after the condition's After at
// which a stored event matches the condition's query. It unwraps to
// [ErrAppendConditionFailed].
type AppendConditionError struct {
	Position Position
	After    Position
}

func (e *AppendConditionError) Error() string {
	return "dcb: append condition failed: event at position " + e.Position.String() +
		" matches the condition's query (after " + e.After.String() + ")"
}

// Unwrap returns [ErrAppendConditionFailed].
func (e *AppendConditionError) Unwrap() error { return ErrAppendConditionFailed }
