// latency.h: a model of a cluster's network round trips, and their counts.
//
// fdblite answers every call in microseconds, in process; on a FoundationDB
// cluster what dominates is the network: getting a read version from a GRV
// proxy, each read from a storage server, and the commit through the commit
// proxies and logs. The model gives each of those a delay, off by default:
//
//   grv=650us read=550us commit=2ms jitter=0.25 seed=1
//
// Durations take a unit (ns, us, ms or s); jitter is a fraction in [0, 1]
// (each delay is drawn uniformly from base*(1-jitter) to base*(1+jitter) by a
// generator seeded with `seed`). "off" or "" turns the model off; "default"
// (or "on") is the default configuration above, taken from the typical
// latencies FoundationDB publishes for a cluster below 75% load (start
// transaction 0.3-1 ms, read 0.1-1 ms, commit 1.5-2.5 ms): each base is near
// the middle of its range and the jitter keeps every delay inside it.
//
// Each database has its own configuration, written through the special key
// \xff\xff/fdblite/latency; a process sets the starting configuration of
// every database it opens with the environment variable FDBLITE_LATENCY.
//
// Results are computed when the call is made (at the transaction's read
// version, so nothing a later commit does can change them) and their
// futures complete on the network thread once the delay has passed. Reads
// issued together therefore overlap, as they do on a cluster, and reads
// issued one after another add up. A transaction's first read waits for its
// read version first; reading \xff/metadataVersion costs no more than the
// read version, which FoundationDB sends along with it.
//
// Round trips are counted whether or not the model is on (the counts do not
// depend on timing): read-version requests, read waves and commits. A read
// wave is a set of reads in flight together: a read opens a new wave unless
// it joins the current one, and it joins as long as the caller has not yet
// waited for (or looked at) any result of that wave. A commit counts when it
// goes to the cluster (a read-only commit does not).
//
// Thread safety: Latency is safe for concurrent use; TxnRoundTrips is
// guarded by its transaction's lock.
#ifndef FDBLITE_LATENCY_H_
#define FDBLITE_LATENCY_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "future.h"

namespace fdblite {

// kLatencyEnv names the environment variable with a process's configuration.
inline constexpr char kLatencyEnv[] = "FDBLITE_LATENCY";

struct LatencyConfig {
  uint64_t seed = 0;
  double grv = 0;     // seconds: get read version
  double read = 0;    // seconds: one read (point or range)
  double commit = 0;  // seconds: one commit
  double jitter = 0;  // fraction of each delay, in [0, 1]

  bool Enabled() const { return grv > 0 || read > 0 || commit > 0; }
  // Default is the configuration "default" names (see above).
  static LatencyConfig Default();
  // Parse reads the text form; false on a syntax error, an unknown name, a
  // negative or over-10-second delay, or a jitter outside [0, 1].
  static bool Parse(std::string_view text, LatencyConfig* out);
  // Format is the canonical text form; "" when off.
  std::string Format() const;
};

struct RoundTripCounts {
  uint64_t read_versions = 0;
  uint64_t read_waves = 0;
  uint64_t commits = 0;
  std::string JSON() const;
};

// Latency is one database's model and its round-trip totals.
class Latency {
 public:
  // The configuration starts from FDBLITE_LATENCY (off if unset or invalid).
  Latency();

  void Configure(const LatencyConfig& config);
  LatencyConfig Config();
  bool enabled() const { return enabled_.load(std::memory_order_acquire); }
  // Delays in seconds, jittered; 0 when the model is off.
  double GrvDelay();
  double ReadDelay();
  double CommitDelay();

  void CountReadVersion() { read_versions_.fetch_add(1, std::memory_order_relaxed); }
  void CountReadWave() { read_waves_.fetch_add(1, std::memory_order_relaxed); }
  void CountCommit() { commits_.fetch_add(1, std::memory_order_relaxed); }
  RoundTripCounts Counts() const;

 private:
  double Draw(double base);

  std::atomic<bool> enabled_{false};
  std::mutex mu_;
  LatencyConfig config_;  // GUARDED_BY(mu_)
  uint64_t state_ = 0;    // GUARDED_BY(mu_), splitmix64 state
  std::atomic<uint64_t> read_versions_{0};
  std::atomic<uint64_t> read_waves_{0};
  std::atomic<uint64_t> commits_{0};
};

// TxnRoundTrips is one transaction's side of the model: when its read
// version arrives, which read wave is open, and its own counts (kept for the
// life of the handle, across retries, until fdb_transaction_reset).
class TxnRoundTrips {
 public:
  explicit TxnRoundTrips(Latency* db) : db_(db) {}

  // ReadVersionRequested records that the transaction asked for a read
  // version now.
  void ReadVersionRequested();
  // ReadVersionSet records a read version set by the caller (no request).
  void ReadVersionSet();
  // Each takes a ready future holding a result computed now and returns the
  // future to hand the caller: the same one when the model is off, else one
  // that completes with that result after the modelled delay.
  FuturePtr ReadVersion(FuturePtr ready);  // completes with the read version
  FuturePtr Read(FuturePtr ready);         // a read: joins or opens a wave
  FuturePtr MetadataVersionRead(FuturePtr ready);  // no wave of its own
  // Commit is for a commit sent to the cluster; the work in *with (the
  // versionstamp) runs when its reply arrives: taken from *with when the
  // model is on, left there for the caller to run at once when it is off.
  FuturePtr Commit(FuturePtr ready, std::vector<std::function<void()>>* with);

  const RoundTripCounts& counts() const { return counts_; }
  // Reset starts a new attempt (on_error) or, with keep_counts false, a new
  // transaction (fdb_transaction_reset): counts start again.
  void Reset(bool keep_counts);

 private:
  using Clock = std::chrono::steady_clock;
  // After completes `ready`'s result into a new future at `when`.
  FuturePtr After(FuturePtr ready, Clock::time_point when,
                  std::shared_ptr<ReadWave> wave,
                  std::vector<std::function<void()>> first = {});
  Clock::time_point ReadVersionReady() const;

  Latency* db_;
  Clock::time_point rv_ready_{};      // when the read version arrives
  std::shared_ptr<ReadWave> wave_;    // the open wave, if any
  RoundTripCounts counts_;
};

}  // namespace fdblite

#endif  // FDBLITE_LATENCY_H_
