// disk_reader.cpp: see disk_reader.h.
#include "disk_reader.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>

#include "errors.h"

namespace fdblite {

namespace {

// Leases the calling thread holds (disk_reader.h: at most one from the pool).
thread_local int leases_held = 0;

[[noreturn]] void Throw(sqlite3* db, int rc, const char* what) {
  int code = kIoError;
  switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
      code = kFileCorrupt;
      break;
  }
  std::fprintf(stderr, "fdblite: read %s: %s [sqlite %d]\n", what,
               db ? sqlite3_errmsg(db) : sqlite3_errstr(rc), rc);
  throw Error(code);
}

void BindBlob(sqlite3_stmt* st, int i, std::string_view s) {
  // A zero-length blob must bind as a blob, not as NULL.
  sqlite3_bind_blob(st, i, s.empty() ? "" : s.data(), static_cast<int>(s.size()),
                    SQLITE_TRANSIENT);
}

}  // namespace

struct DiskReader::Conn {
  sqlite3* db = nullptr;
  sqlite3_stmt* get = nullptr;
  sqlite3_stmt* fwd = nullptr;
  sqlite3_stmt* rev = nullptr;
  int64_t cache_bytes = -1;  // what cache_size says now
  ~Conn() {
    for (sqlite3_stmt* st : {get, fwd, rev}) sqlite3_finalize(st);
    sqlite3_close(db);
  }
  void SetCache(int64_t bytes) {
    if (bytes == cache_bytes) return;
    // A negative cache_size is in KiB; at least 64 KiB (16 pages).
    std::string sql =
        "PRAGMA cache_size=-" + std::to_string(std::max<int64_t>(bytes / 1024, 64));
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
    cache_bytes = bytes;
  }
};

DiskReader::DiskReader(std::string path, int64_t cache_bytes)
    : path_(std::move(path)), cache_bytes_(cache_bytes) {}

DiskReader::~DiskReader() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Conn* c : all_) delete c;
}

void DiskReader::SetCacheBytes(int64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  cache_bytes_ = bytes;
}

int64_t DiskReader::cache_bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return cache_bytes_;
}

int64_t DiskReader::CacheUsedBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t total = 0;
  for (Conn* c : idle_) {
    int cur = 0, hi = 0;
    sqlite3_db_status(c->db, SQLITE_DBSTATUS_CACHE_USED, &cur, &hi, 0);
    total += cur;
  }
  return total;
}

DiskReader::Conn* DiskReader::OpenConn() {
  auto c = std::make_unique<Conn>();
  int rc = sqlite3_open_v2(path_.c_str(), &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) Throw(c->db, rc, ("open " + path_).c_str());
  sqlite3_extended_result_codes(c->db, 1);
  sqlite3_busy_timeout(c->db, 5000);
  sqlite3_exec(c->db, "PRAGMA query_only=1; PRAGMA mmap_size=0", nullptr, nullptr, nullptr);
  const struct {
    sqlite3_stmt** stmt;
    const char* sql;
  } prepared[] = {
      {&c->get, "SELECT v FROM kv WHERE k = ?1"},
      {&c->fwd, "SELECT k, v FROM kv WHERE k >= ?1 ORDER BY k"},
      {&c->rev, "SELECT k, v FROM kv WHERE k < ?1 ORDER BY k DESC"},
  };
  for (const auto& p : prepared) {
    rc = sqlite3_prepare_v3(c->db, p.sql, -1, SQLITE_PREPARE_PERSISTENT, p.stmt, nullptr);
    if (rc != SQLITE_OK) Throw(c->db, rc, p.sql);
  }
  return c.release();
}

DiskReader::Conn* DiskReader::Acquire(bool* pooled) {
  int64_t budget;
  Conn* c = nullptr;
  if (leases_held > 0) {
    // A second lease on this thread: never wait for our own connection.
    *pooled = false;
    std::lock_guard<std::mutex> lock(mu_);
    budget = cache_bytes_ / kCacheShares;
  } else {
    *pooled = true;
    std::unique_lock<std::mutex> lock(mu_);
    free_cv_.wait(lock, [&] {
      return !idle_.empty() || static_cast<int>(all_.size()) < kMaxConnections;
    });
    budget = cache_bytes_ / kCacheShares;
    if (!idle_.empty()) {
      c = idle_.back();
      idle_.pop_back();
    } else {
      all_.push_back(nullptr);  // reserve the slot; opened outside the lock
    }
    ++leased_;
  }
  if (c == nullptr) {
    try {
      c = OpenConn();
    } catch (...) {
      if (*pooled) {
        std::lock_guard<std::mutex> lock(mu_);
        all_.erase(std::find(all_.begin(), all_.end(), nullptr));
        --leased_;
        free_cv_.notify_one();
      }
      throw;
    }
    if (*pooled) {
      std::lock_guard<std::mutex> lock(mu_);
      *std::find(all_.begin(), all_.end(), nullptr) = c;
    }
  }
  c->SetCache(budget);
  ++leases_held;
  return c;
}

void DiskReader::Release(Conn* c, bool pooled) {
  --leases_held;
  for (sqlite3_stmt* st : {c->get, c->fwd, c->rev}) {
    sqlite3_reset(st);  // ends its read transaction
    sqlite3_clear_bindings(st);
  }
  if (!pooled) {
    delete c;
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(c);
  --leased_;
  free_cv_.notify_one();
}

DiskReader::Lease::Lease(DiskReader* r) : r_(r), conn_(r->Acquire(&pooled_)) {}
DiskReader::Lease::~Lease() { r_->Release(conn_, pooled_); }

bool DiskReader::Get(std::string_view key, std::string* value) {
  Lease lease(this);
  sqlite3_stmt* st = lease->get;
  BindBlob(st, 1, key);
  int rc = sqlite3_step(st);
  bool found = rc == SQLITE_ROW;
  if (found && value != nullptr) {
    const char* v = static_cast<const char*>(sqlite3_column_blob(st, 0));
    value->assign(v ? v : "", sqlite3_column_bytes(st, 0));
  }
  sqlite3_reset(st);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) Throw(lease->db, rc, "kv");
  return found;
}

DiskReader::Cursor::Cursor(DiskReader* r) : lease_(r) {}
DiskReader::Cursor::~Cursor() {
  if (st_) sqlite3_reset(st_);
}

void DiskReader::Cursor::Seek(std::string_view key) {
  forward_ = true;
  Start(lease_->fwd, key);
}

void DiskReader::Cursor::SeekBefore(std::string_view key) {
  forward_ = false;
  Start(lease_->rev, key);
}

void DiskReader::Cursor::Start(sqlite3_stmt* st, std::string_view key) {
  if (st_) sqlite3_reset(st_);
  st_ = st;
  BindBlob(st_, 1, key);
  Read();
}

void DiskReader::Cursor::Step() { Read(); }

void DiskReader::Cursor::Read() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) {
    const char* k = static_cast<const char*>(sqlite3_column_blob(st_, 0));
    int kn = sqlite3_column_bytes(st_, 0);
    const char* v = static_cast<const char*>(sqlite3_column_blob(st_, 1));
    int vn = sqlite3_column_bytes(st_, 1);
    key_ = std::string_view(k ? k : "", kn);
    value_ = std::string_view(v ? v : "", vn);
    valid_ = true;
    return;
  }
  valid_ = false;
  sqlite3_reset(st_);
  st_ = nullptr;
  if (rc != SQLITE_DONE) Throw(lease_->db, rc, "kv");
}

}  // namespace fdblite
