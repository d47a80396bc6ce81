// range_clears.cpp: see range_clears.h.
#include "range_clears.h"

#include <algorithm>
#include <iterator>

namespace fdblite {

RangeClears::Map::iterator RangeClears::Split(std::string_view key) {
  auto it = segments_.lower_bound(key);
  if (it != segments_.end() && it->first == key) return it;
  std::vector<Version> clears;
  if (it != segments_.begin()) clears = std::prev(it)->second;
  return segments_.emplace_hint(it, std::string(key), std::move(clears));
}

void RangeClears::Add(std::string_view begin, std::string_view end, Version v) {
  if (begin >= end) return;
  auto first = Split(begin);
  auto last = Split(end);
  for (auto it = first; it != last; ++it) it->second.push_back(v);
}

bool RangeClears::Covered(std::string_view key, Version v, std::string* begin,
                          std::string* end) const {
  auto it = segments_.upper_bound(key);
  if (it == segments_.begin()) return false;
  auto seg = std::prev(it);
  if (seg->second.empty() || seg->second.front() > v) return false;
  // A covered segment is never the last one (invariant), so it has an end.
  if (begin) *begin = seg->first;
  if (end) *end = it->first;
  return true;
}

void RangeClears::Forget(
    Version applied,
    const std::function<void(std::string_view, std::string_view)>& dropped) {
  if (dropped) {
    for (auto it = segments_.begin(); it != segments_.end(); ++it) {
      // A covered segment is never the last one (invariant).
      if (!it->second.empty() && it->second.front() <= applied) {
        dropped(it->first, std::next(it)->first);
      }
    }
  }
  const std::vector<Version>* prev = nullptr;
  for (auto it = segments_.begin(); it != segments_.end();) {
    auto& clears = it->second;
    clears.erase(clears.begin(),
                 std::upper_bound(clears.begin(), clears.end(), applied));
    // A boundary between segments with the same clears (or, at the start,
    // an uncovered one) cuts nothing.
    bool same = prev ? *prev == clears : clears.empty();
    if (same) {
      it = segments_.erase(it);
    } else {
      prev = &clears;
      ++it;
    }
  }
}

}  // namespace fdblite
