// data_dir.h: a durable database's data directory: its files, and how
// SQLite's and the file system's failures read as FDB error codes.
//
//   <dir>/LOCK            flock'ed by the process that has the directory open
//   <dir>/fdblite.sqlite  the committed state (durable.h), with SQLite's
//                         -wal and -shm files beside it
#ifndef FDBLITE_DATA_DIR_H_
#define FDBLITE_DATA_DIR_H_

#include <sqlite3.h>

#include <string>

namespace fdblite {

inline constexpr char kLockFile[] = "LOCK";
inline constexpr char kDbFile[] = "fdblite.sqlite";

// CodeForErrno maps a failed file-system call to an FDB error code.
int CodeForErrno(int e);

// CodeForSqlite maps an SQLite result code to an FDB error code.
int CodeForSqlite(int rc);

// Why spells out an SQLite failure for an operator.
std::string Why(sqlite3* db, int rc, const char* what);

// CopyDataDir writes to dst a consistent copy of the durable database in
// src, which may be open and serving in this or another process: the
// copy holds exactly the commits that were durable at one moment, and
// opening dst as a data directory recovers them (fdblite_copy_data_dir,
// c_api.cpp, is its C entry point). dst must not exist or be an empty
// directory; the copy appears there as fdblite.sqlite only once it is
// whole and synced, so a copy cut short leaves no database in dst. It
// returns 0 or an FDB error code, with *detail saying why.
int CopyDataDir(const std::string& src, const std::string& dst, std::string* detail);

}  // namespace fdblite

#endif  // FDBLITE_DATA_DIR_H_
