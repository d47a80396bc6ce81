// Package bench holds fdblite's benchmarks, run through the official Go
// bindings exactly as fdyno uses them: `make bench` at the repository root
// runs them and docs/benchmarks.md records the figures.
//
// Each benchmark reports its rate as a custom metric (txn/s, commits/s, ...)
// beside ns/op. BenchmarkMemoryPerKey reports the bytes fdblite holds per key
// beyond the key and value bytes, from the heap_bytes counter of the
// \xff\xff/fdblite/stats special key.
//
// The benchmarks need fdblite: they open named in-memory databases through
// [github.com/fdyno/fdyno/fdblite/fdblitetest.OpenDatabase], so they do not
// run against a real cluster.
package bench
