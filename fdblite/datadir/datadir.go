// Package datadir copies a durable fdblite database while it serves.
//
// A durable fdblite database (opened as "fdblite-dir:" + dir) keeps every
// acknowledged commit in dir. [Copy] writes a consistent copy of it to
// another directory, from this process or any other, while the database
// goes on committing: the copy holds exactly the commits that were
// durable at one moment. Opening the copy as a data directory (or pointing
// fdyno-server's --data-dir at it) recovers them.
//
// Copy needs fdblite's libfdb_c. On FoundationDB's own client it returns
// [ErrNotFdblite]: a cluster's data is backed up by FoundationDB's backup
// (fdbbackup), which this package does not replace.
package datadir

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef int (*copy_fn)(const char*, const char*, char*, int);

// lookup finds fdblite's copy among the libraries the process has loaded
// (libfdb_c is, through the bindings); NULL on FoundationDB's client.
static copy_fn lookup(void) { return (copy_fn)dlsym(RTLD_DEFAULT, "fdblite_copy_data_dir"); }

static int call(copy_fn f, const char* src, const char* dst, char* detail, int n) {
	return f(src, dst, detail, n);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"path/filepath"
	"unsafe"

	"github.com/apple/foundationdb/bindings/go/src/fdb"
)

// ErrNotFdblite is returned by [Copy] when the process runs on a
// FoundationDB client library other than fdblite's.
var ErrNotFdblite = errors.New("datadir: the FoundationDB client library is not fdblite's; back up a cluster with FoundationDB's backup")

// Copy writes to dst a consistent copy of the durable database in src.
// The database may be open meanwhile, in this process or another, and
// keeps committing: the copy reads one snapshot of what was durable and
// does not block commits (while it runs, SQLite's write-ahead log grows
// instead of being folded into the database file).
//
// dst must not exist or be an empty directory. The database file appears
// in dst only once it is whole and on disk, so a copy cut short (an
// error, a crash) leaves no database there. Errors wrap an [fdb.Error]:
// 1513 (file_not_readable) when src holds no durable database, 1514
// (file_not_writable) when dst is not empty or cannot be written, 1522
// (file_corrupt) when src's file is not fdblite's.
func Copy(src, dst string) error {
	f := C.lookup()
	if f == nil {
		return ErrNotFdblite
	}
	var err error
	if src, err = filepath.Abs(src); err != nil {
		return fmt.Errorf("datadir: %w", err)
	}
	if dst, err = filepath.Abs(dst); err != nil {
		return fmt.Errorf("datadir: %w", err)
	}
	cs, cd := C.CString(src), C.CString(dst)
	defer C.free(unsafe.Pointer(cs))
	defer C.free(unsafe.Pointer(cd))
	var detail [512]C.char
	if code := C.call(f, cs, cd, &detail[0], C.int(len(detail))); code != 0 {
		return fmt.Errorf("datadir: copy %s to %s: %s: %w", src, dst, C.GoString(&detail[0]), fdb.Error{Code: int(code)})
	}
	return nil
}
