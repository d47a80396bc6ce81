// range_clears_test.cpp: RangeClears against a list of clears.
#include "range_clears.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "test.h"

namespace {

using fdblite::RangeClears;
using fdblite::Version;

TEST("RangeClears: table") {
  RangeClears c;
  EXPECT_TRUE(!c.Covered("a", 100, nullptr, nullptr));
  c.Add("b", "d", 10);
  c.Add("c", "f", 20);
  c.Add("x", "x", 30);  // empty: nothing
  std::string b, e;
  EXPECT_TRUE(!c.Covered("a", 100, nullptr, nullptr));
  EXPECT_TRUE(!c.Covered("b", 9, nullptr, nullptr));  // before the clear
  EXPECT_TRUE(c.Covered("b", 10, &b, &e));
  EXPECT_EQ(b + ".." + e, std::string("b..c"));
  EXPECT_TRUE(c.Covered("c", 10, &b, &e));  // the clear at 10 covers c..d
  EXPECT_EQ(b + ".." + e, std::string("c..d"));
  EXPECT_TRUE(!c.Covered("d", 19, nullptr, nullptr));
  EXPECT_TRUE(c.Covered("e\xff", 20, &b, &e));
  EXPECT_EQ(b + ".." + e, std::string("d..f"));
  EXPECT_TRUE(!c.Covered("f", 100, nullptr, nullptr));  // end is exclusive
  c.Forget(10);
  EXPECT_TRUE(!c.Covered("b", 100, nullptr, nullptr));
  EXPECT_TRUE(c.Covered("c", 20, &b, &e));
  EXPECT_EQ(b + ".." + e, std::string("c..f"));  // c..d and d..f now merge
  c.Forget(20);
  EXPECT_TRUE(c.empty());
}

// Random clears, forgets and queries over a tiny alphabet (so ranges nest,
// touch and repeat), compared with the plain list of clears not forgotten.
TEST("RangeClears: differential against a list") {
  for (uint32_t seed : {1u, 2u, 3u, 4u, 5u}) {
    std::mt19937 rng(seed);
    auto rand = [&rng](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    auto key = [&] {
      std::string k;
      int len = rand(4);
      for (int i = 0; i < len; ++i) k += static_cast<char>("ab\0\xff"[rand(4)]);
      return k;
    };
    RangeClears c;
    std::vector<std::tuple<std::string, std::string, Version>> list;
    auto covered = [&](const std::string& k, Version v) {
      for (auto& [b, e, cv] : list) {
        if (cv <= v && b <= k && k < e) return true;
      }
      return false;
    };
    Version latest = 1, applied = 0;
    const int failed_before = ::fdblite_test::failures;
    for (int op = 0; op < 3000; ++op) {
      latest += rand(3);
      int what = rand(10);
      if (what < 3) {
        std::string b = key(), e = key();
        c.Add(b, e, latest);
        if (b < e) list.emplace_back(b, e, latest);
      } else if (what < 4) {
        applied = std::max(applied, latest - rand(6));
        c.Forget(applied);
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [&](const auto& t) { return std::get<2>(t) <= applied; }),
                   list.end());
        // Memory follows the clears kept: at most two boundaries each.
        EXPECT_TRUE(c.Segments() <= 2 * list.size());
      } else {
        std::string k = key(), b, e;
        Version v = applied + rand(static_cast<int>(latest - applied) + 2);
        bool got = c.Covered(k, v, &b, &e);
        EXPECT_EQ(got, covered(k, v));
        if (got) {
          // The segment holds k, and the same clears cover all of it: its
          // begin, and every key of the alphabet inside it.
          EXPECT_TRUE(b <= k && k < e);
          EXPECT_TRUE(covered(b, v));
          std::string inside = key();
          if (b <= inside && inside < e) EXPECT_TRUE(covered(inside, v));
        }
      }
      if (::fdblite_test::failures > failed_before) {
        std::printf("  seed %u op %d\n", seed, op);
        return;
      }
    }
  }
}

}  // namespace
