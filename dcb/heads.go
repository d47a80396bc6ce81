package dcb

import (
	"slices"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// Heads tell a subscriber that an append it may match has committed,
// without one key that every append writes (a hot key on a cluster, where
// one storage team serves each key) and without waking the subscribers
// an append cannot match.
//
// An append rewrites, with a versionstamped value (blind, so heads never
// conflict), the head of each shard its events' names fall in: for every
// distinct tag and every distinct type, the shard of the name's FNV-1a
// hash (tags and types hashed apart) modulo headShards; and the head of
// anyShard, which every append rewrites. It writes all of them in one
// stripe of headStripes, the one its transaction's read version hashes to
// (stripeOf): a name that every append carries (an event type of a
// one-type store, a tenant tag) has each of its heads written by one
// transaction in headStripes.
//
// A subscriber watches, in every stripe, the shards an append matching its
// query must write:
//
//   - an item with tags: the shard of one of its tags (the first, sorted),
//     since a matching event carries every tag of the item;
//   - an item with types only: the shards of its types;
//   - [All], or a query needing more than maxWatchedShards shards: anyShard.
//
// So an append wakes a subscriber only if it may match its query: it
// carries a name in one of the subscriber's shards (by hash collision, a
// name other than the one watched) or the subscriber watches anyShard.
const (
	headShards  = 256
	headStripes = 1 << stripeBits
	// anyShard is the shard every append writes, in its stripe.
	anyShard = -1
	// maxWatchedShards bounds a subscriber's watches at
	// maxWatchedShards·headStripes; a query needing more shards watches
	// anyShard (headStripes watches) and wakes on every append.
	maxWatchedShards = 8
	// maxHeadSuffixLen bounds a head key's length past ns/"h": two tuple
	// integers of at most 2 bytes each (-1, 0 to 255, 0 to 7).
	maxHeadSuffixLen = 4
)

// Hash domains: a tag and a type of the same spelling fall in shards
// drawn independently.
const (
	domainTag  = 't'
	domainType = 'y'
)

// nameShard is the shard of a tag's or a type's heads: FNV-1a (32-bit)
// of the domain byte then the name, modulo headShards. It is part of the
// stored format: changing it would make subscribers watch shards that
// appenders of another version do not write.
func nameShard(domain byte, name string) int {
	const offset, prime = 2166136261, 16777619
	h := uint32(offset)
	h = (h ^ uint32(domain)) * prime
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * prime
	}
	return int(h % headShards)
}

// eventShards is the shards of an event's type and (normalized) tags,
// anyShard not included; an append writes their union.
func eventShards(typ string, tags []string) []int {
	out := make([]int, 0, 1+len(tags))
	out = append(out, nameShard(domainType, typ))
	for _, t := range tags {
		out = append(out, nameShard(domainTag, t))
	}
	return out
}

// writeHeads rewrites the heads of evs, appended by a transaction of
// read version rv.
func (s *Store) writeHeads(tr fdb.Transaction, evs []pendingEvent, rv int64) {
	stripe := stripeOf(rv)
	var shards []int
	for _, e := range evs {
		shards = append(shards, e.shards...)
	}
	slices.Sort(shards)
	for _, sh := range append([]int{anyShard}, slices.Compact(shards)...) {
		tr.SetVersionstampedValue(s.k.headKey(sh, stripe), headValue())
	}
}

// watchedShards is the shards whose heads (in every stripe) an append
// matching q rewrites at least one of; q is valid (plan accepted it). An
// empty list means q matches no event.
func watchedShards(q Query) []int {
	if q.all {
		return []int{anyShard}
	}
	var out []int
	for _, it := range q.Items {
		tags := normalTags(it.Tags)
		switch {
		case len(tags) > MaxTags || slices.ContainsFunc(tags, func(t string) bool { return len(t) > MaxTagBytes }):
			// Matches no event (plan reads no range for it).
		case len(tags) > 0:
			out = append(out, nameShard(domainTag, tags[0]))
		default:
			for _, t := range it.Types {
				out = append(out, nameShard(domainType, t))
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > maxWatchedShards {
		return []int{anyShard}
	}
	return out
}

// headKeys is the keys of shards in every stripe.
func (k *keys) headKeys(shards []int) []fdb.Key {
	out := make([]fdb.Key, 0, len(shards)*headStripes)
	for _, sh := range shards {
		for st := range headStripes {
			out = append(out, k.headKey(sh, st))
		}
	}
	return out
}

// HeadKeys returns the keys to watch to learn of appends that may match
// q: every append an event of which matches q rewrites at least one of
// them, with a versionstamped value. A watch on each, set in a
// transaction that also reads what the consumer has not seen, fires after
// the next such append: one committed before the read is in the read.
// Appends that do not match q may fire them too (heads are shared by
// hash, heads.go), never the reverse. [Store.Subscribe] watches them; use
// them to wake a consumer of your own.
//
// An item with tags is watched through one of its tags and an item with
// types only through its types; [All], or a query that would need more
// than 64 keys, through keys that every append rewrites. A query that
// matches no event (an item with more than [MaxTags] tags, say) has none.
// HeadKeys returns an error wrapping [ErrInvalidQuery] for an invalid q.
func (s *Store) HeadKeys(q Query) ([]fdb.Key, error) {
	if _, err := s.k.plan(q); err != nil {
		return nil, err
	}
	return s.k.headKeys(watchedShards(q)), nil
}
