// key_order.h: FoundationDB's key order, compared fast.
#ifndef FDBLITE_KEY_ORDER_H_
#define FDBLITE_KEY_ORDER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace fdblite {

// KeyLess is lexicographic byte order, as std::string_view's operator<, but
// inline and a word at a time: lookups spend most of their time here, and
// keys under a common prefix (tuple-encoded subspaces) differ late.
inline bool KeyLess(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const char* pa = a.data();
  const char* pb = b.data();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, pa + i, 8);
    std::memcpy(&y, pb + i, 8);
    if (x != y) return __builtin_bswap64(x) < __builtin_bswap64(y);
  }
  for (; i < n; ++i) {
    if (pa[i] != pb[i]) {
      return static_cast<unsigned char>(pa[i]) < static_cast<unsigned char>(pb[i]);
    }
  }
  return a.size() < b.size();
}
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "KeyLess byte-swaps words to compare them in memory order");

// KeyOrder is KeyLess as a transparent comparator for ordered containers.
struct KeyOrder {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return KeyLess(a, b); }
};

}  // namespace fdblite

#endif  // FDBLITE_KEY_ORDER_H_
