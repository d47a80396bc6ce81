// durable.h: the on-disk home of a durable database's committed state.
//
// A durable database keeps its committed state in a data directory, through
// SQLite (a proven embedded engine: WAL journal, synchronous=FULL), in
// format 2 (docs/durable-disk.md):
//
//   <dir>/LOCK            flock'ed by the process that has the directory open
//   <dir>/fdblite.sqlite  table kv(k UNIQUE, v): every key and its value at
//                         the applied version A (a rowid table: values up to
//                         ~4 KB stay in the table's pages; WITHOUT ROWID put
//                         rows over ~1 KB on overflow pages, 4x the disk
//                         bytes);
//                         table log(version PRIMARY KEY, ops): one row per
//                         durable commit newer than A, its resolved writes;
//                         table meta: 'format' = 2, 'version' = A
//   <dir>/fdblite.sqlite-wal, -shm   SQLite's write-ahead log and its index
//
// Memory (the store's overlay, store.h) holds what a read inside the MVCC
// window needs beyond kv; reads of everything else go to kv (disk_reader.h).
//
// Invariants:
//   1. A commit's mutations, resolved (atomic operations applied,
//      versionstamps filled in), reach the engine in one SQLite transaction
//      together with its version, as one log row: on disk a commit is whole
//      or absent.
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
//   5. The apply step: the group that carries a commit whose horizon (the
//      database's read horizon when it committed: no read may use a version
//      below it) is above A also applies, in the same SQLite transaction,
//      every log row at or below that horizon to kv, deletes them, and sets
//      A (a group applies at most a few MB, oldest rows first, so A may
//      stay below the horizon for a few groups). kv thus changes only at
//      versions no read can use any more, and a crash leaves the log rows
//      and the kv they were applied to together. Open reads the log back
//      into memory (O(window), not O(data)) and writes nothing.
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
  Version applied_version = 0;  // A: kv holds the state at this version
  uint64_t recovered_commits = 0;  // log rows replayed at open
  double open_seconds = 0;         // opening and recovering the directory
  int error = 0;          // the failure code once failed, else 0
  std::string error_detail;
};

class DurableLog {
 public:
  // ReplayFn receives one durable commit not yet applied to kv.
  using ReplayFn = std::function<void(Version, const std::vector<DurableOp>&)>;
  // Open opens (creating it if absent) the data directory `dir`, locks it,
  // opens its engine (upgrading a format-1 directory to format 2) and
  // recovers: it passes every log row, in version order, to replay (the
  // database puts them back in its overlay; later groups apply them to kv).
  // *version is the newest durable version (0 for a new directory).
  // The writer connection's page cache is cache_bytes. On failure it
  // returns an FDB error code (file_lock_failed 1529, file_not_writable
  // 1514, file_not_readable 1513, file_corrupt 1522, io_error 1510) and says
  // why in *detail.
  static int Open(const std::string& dir, int64_t cache_bytes, const ReplayFn& replay,
                  std::unique_ptr<DurableLog>* out, Version* version,
                  std::string* detail);
  // DbPath is the SQLite file readers open (disk_reader.h).
  std::string DbPath() const;
  // The destructor makes everything appended durable, checkpoints the WAL
  // into the database file, and releases the directory.
  ~DurableLog();
  DurableLog(const DurableLog&) = delete;
  DurableLog& operator=(const DurableLog&) = delete;

  // Append queues the commit at version v (greater than every version
  // appended before) and returns its ticket for Wait. horizon is the read
  // horizon when it committed (invariant 5), non-decreasing. catch_up says
  // that memory is over the window's budget: the group that carries the
  // commit then applies megabytes of log, not kilobytes (WriteGroup).
  uint64_t Append(Version v, Version horizon, std::vector<DurableOp> ops,
                  bool catch_up = false);
  // Fail fails the log for good with code (invariant 3), as a failed write
  // does: a read of the engine that failed inside a commit calls it.
  void Fail(int code, const std::string& detail);
  // AppliedVersion is A: kv holds every commit at or below it, durably.
  Version AppliedVersion();
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
    Version horizon;
    std::vector<DurableOp> ops;
    bool catch_up;
  };
  // Apply applies the log rows at or below h to kv, oldest first, whole
  // rows, stopping once `budget` bytes of them are applied; deletes them
  // and sets meta's version to *applied_to, the version up to which every
  // row is applied (h when all were), inside the caller's SQLite
  // transaction; *rows counts them. 0 or an error code, with *detail.
  int Apply(Version h, size_t budget, Version* applied_to, uint64_t* rows,
            std::string* detail);
  // LeadLocked writes everything queued as one group, with mu_ released
  // meanwhile. REQUIRES: mu_ held via lock, !writing_.
  void LeadLocked(std::unique_lock<std::mutex>& lock);
  // WriteGroup writes one group in one SQLite transaction; 0 or an error
  // code, with *detail.
  // *applied is A before and, once the group is durable, after it.
  int WriteGroup(const std::vector<Pending>& group, Version* applied,
                 std::string* detail);
  // SetCacheBytes sets the writer connection's page cache.
  void SetCacheBytes(int64_t bytes);
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
  Version applied_version_ = 0;      // GUARDED_BY(mu_); the leader's once written
  int error_ = 0;                    // GUARDED_BY(mu_)
  std::string error_detail_;         // GUARDED_BY(mu_)
  bool writing_ = false;             // GUARDED_BY(mu_): a leader is writing
  DurableStats stats_;               // GUARDED_BY(mu_)
};

// EncodeOps and DecodeOps are a log row's ops blob: per op its kind byte,
// then the key and the param, each as a varint length and the bytes.
// DecodeOps returns false on a malformed blob (file_corrupt).
std::string EncodeOps(const std::vector<DurableOp>& ops);
bool DecodeOps(std::string_view blob, std::vector<DurableOp>* ops);

// For failure-injection tests, the environment variable
// FDBLITE_DURABLE_MAX_PAGES=N (read at Open) caps the SQLite database at N
// pages (SQLite's max_page_count): once it is that large, writes fail with
// SQLITE_FULL exactly as on a full disk. For crash tests,
// FDBLITE_DURABLE_WINDOW_US=N (read when the database opens) shortens its
// MVCC window to N versions (microseconds), so the apply step runs every
// few milliseconds and kills land in it; reads older than that are
// transaction_too_old.

}  // namespace fdblite

#endif  // FDBLITE_DURABLE_H_
