// disk_reader.h: reads of a durable database's engine (the kv table of
// durable.h), for the merged reader (reader.h).
//
// Readers run concurrently (each holds the database's shared store lock), so
// each read takes a connection of its own from a small pool: at most
// kMaxConnections, each with an equal share of the cache budget (one of
// kCacheShares) as its
// SQLite page cache, so the pages SQLite keeps in memory stay within the
// budget whatever the data size. No mmap: mapped pages would count in RSS
// beyond the bound. A thread holds at most one connection at a time
// (a second lease on the same thread, which no caller takes today, gets a
// connection outside the pool instead of waiting for itself).
//
// Consistency: every statement sees a committed SQLite state. kv changes
// only at versions no read may use (durable.h, invariant 5), so a read at
// version v gets the same answer from kv before and after an apply step
// for every key memory does not decide (docs/durable-disk.md, "Reads").
//
// Errors: a failed read (an I/O error, a corrupt page) throws
// fdblite::Error (io_error or file_corrupt), which the C API turns into the
// read's error.
#ifndef FDBLITE_DISK_READER_H_
#define FDBLITE_DISK_READER_H_

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace fdblite {

class DiskReader {
 public:
  static constexpr int kMaxConnections = 4;
  // The cache budget is split in this many equal shares: one per pooled
  // connection, one for the writer's connection, one for the row cache
  // (row_cache.h).
  static constexpr int kCacheShares = kMaxConnections + 2;

  // Open prepares reads of the SQLite file at path (connections open on
  // first use). cache_bytes is the budget shared by the pool.
  DiskReader(std::string path, int64_t cache_bytes);
  ~DiskReader();
  DiskReader(const DiskReader&) = delete;
  DiskReader& operator=(const DiskReader&) = delete;

  // SetCacheBytes changes the budget; connections adopt it on their next
  // lease.
  void SetCacheBytes(int64_t bytes);
  int64_t cache_bytes() const;
  // CacheUsedBytes is what the pool's page caches hold now.
  int64_t CacheUsedBytes();

  struct Conn;
  // Lease is one connection, returned to the pool at scope end.
  class Lease {
   public:
    explicit Lease(DiskReader* r);
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Conn* operator->() const { return conn_; }
    Conn* get() const { return conn_; }

   private:
    DiskReader* r_;
    Conn* conn_;
    bool pooled_;
  };

  // Get reads key's value in kv; false when kv does not hold it.
  bool Get(std::string_view key, std::string* value);

  // Cursor walks kv's rows in key order from a seek, in one direction.
  // key() and value() are valid until the next move.
  class Cursor {
   public:
    explicit Cursor(DiskReader* r);
    ~Cursor();
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    void Seek(std::string_view key);        // forward from the first row >= key
    void SeekBefore(std::string_view key);  // backward from the last row < key
    bool Valid() const { return valid_; }
    bool forward() const { return forward_; }
    void Step();  // the next row in the seek's direction; REQUIRES: Valid()
    std::string_view key() const { return key_; }
    std::string_view value() const { return value_; }

   private:
    void Start(sqlite3_stmt* st, std::string_view key);
    void Read();
    Lease lease_;
    sqlite3_stmt* st_ = nullptr;  // the running statement, or null
    bool forward_ = true;
    bool valid_ = false;
    std::string_view key_, value_;
  };

 private:
  Conn* Acquire(bool* pooled);
  void Release(Conn* c, bool pooled);
  Conn* OpenConn();

  const std::string path_;
  mutable std::mutex mu_;
  std::condition_variable free_cv_;
  int64_t cache_bytes_;              // GUARDED_BY(mu_)
  std::vector<Conn*> idle_;          // GUARDED_BY(mu_)
  std::vector<Conn*> all_;           // GUARDED_BY(mu_): pooled connections
  int leased_ = 0;                   // GUARDED_BY(mu_)
};

}  // namespace fdblite

#endif  // FDBLITE_DISK_READER_H_
