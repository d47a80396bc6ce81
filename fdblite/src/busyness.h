// busyness.h: how busy the network thread is, for
// fdb_database_get_main_thread_busyness.
//
// FoundationDB's client reports the fraction of time its network thread
// spent running tasks (not sleeping) over the last interval of about a
// second: 0 idle, 1 saturated. Its network thread always has some work of
// its own, so the figure is above 0 while the network runs. fdblite's
// network thread is the loop in loop.h: it runs delayed work (backoff,
// timeouts, the latency model's completions and the callbacks they fire)
// and wakes at least once a second to close the window, which is work of
// its own. The figure is 0 until the loop has closed its first window.
//
// A transaction's work that fdblite does on the calling thread is not
// counted: on a cluster the client's part of it would be small, and the
// meter is what FoundationDB's is, the network thread's load.
#ifndef FDBLITE_BUSYNESS_H_
#define FDBLITE_BUSYNESS_H_

#include <atomic>
#include <chrono>

namespace fdblite {

// BusyMeter accumulates one thread's busy time and turns it into the busy
// fraction of whole windows.
//
// Thread safety: Start, Add, RollIfDue, WindowEnd and Clear are for the
// measured thread only; Read is safe from any thread.
class BusyMeter {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::duration kWindow = std::chrono::seconds(1);

  // Start begins the first window at `start`.
  void Start(Clock::time_point start) {
    window_start_ = start;
    busy_ = Clock::duration(0);
  }
  // Add records `d` of work in the current window.
  void Add(Clock::duration d) { busy_ += d; }
  // RollIfDue closes the window when it is at least kWindow old at `now`:
  // the figure becomes its busy fraction (capped at 1) and a new window
  // starts at `now`. True if it closed one.
  bool RollIfDue(Clock::time_point now);
  // WindowEnd is when the current window becomes due.
  Clock::time_point WindowEnd() const { return window_start_ + kWindow; }
  // Read returns the busy fraction of the last closed window, in [0, 1].
  double Read() const { return last_.load(std::memory_order_relaxed); }
  // Clear sets the figure to 0 (the thread stopped).
  void Clear() { last_.store(0.0, std::memory_order_relaxed); }

 private:
  Clock::time_point window_start_{};
  Clock::duration busy_{0};
  std::atomic<double> last_{0.0};
};

}  // namespace fdblite

#endif  // FDBLITE_BUSYNESS_H_
