// atomic_test.cpp: table tests for atomic.h.
//
// Expected values come from FoundationDB's documented atomic semantics
// (the mutation descriptions of fdb.options and the developer guide),
// worked out by hand, not from running the code. Values are
// written as hex; "absent" is a missing key, "cleared" a key the mutation
// removed.
#include <climits>
#include <optional>
#include <string>

#include "atomic.h"
#include "errors.h"
#include "test.h"

namespace {

using fdblite::ApplyAtomic;
using Value = std::optional<std::string>;

const Value kAbsent = std::nullopt;

// H turns "01ff" into the bytes 0x01 0xff.
std::string H(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::string Hex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

// V is a present value given in hex.
Value V(const std::string& hex) { return H(hex); }

// Show renders a result: "absent" is never produced by ApplyAtomic, so a
// missing result is "cleared"; an empty present value is "<empty>".
std::string Show(const Value& v) {
  if (!v) return "cleared";
  if (v->empty()) return "<empty>";
  return Hex(*v);
}

struct Case {
  const char* name;
  Value existing;
  std::string param_hex;
  const char* want;  // hex, "<empty>" or "cleared"
};

// RunCases applies `type` at `api` to every case and checks the outcome.
void RunCases(int type, int api, std::initializer_list<Case> cases) {
  for (const Case& c : cases) {
    std::string got = Show(ApplyAtomic(type, c.existing, H(c.param_hex), api));
    if (got != c.want) {
      ::fdblite_test::Fail(__FILE__, __LINE__,
                           std::string(c.name) + " (type " + std::to_string(type) + ", api " +
                               std::to_string(api) + "): got " + got + ", want " + c.want);
    }
  }
}

int ThrownCode(int type) {
  try {
    ApplyAtomic(type, V("01"), H("01"), 730);
  } catch (const fdblite::Error& e) {
    return e.code();
  }
  return 0;
}

}  // namespace

TEST("ApplyAtomic ADD") {
  RunCases(fdblite::kMutAdd, 730, {
      {"absent takes the operand", kAbsent, "01000000", "01000000"},
      {"empty takes the operand", V(""), "0102", "0102"},
      {"empty operand gives empty", V("05"), "", "<empty>"},
      {"absent with empty operand", kAbsent, "", "<empty>"},
      {"empty with empty operand", V(""), "", "<empty>"},
      {"simple", V("0100"), "0200", "0300"},
      {"carry into next byte", V("ff00"), "0100", "0001"},
      {"carry chain wraps", V("ffff"), "0100", "0000"},
      {"64-bit wraparound", V("ffffffffffffffff"), "0100000000000000", "0000000000000000"},
      {"add minus one (two's complement)", V("0a00000000000000"), "ffffffffffffffff", "0900000000000000"},
      {"shorter value is zero-extended", V("ff"), "01000000", "00010000"},
      {"longer value is truncated", V("010203"), "0101", "0203"},
      {"truncation drops high bytes before adding", V("ffffff"), "0100", "0000"},
      {"carry across a 20-byte operand", V("ffffffffffffffffffffffffffffffffffffffff"),
       "0100000000000000000000000000000000000000", "0000000000000000000000000000000000000000"},
      {"carry stops mid-way", V("ff7f"), "0100", "0080"},
      {"one byte", V("80"), "80", "00"},
  });
}

TEST("ApplyAtomic BIT_AND") {
  // API >= 510 runs type 6 as AND_V2.
  RunCases(fdblite::kMutAnd, 730, {
      {"absent takes the operand", kAbsent, "ff0f", "ff0f"},
      {"empty value ANDs as zeros", V(""), "ff0f", "0000"},
      {"empty operand gives empty", V("ff"), "", "<empty>"},
      {"absent with empty operand", kAbsent, "", "<empty>"},
      {"same length", V("f0f0"), "ff0f", "f000"},
      {"shorter value is zero-extended", V("ff"), "0fff", "0f00"},
      {"longer value is truncated", V("ffffff"), "0f0f", "0f0f"},
  });
  RunCases(fdblite::kMutAndV2, 500, {
      {"AND_V2 is V2 at any API version", kAbsent, "ff0f", "ff0f"},
      {"AND_V2 same length", V("3c"), "0f", "0c"},
  });
}

TEST("ApplyAtomic BIT_AND before API 510") {
  RunCases(fdblite::kMutAnd, 500, {
      {"absent counts as empty: zeros", kAbsent, "ff0f", "0000"},
      {"empty value ANDs as zeros", V(""), "ff0f", "0000"},
      {"empty operand gives empty", V("ff"), "", "<empty>"},
      {"absent with empty operand", kAbsent, "", "<empty>"},
      {"same length", V("f0f0"), "ff0f", "f000"},
  });
  RunCases(fdblite::kMutAnd, 509, {{"509 is still old", kAbsent, "ff", "00"}});
  RunCases(fdblite::kMutAnd, 510, {{"510 is V2", kAbsent, "ff", "ff"}});
}

TEST("ApplyAtomic BIT_OR") {
  RunCases(fdblite::kMutOr, 730, {
      {"absent takes the operand", kAbsent, "1020", "1020"},
      {"empty takes the operand", V(""), "1020", "1020"},
      {"empty operand gives empty", V("01"), "", "<empty>"},
      {"same length", V("0f00"), "f001", "ff01"},
      {"bytes past the value come from the operand", V("01"), "1020", "1120"},
      {"longer value is truncated", V("010203"), "1020", "1122"},
  });
}

TEST("ApplyAtomic BIT_XOR") {
  RunCases(fdblite::kMutXor, 730, {
      {"absent takes the operand", kAbsent, "0f0f", "0f0f"},
      {"empty takes the operand", V(""), "0f0f", "0f0f"},
      {"empty operand gives empty", V("01"), "", "<empty>"},
      {"same length", V("ff0f"), "0f0f", "f000"},
      {"bytes past the value come from the operand", V("ff"), "0f0f", "f00f"},
      {"longer value is truncated", V("ffffff"), "0f0f", "f0f0"},
      {"xor with itself", V("abcd"), "abcd", "0000"},
  });
}

TEST("ApplyAtomic APPEND_IF_FITS") {
  RunCases(fdblite::kMutAppendIfFits, 730, {
      {"absent takes the operand", kAbsent, "6364", "6364"},
      {"empty takes the operand", V(""), "6364", "6364"},
      {"empty operand keeps the value", V("616263"), "", "616263"},
      {"absent with empty operand", kAbsent, "", "<empty>"},
      {"appends", V("6162"), "6364", "61626364"},
  });
  const std::string big(99990, 'x');
  const std::string ten(10, 'y');
  // Exactly the 100,000-byte value limit still fits.
  Value fits = ApplyAtomic(fdblite::kMutAppendIfFits, big, ten, 730);
  ASSERT_TRUE(fits.has_value());
  EXPECT_EQ(fits->size(), size_t{100000});
  EXPECT_EQ(fits->substr(99990), ten);
  // One byte more leaves the value unchanged, silently.
  const std::string bigger(99991, 'x');
  Value unchanged = ApplyAtomic(fdblite::kMutAppendIfFits, bigger, ten, 730);
  ASSERT_TRUE(unchanged.has_value());
  EXPECT_EQ(*unchanged == bigger, true);
  // An absent value takes even a limit-sized operand.
  const std::string limit(100000, 'z');
  Value whole = ApplyAtomic(fdblite::kMutAppendIfFits, kAbsent, limit, 730);
  ASSERT_TRUE(whole.has_value());
  EXPECT_EQ(whole->size(), size_t{100000});
}

TEST("ApplyAtomic MAX") {
  RunCases(fdblite::kMutMax, 730, {
      {"absent takes the operand", kAbsent, "0100", "0100"},
      {"empty takes the operand", V(""), "0100", "0100"},
      {"empty operand gives empty", V("05"), "", "<empty>"},
      {"value larger", V("0200"), "0100", "0200"},
      {"operand larger", V("0100"), "0200", "0200"},
      {"high byte decides (little-endian)", V("0001"), "ff00", "0001"},
      {"unsigned bytes", V("80"), "7f", "80"},
      {"shorter value is zero-extended and wins", V("05"), "0400", "0500"},
      {"shorter value is zero-extended and loses", V("05"), "0001", "0001"},
      {"longer value is truncated and loses", V("010009"), "0200", "0200"},
      {"longer value is truncated and wins", V("0300ff"), "0200", "0300"},
      {"equal", V("1234"), "1234", "1234"},
  });
}

TEST("ApplyAtomic MIN") {
  // API >= 510 runs type 13 as MIN_V2.
  RunCases(fdblite::kMutMin, 730, {
      {"absent takes the operand", kAbsent, "0500", "0500"},
      {"empty value is zero", V(""), "0500", "0000"},
      {"empty operand gives empty", V("05"), "", "<empty>"},
      {"absent with empty operand", kAbsent, "", "<empty>"},
      {"operand smaller", V("0200"), "0100", "0100"},
      {"value smaller", V("0100"), "0200", "0100"},
      {"high byte decides (little-endian)", V("0001"), "ff00", "ff00"},
      {"unsigned bytes", V("80"), "7f", "7f"},
      {"shorter value is zero-extended and wins", V("05"), "0001", "0500"},
      {"shorter value is zero-extended and loses", V("05"), "0400", "0400"},
      {"longer value is truncated and wins", V("0100ff"), "0200", "0100"},
      {"equal", V("1234"), "1234", "1234"},
  });
  RunCases(fdblite::kMutMinV2, 500, {
      {"MIN_V2 is V2 at any API version", kAbsent, "0500", "0500"},
  });
}

TEST("ApplyAtomic MIN before API 510") {
  RunCases(fdblite::kMutMin, 500, {
      {"absent counts as zero", kAbsent, "0500", "0000"},
      {"empty value is zero", V(""), "0500", "0000"},
      {"empty operand gives empty", V("05"), "", "<empty>"},
      {"operand smaller", V("0200"), "0100", "0100"},
  });
}

TEST("ApplyAtomic BYTE_MIN and BYTE_MAX") {
  RunCases(fdblite::kMutByteMin, 730, {
      {"absent takes the operand", kAbsent, "616263", "616263"},
      {"absent with empty operand", kAbsent, "", "<empty>"},
      {"lexicographic", V("616263"), "616264", "616263"},
      {"operand smaller", V("616264"), "616263", "616263"},
      {"prefix is smaller", V("616263"), "6162", "6162"},
      {"empty value is smallest", V(""), "61", "<empty>"},
      {"empty operand is smallest", V("61"), "", "<empty>"},
      {"unsigned bytes", V("80"), "7f", "7f"},
      {"length does not matter numerically", V("02"), "0100", "0100"},
  });
  RunCases(fdblite::kMutByteMax, 730, {
      {"absent takes the operand", kAbsent, "616263", "616263"},
      {"lexicographic", V("616263"), "616264", "616264"},
      {"value larger", V("616264"), "616263", "616264"},
      {"longer with same prefix is larger", V("6162"), "616263", "616263"},
      {"empty value loses", V(""), "61", "61"},
      {"empty operand loses", V("61"), "", "61"},
      {"unsigned bytes", V("80"), "7f", "80"},
      {"length does not matter numerically", V("02"), "0100", "02"},
  });
}

TEST("ApplyAtomic COMPARE_AND_CLEAR") {
  RunCases(fdblite::kMutCompareAndClear, 730, {
      {"absent is cleared", kAbsent, "01", "cleared"},
      {"equal is cleared", V("0102"), "0102", "cleared"},
      {"different is kept", V("0102"), "0103", "0102"},
      {"prefix is different", V("0102"), "01", "0102"},
      {"empty equals empty", V(""), "", "cleared"},
      {"empty differs from zero byte", V(""), "00", "<empty>"},
      {"value differs from empty operand", V("00"), "", "00"},
  });
}

TEST("ApplyAtomic rejects unknown and versionstamp types") {
  for (int type : {-1, 0, 1, 3, 4, 5, 10, 11, 21, 100, INT_MIN, INT_MAX}) {
    EXPECT_EQ(ThrownCode(type), 2018);  // invalid_mutation_type
  }
  // The versionstamp types are placed at commit, never folded into a value.
  EXPECT_EQ(ThrownCode(fdblite::kMutSetVersionstampedKey), 4100);
  EXPECT_EQ(ThrownCode(fdblite::kMutSetVersionstampedValue), 4100);
}

TEST("IsKnownMutationType") {
  for (int type = -2; type <= 25; ++type) {
    bool want = type == 2 || (type >= 6 && type <= 9) || (type >= 12 && type <= 20);
    if (fdblite::IsKnownMutationType(type) != want) {
      ::fdblite_test::Fail(__FILE__, __LINE__, "IsKnownMutationType(" + std::to_string(type) + ")");
    }
  }
  EXPECT_TRUE(!fdblite::IsKnownMutationType(INT_MIN));
  EXPECT_TRUE(!fdblite::IsKnownMutationType(INT_MAX));
}

namespace {

struct StampCase {
  const char* name;
  std::string operand_hex;
  bool is_key;
  int api;
  bool ok;
  std::string body_hex;  // when ok
  uint32_t pos;          // when ok
};

const char kTen[] = "00000000000000000000";  // ten placeholder bytes

}  // namespace

TEST("ParseVersionstampOperand") {
  const std::string ten = kTen;
  const StampCase cases[] = {
      // API >= 520: a 4-byte little-endian offset suffix, for keys and values.
      {"key, stamp after a prefix", "616263" + ten + "03000000", true, 730, true, "616263" + ten, 3},
      {"value, stamp after a prefix", "616263" + ten + "03000000", false, 730, true, "616263" + ten, 3},
      {"stamp at 0, body exactly 10", ten + "00000000", true, 730, true, ten, 0},
      {"stamp followed by a suffix", ten + "7a7a" + "00000000", false, 730, true, ten + "7a7a", 0},
      {"stamp ends exactly at the end", "6161" + ten + "02000000", true, 730, true, "6161" + ten, 2},
      {"stamp one past the end", "6161" + ten + "03000000", true, 730, false, "", 0},
      {"body shorter than a stamp", "616161" + std::string("00000000"), false, 730, false, "", 0},
      {"only the suffix", "00000000", true, 730, false, "", 0},
      {"three bytes", "000000", true, 730, false, "", 0},
      {"empty operand", "", false, 730, false, "", 0},
      {"negative offset -1", ten + "ffffffff", true, 730, false, "", 0},
      {"offset INT32_MIN is negative", ten + "00000080", false, 730, false, "", 0},
      {"offset INT32_MAX does not overflow", ten + "ffffff7f", true, 730, false, "", 0},
      {"offset bytes are little-endian", std::string(256 * 2, '0') + ten + "00010000", true, 730, true,
       std::string(256 * 2, '0') + ten, 256},
      {"520 uses 4-byte offsets", "6162" + ten + "02000000", true, 520, true, "6162" + ten, 2},
      // API < 520: keys end with a 2-byte little-endian offset ...
      {"old key, 2-byte offset", "6162" + ten + "0200", true, 519, true, "6162" + ten, 2},
      {"old key, offset 0", ten + "0000", true, 510, true, ten, 0},
      {"old key, offset past the end", ten + "0100", true, 510, false, "", 0},
      {"old key, offset 65535", ten + "ffff", true, 510, false, "", 0},
      {"old key, high offset byte", std::string(256 * 2, '0') + ten + "0001", true, 510, true,
       std::string(256 * 2, '0') + ten, 256},
      {"old key, one byte", "00", true, 510, false, "", 0},
      {"old key, too short for a stamp", "616263" + std::string("0000"), true, 510, false, "", 0},
      // ... and values carry no suffix: the stamp goes at offset 0.
      {"old value, whole operand, offset 0", ten + "6162", false, 510, true, ten + "6162", 0},
      {"old value, exactly 10 bytes", ten, false, 510, true, ten, 0},
      {"old value, 9 bytes", "000000000000000000", false, 510, false, "", 0},
      {"old value, a 4-byte suffix is just data", ten + "03000000", false, 519, true, ten + "03000000", 0},
  };
  for (const StampCase& c : cases) {
    std::string body = "untouched";
    uint32_t pos = 12345;
    bool ok = fdblite::ParseVersionstampOperand(H(c.operand_hex), c.is_key, c.api, &body, &pos);
    if (ok != c.ok) {
      ::fdblite_test::Fail(__FILE__, __LINE__, std::string(c.name) + ": ok=" + (ok ? "true" : "false"));
      continue;
    }
    if (!ok) continue;
    if (Hex(body) != c.body_hex || pos != c.pos) {
      ::fdblite_test::Fail(__FILE__, __LINE__,
                           std::string(c.name) + ": body " + Hex(body) + " pos " + std::to_string(pos));
    }
  }
}

TEST("WriteVersionstamp") {
  std::string body = H("6161" "00000000000000000000" "7a");
  fdblite::WriteVersionstamp(&body, 2, 0x0102030405060708, 0x090a);
  EXPECT_EQ(Hex(body), std::string("6161" "0102030405060708" "090a" "7a"));

  std::string one(10, '\xff');
  fdblite::WriteVersionstamp(&one, 0, 1, 0);
  EXPECT_EQ(Hex(one), std::string("00000000000000010000"));

  std::string max(10, '\0');
  fdblite::WriteVersionstamp(&max, 0, INT64_MAX, 0xffff);
  EXPECT_EQ(Hex(max), std::string("7fffffffffffffffffff"));

  // A stamp that would not fit is refused rather than written out of bounds.
  std::string small(9, '\0');
  int code = 0;
  try {
    fdblite::WriteVersionstamp(&small, 0, 1, 0);
  } catch (const fdblite::Error& e) {
    code = e.code();
  }
  EXPECT_EQ(code, 4100);
  EXPECT_EQ(small, std::string(9, '\0'));
}

TEST("ParseVersionstampOperand then WriteVersionstamp round trip") {
  std::string body;
  uint32_t pos = 0;
  ASSERT_TRUE(fdblite::ParseVersionstampOperand(H("01" "ffffffffffffffffffff" "02" "01000000"), true, 730,
                                                &body, &pos));
  fdblite::WriteVersionstamp(&body, pos, 0x00000000000f4240, 3);
  EXPECT_EQ(Hex(body), std::string("01" "00000000000f4240" "0003" "02"));
}
