// option_value.h: decoding option parameters, shared by every set_option.
#ifndef FDBLITE_OPTION_VALUE_H_
#define FDBLITE_OPTION_VALUE_H_

#include <cstdint>
#include <cstring>

namespace fdblite {

// ReadIntOption decodes an Int option parameter: exactly 8 bytes, little
// endian (FoundationDB's encoding); false for anything else.
inline bool ReadIntOption(const uint8_t* v, int len, int64_t* out) {
  if (v == nullptr || len != 8) return false;
  uint64_t u = 0;
  for (int i = 7; i >= 0; --i) u = (u << 8) | v[i];
  std::memcpy(out, &u, sizeof u);  // two's complement, no UB
  return true;
}

}  // namespace fdblite

#endif  // FDBLITE_OPTION_VALUE_H_
