// row_cache.h: the values a durable database read from its engine, kept so
// a hot key costs a memory lookup, not two SQLite B-tree searches.
//
// An entry is what kv (durable.h) holds for a key: a value, or absent. kv
// changes only when the log is applied, and a key's row changes only if a
// log row wrote it, i.e. while the overlay (store.h) holds a node for it,
// which decides every read the window allows (a read at a version before
// the node's first record sees kv's row, which the apply step cannot have
// changed yet: the horizon is below every readable version). So an entry
// stays right until the overlay forgets that node, or the range clears
// forget a clear that covers it; the database then invalidates it, under
// its exclusive store lock. Entries are added under the shared lock, so an
// entry read from kv before an apply is either added before the
// invalidation (and removed by it) or read after it.
//
// Memory: entries are evicted least recently used first to stay within
// `bytes` (key, value and a fixed overhead per entry).
//
// Thread safety: all methods are safe for concurrent use.
#ifndef FDBLITE_ROW_CACHE_H_
#define FDBLITE_ROW_CACHE_H_

#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace fdblite {

class RowCache {
 public:
  explicit RowCache(int64_t bytes) : capacity_(bytes) {}
  // Get reports whether key is cached; then *present says whether kv holds
  // it, and its value is copied into *value.
  bool Get(std::string_view key, bool* present, std::string* value);
  // Put caches what kv holds for key (value null: absent).
  void Put(std::string_view key, const std::string* value);
  void Invalidate(std::string_view key);
  void InvalidateRange(std::string_view begin, std::string_view end);
  void SetCapacity(int64_t bytes);
  int64_t bytes();

 private:
  struct Entry;
  using Map = std::map<std::string, Entry, std::less<>>;
  using Lru = std::list<Map::iterator>;
  struct Entry {
    std::optional<std::string> value;
    Lru::iterator lru;
  };
  static int64_t Cost(const Map::value_type& e);
  void EraseLocked(Map::iterator it);
  void EvictLocked();

  std::mutex mu_;
  int64_t capacity_;  // GUARDED_BY(mu_)
  int64_t used_ = 0;  // GUARDED_BY(mu_)
  Map map_;           // GUARDED_BY(mu_)
  Lru lru_;           // GUARDED_BY(mu_): most recent first
};

}  // namespace fdblite

#endif  // FDBLITE_ROW_CACHE_H_
