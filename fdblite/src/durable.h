// durable.h: the on-disk home of a durable database's committed state.
//
// fdblite serves every database from its in-memory MVCC store (store.h). A
// durable database also keeps its committed state in a data directory,
// through SQLite (a proven embedded engine: WAL journal, synchronous=FULL):
//
//   <dir>/LOCK            flock'ed by the process that has the directory open
//   <dir>/fdblite.sqlite  table kv(k UNIQUE, v): every key and its latest
//                         value (a rowid table: values up to ~4 KB stay in
//                         the table's pages; WITHOUT ROWID put rows over
//                         ~1 KB on overflow pages, 4x the disk bytes);
//                         table meta: 'version' = the newest durable commit
//   <dir>/fdblite.sqlite-wal, -shm   SQLite's write-ahead log and its index
//
// Invariants:
//   1. A commit's mutations, resolved (atomic operations applied,
//      versionstamps filled in), reach the engine in one SQLite transaction
//      together with its version: on disk a commit is whole or absent.
//   2. Commits reach the engine in version order, and a commit is
//      acknowledged only after the SQLite transaction holding it is durable
//      (its WAL frames fsynced). Many commits share one SQLite transaction and
//      one fsync (group commit): committers wait in Wait, and whenever no
//      group is being written, one of them (the leader) takes everything
//      queued, including commits that arrived while the previous fsync
//      ran, and writes it for all; the others wait for it. No thread of its
//      own: a lone committer writes its commit itself, without a handoff.
//   3. Once a write fails (disk full, I/O error, the directory became
//      read-only), the log is failed for good: the failed group and every
//      later commit report the error and nothing more is written, so the
//      disk never holds a commit after a gap. Reopening (a new process)
//      recovers the durable prefix.
//   4. One process at a time: the LOCK file is flock'ed for the log's life;
//      a second opener gets file_lock_failed (1529).
//
// Thread safety: all methods are safe for concurrent use. Append must be
// called in version order (the database calls it under its store lock).
#ifndef FDBLITE_DURABLE_H_
#define FDBLITE_DURABLE_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "store.h"

struct sqlite3;

namespace fdblite {

// DurableOp is one resolved write of a commit, as it goes to disk.
struct DurableOp {
  enum Kind { kSet, kClear, kClearRange };
  Kind kind;
  std::string key;    // the key, or a clear range's begin
  std::string param;  // the value, or a clear range's end
};

// DurableStats describes the log for \xff\xff/fdblite/stats.
struct DurableStats {
  std::string dir;
  Version durable_version = 0;
  uint64_t commits = 0;   // commits made durable since open
  uint64_t groups = 0;    // SQLite transactions (fsyncs) that carried them
  uint64_t loaded_keys = 0;
  double load_seconds = 0;
  int error = 0;          // the failure code once failed, else 0
  std::string error_detail;
};

class DurableLog {
 public:
  // Open opens (creating it if absent) the data directory `dir`, locks it
  // and opens its engine. On failure it returns an FDB error code
  // (file_lock_failed 1529, file_not_writable 1514, file_not_readable 1513,
  // file_corrupt 1522, io_error 1510) and says why in *detail.
  static int Open(const std::string& dir, std::unique_ptr<DurableLog>* out,
                  std::string* detail);
  // Load calls fn for every stored key (in no particular order: the file's,
  // for one sequential pass) and returns the newest
  // durable version through *version (0 for a new directory). 0 or an error
  // code as for Open. Called once, before the first Append.
  int Load(const std::function<void(std::string_view, std::string_view)>& fn,
           Version* version, std::string* detail);
  // The destructor makes everything appended durable, checkpoints the WAL
  // into the database file, and releases the directory.
  ~DurableLog();
  DurableLog(const DurableLog&) = delete;
  DurableLog& operator=(const DurableLog&) = delete;

  // Append queues the commit at version v (greater than every version
  // appended before) and returns its ticket for Wait.
  uint64_t Append(Version v, std::vector<DurableOp> ops);
  // Wait blocks until the commit is durable (0) or the log failed (its code).
  int Wait(uint64_t ticket);
  // Error is 0 while the log works, else the code it failed with.
  int Error();
  // FirstPending reports whether some appended commit is not yet durable,
  // and the version of the oldest such commit.
  bool FirstPending(Version* v);
  // DurableVersion is the version of the newest durable commit.
  Version DurableVersion();
  DurableStats Stats();
  const std::string& dir() const { return dir_; }

 private:
  DurableLog() = default;
  struct Pending {
    uint64_t ticket;
    Version version;
    std::vector<DurableOp> ops;
  };
  // LeadLocked writes everything queued as one group, with mu_ released
  // meanwhile. REQUIRES: mu_ held via lock, !writing_.
  void LeadLocked(std::unique_lock<std::mutex>& lock);
  // WriteGroup writes one group in one SQLite transaction; 0 or an error
  // code, with *detail.
  int WriteGroup(const std::vector<Pending>& group, std::string* detail);
  // Exec runs sql; on failure *detail names `what` (default: the sql).
  int Exec(const char* sql, std::string* detail, const char* what = nullptr);

  std::string dir_;
  int lock_fd_ = -1;
  sqlite3* db_ = nullptr;  // used by Open/Load, then only by the leader (writing_)
  struct Statements;
  std::unique_ptr<Statements> stmts_;

  std::mutex mu_;
  std::condition_variable done_cv_;  // committers wait for durability or to lead
  std::deque<Pending> queue_;        // GUARDED_BY(mu_): appended, not yet taken
  std::deque<Version> inflight_;     // GUARDED_BY(mu_): appended, not yet durable
  uint64_t next_ticket_ = 1;         // GUARDED_BY(mu_)
  uint64_t durable_ticket_ = 0;      // GUARDED_BY(mu_)
  Version durable_version_ = 0;      // GUARDED_BY(mu_)
  int error_ = 0;                    // GUARDED_BY(mu_)
  std::string error_detail_;         // GUARDED_BY(mu_)
  bool writing_ = false;             // GUARDED_BY(mu_): a leader is writing
  DurableStats stats_;               // GUARDED_BY(mu_)
};

// For failure-injection tests, the environment variable
// FDBLITE_DURABLE_MAX_PAGES=N (read at Open) caps the SQLite database at N
// pages (SQLite's max_page_count): once it is that large, writes fail with
// SQLITE_FULL exactly as on a full disk.

}  // namespace fdblite

#endif  // FDBLITE_DURABLE_H_
