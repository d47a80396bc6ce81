// conflicts.cpp: the write history as a step function over keys.
//
// Invariants:
//  1. segments always holds the boundary "" so every key has a segment: the
//     one starting at the last boundary <= key.
//  2. Neighbouring segments written by the same Add are merged, so Add leaves
//     no two adjacent boundaries with the same version it wrote.
//  3. Versions <= the last Prune's `oldest` are as good as 0: no caller checks
//     a read version that old. Prune only rewrites them to 0 (and merges) when
//     the map has doubled since the last pass, which pays for the pass and
//     keeps the map within twice the boundaries still live; or when every
//     version the last pass saw has expired, so that history written in a
//     burst is reclaimed one window later even if the map stops growing.
//  4. bytes is NodeBytes summed over segments; every insertion and erasure
//     goes through Insert and Erase, which keep it. After every AddRange,
//     bytes <= budget (or one boundary is left). Coarsening is spread over
//     the Adds: above three quarters of the budget, each Add merges more
//     boundaries than it added (MergeStep, resuming where the last one
//     stopped) until bytes is at most half the budget, so no commit pays
//     for a pass over the whole history (one took 0.4-0.7 s at 16 MiB).
//     Only an Add that still reaches the budget runs the whole pass
//     (Coarsen).
//  5. Coarsening only raises the version a key maps to (a merged segment
//     takes the newer of the two), so FirstConflict answers "conflict"
//     wherever the exact history would, and maybe more.
#include "conflicts.h"

#include "key_order.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <string_view>

namespace fdblite {
namespace {

// kMinPassBoundaries keeps tiny maps from being swept on every Prune.
constexpr size_t kMinPassBoundaries = 64;

// NodeBytes is what one boundary costs malloc: a red-black tree node
// (colour and three links, then the key string and the version) and the
// key's buffer when it does not fit inline, with a chunk header each.
size_t NodeBytes(const std::string& key) {
  constexpr size_t kNode = 4 * sizeof(void*) + sizeof(std::string) +
                           sizeof(Version) + sizeof(void*);
  constexpr size_t kInline = sizeof(std::string) - 2 * sizeof(size_t) - 1;
  return kNode + (key.capacity() > kInline ? key.capacity() + 1 + sizeof(void*) : 0);
}

}  // namespace

struct ConflictHistory::Impl {
  using Map = std::map<std::string, Version, KeyOrder>;
  explicit Impl(size_t budget_bytes) : budget(budget_bytes) { Reset(); }

  // AddRange assigns v over [begin, end).
  void AddRange(std::string_view begin, std::string_view end, Version v);
  // Sweep rewrites versions <= oldest to 0 and merges equal neighbours.
  void Sweep(Version oldest);
  // Coarsen forgets what Prune allows, then merges neighbouring segments
  // until bytes <= budget / 2 (invariants 4 and 5).
  void Coarsen();
  // MergeStep merges up to `pairs` pairs of neighbouring segments, from the
  // first boundary at or after `cursor`, wrapping at the end, and leaves
  // `cursor` where it stopped (invariants 4 and 5).
  void MergeStep(size_t pairs);
  // Reset leaves the boundary "" alone, never written.
  void Reset() {
    segments.clear();
    bytes = 0;
    merging = false;
    cursor.clear();
    Insert(segments.end(), std::string_view(), 0);
  }

  Map::iterator Insert(Map::iterator hint, std::string_view key, Version v) {
    auto it = segments.emplace_hint(hint, std::string(key), v);
    bytes += NodeBytes(it->first);
    return it;
  }
  Map::iterator Erase(Map::iterator it) {
    bytes -= NodeBytes(it->first);
    return segments.erase(it);
  }
  Map::iterator Erase(Map::iterator first, Map::iterator last) {
    while (first != last) first = Erase(first);
    return last;
  }

  // Boundary key -> newest version that wrote [key, next boundary); 0 when
  // never written (or forgotten).
  Map segments;
  size_t bytes = 0;              // invariant 4
  size_t budget;
  uint64_t coarsenings = 0;
  Version newest = 0;            // greatest version added
  Version pruned = 0;            // the last Prune's `oldest`
  bool merging = false;          // MergeStep runs after each Add (invariant 4)
  std::string cursor;            // where the next MergeStep starts
  size_t pass_threshold = kMinPassBoundaries;  // sweep when size() reaches it
  Version newest_at_pass = 0;    // `newest` when the last pass ran
};

void ConflictHistory::Impl::AddRange(std::string_view begin,
                                     std::string_view end, Version v) {
  if (begin >= end) return;
  // The segment after the range keeps its old version from `end` on.
  auto hi = segments.lower_bound(end);
  if (hi == segments.end() || hi->first != end) {
    Version after = std::prev(hi)->second;  // "" is always there (invariant 1)
    if (after != v) hi = Insert(hi, end, after);
  } else if (hi->second == v) {
    hi = Erase(hi);  // merge: the range runs straight into it
  }
  // Now every boundary in [begin, hi) is replaced by one at begin (unless the
  // segment before begin already carries v).
  auto lo = segments.lower_bound(begin);
  bool at_begin = lo != segments.end() && lo->first == begin;
  Version before = at_begin ? (lo == segments.begin() ? -1 : std::prev(lo)->second)
                            : std::prev(lo)->second;
  if (at_begin) {
    lo->second = v;
    ++lo;
  }
  Erase(lo, hi);
  if (!at_begin && before != v) {
    Insert(hi, begin, v);
  } else if (at_begin && before == v) {
    Erase(std::prev(hi));  // merge into the segment before begin
  }
}

void ConflictHistory::Impl::Sweep(Version oldest) {
  Version prev = -1;
  for (auto it = segments.begin(); it != segments.end();) {
    if (it->second <= oldest) it->second = 0;
    if (it->second == prev) {
      it = Erase(it);
    } else {
      prev = it->second;
      ++it;
    }
  }
}

void ConflictHistory::Impl::MergeStep(size_t pairs) {
  ++coarsenings;
  auto it = segments.lower_bound(cursor);
  if (it == segments.end()) it = segments.begin();
  for (size_t i = 0; i < pairs && it != segments.end(); ++i) {
    auto next = std::next(it);
    if (next == segments.end()) {
      it = next;
      break;
    }
    // `it` absorbs `next`; "" is never a `next` (invariant 1).
    it->second = std::max(it->second, next->second);
    Erase(next);
    ++it;
  }
  if (it == segments.end()) {
    cursor.clear();
  } else {
    cursor = it->first;
  }
}

void ConflictHistory::Impl::Coarsen() {
  ++coarsenings;
  Sweep(pruned);
  while (bytes > budget / 2 && segments.size() > 1) {
    // Each segment at an even position absorbs the next one: its end moves
    // to the next one's end and its version becomes the newer of the two.
    // "" stays first (invariant 1).
    for (auto it = segments.begin(); it != segments.end(); ++it) {
      auto next = std::next(it);
      if (next == segments.end()) break;
      it->second = std::max(it->second, next->second);
      Erase(next);
    }
    Sweep(pruned);  // neighbours that now carry the same version
  }
  merging = false;
  pass_threshold = std::max(kMinPassBoundaries, 2 * segments.size());
  newest_at_pass = newest;
}

ConflictHistory::ConflictHistory(size_t budget_bytes)
    : impl_(std::make_unique<Impl>(budget_bytes)) {}
ConflictHistory::~ConflictHistory() = default;

void ConflictHistory::Add(const std::vector<KeyRange>& writes, Version v) {
  // kMinMergePairs is the least a MergeStep does: a few hundred erasures,
  // well under a millisecond.
  constexpr size_t kMinMergePairs = 256;
  Impl& s = *impl_;
  s.newest = std::max(s.newest, v);
  for (const KeyRange& r : writes) {
    s.AddRange(r.begin, r.end, v);
    if (s.bytes > s.budget) s.Coarsen();
  }
  if (s.bytes > s.budget / 4 * 3) s.merging = true;
  if (s.merging) {
    // Twice the boundaries this Add may have added (two per range), so
    // the history shrinks while it merges.
    s.MergeStep(std::max(kMinMergePairs, 4 * writes.size()));
    if (s.bytes <= s.budget / 2) s.merging = false;
  }
}

int ConflictHistory::FirstConflict(const std::vector<KeyRange>& reads,
                                   Version rv) const {
  const auto& segs = impl_->segments;
  for (size_t i = 0; i < reads.size(); ++i) {
    const KeyRange& r = reads[i];
    if (r.begin >= r.end) continue;
    // Start at the segment containing r.begin, which may start before it.
    auto it = std::prev(segs.upper_bound(r.begin));
    for (; it != segs.end() && KeyOrder()(it->first, r.end); ++it) {
      if (it->second > rv) return static_cast<int>(i);
    }
  }
  return -1;
}

void ConflictHistory::Prune(Version oldest) {
  Impl& s = *impl_;
  s.pruned = std::max(s.pruned, oldest);
  if (s.newest <= oldest) {
    // Everything is forgotten: cheaper than a sweep, and it runs at most once
    // per burst of Adds.
    if (s.segments.size() > 1) {
      s.Reset();
    } else {
      s.segments.begin()->second = 0;
    }
    s.pass_threshold = kMinPassBoundaries;
    return;
  }
  // A pass is due when the map at least doubled since the last one (the Adds
  // that grew it pay for the O(n) pass; memory stays within twice the live
  // boundaries), or when everything the last pass kept has expired since (at
  // most one pass per MVCC window of commits).
  bool doubled = s.segments.size() >= s.pass_threshold;
  bool expired = s.segments.size() > kMinPassBoundaries && oldest >= s.newest_at_pass;
  if (!doubled && !expired) return;
  s.Sweep(oldest);
  s.pass_threshold = std::max(kMinPassBoundaries, 2 * s.segments.size());
  s.newest_at_pass = s.newest;
}

void ConflictHistory::SetBudget(size_t bytes) { impl_->budget = bytes; }
size_t ConflictHistory::budget() const { return impl_->budget; }
size_t ConflictHistory::Boundaries() const { return impl_->segments.size(); }
size_t ConflictHistory::MemoryBytes() const { return impl_->bytes; }
uint64_t ConflictHistory::Coarsenings() const { return impl_->coarsenings; }

}  // namespace fdblite
