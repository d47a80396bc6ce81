// row_cache_test.cpp: RowCache's bound, LRU order and invalidation.
#include "row_cache.h"

#include <string>

#include "test.h"

namespace {

using fdblite::RowCache;

TEST("RowCache: hits, absent rows, invalidation of keys and ranges") {
  RowCache c(1 << 20);
  bool present = true;
  std::string v;
  EXPECT_TRUE(!c.Get("a", &present, &v));
  std::string one = "1";
  c.Put("a", &one);
  c.Put("b", nullptr);  // kv holds no row for b
  c.Put("c", &one);
  EXPECT_TRUE(c.Get("a", &present, &v));
  EXPECT_TRUE(present);
  EXPECT_EQ(v, "1");
  EXPECT_TRUE(c.Get("b", &present, &v));
  EXPECT_TRUE(!present);
  c.Invalidate("a");
  EXPECT_TRUE(!c.Get("a", &present, &v));
  c.InvalidateRange("b", "c");  // end exclusive
  EXPECT_TRUE(!c.Get("b", &present, &v));
  EXPECT_TRUE(c.Get("c", &present, &v));
  c.SetCapacity(0);
  EXPECT_EQ(c.bytes(), 0);
  c.Put("d", &one);  // a zero budget caches nothing
  EXPECT_TRUE(!c.Get("d", &present, &v));
}

TEST("RowCache: stays within its bytes, evicting the least recently used") {
  const std::string value(1000, 'v');
  RowCache c(20 * 1200);
  for (int i = 0; i < 100; ++i) {
    c.Put("k" + std::to_string(i), &value);
    EXPECT_TRUE(c.bytes() <= 20 * 1200);
    bool present;
    std::string v;
    // k0 is read after every put: it stays; the others age out.
    if (i > 0) EXPECT_TRUE(c.Get("k0", &present, &v));
  }
  bool present;
  std::string v;
  EXPECT_TRUE(c.Get("k99", &present, &v));
  EXPECT_TRUE(!c.Get("k50", &present, &v));
  EXPECT_TRUE(c.bytes() > 10 * 1000);
}

}  // namespace
