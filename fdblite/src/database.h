// database.h: one in-memory FoundationDB database, and its handles.
//
// Locking, written once for all of fdblite:
//   * Database::store_mu_ (reader/writer) guards the versioned store, the
//     conflict history and the pruning horizon. Reads hold it shared; a
//     commit holds it exclusive while it checks conflicts, picks its version
//     and applies its mutations, so a commit is atomic to every reader.
//   * Database::watch_mu_ guards the armed watches.
//   * Transaction::mu_ guards one transaction's state.
//   * Future::mu_ guards one future.
//   Lock order: Transaction::mu_ -> Database::store_mu_ ->
//   Database::watch_mu_ -> Future::mu_; the durable log's, the disk
//   reader's, the row cache's and the loop's locks are leaves (nothing else
//   is locked while one is held). Future callbacks and wakeups never
//   run under any of these: completions are collected and fired after the
//   locks are released.
//
// Versions: microseconds of a steady clock plus a base, so the 5-second MVCC
// window is 5,000,000 versions as in FoundationDB. version_ is the newest
// version handed out (by a GRV or a commit); a commit takes a version greater
// than every version handed out before, so a read version, once returned,
// never gains a commit later.
//
// Durable mode (durable.h): a commit applies to the store under store_mu_
// as in memory, queues its resolved mutations on the durable log in version
// order, and returns only once the log has made them durable. Until then it
// is invisible: GetReadVersion hands out versions below the oldest commit not
// yet durable, so no reader sees a commit that a crash could still undo.
// The store is then an overlay (StoreKind::kOverlay) of what the engine
// has not applied yet, with the range clears not yet applied beside it;
// reads merge both with the engine (reader.h). Each commit carries the read
// horizon oldest_, and the group commit applies log rows at or below it to
// the engine (durable.h, invariant 5); once that is durable, the next
// commit's MaybePruneLocked drops them from memory (Store::Forget), so
// memory holds the writes of about one MVCC window, not the data. Open
// loads no keys: it replays the log (about one window of writes) into the
// overlay at its versions, later groups apply it, and versions start above
// the newest durable version (plus one MVCC window), so versions and
// versionstamps keep increasing across restarts.
//
// The caches (SQLite's page caches of the writer and the readers, and the
// row cache) share one budget: FDBLITE_CACHE_BYTES at open (default
// kDefaultCacheBytes), or SetCacheBytes (the database option
// kCacheBytesOption). The overlay has a budget of its own,
// FDBLITE_WINDOW_BYTES at open (default kDefaultWindowBytes): when the
// commits of the window add up to more, the read horizon oldest_ moves
// closer (window_budget.h), down to a fifth of the window; conflict checks
// keep the full window (conflicts_oldest_). What the overlay frees goes
// back to the system (memory_release.h). The conflict history has a budget
// too, in both modes: FDBLITE_CONFLICT_BYTES at open (default
// kDefaultConflictBytes); over it, it coarsens (conflicts.h).
#ifndef FDBLITE_DATABASE_H_
#define FDBLITE_DATABASE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

#include "cluster_file.h"
#include "conflicts.h"
#include "durable.h"
#include "faults.h"
#include "key_audit.h"
#include "future.h"
#include "latency.h"
#include "range_clears.h"
#include "reader.h"
#include "store.h"
#include "window_budget.h"

namespace fdblite {

// Deferred is work (future completions) to run once no fdblite lock is held.
using Deferred = std::vector<std::function<void()>>;

// The MVCC window: reads older than this many versions are transaction_too_old.
constexpr Version kMvccWindowVersions = 5'000'000;
constexpr int kDefaultMaxWatches = 10'000;
constexpr int kMaxMaxWatches = 1'000'000;
// A durable database's cache budget when FDBLITE_CACHE_BYTES is unset.
constexpr int64_t kDefaultCacheBytes = 64 << 20;
// fdb_database_set_option code (fdblite's own, outside FoundationDB's
// numbering, which refuses it) that sets the cache budget, in bytes (an
// 8-byte little-endian integer, >= 0). Memory databases accept and ignore it.
constexpr int kCacheBytesOption = 100100;
// The key FoundationDB layers read to learn that cached metadata changed.
inline constexpr char kMetadataVersionKey[] = "\xff/metadataVersion";

// Mutation is one write, as a transaction logged it.
struct Mutation {
  enum Type { kSet, kClear, kClearRange, kAtomic, kStampedKey, kStampedValue };
  Type type;
  int op = 0;         // kAtomic: the FDBMutationType
  std::string key;    // kStampedKey: the key body without its offset suffix
  std::string param;  // value, clear-range end, atomic operand, or stamped value body
  uint32_t stamp_pos = 0;
};

// Watch is one fdb_transaction_watch: it fires when the key's committed
// value differs from `value`.
struct Watch {
  std::string key;
  std::optional<std::string> value;
  FuturePtr future;
  std::atomic<bool> done{false};  // its slot was released
};

// CommitRequest is what a transaction hands the database to commit.
struct CommitRequest {
  Version read_version = 0;
  const std::vector<KeyRange>* reads = nullptr;
  const std::vector<KeyRange>* writes = nullptr;
  const std::vector<Mutation>* mutations = nullptr;
  int api_version = 0;
  bool automatic_idempotency = false;
};

struct CommitResult {
  int error = 0;
  Version version = -1;  // committed version
  uint16_t batch = 0;    // order within the version (always 0: one txn per version)
};

class Database {
 public:
  // Open returns the database a resolved name (cluster_file.h) names,
  // creating it on first use: the same key opens the same database, and
  // databases live for the whole process, like a cluster. 0, or an error
  // code (durable databases only), also printed to stderr with its cause.
  static int Open(const DatabaseName& name, std::shared_ptr<Database>* out);
  // OpenDurable opens a durable database; coordinators, when not empty, is
  // what \xff/coordinators reads (set before the log is replayed).
  static int OpenDurable(const std::string& dir, std::shared_ptr<Database>* out,
                         std::string* detail, std::string_view coordinators = {});

  explicit Database(StoreKind kind = StoreKind::kMemory);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Now is the live version: what a GRV would return now.
  Version Now();
  // GetReadVersion hands out a read version (causally consistent).
  Version GetReadVersion();
  // CheckReadVersion validates a read at `rv`: 0, transaction_too_old, or
  // future_version (waiting briefly first, as storage servers do).
  int CheckReadVersion(Version rv);

  // Read access: callers hold a ReadLock while they use Store().
  std::shared_lock<std::shared_mutex> ReadLock() {
    return std::shared_lock<std::shared_mutex>(store_mu_);
  }
  const Store& store() const { return store_; }  // REQUIRES: a ReadLock
  // reader is what reads see: the store, or in durable mode the store
  // merged with the engine. REQUIRES: a ReadLock while it is used.
  const Reader& reader() const { return reader_; }
  // SetCacheBytes sets the durable engine's cache budget for reads (the
  // writer's share is fixed at open; no-op in memory).
  void SetCacheBytes(int64_t bytes);
  // SetWindowForTesting shortens the MVCC window (tests of the apply step).
  void SetWindowForTesting(Version versions) { window_ = versions; }
  // OldestReadableLocked is the pruning horizon. REQUIRES: a ReadLock.
  Version OldestReadableLocked() const { return oldest_; }

  // Commit checks conflicts and applies the request atomically. Watches the
  // commit fires are added to *defer, to complete once the caller holds no
  // lock.
  CommitResult Commit(const CommitRequest& req, Deferred* defer);

  // Watches.
  int max_watches() const { return max_watches_.load(); }
  void set_max_watches(int n) { max_watches_.store(n); }
  // ReserveWatch takes a watch slot; false if the database has max_watches.
  bool ReserveWatch();
  // ArmWatch registers a committed watch (or, if the key already changed,
  // adds its firing to *defer). The slot is released when the watch completes.
  void ArmWatch(const std::shared_ptr<Watch>& w, Deferred* defer);
  // CompleteWatch completes a watch (code 0: it fired) and releases its
  // slot, exactly once however many paths race to complete it.
  void CompleteWatch(const std::shared_ptr<Watch>& w, int code);

  // The connection string \xff/coordinators reads.
  const std::string& connection_string() const { return connection_string_; }

  Faults& faults() { return faults_; }
  Latency& latency() { return latency_; }
  KeyAudit& key_audit() { return key_audit_; }
  // StatsJSON describes the database for \xff\xff/fdblite/stats.
  std::string StatsJSON();

 private:
  // ApplyLocked applies one mutation at version v, and appends what it
  // wrote, resolved, to *ops when ops is not null (the durable log's
  // record). REQUIRES: store_mu_ held exclusively.
  void ApplyLocked(const Mutation& m, Version v, int api_version,
                   std::vector<KeyRange>* touched,
                   std::vector<DurableOp>* ops = nullptr);
  // ReplayLocked applies a durable commit read back from the log at open.
  // REQUIRES: store_mu_ held exclusively.
  void ReplayLocked(Version v, const std::vector<DurableOp>& ops);
  // CollectFiredLocked finds armed watches on `touched` whose value changed.
  // REQUIRES: store_mu_ held.
  void CollectFiredLocked(const std::vector<KeyRange>& touched, Version v,
                          std::vector<std::shared_ptr<Watch>>* fired);
  void MaybePruneLocked(Version v);
  void BumpVersion(Version v);
  // Durable mode (null: in memory). Versions start above every version the
  // directory holds: base_ is added to the steady clock.
  std::unique_ptr<DurableLog> durable_;
  std::unique_ptr<DiskReader> disk_;
  std::unique_ptr<RowCache> rows_;
  std::unique_ptr<WindowBudget> budget_;  // GUARDED_BY(store_mu_)
  Version base_;
  // The window pruning and commits use: kMvccWindowVersions but in tests
  // (set before use). Reads check oldest_, the horizon it sets.
  std::atomic<Version> window_{kMvccWindowVersions};

  std::shared_mutex store_mu_;
  Store store_;                // GUARDED_BY(store_mu_)
  RangeClears clears_;         // GUARDED_BY(store_mu_): durable only
  Reader reader_;              // reads store_, clears_ and disk_
  Version forgotten_ = 0;      // GUARDED_BY(store_mu_): last Forget
  ConflictHistory conflicts_;  // GUARDED_BY(store_mu_)
  Version oldest_ = 0;         // GUARDED_BY(store_mu_): reads' horizon
  Version conflicts_oldest_ = 0;  // GUARDED_BY(store_mu_): the conflicts'
                                  // (the newest version minus window_)
  Version last_prune_ = 0;     // GUARDED_BY(store_mu_)
  uint64_t writes_since_prune_ = 0;  // GUARDED_BY(store_mu_)
  std::atomic<Version> version_{0};

  std::mutex watch_mu_;
  std::multimap<std::string, std::shared_ptr<Watch>> watches_;  // GUARDED_BY(watch_mu_)
  std::atomic<int> outstanding_watches_{0};
  std::atomic<int> max_watches_{kDefaultMaxWatches};

  std::string connection_string_;  // set once, before the database is shared
  Faults faults_;
  Latency latency_;  // the network model and round-trip totals
  KeyAudit key_audit_;  // per-key conflict counts, when on (key_audit.h)
  std::atomic<uint64_t> commits_{0};
  std::atomic<uint64_t> conflicts_seen_{0};
};

// DatabaseOptions are a handle's options: what fdb_database_set_option sets
// and every new transaction starts from.
struct DatabaseOptions {
  int snapshot_ryw_delta = 0;  // options 26/27
  int64_t timeout_ms = 0;      // 500
  int64_t retry_limit = -1;    // 501
  int64_t max_retry_delay_ms = 1000;  // 502
  int64_t size_limit = 0;             // 503 (0 = default)
  bool causal_read_risky = false;     // 504 -> 20
  bool include_port = false;          // 505 -> 23
  bool automatic_idempotency = false; // 506 -> 505
  bool bypass_unreadable = false;     // 700 -> 1100
  bool used_during_commit_protection_disable = false;  // 701
  bool read_lock_aware = false;       // 702 -> 712
  bool transaction_logging_max_field_length = false;   // 405
};

}  // namespace fdblite

// The C handle: one reference to a database plus this handle's options.
//
// A handle whose cluster file could not be resolved (missing, unreadable,
// empty or malformed) still exists, as in FoundationDB 7.3, whose client
// creates the database object anyway and keeps the error in it: `error` is
// that code, and `db` an empty database no name reaches, so its
// transactions have something to hold. Every transaction created from the
// handle fails its future-returning calls with `error`, resets and retries
// included; the database calls that return futures fail with it too.
struct FDB_database {
  std::shared_ptr<fdblite::Database> db;
  int error = 0;  // set before the handle is handed out, then constant
  std::mutex mu;
  fdblite::DatabaseOptions options;  // GUARDED_BY(mu)
};

#endif  // FDBLITE_DATABASE_H_
