// cost.h: a transaction's cost, as fdb_transaction_get_total_cost reports it.
//
// FoundationDB 7.3's client estimates what a transaction costs the cluster
// for tag throttling and throughput quotas, in bytes counted in whole pages:
// a read costs its bytes (keys and values returned) rounded up to a 16 KiB
// page, at least one page; a write (set, clear, clear range, atomic
// operation) costs its bytes (key and value or operand; a clear range's two
// keys) rounded up to a page, times 5, the ratio at which the throttler
// weighs writes against reads. Reads answered from the transaction's own
// writes reach no server and cost nothing. The cost starts at 0 and returns
// to 0 on reset and on retry.
#ifndef FDBLITE_COST_H_
#define FDBLITE_COST_H_

#include <cstdint>

namespace fdblite {

constexpr int64_t kCostPageBytes = 16384;
constexpr int64_t kWriteCostRatio = 5;

inline int64_t CostPages(int64_t bytes) {
  return bytes <= 0 ? 1 : (bytes - 1) / kCostPageBytes + 1;
}
inline int64_t ReadCost(int64_t bytes) { return CostPages(bytes) * kCostPageBytes; }
inline int64_t WriteCost(int64_t bytes) {
  return kWriteCostRatio * CostPages(bytes) * kCostPageBytes;
}

}  // namespace fdblite

#endif  // FDBLITE_COST_H_
