// row_cache.cpp: see row_cache.h.
#include "row_cache.h"

namespace fdblite {

int64_t RowCache::Cost(const Map::value_type& e) {
  // The key and value bytes plus what a map node and a list node take.
  return static_cast<int64_t>(e.first.size() + (e.second.value ? e.second.value->size() : 0) + 128);
}

bool RowCache::Get(std::string_view key, bool* present, std::string* value) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  lru_.splice(lru_.begin(), lru_, it->second.lru);
  *present = it->second.value.has_value();
  if (*present) *value = *it->second.value;
  return true;
}

void RowCache::Put(std::string_view key, const std::string* value) {
  std::lock_guard<std::mutex> lock(mu_);
  if (capacity_ <= 0) return;
  auto it = map_.find(key);
  if (it != map_.end()) EraseLocked(it);
  it = map_.emplace(std::string(key), Entry{}).first;
  if (value) it->second.value = *value;
  lru_.push_front(it);
  it->second.lru = lru_.begin();
  used_ += Cost(*it);
  EvictLocked();
}

void RowCache::Invalidate(std::string_view key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = map_.find(key);
  if (it != map_.end()) EraseLocked(it);
}

void RowCache::InvalidateRange(std::string_view begin, std::string_view end) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = map_.lower_bound(begin); it != map_.end() && it->first < end;) {
    auto next = std::next(it);
    EraseLocked(it);
    it = next;
  }
}

void RowCache::SetCapacity(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  capacity_ = bytes;
  EvictLocked();
}

int64_t RowCache::bytes() {
  std::lock_guard<std::mutex> lock(mu_);
  return used_;
}

void RowCache::EraseLocked(Map::iterator it) {
  used_ -= Cost(*it);
  lru_.erase(it->second.lru);
  map_.erase(it);
}

void RowCache::EvictLocked() {
  while (used_ > capacity_ && !lru_.empty()) EraseLocked(lru_.back());
}

}  // namespace fdblite
