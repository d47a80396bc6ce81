// Package tree is hierarchical storage on an fdyno table: objects live at
// paths (Accounts/123456/Links/xyzpdq), a Get of a full path is one point
// read, and listing a directory's children is one range read. It is the
// model of dynamotree (github.com/crewjam/dynamotree), in exactly its
// table layout, so a table written by dynamotree (through fdyno-server, or
// on DynamoDB and copied) and one written by this package are the same
// rows, and each reads the other's; but every change here is one
// FoundationDB transaction, and listings never lie.
//
// # Quick start
//
//	tbl, err := fdyno.Open(db, "Links", fdyno.WithSchema(tree.TableSchema()))
//	links, err := tree.Open(db, tbl, tree.Options{})
//	err = links.Put(db, tree.Path{"Accounts", "123456", "Links", "xyzpdq"},
//		fdyno.Item{"LinkTarget": fdyno.S("http://example.com/")})
//	err = links.PutLink(db, tree.Path{"Links", "xyzpdq"}, tree.Path{"Accounts", "123456", "Links", "xyzpdq"})
//	item, err := links.Get(db, tree.Path{"Links", "xyzpdq"}) // follows the link
//	page, err := links.List(db, tree.Path{"Accounts"}, tree.ListInput{})
//	for e, err := range links.Walk(ctx, db, tree.Path{}) { … }
//
// # Layout
//
// The table has hash key Key (S) and range key Child (S) ([TableSchema]).
// With the reserved character R (default "¦", [Options].Reserved), the
// object at A/B/C is the row Key=RARBRC, Child=R holding its attributes,
// and each prefix lists the next component: Key=R Child=A, Key=RAR Child=B,
// Key=RARBR Child=C. A symbolic link is an object row whose attribute R
// holds the target's key (RTRU for T/U). No component may contain R, be
// empty or not be UTF-8, no attribute name may start with R or be Key or
// Child, and a path's key with one more R must fit DynamoDB's 2048 bytes
// (a component its 1024): anything else is a [*PathError] or [*ItemError],
// matching [fdyno.ErrValidation], and nothing is written.
//
// # Transactions
//
// Every method takes the caller's transaction or a database, like fdyno's
// Table: pass an fdb.Transaction and the tree's reads and writes join it;
// pass the database and the method runs (and retries) its own, with
// automatic_idempotency as [fdyno.Transact] sets it, so a commit reported
// as commit_unknown_result is not applied twice. A write
// validates everything and does all its reads before its first write, so
// an error leaves a caller's transaction as it was.
//
// # Listings are exact
//
// After every committed change:
//
//  1. every object is listed in each of its ancestors;
//  2. every listing row has an object or a listing row beneath it.
//
// A Put writes the object and the listing rows of its path that are
// missing, together. A Delete removes the object, then p's listing row
// only if nothing remains under p, then each ancestor's row whose
// ancestor is no object and lists nothing else. DeleteTree and Move do
// the same for a whole subtree, in one transaction bounded by
// [Options].MaxRows and MaxBytes (defaults 10,000 rows and 5 MB, inside
// FoundationDB's 10 MB and 5 seconds); past them they write nothing and
// return a [*TooLargeError].
//
// # Conflicts
//
// A Put (and PutLink, and Move for its destination) reads, in one wave,
// the listing row of each prefix of its path and, on a tree with watch
// counters, the object row of each proper ancestor, all for conflicts,
// and writes only the listing rows it found missing. So a Put into
// existing directories writes its object row alone, and two such Puts
// never conflict, under one directory or anywhere (reads do not conflict
// with reads). A Put conflicts with a concurrent commit that writes:
//
//  1. a listing row of its path: a Delete (DeleteTree, Move) that removes
//     it because it empties that directory, whichever commits first (the
//     Delete reads the emptied listing whole, the Put the row), so the
//     retry lists the path again; or another Put (or Move) that creates
//     the same row, so of two Puts creating one directory one retries and
//     finds it;
//  2. with watch counters, an ancestor's object row (a Put, Delete or
//     Move of the ancestor): whether the ancestor is an object decides
//     which counters the Put adds to (# Watch).
//
// A Delete (and DeleteTree and Move, for each path they remove) reads,
// and so conflicts with a concurrent commit that writes:
//
//  1. the object row of each path it removes or examines: p itself, and
//     each ancestor whose listing row it considers removing;
//  2. each directory it empties: its whole listing, so any write into it,
//     a Put under it included;
//  3. in the first directory it leaves in place, one child other than the
//     one it removes (found with a snapshot read), so only a concurrent
//     removal of that child; with watch counters, also in an object's
//     directory it leaves, so of two Deletes that empty it together one
//     retries and counts its change of kind.
//
// Writes into a directory the Delete does not empty never conflict with
// it. TestConflictRule checks each case with FoundationDB's count of
// conflicts.
//
// # Links
//
// Get follows symbolic links, at most [Options].MaxLinks of them
// ([DefaultMaxLinks], 16); a chain that returns to a path it visited is a
// [*LinkError] wrapping [ErrLinkCycle], a longer one [ErrTooManyLinks].
// Moving an object does not rewrite the links to it.
//
// # Watch
//
// With [Options].Watch set, a change adds one (an atomic add, which
// conflicts with nothing) to the counter of each directory whose listing
// it changes: an entry added or removed, an entry's object or link written
// or removed, or an entry's kind changed (an object gaining its first
// child or losing its last). No other counter: a write deep in the tree
// touches no ancestor's counter unless it adds or removes that
// ancestor's entries, so the root's counter changes only with the root's
// listing, not with the tree's traffic. [Tree.Watch] waits on one
// directory's counter with a FoundationDB watch: no polling, resumable
// from a token, at least once. A watch on a directory says nothing about
// changes further down (watch the subdirectory for those). Writes that
// bypass the package (a dynamotree client through fdyno-server) change no
// counter.
//
// # Round trips
//
// Put and PutLink: one read version, one wave of point reads (the rows
// above) and one commit. Get: one read version and one read, plus one per
// link followed. List page: one read version, one range read of the
// listing, then one wave: every child's object row and the first row of
// its own listing, read together with fdyno.QueryBatch
// ([ListInput].NamesOnly skips that wave). Delete: one read
// version, a read of its object row, two reads per directory it examines
// (a snapshot read of the listing, then the read its conflicts need) and
// one per ancestor (its object row), one after another, and one commit;
// with watch counters, two more for the object ancestor it stops at, if
// any (whether it keeps a child).
//
// # Differences from dynamotree
//
//   - Writes are one transaction, not BatchWriteItem: no half-written path.
//   - Delete keeps a path's listing row while something remains under it
//     and removes emptied directories; dynamotree removes the row always
//     and directories never.
//   - Link chains are bounded and cycles reported.
//   - The root directory's key is R alone, as dynamotree's Put writes it
//     (its List and Delete of a one-component path use RR, which its Put
//     never writes).
//   - Get returns the attributes without Key and Child.
package tree
