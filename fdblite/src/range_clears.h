// range_clears.h: the range clears a durable database keeps in memory until
// its engine has applied them (docs/durable-disk.md).
//
// In durable mode the store is an overlay (store.h): a clear range
// tombstones the keys the overlay holds, but the keys only the on-disk
// engine holds stay there until the clear is applied, and a read at a
// version before the clear must still see them. RangeClears answers, for a
// key at version v, whether a clear range at a version <= v not yet applied
// covers it, without one record per cleared key (a clear of a large table
// must not load it into memory).
//
// Representation: the key space cut into segments at every clear's begin
// and end; each segment holds the versions, ascending, of the clears that
// cover it. Memory is proportional to the clears not yet applied.
//
// Thread safety: none inside; the owner guards it like its store (const
// methods run concurrently, Add and Forget need exclusive access).
#ifndef FDBLITE_RANGE_CLEARS_H_
#define FDBLITE_RANGE_CLEARS_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "store.h"

namespace fdblite {

class RangeClears {
 public:
  // Add records a clear of [begin, end) at version v (>= every version
  // added before). begin >= end is a no-op.
  void Add(std::string_view begin, std::string_view end, Version v);
  // Covered reports whether a clear at a version <= v covers key, and then
  // the segment [*begin, *end) around key that the same clears cover (so a
  // cursor skips it whole). begin and end may be null.
  bool Covered(std::string_view key, Version v, std::string* begin,
               std::string* end) const;
  // Forget drops the clears at versions <= applied (the engine holds them).
  // dropped, when set, is called with each segment [begin, end) that one of
  // them covered.
  void Forget(Version applied,
              const std::function<void(std::string_view, std::string_view)>& dropped = nullptr);
  bool empty() const { return segments_.empty(); }
  // Segments counts segment boundaries (for memory tests).
  size_t Segments() const { return segments_.size(); }

 private:
  using Map = std::map<std::string, std::vector<Version>, std::less<>>;
  // Split makes key a segment boundary, the segment keeping its clears.
  Map::iterator Split(std::string_view key);
  // Invariant: the last boundary's segment (up to the end of the key space)
  // has no clears, and no two neighbouring segments hold the same clears
  // after Forget.
  Map segments_;
};

}  // namespace fdblite

#endif  // FDBLITE_RANGE_CLEARS_H_
