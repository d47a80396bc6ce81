// data_dir.cpp: see data_dir.h.
#include "data_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "errors.h"

namespace fdblite {

int CodeForErrno(int e) {
  switch (e) {
    case EACCES:
    case EPERM:
    case EROFS:
      return kFileNotWritable;
    default:
      return kIoError;
  }
}

int CodeForSqlite(int rc) {
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
      return kFileCorrupt;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return kFileNotWritable;
    case SQLITE_CANTOPEN:
      return kFileNotReadable;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return kLockFileFailure;
    default:  // SQLITE_FULL, SQLITE_IOERR and the rest
      return kIoError;
  }
}

std::string Why(sqlite3* db, int rc, const char* what) {
  std::string s = what;
  s += ": ";
  s += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if ((rc & 0xff) == SQLITE_FULL) s += " (the disk is full, or the database reached its size limit)";
  char buf[32];
  std::snprintf(buf, sizeof buf, " [sqlite %d]", rc);
  return s + buf;
}

namespace {

// Connection closes an SQLite connection when it goes out of scope.
struct Connection {
  sqlite3* db = nullptr;
  ~Connection() { sqlite3_close_v2(db); }
};

// SyncPath fsyncs a file or a directory.
int SyncPath(const std::string& path, std::string* detail) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    int e = errno;
    if (fd >= 0) ::close(fd);
    *detail = "sync " + path + ": " + std::strerror(e);
    return CodeForErrno(e);
  }
  ::close(fd);
  return 0;
}

}  // namespace

int CopyDataDir(const std::string& src, const std::string& dst, std::string* detail) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string src_db = src + "/" + kDbFile;
  if (!fs::is_regular_file(src_db, ec)) {
    *detail = src + " is not a durable fdblite data directory (no " + kDbFile + ")";
    return kFileNotReadable;
  }
  if (fs::equivalent(src, dst, ec)) {
    *detail = "the copy cannot be written into the directory it copies";
    return kFileNotWritable;
  }
  if (fs::exists(dst, ec) && !(fs::is_directory(dst, ec) && fs::is_empty(dst, ec))) {
    *detail = dst + " exists and is not an empty directory";
    return kFileNotWritable;
  }
  fs::create_directories(dst, ec);
  if (ec) {
    *detail = "create " + dst + ": " + ec.message();
    return CodeForErrno(ec.value());
  }

  // The source is opened read-only, beside the process serving it: in WAL
  // mode its commits go on while the copy reads one snapshot.
  Connection from;
  int rc = sqlite3_open_v2(src_db.c_str(), &from.db, SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) {
    *detail = Why(from.db, rc, ("open " + src_db).c_str());
    return CodeForSqlite(rc);
  }
  sqlite3_busy_timeout(from.db, 5000);
  // A file that is SQLite's but not fdblite's has no meta table: say so
  // rather than copy it.
  rc = sqlite3_exec(from.db, "SELECT value FROM meta WHERE name = 'format'", nullptr, nullptr,
                    nullptr);
  if (rc != SQLITE_OK) {
    *detail = Why(from.db, rc, (src_db + " is not an fdblite database").c_str());
    return rc == SQLITE_ERROR ? kFileCorrupt : CodeForSqlite(rc);
  }

  // The copy is written under a name fdblite never opens, and renamed once
  // it is whole and synced.
  const std::string partial = dst + "/" + kDbFile + ".partial";
  const std::string final_path = dst + "/" + kDbFile;
  struct Unfinished {  // removes the partial copy unless it was renamed
    const std::string& path;
    bool done = false;
    ~Unfinished() {
      if (!done) {
        ::unlink(path.c_str());
        ::unlink((path + "-journal").c_str());
      }
    }
  } unfinished{partial};
  Connection to;
  rc = sqlite3_open_v2(partial.c_str(), &to.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                       nullptr);
  if (rc != SQLITE_OK) {
    *detail = Why(to.db, rc, ("create " + partial).c_str());
    return CodeForSqlite(rc);
  }
  // SQLite's online backup copies every page in one step, inside one read
  // transaction of the source: one snapshot, whatever commits meanwhile.
  sqlite3_backup* b = sqlite3_backup_init(to.db, "main", from.db, "main");
  if (b == nullptr) {
    rc = sqlite3_errcode(to.db);
    *detail = Why(to.db, rc, "start the copy");
    return CodeForSqlite(rc);
  }
  rc = sqlite3_backup_step(b, -1);
  int finish = sqlite3_backup_finish(b);
  if (rc != SQLITE_DONE || finish != SQLITE_OK) {
    if (rc == SQLITE_DONE) rc = finish;
    *detail = Why(to.db, rc, ("copy " + src_db).c_str());
    return CodeForSqlite(rc);
  }
  if (sqlite3_close_v2(to.db) != SQLITE_OK) {
    *detail = "close " + partial;
    return kIoError;
  }
  to.db = nullptr;
  if (int e = SyncPath(partial, detail)) return e;
  if (::rename(partial.c_str(), final_path.c_str()) != 0) {
    int e = errno;
    *detail = "rename " + partial + ": " + std::strerror(e);
    return CodeForErrno(e);
  }
  unfinished.done = true;
  return SyncPath(dst, detail);
}

}  // namespace fdblite
