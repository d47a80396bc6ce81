// Package dcb is an event store with Dynamic Consistency Boundaries (DCB,
// https://dcb.events) on FoundationDB.
//
// Events carry a type, tags and opaque data; each gets a [Position], the
// versionstamp of the transaction that appended it. A [Query] selects
// events by type and tags, and an append can be made conditional on no
// event matching a query having appeared since a position: the consistency
// boundary of one decision, drawn by the decision itself rather than by a
// stream or an aggregate.
//
// # Quick start
//
//	fdb.MustAPIVersion(730)
//	db := fdb.MustOpenDefault()
//	store, err := dcb.Open(db, subspace.Sub("events")) // or a directory
//
//	// Read what the decision depends on.
//	q := dcb.Items(dcb.QueryItem{Tags: []string{"course:c1"}})
//	var last dcb.Position
//	for e, err := range store.Read(db, q, dcb.ReadOptions{}) {
//		// fold e into the decision model
//		last = e.Position
//	}
//	// Append, unless an event matching q appeared after last.
//	a, err := store.Append(db, []dcb.Event{{Type: "StudentSubscribed", Tags: []string{"course:c1", "student:s1"}}},
//		&dcb.AppendCondition{FailIfEventsMatch: q, After: last})
//	if errors.Is(err, dcb.ErrAppendConditionFailed) { /* read again and decide again */ }
//
// # Queries
//
// A query is [All], or the union of [QueryItem]s ([Items]); an event
// matches an item if its type is one of the item's types (any type if the
// item names none) and its tags include all of the item's tags. Every item
// is answered by range reads, one per (item, type), each starting past
// ReadOptions.After: the types-only, tags-only and types-and-tags cases each
// have an index of their own (keys.go), so no query scans to discover
// anything. A read merges its ranges by position and returns each event
// once, even if it matches several items; it goes forwards or backwards,
// between After and Before, up to a Limit.
//
// # Transactions and retries
//
// Appends take an fdb.Transactor and reads an fdb.ReadTransactor. Given an
// fdb.Database (or an [fdyno.RetryLoop]), an operation runs its own
// transactions, as [fdyno.Transact] does (with automatic_idempotency for
// appends, so commit_unknown_result never doubles an event), and retries
// them on FoundationDB's retryable errors.
// Given an fdb.Transaction, it joins the caller's transaction: events then
// commit together with the caller's other writes, fdyno table writes
// included, or not at all (see Example_projection). [Store.AppendOnce]
// takes an idempotency key for retries FoundationDB cannot recognise.
//
// # Guarantees
//
//  1. Positions are unique and increase in commit order, and within a
//     transaction in append order; they have gaps. Their text form is
//     stable and sorts as they do.
//  2. An append is atomic: all of its events and index entries, or none.
//  3. A conditional append commits only if no event matching its query
//     exists after its After position at its commit. Its read conflict
//     ranges are exactly the index ranges its query reads from After on:
//     two appends conflict only if one writes an event the other's
//     condition matches; appends to disjoint boundaries never conflict,
//     however many run at once. A failed condition is an
//     [*AppendConditionError] naming the first matching position, and
//     writes nothing.
//  4. Reads are consistent within a transaction; [Store.Read] given a
//     database reads a page of events per transaction.
//  5. [Store.Subscribe] delivers matching events in position order,
//     exactly once, waiting on watches rather than polling; an append
//     wakes only the subscribers whose query it may match.
//
// # Subscriptions
//
// There is no head key that every append writes (one storage team would
// serve it, whatever the cluster's size). An append rewrites, with
// versionstamped values, a head for each distinct tag and type it carries
// (hashed into 256 shards) and an "any append" head, each in the one of 8
// stripes its transaction's read version picks. A subscription watches,
// in every stripe, the heads through which its query can match: one tag's
// per item with tags, the types' per item with types only, the "any
// append" heads for [All] (or a query of more than 8 shards).
// [Store.HeadKeys] returns them for consumers of one's own. An append
// wakes a subscription only if it may match its query (or, by hash
// collision, carries a name sharing a watched shard), and no head is
// written by more than about one transaction in 8.
//
// # Costs and limits
//
// An event with n distinct tags writes 2 + 2·(2ⁿ − 1) keys: the event, a
// type index entry, and two entries per non-empty subset of its tags
// (n = 3: 16 keys). [MaxTags] (8) caps n. An append also rewrites a head
// per shard of its events' distinct types and tags, and the "any append"
// head (one event with 3 tags: 5). A subscription holds 8 watches per
// watched tag or type, at most 64. A conditional append is one
// read version, one wave of reads and one commit; a read page is one read
// version and two waves (the index ranges, then the events), one wave for
// [All]; a page holding events larger than [EventPartBytes], which are
// stored in parts, reads their parts in one more wave. An event's
// encoding is limited to [MaxEventBytes] and an append's keys and values
// to [MaxAppendBytes], inside FoundationDB's 10 MB transaction limit;
// larger requests are refused before the transaction is touched. See
// docs/dcb.md.
//
// # Formats
//
// A store records its format. Stores written before sharded heads (format
// 1) are refused by [Open] with [ErrOldFormat] until [Upgrade] has run;
// run it once no process of an older version uses the store.
//
// # Differences from the DCB specification
//
// None in what it requires. Where it leaves room: positions are
// versionstamps (not consecutive numbers); an item with neither types nor
// tags is refused (use [All]); tags are a set and are returned sorted;
// ReadOptions add Before, Limit and Backwards.
package dcb
