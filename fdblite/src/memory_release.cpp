// memory_release.cpp: see memory_release.h.
#include "memory_release.h"

#include <atomic>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "loop.h"

namespace fdblite {

namespace {

std::atomic<uint64_t> freed{0};
std::atomic<bool> scheduled{false};  // a trim is waiting for the loop
std::atomic<uint64_t> releases{0};

}  // namespace

void NoteFreed(size_t bytes) {
  if (freed.fetch_add(bytes) + bytes < kReleaseEveryBytes) return;
  if (scheduled.exchange(true)) return;  // one at a time
  freed.store(0);
  Loop::Get().Schedule(0, [] {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    releases.fetch_add(1);
    scheduled.store(false);
  });
}

uint64_t ReleasesDone() { return releases.load(); }

}  // namespace fdblite
