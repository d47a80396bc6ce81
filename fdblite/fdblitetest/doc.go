// Package fdblitetest helps Go tests run against fdblite, fdyno's in-process
// implementation of the FoundationDB C API, and turn on its fault injection.
//
// Every test in this module links fdblite (the root Makefile points cgo at
// fdblite/build), so the official bindings talk to an in-memory database that
// lives in the test process. Tests in one package share that process and
// therefore its default database.
//
// # Isolation on the shared default database
//
// [Open] selects API version [APIVersion] and opens the default database.
// [UniquePrefix] and [UniqueDirectory] give a test its own part of the
// keyspace and clear it when the test ends, so parallel tests do not see each
// other's keys.
//
// # Separate databases
//
// fdblite reads the cluster file given to fdb.OpenDatabase as FoundationDB
// does, and also takes a name of the form "fdblite-memory:<name>" (as a path
// or a connection string) for an in-memory database: the same name in one
// process opens the same data, a different name a different, initially
// empty database. [OpenDatabase] opens the database called [DatabasePrefix]+name;
// [OpenIsolated] opens one named after the test and empties it at cleanup.
// On a real FoundationDB cluster these names are not cluster files, so tests
// that need them are fdblite-only.
//
// # Durable databases
//
// [OpenDir] opens a durable database kept in a directory (the name
// [DataDirPrefix]+dir): commits survive the process. A directory is open in
// one process at a time, and a process keeps it open until it exits, so
// tests of durability run the writer in a child process and reopen the
// directory in another (see fdblite/crashtest).
//
// # Fault injection
//
// Faults are configured per database, so a test that injects faults opens its
// own database with [OpenIsolated] (or [OpenDatabase]) and leaves the default
// database alone:
//
//	func TestCounterUnderFaults(t *testing.T) {
//		db := fdblitetest.OpenIsolated(t)
//		if err := fdblitetest.SetFaults(db, fdblitetest.Faults{
//			Seed:                1,
//			ReadTooOld:          0.01,
//			CommitNotCommitted:  0.05,
//			CommitUnknownResult: 0.05,
//		}); err != nil {
//			t.Fatal(err)
//		}
//		// ... run transactions through db.Transact and assert invariants ...
//		st, err := fdblitetest.ReadStats(db)
//		if err != nil {
//			t.Fatal(err)
//		}
//		t.Logf("injected: %+v", st.Injected)
//	}
//
// [OpenFaulty] does the same in one call ([InjectFaults] for a database
// already open), logging the injected counts when the test ends, and
// [RetryableFaults] is the configuration fdyno's own fault tests share.
//
// The injected errors are FoundationDB's retryable codes, so fdb.Database's
// Transact retries them like real cluster failures. Two of them deserve care:
//
//  1. commit_unknown_result (1021) is injected AFTER the commit really
//     applied. A transaction body that is not idempotent (an atomic add, an
//     append) runs twice when Transact retries it. That is exactly the
//     behaviour of a real cluster, and what the fault exists to expose.
//  2. A transaction that set the automatic_idempotency option
//     (fdb.TransactionOptions.SetAutomaticIdempotency, code 505) never sees an
//     injected 1021 for a commit that applied: its commit succeeds.
//
// [Idempotent] wraps a database so that every transaction it runs sets
// automatic_idempotency.
//
// Under faults, assert invariants (no lost update, counters equal the number
// of acknowledged increments or more), not exact outcomes.
//
// # Round trips and the latency model
//
// fdblite counts the network round trips a FoundationDB client would make:
// read-version requests, waves of reads in flight together, and commits
// sent to the cluster. [CountRoundTrips] returns those of one call on a
// database of the test's own, [TransactionRoundTrips] those of a
// transaction so far; assert them to keep an operation at its minimum
// round trips, whatever the machine's speed.
//
// [SetLatency] (or the [LatencyEnv] environment variable, for every
// database of a process) makes each round trip take time, as on a cluster:
// [DefaultLatency] is FoundationDB's published typical latency. Futures then
// complete on the network thread once their delay has passed, so reads
// issued together overlap and reads issued one after another add up. Use it
// in benchmarks; tests assert counts, not timings.
//
// # The contract with fdblite
//
// The configuration lives in FoundationDB's special-key space, so it goes
// through the ordinary C API and needs no fdblite-only entry point:
//
//   - [FaultsKey] (`\xff\xff/fdblite/faults`) is written in a transaction with
//     option special_key_space_enable_writes (714). Its value is the
//     space-separated string of [Faults.String]; an empty value, or clearing
//     the key, turns faults off. Reading it returns the canonical
//     configuration.
//   - [StatsKey] (`\xff\xff/fdblite/stats`) reads as a JSON object, decoded
//     into [Stats].
//   - [LatencyKey] (`\xff\xff/fdblite/latency`) is written like [FaultsKey];
//     its value is the string of [Latency.String] ("" is off).
package fdblitetest
