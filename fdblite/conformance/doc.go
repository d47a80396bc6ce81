// Package conformance tests fdblite, our in-process implementation of
// FoundationDB's C client API, through the UNCHANGED official Go bindings
// (fdb, tuple, subspace and directory packages).
//
// Every expected value in these tests comes from FoundationDB's documented
// behaviour (its developer guide and API reference), never from fdblite's
// own output. When a test fails, fdblite deviates from FoundationDB: fix
// fdblite, not the test.
//
// The tests are also valid against a real FoundationDB cluster: they select
// API version 730 once, open the default database, and isolate each test by
// its own key prefix (tuple ("fdblite-conformance", test name)) or directory,
// which they clear before and after use. Tests that need fdblite-only
// features (named in-memory databases and fault injection through the special
// key \xff\xff/fdblite/faults) skip themselves when
// FDB_CONFORMANCE_REAL_CLUSTER is set:
//
//	FDB_CONFORMANCE_REAL_CLUSTER=1 go test ./fdblite/conformance/
//
// Against fdblite (from the repository root):
//
//	make -C fdblite lib
//	CGO_CFLAGS=-I$PWD/fdblite/include \
//	CGO_LDFLAGS="-L$PWD/fdblite/build/lib -Wl,-rpath,$PWD/fdblite/build/lib" \
//	go test -race ./fdblite/conformance/
//
// The randomized differential test (TestModel_SerializableRYW) writes rapid
// failfiles to testdata/rapid; replay one with -rapid.failfile=<path>.
package conformance
