// Package crashtest checks fdblite's durable mode against crashes: its test
// runs a writer of random transactions in a child process on a durable
// database, kills it with SIGKILL at random moments many times, and after
// each kill reopens the directory and checks that every acknowledged commit
// survived, that no unacknowledged commit is partly visible, and that
// versions and versionstamps keep increasing across restarts. Every other
// writer runs with a 20 ms MVCC window (FDBLITE_DURABLE_WINDOW_US), so its
// commits also copy the log into the key table every few milliseconds and
// kills land in that step; the others' logs are copied by the next open,
// and kills before READY land in that recovery.
//
// `make test` runs a few dozen kills; a soak run sets the count:
//
//	FDBLITE_CRASH_ROUNDS=2000 go test -run TestCrashRecovery ./fdblite/crashtest
//
// Each run logs the seed of its kill moments; a failing run is replayed
// with the same seed:
//
//	FDBLITE_CRASH_SEED=<seed> go test -run TestCrashRecovery ./fdblite/crashtest
package crashtest
