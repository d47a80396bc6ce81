// transaction.h: one FoundationDB transaction.
//
// A transaction reads a snapshot of the database at its read version,
// overlaid with its own uncommitted writes (read-your-writes), records the
// read and write conflict ranges that serializable optimistic concurrency
// control checks at commit, and logs its mutations to replay at commit.
//
// Invariants:
//  1. Reads see the database at read_version_ plus exactly the writes issued
//     before the read call (results are computed at call time; under the
//     latency model, latency.h, their futures complete later).
//  2. writes_ is the net effect of the mutation log on every key a read can
//     see; mutations_ is replayed in order at commit (atomic ops apply to
//     the latest committed value then, as in FoundationDB).
//  3. The first error of a void call is kept as the deferred error; until a
//     reset or retry every future-returning call fails with it.
//  4. A transaction of a database whose open failed (db_error_, see
//     FDB_database) fails every future-returning call with that error
//     before any other check, for its whole life: reset and retry keep it,
//     and its void calls do nothing.
//
// Thread safety: every public method locks mu_ (lock order: see database.h);
// a transaction may be used from many threads at once.
#ifndef FDBLITE_TRANSACTION_H_
#define FDBLITE_TRANSACTION_H_

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "database.h"
#include "future.h"

namespace fdblite {

// WriteEntry is a transaction's net write to one key.
struct WriteEntry {
  enum Kind : uint8_t {
    kSet,     // value holds the new value
    kClear,   // the key is cleared
    kAtomic,  // ops apply, in order, to the database value
  };
  Kind kind = kSet;
  bool unreadable = false;  // written by a versionstamped value
  std::string value;
  std::vector<std::pair<int, std::string>> ops;
};

// WriteMap is a transaction's net writes: point entries over cleared ranges.
struct WriteMap {
  std::map<std::string, WriteEntry, std::less<>> points;
  // Cleared ranges, begin -> end, disjoint and not adjacent. A point entry
  // inside a cleared range overrides it.
  std::map<std::string, std::string, std::less<>> cleared;

  // ClearedRange returns the cleared range holding k, or null.
  const std::pair<const std::string, std::string>* ClearedRange(
      std::string_view k) const;
  void Clear(std::string_view begin, std::string_view end);
  bool empty() const { return points.empty() && cleared.empty(); }
};

// Selector is a key selector: (key, or_equal, offset).
struct Selector {
  std::string_view key;
  bool or_equal;
  int offset;
};

// TxnOptions are the options a transaction's behaviour depends on.
struct TxnOptions {
  bool ryw_disabled = false;           // 51
  int snapshot_ryw = 1;                // 600/601 and DB 26/27
  bool access_system_keys = false;     // 301
  bool read_system_keys = false;       // 302
  bool raw_access = false;             // 303
  bool next_write_no_conflict = false; // 30
  int64_t timeout_ms = 0;              // 500
  int64_t retry_limit = -1;            // 501
  int64_t max_retry_delay_ms = 1000;   // 502
  int64_t size_limit = 10'000'000;     // 503
  bool automatic_idempotency = false;  // 505
  bool udc_protection_disabled = false;  // 701
  bool special_key_relaxed = false;    // 713
  bool special_key_writes = false;     // 714
  bool bypass_unreadable = false;      // 1100
  int tags = 0;                        // 800/801
  bool has_auth_token = false;         // 2000
};

class Transaction {
 public:
  // db_error: 0, or the error of the database's failed open (invariant 4).
  Transaction(std::shared_ptr<Database> db, const DatabaseOptions& db_options,
              int api_version, int db_error = 0);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  int SetOption(int code, const uint8_t* value, int length);
  FuturePtr GetReadVersion();
  void SetReadVersion(int64_t version);
  FuturePtr Get(std::string_view key, bool snapshot);
  FuturePtr GetKey(Selector sel, bool snapshot);
  FuturePtr GetRange(Selector begin, Selector end, int limit, int target_bytes,
                     int mode, int iteration, bool snapshot, bool reverse);
  void Set(std::string_view key, std::string_view value);
  void Clear(std::string_view key);
  void ClearRange(std::string_view begin, std::string_view end);
  void AtomicOp(std::string_view key, std::string_view param, int type);
  int AddConflictRange(std::string_view begin, std::string_view end, int type);
  FuturePtr Watch(std::string_view key);
  FuturePtr Commit();
  int GetCommittedVersion(int64_t* out);
  FuturePtr GetVersionstamp();
  FuturePtr GetApproximateSize();
  // Cluster metadata, as a one-process cluster answers it: the database's
  // coordinator addresses serve every key; no tag is ever throttled (0
  // seconds); the cost so far by FoundationDB's cost model (cost.h).
  FuturePtr GetAddressesForKey(std::string_view key);
  FuturePtr GetTagThrottledDuration();
  FuturePtr GetTotalCost();
  FuturePtr GetEstimatedRangeSizeBytes(std::string_view begin,
                                       std::string_view end);
  FuturePtr GetRangeSplitPoints(std::string_view begin, std::string_view end,
                                int64_t chunk_size);
  FuturePtr OnError(int code);
  void Cancel();
  void Reset();
  // Poison records a deferred error found at the C boundary (a negative
  // length, a null buffer) for a call that returns nothing.
  void Poison(int code);

 private:
  using Clock = std::chrono::steady_clock;

  // Lock holds mu_; on release it runs the completions deferred while it was
  // held (future callbacks never run under a lock).
  class Lock {
   public:
    explicit Lock(Transaction* t) : t_(t) { t_->mu_.lock(); }
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    Transaction* t_;
  };
  void DeferLocked(std::function<void()> fn) { deferred_work_.push_back(std::move(fn)); }

  // State checks. ReadErrorLocked returns the error a future-returning call
  // must fail with now, or 0; it also poisons a transaction used after
  // commit. WriteAllowedLocked is its counterpart for void calls.
  int ReadErrorLocked();
  bool WriteAllowedLocked();
  void SetDeferredLocked(int code);
  void CheckTimeoutLocked();

  // Resets: Full resets everything; the retry variant keeps the retry
  // count, backoff, timeout start and persistent options.
  void ResetLocked(bool for_retry);
  FuturePtr CommitLocked(bool* sent);
  void ReleaseWritesLocked();
  void AbandonPendingLocked(int code);  // uncommitted watches, versionstamp

  Version ReadVersionLocked();  // takes the read version lazily
  int ReadFaultLocked();  // 0, or the injected error this read fails with
  std::string MaxReadKeyLocked() const;
  std::string MaxWriteKeyLocked() const;
  bool ValidWriteKeyLocked(std::string_view key);
  bool ReadYourWritesLocked(bool snapshot) const;

  // Reads through the read-your-writes view (or the database alone).
  // *remote (if given) is set when the read needed the database, not only
  // this transaction's writes: a network round trip on a cluster.
  int GetLocked(std::string_view key, bool snapshot, bool* present,
                std::string* value, bool* remote = nullptr);
  FuturePtr GetKeyLocked(Selector sel, bool snapshot, bool* remote);
  FuturePtr GetRangeLocked(Selector begin, Selector end, int limit,
                           int target_bytes, int mode, int iteration,
                           bool snapshot, bool reverse, bool* remote);
  int ResolveLocked(const Selector& sel, bool ryw, std::string* out);
  // RangeBoundLocked resolves a range read's bound: as ResolveLocked, but a
  // selector at offset 1 is its key without a lookup when nothing differs.
  int RangeBoundLocked(const Selector& sel, bool ryw, const std::string& max_key,
                       std::string* out);
  bool UnreadableLocked(std::string_view key) const;
  bool RangeUnreadableLocked(std::string_view begin,
                             std::string_view end) const;
  void AddReadConflictLocked(std::string begin, std::string end);
  void AddRangeReadConflictLocked(const std::string& begin, const std::string& end);
  void AddWriteConflictLocked(std::string begin, std::string end);
  void CheckWatchesLocked();

  // Special keys (\xff\xff...): the fdblite module.
  FuturePtr SpecialGetLocked(std::string_view key);
  std::string StatsLocked();  // the database's stats plus this transaction's
  FuturePtr SpecialRangeLocked(std::string_view begin, std::string_view end,
                               int limit, bool reverse);
  void SpecialWriteLocked(std::string_view key,
                          std::optional<std::string_view> value);

  const std::shared_ptr<Database> db_;
  const DatabaseOptions db_options_;
  const int api_version_;
  const int db_error_;

  std::mutex mu_;
  TxnOptions opt_;                     // GUARDED_BY(mu_)
  Version read_version_ = -1;          // GUARDED_BY(mu_)
  int deferred_ = 0;                   // GUARDED_BY(mu_)
  int cancelled_ = 0;                  // GUARDED_BY(mu_): 1025, 1031 or the on_error code
  bool commit_called_ = false;         // GUARDED_BY(mu_)
  bool used_ = false;                  // GUARDED_BY(mu_): any read or write yet
  Version committed_version_ = -1;     // GUARDED_BY(mu_)
  WriteMap writes_;                    // GUARDED_BY(mu_)
  std::vector<Mutation> mutations_;    // GUARDED_BY(mu_)
  std::vector<KeyRange> read_conflicts_;   // GUARDED_BY(mu_)
  std::vector<KeyRange> write_conflicts_;  // GUARDED_BY(mu_)
  std::vector<KeyRange> unreadable_;   // GUARDED_BY(mu_): stamped-key ranges
  bool stamped_ = false;               // GUARDED_BY(mu_): a versionstamped key or value written
  std::optional<std::string> special_faults_;  // GUARDED_BY(mu_): pending config
  std::optional<Faults::ReadFault> read_fault_;  // GUARDED_BY(mu_): drawn per read version
  bool read_fault_counted_ = false;    // GUARDED_BY(mu_)
  std::optional<std::string> special_latency_;  // GUARDED_BY(mu_): pending config
  TxnRoundTrips rt_;                   // GUARDED_BY(mu_)
  std::vector<std::shared_ptr<struct Watch>> watches_;  // GUARDED_BY(mu_)
  std::vector<FuturePtr> versionstamps_;  // GUARDED_BY(mu_); one per get_versionstamp call
  Deferred deferred_work_;             // GUARDED_BY(mu_): run by ~Lock
  Deferred commit_replies_;            // GUARDED_BY(mu_): run with the commit's reply
  int64_t size_ = 0;                   // GUARDED_BY(mu_)
  int64_t cost_ = 0;                   // GUARDED_BY(mu_): cost.h
  int retries_ = 0;                    // GUARDED_BY(mu_)
  double backoff_ = 0.01;              // GUARDED_BY(mu_), seconds
  Clock::time_point start_;            // GUARDED_BY(mu_): timeout origin
};

}  // namespace fdblite

// The C handle.
struct FDB_transaction {
  FDB_transaction(std::shared_ptr<fdblite::Database> db,
                  const fdblite::DatabaseOptions& options, int api, int db_error)
      : t(std::move(db), options, api, db_error) {}
  fdblite::Transaction t;
};

#endif  // FDBLITE_TRANSACTION_H_
