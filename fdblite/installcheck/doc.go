// Package installcheck tests fdblite's `make install` (the root Makefile's
// install-fdblite) into temporary directories: the layout under
// PREFIX/lib/fdblite/, the pkg-config file and the cgo flags it prints, that
// nothing lands where it would take the place of FoundationDB's own client,
// and that it never overwrites a libfdb_c that is not fdblite's.
//
// The tests need make, nm and fdblite's built library
// (fdblite/build/lib/libfdb_c.so, from `make fdblite`); the compile check
// also needs cc and pkg-config. It has no code of its own.
package installcheck
