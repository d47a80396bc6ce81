package fdyno

import (
	"slices"
	"strconv"
	"time"
)

// Option configures [Open], [ListTables] and [DeleteTable].
type Option func(*options)

type options struct {
	root           []string
	schema         *TableSchema
	settings       []byte // WithSettings (table_properties.go)
	maxItemSize    int
	chunkThreshold int
	clock          func() time.Time // WithClock (ttl.go); nil is time.Now
	guard          AccessGuard      // WithGuard (access.go)
}

// WithRoot sets the directory-layer path under which tables live (default
// [DefaultRoot]). Tables under different roots never see each other.
func WithRoot(path ...string) Option {
	return func(o *options) { o.root = slices.Clone(path) }
}

// WithSchema makes [Open] create the table with schema s if it does not
// exist, and check that an existing table has exactly this schema.
func WithSchema(s TableSchema) Option {
	return func(o *options) { o.schema = &s }
}

// WithMaxItemSize sets the largest item, by [Item.Size], that the handle
// writes (default [DefaultMaxItemSize], at most [MaxItemSizeLimit]).
func WithMaxItemSize(n int) Option {
	return func(o *options) { o.maxItemSize = n }
}

// WithChunkThreshold sets the encoded size above which an item is stored
// in chunks (default [DefaultChunkThreshold]).
func WithChunkThreshold(n int) Option {
	return func(o *options) { o.chunkThreshold = n }
}

func buildOptions(opts []Option) (options, error) {
	o := options{root: []string{DefaultRoot}, maxItemSize: DefaultMaxItemSize, chunkThreshold: DefaultChunkThreshold}
	for _, opt := range opts {
		opt(&o)
	}
	switch {
	case len(o.root) == 0:
		return o, &ValidationError{Op: "Open", Reason: "the root directory path is empty"}
	case o.maxItemSize < 1 || o.maxItemSize > MaxItemSizeLimit:
		return o, &ValidationError{Op: "Open", Reason: "max item size " + strconv.Itoa(o.maxItemSize) + " is outside 1.." + strconv.Itoa(MaxItemSizeLimit)}
	case o.chunkThreshold < 1 || o.chunkThreshold > maxChunkThreshold:
		return o, &ValidationError{Op: "Open", Reason: "chunk threshold " + strconv.Itoa(o.chunkThreshold) + " is outside 1.." + strconv.Itoa(maxChunkThreshold)}
	}
	return o, nil
}
