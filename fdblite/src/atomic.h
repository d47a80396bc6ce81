// atomic.h: the value semantics of FoundationDB's atomic mutations.
//
// Pure functions, no state: the transaction layer applies them to its own
// uncommitted value (read-your-writes) and the database applies them at
// commit to the latest committed value.
#ifndef FDBLITE_ATOMIC_H_
#define FDBLITE_ATOMIC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fdblite {

// FDBMutationType values.
enum MutationType : int {
  kMutAdd = 2,
  kMutAnd = 6,  // runs as AND_V2 at API >= 510
  kMutOr = 7,
  kMutXor = 8,
  kMutAppendIfFits = 9,
  kMutMax = 12,
  kMutMin = 13,  // runs as MIN_V2 at API >= 510
  kMutSetVersionstampedKey = 14,
  kMutSetVersionstampedValue = 15,
  kMutByteMin = 16,
  kMutByteMax = 17,
  kMutMinV2 = 18,
  kMutAndV2 = 19,
  kMutCompareAndClear = 20,
};

// IsKnownMutationType reports whether `type` is one of {2,6,7,8,9,12..20}
// (anything else is invalid_mutation_type, 2018).
bool IsKnownMutationType(int type) noexcept;

// ApplyAtomic returns the value a key holds after atomic mutation `type`
// (not one of the two versionstamp types) with operand `param` is applied to
// `existing` (nullopt = the key is absent). nullopt in the result means the
// key is cleared (only COMPARE_AND_CLEAR clears). `api_version` selects the
// pre-510 AND/MIN behaviour for types 6 and 13. The exact semantics for
// absent/empty operands and length mismatches are FoundationDB's (the
// MutationType descriptions of fdb.options).
std::optional<std::string> ApplyAtomic(int type,
                                       const std::optional<std::string>& existing,
                                       std::string_view param,
                                       int api_version);

// Versionstamp placement (API >= 520: 4-byte little-endian offset suffix; API
// < 520: 2-byte suffix for keys, offset 0 for values). On success returns
// true, sets *body to `operand` minus the suffix and *pos to the offset of the
// 10-byte versionstamp inside *body. Returns false when the operand is too
// short or the offset is out of range (the caller reports 2000).
bool ParseVersionstampOperand(std::string_view operand, bool is_key,
                              int api_version, std::string* body,
                              uint32_t* pos);

// WriteVersionstamp writes the 10-byte versionstamp of `version` and `batch`
// (8-byte big-endian version, 2-byte big-endian batch order) at `pos` in *body.
void WriteVersionstamp(std::string* body, uint32_t pos, int64_t version,
                       uint16_t batch);

}  // namespace fdblite

#endif  // FDBLITE_ATOMIC_H_
