// window_budget.cpp: see window_budget.h.
#include "window_budget.h"

#include <algorithm>

namespace fdblite {

void WindowBudget::Add(Version v, int64_t bytes) {
  bytes = std::max<int64_t>(bytes, 0);
  if (!commits_.empty() && commits_.back().version == v) {
    commits_.back().bytes += bytes;
  } else {
    commits_.push_back({v, bytes});
  }
  bytes_ += bytes;
}

Version WindowBudget::Horizon(Version floor, Version ceiling) {
  Version h = floor;
  auto drop_front = [&] {
    h = std::max(h, commits_.front().version);
    bytes_ -= commits_.front().bytes;
    commits_.pop_front();
  };
  while (!commits_.empty() && commits_.front().version <= floor) drop_front();
  while (bytes_ > budget_ && !commits_.empty() && commits_.front().version <= ceiling) {
    drop_front();
  }
  return h;
}

}  // namespace fdblite
