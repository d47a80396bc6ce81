// data_dir_test.cpp: CopyDataDir, the online copy of a data directory,
// checked in fdblite's own tests so the sanitizer builds run it.
#include "data_dir.h"

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "durable_util.h"
#include "errors.h"
#include "test.h"

using namespace fdblite_test;

TEST("data dir: a copy taken while commits go on opens with one moment of them") {
  TempDir src, dst_parent;
  auto db = MustOpen(src.path());
  ASSERT_TRUE(CommitMutations(*db, {Set("n", "0")}).error == 0);
  std::atomic<bool> stop{false};
  std::atomic<int> acked{0};
  // Each commit sets "n" and the key it counts together.
  std::thread writer([&] {
    for (int i = 1; !stop; i++) {
      std::string v = std::to_string(i);
      if (CommitMutations(*db, {Set("k" + v, v), Set("n", v)}).error != 0) return;
      acked = i;
    }
  });
  while (acked < 50) std::this_thread::yield();
  int before = acked;
  std::string dst = dst_parent.path() + "/copy";
  std::string detail;
  int err = fdblite::CopyDataDir(src.path(), dst, &detail);
  stop = true;
  writer.join();
  if (err != 0) std::fprintf(stderr, "copy: %s\n", detail.c_str());
  ASSERT_TRUE(err == 0);
  auto copy = MustOpen(dst);
  int n = std::stoi(Get(*copy, "n"));
  ASSERT_TRUE(n >= before);
  EXPECT_EQ(Get(*copy, "k" + std::to_string(n)), std::to_string(n));
  EXPECT_EQ(Get(*copy, "k" + std::to_string(n + 1)), std::string("<absent>"));
}

TEST("data dir: a copy into a non-empty directory or from no database is refused") {
  TempDir src, dst;
  std::string detail;
  EXPECT_EQ(fdblite::CopyDataDir(src.path(), dst.path() + "/c", &detail), fdblite::kFileNotReadable);
  auto db = MustOpen(src.path());
  EXPECT_EQ(fdblite::CopyDataDir(src.path(), src.path(), &detail), fdblite::kFileNotWritable);
  EXPECT_EQ(fdblite::CopyDataDir(src.path(), dst.path() + "/c", &detail), 0);
  EXPECT_EQ(fdblite::CopyDataDir(src.path(), dst.path() + "/c", &detail), fdblite::kFileNotWritable);
}
