// store.h: the versioned (MVCC) key-value store behind one database.
//
// Every key holds a chain of versions, newest first; each version is a value
// or a tombstone (clear). A read at version v sees, for each key, the newest
// version <= v. Prune(oldest) forgets what no read at a version >= oldest can
// see, so memory stays bounded under sustained overwrites: at most one
// version per key older than `oldest`, and no key whose only remaining
// version is a tombstone older than `oldest`.
//
// Thread safety: none inside. The owner (Database) guards it with a
// reader/writer lock: const methods and Cursors may run concurrently with
// each other; a non-const method needs exclusive access, and invalidates
// every Cursor.
//
// Memory: one allocation per key plus one per retained version (a skiplist
// node with inline key bytes, with a back pointer at level 0 so Prev is
// O(1)), plus a hash index of node pointers that keeps point operations
// O(1); per-key overhead beyond the key and value bytes stays under 100
// bytes at 1M keys (measured in tests/store_test.cpp).
#ifndef FDBLITE_STORE_H_
#define FDBLITE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fdblite {

using Version = int64_t;

// StoreKind says what a Store holds. kMemory: the whole database (every key,
// with the versions the MVCC window needs). kOverlay: only the versions a
// durable database has not yet applied to its on-disk engine (see
// docs/durable-disk.md): a key the store does not hold, or holds no version
// <= v of, reads at v as the engine says. In an overlay a point clear of a
// key the store does not hold is kept (as a tombstone: the engine may hold
// the key), every record above version 1 is queued for Forget, and a
// ClearRange tombstones only the keys the store holds (clearing the
// engine's keys in the range is the owner's business). Records at version
// 1 (what a database sets when it opens) are pinned: Forget keeps them
// while their key has no newer record.
enum class StoreKind { kMemory, kOverlay };

// Lookup is what an overlay knows of one key at one version.
enum class Lookup {
  kUnknown,    // no record <= v: the engine's value decides
  kValue,      // the key holds a value at v
  kTombstone,  // the key is cleared at v
};

class Store {
 public:
  explicit Store(StoreKind kind = StoreKind::kMemory);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Get reports whether `key` holds a value at version v, copying it into
  // *value when value is not null.
  bool Get(std::string_view key, Version v, std::string* value) const;

  // Set, Clear and ClearRange write at version v. v is >= every version
  // written before (the database's commit version); a second write at the
  // same version replaces the first. ClearRange clears [begin, end): it
  // writes a tombstone at v on every key in the range that holds a value at
  // v. begin >= end is a no-op.
  // Lookup says whether the newest record of `key` <= v is a value (copied
  // into *value when not null), a tombstone, or absent (kUnknown). In a
  // kMemory store kUnknown and kTombstone both mean the key is absent.
  Lookup Find(std::string_view key, Version v, std::string* value) const;

  void Set(std::string_view key, std::string_view value, Version v);
  void Clear(std::string_view key, Version v);
  void ClearRange(std::string_view begin, std::string_view end, Version v);

  // Prune forgets versions that no read at a version >= oldest can see. After
  // it, reads at versions < oldest are undefined (the database refuses them
  // with transaction_too_old). Amortized cost is proportional to the writes
  // since the previous Prune, not to the store size.
  void Prune(Version oldest);

  // Forget (kOverlay only) drops what the engine now holds: every record at
  // or below `applied` that no read at a version >= applied can need from
  // memory. A key whose newest record is <= applied leaves the store; a key
  // with newer records keeps at most one record <= applied. After it, the
  // store holds only keys written after `applied` (and pinned records), so
  // its size follows the write rate, not the data. Amortized cost is
  // proportional to the writes since the previous Forget. dropped, when
  // set, is called with the key of each node that leaves the store.
  void Forget(Version applied,
              const std::function<void(std::string_view)>& dropped = nullptr);

  // Cursor walks the keys that hold a value at one version, in key order
  // (tombstoned and not-yet-written keys are skipped). key() and value() are
  // valid until the cursor moves or the store is written.
  class Cursor {
   public:
    // A raw cursor (kOverlay) stops at every key with a record <= v, value
    // or tombstone (tombstone() tells), and skips keys with none.
    Cursor(const Store& store, Version v, bool raw = false);
    ~Cursor();
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;

    void Seek(std::string_view key);        // first visible key >= key
    void SeekBefore(std::string_view key);  // last visible key < key
    void SeekToFirst();
    void SeekToLast();
    bool Valid() const;
    void Next();  // REQUIRES: Valid()
    void Prev();  // REQUIRES: Valid(); O(1) amortized
    std::string_view key() const;    // REQUIRES: Valid()
    std::string_view value() const;  // REQUIRES: Valid()
    bool tombstone() const;          // REQUIRES: Valid(); only a raw cursor's can be true

   private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
  };

  // Statistics, at version v, over keys in [begin, end).
  // EstimateRangeBytes: sum of key and value sizes of visible keys.
  uint64_t EstimateRangeBytes(std::string_view begin, std::string_view end,
                              Version v) const;
  // SplitPoints: begin, then keys at roughly every `chunk_bytes` of
  // key+value bytes, then end (at least {begin, end}).
  std::vector<std::string> SplitPoints(std::string_view begin,
                                       std::string_view end, Version v,
                                       int64_t chunk_bytes) const;

  // KeyNodes counts key nodes, including those holding only old versions or
  // tombstones not yet pruned (for memory tests).
  size_t KeyNodes() const;
  // VersionRecords counts retained versions over all keys.
  size_t VersionRecords() const;
  // MemoryBytes is what the store holds in memory: every node and version
  // record as malloc holds it (usable size plus chunk header), the hash
  // index and the GC queue.
  size_t MemoryBytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fdblite

#endif  // FDBLITE_STORE_H_
