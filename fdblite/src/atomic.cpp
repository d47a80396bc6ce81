// atomic.cpp: FoundationDB's atomic mutation semantics (facts §6).
//
// Vocabulary used below: P is the operand, E the existing value (absent or
// bytes), and resize(E) is E truncated, or zero-padded on the high end, to
// |P| bytes. Numeric operations read their operands as unsigned little-endian
// integers of any length, byte by byte, so there is no size limit, no
// alignment requirement and no type punning.
#include "atomic.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "errors.h"

namespace fdblite {
namespace {

using Value = std::optional<std::string>;

// APPEND_IF_FITS leaves the value alone when the result would exceed
// FoundationDB's value size limit.
constexpr std::size_t kValueSizeLimit = 100000;

// The API versions at which FoundationDB changed atomic semantics.
constexpr int kApiAndMinV2 = 510;       // AND/MIN: an absent value means "set"
constexpr int kApiStampOffset32 = 520;  // 4-byte versionstamp offsets

constexpr std::size_t kVersionstampSize = 10;

// Resize returns E cut or zero-extended (at the high, i.e. trailing, end) to
// n bytes.
std::string Resize(std::string_view e, std::size_t n) {
  std::string out(n, '\0');
  std::memcpy(out.data(), e.data(), std::min(e.size(), n));
  return out;
}

uint8_t Byte(std::string_view s, std::size_t i) {
  return static_cast<uint8_t>(s[i]);
}

// CompareLittleEndian orders two equally long unsigned little-endian numbers:
// negative, zero or positive as a is less than, equal to or greater than b.
int CompareLittleEndian(std::string_view a, std::string_view b) {
  for (std::size_t i = a.size(); i-- > 0;) {
    if (Byte(a, i) != Byte(b, i)) return Byte(a, i) < Byte(b, i) ? -1 : 1;
  }
  return 0;
}

bool AbsentOrEmpty(const Value& e) { return !e.has_value() || e->empty(); }

Value Add(const Value& e, std::string_view p) {
  if (AbsentOrEmpty(e)) return std::string(p);
  if (p.empty()) return std::string();
  std::string sum = Resize(*e, p.size());
  unsigned carry = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    unsigned total = static_cast<unsigned>(Byte(sum, i)) + Byte(p, i) + carry;
    sum[i] = static_cast<char>(total & 0xFFu);
    carry = total >> 8;
  }
  return sum;  // the carry out of the top byte is dropped (wraparound)
}

// Bitwise AND. Before API 510 an absent value counts as empty (so the result
// is all zeros); from 510 on (AND_V2) an absent value takes P.
Value And(const Value& e, std::string_view p, bool v2) {
  if (v2 && !e.has_value()) return std::string(p);
  if (p.empty()) return std::string();
  std::string out = Resize(e.value_or(std::string()), p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    out[i] = static_cast<char>(Byte(out, i) & Byte(p, i));
  }
  return out;
}

// Bitwise OR / XOR: bytes of P beyond the end of E are copied unchanged.
template <typename Op>
Value Bitwise(const Value& e, std::string_view p, Op op) {
  if (AbsentOrEmpty(e)) return std::string(p);
  if (p.empty()) return std::string();
  std::string out(p);
  const std::size_t n = std::min(e->size(), p.size());
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = static_cast<char>(op(Byte(*e, i), Byte(p, i)));
  }
  return out;
}

Value AppendIfFits(const Value& e, std::string_view p) {
  if (AbsentOrEmpty(e)) return std::string(p);
  if (p.empty()) return e;
  if (e->size() + p.size() > kValueSizeLimit) return e;  // silently unchanged
  std::string out = *e;
  out.append(p.data(), p.size());
  return out;
}

Value Max(const Value& e, std::string_view p) {
  if (AbsentOrEmpty(e)) return std::string(p);
  if (p.empty()) return std::string();
  std::string r = Resize(*e, p.size());
  return CompareLittleEndian(r, p) > 0 ? r : std::string(p);
}

// Unsigned minimum. Before API 510 an absent value counts as empty, i.e. zero;
// from 510 on (MIN_V2) an absent value takes P. An empty value is zero.
Value Min(const Value& e, std::string_view p, bool v2) {
  if (v2 && !e.has_value()) return std::string(p);
  if (p.empty()) return std::string();
  std::string r = Resize(e.value_or(std::string()), p.size());
  return CompareLittleEndian(r, p) < 0 ? r : std::string(p);
}

Value ByteMin(const Value& e, std::string_view p) {
  if (!e.has_value()) return std::string(p);
  return std::string_view(*e) < p ? *e : std::string(p);
}

Value ByteMax(const Value& e, std::string_view p) {
  if (!e.has_value()) return std::string(p);
  return std::string_view(*e) > p ? *e : std::string(p);
}

Value CompareAndClear(const Value& e, std::string_view p) {
  if (!e.has_value() || std::string_view(*e) == p) return std::nullopt;
  return e;
}

}  // namespace

bool IsKnownMutationType(int type) noexcept {
  switch (type) {
    case kMutAdd:
    case kMutAnd:
    case kMutOr:
    case kMutXor:
    case kMutAppendIfFits:
    case kMutMax:
    case kMutMin:
    case kMutSetVersionstampedKey:
    case kMutSetVersionstampedValue:
    case kMutByteMin:
    case kMutByteMax:
    case kMutMinV2:
    case kMutAndV2:
    case kMutCompareAndClear:
      return true;
    default:
      return false;
  }
}

std::optional<std::string> ApplyAtomic(
    int type, const std::optional<std::string>& existing,
    std::string_view param, int api_version) {
  const bool v2 = api_version >= kApiAndMinV2;
  switch (type) {
    case kMutAdd:
      return Add(existing, param);
    case kMutAnd:
      return And(existing, param, v2);
    case kMutAndV2:
      return And(existing, param, true);
    case kMutOr:
      return Bitwise(existing, param,
                     [](uint8_t a, uint8_t b) { return a | b; });
    case kMutXor:
      return Bitwise(existing, param,
                     [](uint8_t a, uint8_t b) { return a ^ b; });
    case kMutAppendIfFits:
      return AppendIfFits(existing, param);
    case kMutMax:
      return Max(existing, param);
    case kMutMin:
      return Min(existing, param, v2);
    case kMutMinV2:
      return Min(existing, param, true);
    case kMutByteMin:
      return ByteMin(existing, param);
    case kMutByteMax:
      return ByteMax(existing, param);
    case kMutCompareAndClear:
      return CompareAndClear(existing, param);
    case kMutSetVersionstampedKey:
    case kMutSetVersionstampedValue:
      // Stamped writes are placed at commit, not folded into a value: a
      // caller reaching here has a bug.
      throw Error(kInternalError);
    default:
      throw Error(kInvalidMutationType);
  }
}

bool ParseVersionstampOperand(std::string_view operand, bool is_key,
                              int api_version, std::string* body,
                              uint32_t* pos) {
  int64_t offset = 0;
  std::string_view rest = operand;
  if (api_version >= kApiStampOffset32) {
    // A 4-byte little-endian signed offset ends the operand.
    if (operand.size() < 4) return false;
    uint32_t raw = 0;
    const std::size_t at = operand.size() - 4;
    for (int i = 3; i >= 0; --i) raw = (raw << 8) | Byte(operand, at + i);
    offset = static_cast<int64_t>(raw);
    if (raw >= 0x80000000u) offset -= int64_t{1} << 32;  // two's complement
    rest = operand.substr(0, operand.size() - 4);
  } else if (is_key) {
    // Older keys end with a 2-byte little-endian (hence non-negative) offset.
    if (operand.size() < 2) return false;
    const std::size_t at = operand.size() - 2;
    offset = Byte(operand, at) | (Byte(operand, at + 1) << 8);
    rest = operand.substr(0, operand.size() - 2);
  }
  // Older values carry no suffix: the stamp always goes at offset 0.
  const int64_t end = offset + static_cast<int64_t>(kVersionstampSize);
  if (offset < 0 || end > static_cast<int64_t>(rest.size())) {
    return false;
  }
  body->assign(rest.data(), rest.size());
  *pos = static_cast<uint32_t>(offset);
  return true;
}

void WriteVersionstamp(std::string* body, uint32_t pos, int64_t version,
                       uint16_t batch) {
  if (static_cast<uint64_t>(pos) + kVersionstampSize > body->size()) {
    throw Error(kInternalError);  // the caller skipped validation
  }
  const uint64_t v = static_cast<uint64_t>(version);
  for (int i = 0; i < 8; ++i) {
    (*body)[pos + i] = static_cast<char>((v >> (56 - 8 * i)) & 0xFFu);
  }
  (*body)[pos + 8] = static_cast<char>(batch >> 8);
  (*body)[pos + 9] = static_cast<char>(batch & 0xFFu);
}

}  // namespace fdblite
