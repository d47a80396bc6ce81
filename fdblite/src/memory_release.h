// memory_release.h: giving memory a durable database freed back to the
// system.
//
// As the MVCC window moves, a durable database's overlay frees what the
// engine now holds (store.h, Forget): at full write speed, tens of MB a
// second. glibc's malloc keeps freed blocks in its arenas, one per thread
// that allocated (and Go calls in from many threads), and returns only
// the top of each to the system, so RSS stayed at the window's peak plus
// the fragments between live blocks: loading 1 GB, 648 MB of arenas held
// 227 MB in use (issue 36). NoteFreed counts what the overlay frees; every
// kReleaseEveryBytes it schedules one malloc_trim(0) on the network thread
// (loop.h), which returns the free pages of every arena to the system:
// 6-30 ms for 100-400 MB free, measured, on no commit's or read's path.
// Without glibc (or under a sanitizer's allocator) it does nothing useful
// and costs nothing.
//
// Thread safety: safe for concurrent use; it takes only the loop's lock,
// which is a leaf (database.h's lock order).
#ifndef FDBLITE_MEMORY_RELEASE_H_
#define FDBLITE_MEMORY_RELEASE_H_

#include <cstddef>
#include <cstdint>

namespace fdblite {

constexpr uint64_t kReleaseEveryBytes = 64 << 20;

// NoteFreed records that `bytes` were freed.
void NoteFreed(size_t bytes);

// ReleasesDone counts the releases that ran (for tests).
uint64_t ReleasesDone();

}  // namespace fdblite

#endif  // FDBLITE_MEMORY_RELEASE_H_
