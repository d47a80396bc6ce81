// faults.h: deterministic fault injection for tests, off by default.
//
// Each database has its own configuration, set through the special key
// \xff\xff/fdblite/faults (see special_keys.cpp) as a space-separated string:
//
//   seed=42 read_too_old=0.01 read_future_version=0.01
//   commit_not_committed=0.05 commit_too_old=0.01 commit_unknown_result=0.02
//
// Rates are probabilities in [0, 1]. Read faults are drawn once per read
// version of a transaction, as FoundationDB fails reads: a version too old
// for the storage servers (transaction_too_old, 1007) or ahead of them
// (future_version, 1009) fails every read at that version, however many
// keys it reads. A transaction drawn to fail lets its first few reads (0 to
// 3, drawn) through, so faults also land after some reads and writes; then
// every read (get, get_key, get_range) fails until the transaction is reset
// or given another read version. Rates are thus per transaction attempt,
// and a counter counts each failed attempt once.
// Commit faults fail a commit before it applies with not_committed (1020) or
// transaction_too_old (1007), or AFTER it really applied with
// commit_unknown_result (1021); a transaction that set the
// automatic_idempotency option learns that its commit applied and succeeds.
// The same seed and the same sequence of calls inject the same faults.
//
// Thread safety: Faults is safe for concurrent use.
#ifndef FDBLITE_FAULTS_H_
#define FDBLITE_FAULTS_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

namespace fdblite {

struct FaultConfig {
  uint64_t seed = 0;
  double read_too_old = 0;
  double read_future_version = 0;
  double commit_not_committed = 0;
  double commit_too_old = 0;
  double commit_unknown_result = 0;

  bool Enabled() const;
  // Parse reads the text form; false on a syntax error, an unknown name or a
  // rate outside [0, 1]. Empty text (or "off") is the zero config.
  static bool Parse(std::string_view text, FaultConfig* out);
  std::string Format() const;
};

struct FaultCounters {
  uint64_t read_too_old = 0;
  uint64_t read_future_version = 0;
  uint64_t commit_not_committed = 0;
  uint64_t commit_too_old = 0;
  uint64_t commit_unknown_result = 0;
};

class Faults {
 public:
  void Configure(const FaultConfig& config);
  FaultConfig Config();
  FaultCounters Counters();

  // ReadFault is the read-fault decision for one read version.
  struct ReadFault {
    int error = 0;  // 0: reads at this version do not fail
    int after = 0;  // reads that succeed before the first failing one
  };
  // OnReadVersion draws the read-fault decision of a new read version.
  ReadFault OnReadVersion();
  // CountRead counts an attempt failed by injected read error `error`.
  void CountRead(int error);
  // BeforeCommit returns 0, or the error a commit must fail with (unapplied).
  int BeforeCommit();
  // AfterCommit reports whether an applied commit must be reported as
  // commit_unknown_result.
  bool AfterCommit();

 private:
  double NextLocked();  // uniform [0, 1)

  std::atomic<bool> enabled_{false};  // fast path: no lock when off
  std::mutex mu_;
  FaultConfig config_;      // GUARDED_BY(mu_)
  uint64_t state_ = 0;      // GUARDED_BY(mu_), splitmix64 state
  FaultCounters counters_;  // GUARDED_BY(mu_)
};

}  // namespace fdblite

#endif  // FDBLITE_FAULTS_H_
