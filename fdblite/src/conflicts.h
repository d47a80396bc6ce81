// conflicts.h: the write history that optimistic concurrency control checks.
//
// For every committed read-write transaction the database records its write
// conflict ranges at its commit version. A committing transaction with read
// version rv conflicts when one of its read conflict ranges intersects a
// write conflict range recorded at a version > rv. History at versions <=
// `oldest` is forgotten by Prune: a transaction that old is refused with
// transaction_too_old before the check, so nothing needs it.
//
// Representation: a step function from key to "newest version that wrote
// this key" (a sorted map of boundaries), so a check costs O(log n) plus the
// number of boundaries inside the read range.
//
// Memory budget (issue 36): five seconds of writes are two boundaries per
// key written, 20-40 MB at a bulk load of 20,000 keys a second. Above
// three quarters of its budget, the history coarsens: it merges
// neighbouring segments into one carrying the newer of their versions, a
// few hundred at each Add (more than the Add added), until it holds at
// most half the budget; an Add that still reaches the budget forgets what
// Prune allows and merges across the whole history at once. A merged
// segment claims a write over keys that were not written, never the
// reverse, so coarsening can add conflicts (a read of an unwritten key
// between two recent writes now conflicts) but never miss one; FoundationDB
// allows the same: its resolvers may report a conflict that did not happen
// (not_committed), never miss one.
//
// Thread safety: none inside; the database guards it with its commit lock.
#ifndef FDBLITE_CONFLICTS_H_
#define FDBLITE_CONFLICTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fdblite {

using Version = int64_t;

// KeyRange is the half-open range [begin, end).
struct KeyRange {
  std::string begin;
  std::string end;
};

// The conflict history's budget when FDBLITE_CONFLICT_BYTES is unset.
constexpr size_t kDefaultConflictBytes = 16 << 20;

class ConflictHistory {
 public:
  explicit ConflictHistory(size_t budget_bytes = kDefaultConflictBytes);
  ~ConflictHistory();
  ConflictHistory(const ConflictHistory&) = delete;
  ConflictHistory& operator=(const ConflictHistory&) = delete;

  // Add records that a transaction committed at version v wrote `writes`
  // (ranges may overlap, be empty or unsorted). v is greater than every
  // version added before.
  void Add(const std::vector<KeyRange>& writes, Version v);

  // FirstConflict returns the index in `reads` of the first range that
  // intersects a write recorded at a version > rv, or -1 if none does.
  int FirstConflict(const std::vector<KeyRange>& reads, Version rv) const;

  // Prune forgets writes at versions <= oldest. Amortized: cheap when little
  // changed since the last call.
  void Prune(Version oldest);

  // SetBudget changes the memory budget; the next Add enforces it.
  void SetBudget(size_t bytes);
  size_t budget() const;

  // Boundaries counts the boundaries kept (for memory tests).
  size_t Boundaries() const;
  // MemoryBytes estimates the bytes the history holds (map nodes and key
  // buffers as malloc holds them); at most the budget after every Add.
  size_t MemoryBytes() const;
  // Coarsenings counts the merge steps and passes run to meet the budget.
  uint64_t Coarsenings() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fdblite

#endif  // FDBLITE_CONFLICTS_H_
