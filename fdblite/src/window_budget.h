// window_budget.h: how much of the MVCC window a durable database keeps in
// memory (issue 36).
//
// A durable database's overlay (store.h) holds every commit newer than the
// read horizon, the oldest version a read may use: normally five seconds of
// writes. A bulk load at full speed makes that hundreds of MB (a 10 GB
// load peaked at 747-823 MB of RSS, up to 350 MB of it the window, most of
// the rest what the window had freed and malloc kept: memory_release.h),
// so the window's memory followed the write rate with no bound.
// WindowBudget bounds it: it
// records what each commit added to the overlay and, when the commits
// above the horizon add up to more than the budget, moves the horizon
// forward, commit by commit, but never closer to the newest version than a
// minimum window. The apply step then copies those commits into the engine
// and the overlay forgets them (durable.h, invariant 5).
//
// What a reader sees: a read at a version below the horizon is
// transaction_too_old (1007), as at a FoundationDB storage server that no
// longer holds that version; the bindings retry it with a fresh read
// version. So under a write load above budget / 5 s, a transaction has
// less than five seconds to do its reads (at least the minimum window);
// conflict checks keep the full five seconds. Below that load nothing
// changes.
//
// Thread safety: none inside; the database guards it with its store lock.
#ifndef FDBLITE_WINDOW_BUDGET_H_
#define FDBLITE_WINDOW_BUDGET_H_

#include <cstdint>
#include <deque>

#include "store.h"

namespace fdblite {

// The window's budget when FDBLITE_WINDOW_BYTES is unset.
constexpr int64_t kDefaultWindowBytes = 128 << 20;
// MinWindow is the shortest window the budget may leave reads: a fifth of
// the full one (one second of five; a version is a microsecond).
constexpr Version MinWindow(Version window) { return window / 5; }

class WindowBudget {
 public:
  explicit WindowBudget(int64_t budget_bytes) : budget_(budget_bytes) {}
  WindowBudget(const WindowBudget&) = delete;
  WindowBudget& operator=(const WindowBudget&) = delete;

  // Add records that the commit at version v (greater than every version
  // added before) added `bytes` to the overlay.
  void Add(Version v, int64_t bytes);

  // Horizon moves the horizon: at least `floor` (the newest version minus
  // the full window), and beyond it, while the commits above it add up to
  // more than the budget, up to the version of each commit it gives up,
  // but never past `ceiling` (the newest version minus the minimum window,
  // or an older version the caller needs kept). Returns the new horizon,
  // never below floor; commits at or below it are no longer counted.
  Version Horizon(Version floor, Version ceiling);

  // bytes is what the commits above the last horizon added.
  int64_t bytes() const { return bytes_; }
  int64_t budget() const { return budget_; }

 private:
  struct Commit {
    Version version;
    int64_t bytes;
  };
  const int64_t budget_;
  std::deque<Commit> commits_;  // ascending versions, above the horizon
  int64_t bytes_ = 0;           // the sum of commits_' bytes
};

}  // namespace fdblite

#endif  // FDBLITE_WINDOW_BUDGET_H_
