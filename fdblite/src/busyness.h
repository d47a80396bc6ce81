// busyness.h: how busy client work keeps fdblite, for
// fdb_database_get_main_thread_busyness.
//
// FoundationDB's client does all its work on the network thread and reports
// the fraction of recent time that thread was busy: 0 idle, 1 saturated,
// refreshed about once a second. fdblite does a transaction's work on the
// calling threads instead, so it measures the time spent inside transaction
// calls (every thread added together, as if one network thread did it all)
// over windows of at least one second, and reports the fraction of the last
// complete window, capped at 1. Process-wide, like the network thread.
// Measuring starts at the first reading (a process that never asks pays
// nothing), so the first window ends a second after it.
#ifndef FDBLITE_BUSYNESS_H_
#define FDBLITE_BUSYNESS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>

namespace fdblite {

class Busyness {
 public:
  using Clock = std::chrono::steady_clock;
  static Busyness& Get();

  // Measuring is whether anyone has read the meter yet: only then does
  // Add need calling.
  bool Measuring() const { return measuring_.load(std::memory_order_relaxed); }
  // Add records work from `start` until `end`.
  void Add(Clock::time_point start, Clock::time_point end);
  // Read returns the busy fraction of the last complete window, in [0, 1].
  double Read();

 private:
  static constexpr int64_t kWindowNs = 1'000'000'000;
  // RollIfDue closes the window once it is a second old.
  void RollIfDue(int64_t now_ns);
  std::atomic<int64_t> busy_ns_{0};
  std::atomic<int64_t> window_start_ns_{-1};  // -1: no window yet
  std::atomic<double> last_{0.0};
  std::atomic<bool> measuring_{false};
  std::mutex roll_mu_;
};

}  // namespace fdblite

#endif  // FDBLITE_BUSYNESS_H_
