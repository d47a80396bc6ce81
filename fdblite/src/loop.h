// loop.h: the network thread's event loop.
//
// FoundationDB completes delayed work on the thread running
// fdb_run_network. fdblite answers most calls synchronously, but on_error
// backoff, transaction timeouts and delayed fault effects run here, after
// a delay. Work scheduled before the loop runs waits for it. The loop
// measures its own busy time (busyness.h), the figure FoundationDB reports
// as the network thread's busyness.
//
// Thread safety: all methods are safe for concurrent use; tasks run on the
// loop thread without any fdblite lock held.
#ifndef FDBLITE_LOOP_H_
#define FDBLITE_LOOP_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "busyness.h"

namespace fdblite {

class Loop {
 public:
  // The process-wide loop (never destroyed: tasks may be scheduled at exit).
  static Loop& Get();

  // Setup, Run and Stop implement fdb_setup_network, fdb_run_network and
  // fdb_stop_network, with their error codes.
  int Setup();
  int Run();  // blocks until Stop
  int Stop();

  // Schedule runs fn on the loop thread after `delay_seconds` (>= 0).
  void Schedule(double delay_seconds, std::function<void()> fn);

  // OnLoopThread reports whether the caller is the thread inside Run.
  bool OnLoopThread();

  // Busyness is the loop thread's busy fraction over the last closed
  // window (busyness.h): 0 before Run has closed one, and after Run returns.
  double Busyness() const { return meter_.Read(); }

 private:
  using Clock = std::chrono::steady_clock;
  std::mutex mu_;
  std::condition_variable cv_;
  bool setup_ = false;    // GUARDED_BY(mu_)
  bool running_ = false;  // GUARDED_BY(mu_)
  bool ran_ = false;      // GUARDED_BY(mu_)
  bool stop_ = false;     // GUARDED_BY(mu_)
  std::thread::id thread_;
  std::multimap<Clock::time_point, std::function<void()>> tasks_;  // GUARDED_BY(mu_)
  BusyMeter meter_;  // written by the loop thread only
};

}  // namespace fdblite

#endif  // FDBLITE_LOOP_H_
