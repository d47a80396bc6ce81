// memory_release_test.cpp: NoteFreed releases memory on the network thread.
#define FDB_API_VERSION 730
#include "memory_release.h"

#include <foundationdb/fdb_c.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "test.h"

namespace {

TEST("NoteFreed runs one release on the network thread per kReleaseEveryBytes freed") {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)fdb_select_api_version(730);
    if (fdb_setup_network() == 0) {  // else another test's network runs
      static std::thread* network = new std::thread([] { (void)fdb_run_network(); });
      network->detach();
    }
  });
  const uint64_t before = fdblite::ReleasesDone();
  fdblite::NoteFreed(fdblite::kReleaseEveryBytes);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (fdblite::ReleasesDone() == before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(fdblite::ReleasesDone(), before + 1);
  // Less than kReleaseEveryBytes more schedules nothing.
  fdblite::NoteFreed(fdblite::kReleaseEveryBytes / 2);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(fdblite::ReleasesDone(), before + 1);
}

}  // namespace
