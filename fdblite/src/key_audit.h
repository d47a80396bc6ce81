// key_audit.h: counts, per key, the committed transactions that write it
// or take a read conflict on it, to find the keys that would be hot on a
// cluster (one storage team serves each key, whatever the cluster size).
// Off by default; writing the special key \xff\xff/fdblite/keyaudit
// (with special_key_space_enable_writes) turns it on ("on": counting from
// zero) or off ("off", or a clear) as it is written, not at commit, and
// it reads as JSON:
//
//   {"transactions":N,
//    "writes":[{"begin":"<hex>","end":"<hex>","count":n},...],
//    "reads":[...]}
//
// with the 64 most-touched conflict ranges of each kind, most first (ties
// in key order). A range is counted once per transaction however many
// times the transaction added it. Only commits are counted: a read-only
// transaction conflicts with nothing.
//
// Thread safety: KeyAudit is safe for concurrent use.
#ifndef FDBLITE_KEY_AUDIT_H_
#define FDBLITE_KEY_AUDIT_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "conflicts.h"

namespace fdblite {

class KeyAudit {
 public:
  // Set turns counting on (from zero) or off.
  void Set(bool on);
  bool enabled() const { return on_.load(std::memory_order_acquire); }
  // Record counts one committed transaction's conflict ranges.
  void Record(const std::vector<KeyRange>& reads,
              const std::vector<KeyRange>& writes);
  // JSON is the report described above.
  std::string JSON();

  static constexpr size_t kTop = 64;

 private:
  using Counts = std::map<std::pair<std::string, std::string>, uint64_t>;
  static void Count(const std::vector<KeyRange>& ranges, Counts* counts);
  static std::string Top(const Counts& counts);

  std::atomic<bool> on_{false};
  std::mutex mu_;
  uint64_t transactions_ = 0;  // GUARDED_BY(mu_)
  Counts writes_;              // GUARDED_BY(mu_)
  Counts reads_;               // GUARDED_BY(mu_)
};

}  // namespace fdblite

#endif  // FDBLITE_KEY_AUDIT_H_
