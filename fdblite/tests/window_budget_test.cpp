// window_budget_test.cpp: WindowBudget's horizon, by table tests and
// against a direct computation over the commits.
#include "window_budget.h"

#include <random>
#include <vector>

#include "test.h"

namespace {

using fdblite::Version;
using fdblite::WindowBudget;

TEST("WindowBudget::Horizon keeps the full window under budget") {
  WindowBudget b(1000);
  b.Add(10, 300);
  b.Add(20, 300);
  b.Add(30, 300);
  EXPECT_EQ(b.Horizon(5, 25), 5);  // 900 <= 1000: nothing given up
  EXPECT_EQ(b.bytes(), 900);
  EXPECT_EQ(b.Horizon(10, 25), 10);  // the floor passes the first commit
  EXPECT_EQ(b.bytes(), 600);
}

TEST("WindowBudget::Horizon gives up the oldest commits over budget, up to the ceiling") {
  WindowBudget b(1000);
  for (Version v = 10; v <= 60; v += 10) b.Add(v, 400);  // 2400 bytes
  // Giving up 10, 20 leaves 1600; 30 leaves 1200; the ceiling stops at 30.
  EXPECT_EQ(b.Horizon(0, 30), 30);
  EXPECT_EQ(b.bytes(), 1200);
  // A later ceiling: giving up 40 leaves 800 <= 1000.
  EXPECT_EQ(b.Horizon(0, 55), 40);
  EXPECT_EQ(b.bytes(), 800);
  // Writes at one version add up; negative growth counts as none.
  b.Add(70, 100);
  b.Add(70, 150);
  b.Add(80, -500);
  EXPECT_EQ(b.bytes(), 1050);
  EXPECT_EQ(b.Horizon(0, 100), 50);
  EXPECT_EQ(b.bytes(), 650);
  // A ceiling below the floor gives the floor.
  EXPECT_EQ(b.Horizon(75, 60), 75);
}

TEST("WindowBudget::Horizon matches a direct computation (random)") {
  std::mt19937 rng(36);
  for (int round = 0; round < 200; ++round) {
    const int64_t budget = 1 + rng() % 5000;
    WindowBudget b(budget);
    std::vector<std::pair<Version, int64_t>> all;  // every commit added
    Version v = 0, horizon = 0;  // horizon: what no longer counts
    for (int step = 0; step < 60; ++step) {
      v += 1 + rng() % 10;
      int64_t bytes = rng() % 600;
      b.Add(v, bytes);
      all.push_back({v, bytes});
      Version floor = v - 40;  // the full window: rises with v
      Version ceiling = v - static_cast<Version>(rng() % 30);
      Version got = b.Horizon(floor, ceiling);
      // Want: commits at or below the floor, or given up before, no longer
      // count; then the oldest ones are given up while the rest add up to
      // more than the budget, up to the ceiling; the horizon is the last
      // one given up, or the floor.
      auto above = [&](Version h) {
        int64_t sum = 0;
        for (auto& [cv, cb] : all) sum += cv > h ? cb : 0;
        return sum;
      };
      Version cut = std::max(floor, horizon), want = floor;
      for (auto& [cv, cb] : all) {
        if (cv <= cut) continue;
        if (above(cut) <= budget || cv > ceiling) break;
        cut = want = cv;
      }
      if (got != want) {
        ::fdblite_test::Fail(__FILE__, __LINE__,
                             "round " + std::to_string(round) + " step " + std::to_string(step) +
                                 ": horizon " + std::to_string(got) + ", want " +
                                 std::to_string(want));
        return;
      }
      EXPECT_EQ(b.bytes(), above(cut));
      horizon = cut;
    }
  }
}

}  // namespace
