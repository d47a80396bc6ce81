package conformance

// #cgo LDFLAGS: -lfdb_c
// #define FDB_API_VERSION 730
// #include <foundationdb/fdb_c.h>
import "C"

import "github.com/apple/foundationdb/bindings/go/src/fdb"

// mainThreadBusyness returns fdb_database_get_main_thread_busyness, which
// the Go bindings do not wrap, read through a handle of its own on the
// default database. The network thread must already run (any fdb.Open*
// starts it). The figure belongs to the process's network thread, so any
// handle reports it.
func mainThreadBusyness() (float64, error) {
	var d *C.FDBDatabase
	if err := C.fdb_create_database(nil, &d); err != 0 {
		return 0, fdb.Error{Code: int(err)}
	}
	defer C.fdb_database_destroy(d)
	return float64(C.fdb_database_get_main_thread_busyness(d)), nil
}
