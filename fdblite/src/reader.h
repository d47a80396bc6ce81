// reader.h: what a read at version v sees of a database, in either mode.
//
// In memory the store (store.h) holds everything and a Reader is the store.
// A durable database's store is an overlay of the versions its engine has
// not applied yet, so a read merges three sources (docs/durable-disk.md):
//   1. the overlay: a key with a record <= v there is decided by it (a
//      value, or a tombstone that hides the engine's row);
//   2. the range clears not yet applied (range_clears.h): an engine row a
//      clear at a version <= v covers is absent;
//   3. the engine (disk_reader.h): every other key has its kv value, which
//      point reads keep in the row cache (row_cache.h).
// Point reads, cursors (what the views, key selectors and range reads walk),
// size estimates and split points all go through this one reader, so their
// semantics are the in-memory ones by construction.
//
// REQUIRES: the caller holds the database's store lock (shared or
// exclusive) for the life of a call or Cursor.
#ifndef FDBLITE_READER_H_
#define FDBLITE_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "disk_reader.h"
#include "range_clears.h"
#include "row_cache.h"
#include "store.h"

namespace fdblite {

class Reader {
 public:
  // A memory reader (disk, rows and clears null), or a durable one.
  Reader(const Store* store, const RangeClears* clears, DiskReader* disk,
         RowCache* rows = nullptr)
      : store_(store), clears_(clears), disk_(disk), rows_(rows) {}

  // Get reports whether key holds a value at v, copying it into *value
  // when value is not null.
  bool Get(std::string_view key, Version v, std::string* value) const;

  // Cursor walks the keys that hold a value at v, in key order, like
  // Store::Cursor. key() and value() are valid until the cursor moves.
  class Cursor {
   public:
    Cursor(const Reader& reader, Version v);
    ~Cursor();
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    void Seek(std::string_view key);        // first visible key >= key
    void SeekBefore(std::string_view key);  // last visible key < key
    bool Valid() const { return valid_; }
    void Next();  // REQUIRES: Valid()
    void Prev();  // REQUIRES: Valid()
    std::string_view key() const;
    std::string_view value() const;

   private:
    void SettleForward();
    void SettleBackward();
    const Reader& reader_;
    Version version_;
    Store::Cursor mem_;
    std::unique_ptr<DiskReader::Cursor> disk_;  // durable only, on first seek
    bool forward_ = true;
    bool valid_ = false;
    enum { kMem, kDisk, kBoth } src_ = kMem;
    std::string turn_;  // the key a change of direction re-seeks from
  };

  // Statistics at v over [begin, end), as Store's.
  uint64_t EstimateRangeBytes(std::string_view begin, std::string_view end,
                              Version v) const;
  std::vector<std::string> SplitPoints(std::string_view begin,
                                       std::string_view end, Version v,
                                       int64_t chunk_bytes) const;

  bool durable() const { return disk_ != nullptr; }

 private:
  const Store* store_;
  const RangeClears* clears_;
  DiskReader* disk_;
  RowCache* rows_;
};

}  // namespace fdblite

#endif  // FDBLITE_READER_H_
