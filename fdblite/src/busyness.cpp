// busyness.cpp: the busy meter (busyness.h).
#include "busyness.h"

#include <algorithm>

namespace fdblite {

bool BusyMeter::RollIfDue(Clock::time_point now) {
  Clock::duration elapsed = now - window_start_;
  if (elapsed < kWindow) return false;
  double fraction = std::chrono::duration<double>(busy_).count() /
                    std::chrono::duration<double>(elapsed).count();
  last_.store(std::clamp(fraction, 0.0, 1.0), std::memory_order_relaxed);
  busy_ = Clock::duration(0);
  window_start_ = now;
  return true;
}

}  // namespace fdblite
