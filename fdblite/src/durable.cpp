// durable.cpp: see durable.h.
#include "durable.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "data_dir.h"
#include "errors.h"

namespace fdblite {

namespace {

constexpr int kFormat = 2;
// The log bytes one group applies at least (DurableLog::WriteGroup): small,
// because applying is random row updates that may each read a page from
// disk, and the group's commits wait for it. 4 MB made a group take 1.3 s
// on a 10M-key table whose pages were not cached (a second of no commits
// after each burst); 64 KB bounds it to tens of milliseconds.
constexpr size_t kApplyBudget = 64 << 10;
// The same while memory is over the window's budget (Pending::catch_up):
// then memory comes first, and a group applies megabytes.
constexpr size_t kCatchUpBudget = 4 << 20;

}  // namespace

namespace {

void PutVarint(std::string* out, uint64_t n) {
  while (n >= 0x80) {
    out->push_back(static_cast<char>(n | 0x80));
    n >>= 7;
  }
  out->push_back(static_cast<char>(n));
}

bool GetVarint(std::string_view* in, uint64_t* n) {
  *n = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (in->empty()) return false;
    auto b = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    *n |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

bool GetBytes(std::string_view* in, std::string* out) {
  uint64_t n;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  out->assign(in->data(), n);
  in->remove_prefix(n);
  return true;
}

}  // namespace

std::string EncodeOps(const std::vector<DurableOp>& ops) {
  std::string out;
  size_t bytes = 0;
  for (const DurableOp& op : ops) bytes += op.key.size() + op.param.size() + 11;
  out.reserve(bytes);
  for (const DurableOp& op : ops) {
    out.push_back(static_cast<char>(op.kind));
    PutVarint(&out, op.key.size());
    out += op.key;
    PutVarint(&out, op.param.size());
    out += op.param;
  }
  return out;
}

bool DecodeOps(std::string_view blob, std::vector<DurableOp>* ops) {
  ops->clear();
  while (!blob.empty()) {
    auto kind = static_cast<unsigned char>(blob.front());
    blob.remove_prefix(1);
    if (kind > DurableOp::kClearRange) return false;
    DurableOp op{static_cast<DurableOp::Kind>(kind), {}, {}};
    if (!GetBytes(&blob, &op.key) || !GetBytes(&blob, &op.param)) return false;
    ops->push_back(std::move(op));
  }
  return true;
}

struct DurableLog::Statements {
  sqlite3_stmt* set = nullptr;
  sqlite3_stmt* clear = nullptr;
  sqlite3_stmt* clear_range = nullptr;
  sqlite3_stmt* version = nullptr;
  sqlite3_stmt* append = nullptr;
  sqlite3_stmt* pending = nullptr;
  sqlite3_stmt* trim = nullptr;
  ~Statements() {
    for (sqlite3_stmt* st : {set, clear, clear_range, version, append, pending, trim}) {
      sqlite3_finalize(st);
    }
  }
};

std::string DurableLog::DbPath() const { return dir_ + "/" + kDbFile; }

int DurableLog::Exec(const char* sql, std::string* detail, const char* what) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    *detail = Why(db_, rc, what ? what : sql);
    return CodeForSqlite(rc);
  }
  return 0;
}

int DurableLog::Open(const std::string& dir, int64_t cache_bytes, const ReplayFn& replay,
                     std::unique_ptr<DurableLog>* out, Version* version,
                     std::string* detail) {
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<DurableLog> log(new DurableLog());
  log->dir_ = dir;
  log->stats_.dir = dir;
  auto fail_errno = [&](const std::string& what, int e) {
    *detail = what + ": " + std::strerror(e);
    return CodeForErrno(e);
  };
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return fail_errno("create data directory " + dir, ec.value());

  std::string lock_path = dir + "/" + kLockFile;
  log->lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (log->lock_fd_ < 0) return fail_errno("open " + lock_path, errno);
  if (::flock(log->lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    if (e != EWOULDBLOCK) return fail_errno("lock " + lock_path, e);
    char pid[32] = {0};
    ssize_t n = ::pread(log->lock_fd_, pid, sizeof pid - 1, 0);
    *detail = "data directory " + dir + " is in use by another process";
    if (n > 0) *detail += std::string(" (pid ") + std::to_string(std::atoi(pid)) + ")";
    return kLockFileFailure;
  }
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(log->lock_fd_, 0) != 0 ||
      ::pwrite(log->lock_fd_, pid.data(), pid.size(), 0) < 0) {
    return fail_errno("write " + lock_path, errno);
  }

  std::string db_path = dir + "/" + kDbFile;
  int rc = sqlite3_open_v2(db_path.c_str(), &log->db_,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    *detail = Why(log->db_, rc, ("open " + db_path).c_str());
    return CodeForSqlite(rc);
  }
  sqlite3_extended_result_codes(log->db_, 1);
  // Another process reading the file (an online backup) never blocks a
  // commit in WAL mode; one writing to it briefly (a checkpoint by the
  // sqlite3 tool) is waited for, up to 5 s, before a commit fails.
  sqlite3_busy_timeout(log->db_, 5000);
  // WAL + synchronous=FULL: a commit returns once its WAL frames are
  // fsynced. The schema statements also tell a database file that is not
  // SQLite's (file_corrupt) or cannot be written (file_not_writable) at once.
  if (int e = log->Exec("PRAGMA journal_mode=WAL", detail, ("open " + db_path).c_str())) return e;
  if (int e = log->Exec("PRAGMA synchronous=FULL", detail)) return e;
  // After a checkpoint, a WAL file that grew past 64 MB (a large group) is
  // truncated back to that size.
  if (int e = log->Exec("PRAGMA journal_size_limit=67108864", detail)) return e;
  if (int e = log->Exec(
          "CREATE TABLE IF NOT EXISTS kv(k BLOB NOT NULL UNIQUE, v BLOB NOT NULL);"
          "CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value INTEGER NOT NULL);"
          "INSERT OR IGNORE INTO meta(name, value) VALUES('format', 2), ('version', 0);",
          detail, "create or check the schema")) {
    return e;
  }
  {
    // Format 1 (every commit in kv, meta's version its newest) is format 2
    // with an empty log: the upgrade adds the table. Any other format is
    // refused before anything is written.
    sqlite3_stmt* st = nullptr;
    int format = 0;
    rc = sqlite3_prepare_v2(log->db_, "SELECT value FROM meta WHERE name = 'format'", -1, &st,
                            nullptr);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      format = static_cast<int>(sqlite3_column_int64(st, 0));
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
      *detail = Why(log->db_, rc, "read meta");
      return CodeForSqlite(rc);
    }
    if (format != 1 && format != kFormat) {
      *detail = dir + ": unknown data format " + std::to_string(format);
      return kFileCorrupt;
    }
    if (int e = log->Exec(
            "BEGIN IMMEDIATE;"
            "CREATE TABLE IF NOT EXISTS log(version INTEGER PRIMARY KEY, ops BLOB NOT NULL);"
            "UPDATE meta SET value = 2 WHERE name = 'format' AND value = 1;"
            "COMMIT;",
            detail, "upgrade to format 2")) {
      sqlite3_exec(log->db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return e;
    }
  }
  // The directory entries of files just created must survive a power cut
  // too (SQLite syncs the WAL's; this covers the database file's).
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0 || ::fsync(dir_fd) != 0) {
    int e = errno;
    if (dir_fd >= 0) ::close(dir_fd);
    return fail_errno("fsync " + dir, e);
  }
  ::close(dir_fd);
  // journal_mode=WAL is a no-op on a database SQLite cannot write; check.
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(log->db_, "PRAGMA journal_mode", -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    const char* mode = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    if (!mode || std::strcmp(mode, "wal") != 0) {
      *detail = db_path + ": cannot switch to WAL journal mode (journal_mode=" +
                (mode ? mode : "?") + ")";
      sqlite3_finalize(st);
      return kFileNotWritable;
    }
  }
  sqlite3_finalize(st);
  if (const char* pages = std::getenv("FDBLITE_DURABLE_MAX_PAGES")) {
    std::string sql = "PRAGMA max_page_count=" + std::to_string(std::atoll(pages));
    if (int e = log->Exec(sql.c_str(), detail)) return e;
  }
  auto& s = log->stmts_;
  s.reset(new Statements());
  const struct {
    sqlite3_stmt** stmt;
    const char* sql;
  } prepared[] = {
      {&s->set, "INSERT OR REPLACE INTO kv(k, v) VALUES(?1, ?2)"},
      {&s->clear, "DELETE FROM kv WHERE k = ?1"},
      {&s->clear_range, "DELETE FROM kv WHERE k >= ?1 AND k < ?2"},
      {&s->version, "UPDATE meta SET value = ?1 WHERE name = 'version'"},
      {&s->append, "INSERT INTO log(version, ops) VALUES(?1, ?2)"},
      {&s->pending, "SELECT version, ops FROM log WHERE version <= ?1 ORDER BY version"},
      {&s->trim, "DELETE FROM log WHERE version <= ?1"},
  };
  for (const auto& p : prepared) {
    rc = sqlite3_prepare_v2(log->db_, p.sql, -1, p.stmt, nullptr);
    if (rc != SQLITE_OK) {
      *detail = Why(log->db_, rc, p.sql);
      return CodeForSqlite(rc);
    }
  }
  log->SetCacheBytes(cache_bytes);
  // Recovery reads the log (what was not applied: about one MVCC window of
  // writes) and hands it to the caller; kv is not touched.
  Version applied = 0, newest = 0;
  {
    sqlite3_stmt* st = nullptr;
    rc = sqlite3_prepare_v2(log->db_, "SELECT value FROM meta WHERE name = 'version'", -1, &st,
                            nullptr);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      applied = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
      *detail = Why(log->db_, rc, "read meta");
      return CodeForSqlite(rc);
    }
  }
  newest = applied;
  uint64_t rows = 0;
  {
    sqlite3_stmt* st = log->stmts_->pending;
    sqlite3_bind_int64(st, 1, INT64_MAX);
    std::vector<DurableOp> ops;
    bool corrupt = false;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      Version v = sqlite3_column_int64(st, 0);
      const char* blob = static_cast<const char*>(sqlite3_column_blob(st, 1));
      int n = sqlite3_column_bytes(st, 1);
      if (v <= newest || !DecodeOps(std::string_view(blob ? blob : "", n), &ops)) {
        corrupt = true;  // out of order, or below the applied version
        break;
      }
      replay(v, ops);
      newest = v;
      ++rows;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (corrupt) {
      *detail = dir + ": malformed log row";
      return kFileCorrupt;
    }
    if (rc != SQLITE_DONE) {
      *detail = Why(log->db_, rc, "read log");
      return CodeForSqlite(rc);
    }
  }
  log->durable_version_ = newest;
  log->applied_version_ = applied;
  log->stats_.durable_version = newest;
  log->stats_.recovered_commits = rows;
  log->stats_.open_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  *version = newest;
  *out = std::move(log);
  return 0;
}

void DurableLog::SetCacheBytes(int64_t bytes) {
  // A negative cache_size is in KiB.
  std::string sql = "PRAGMA cache_size=-" + std::to_string(std::max<int64_t>(bytes / 1024, 64));
  sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
}

int DurableLog::Apply(Version h, size_t budget, Version* applied_to, uint64_t* rows,
                      std::string* detail) {
  auto step = [&](sqlite3_stmt* st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
  };
  auto bind = [](sqlite3_stmt* st, int i, const std::string& s) {
    // A zero-length blob must bind as a blob, not as NULL.
    sqlite3_bind_blob(st, i, s.empty() ? "" : s.data(), static_cast<int>(s.size()),
                      SQLITE_STATIC);
  };
  // One row at a time (kv is another table: writing it while the log
  // cursor runs is fine), whole rows, until the budget is spent.
  sqlite3_stmt* pending = stmts_->pending;
  sqlite3_bind_int64(pending, 1, h);
  std::vector<DurableOp> ops;
  Version to = h;
  size_t bytes = 0;
  uint64_t n = 0;
  int rc, wrc = SQLITE_DONE;
  bool corrupt = false;
  while ((rc = sqlite3_step(pending)) == SQLITE_ROW) {
    if (bytes >= budget) break;  // `to` is the last row applied
    Version v = sqlite3_column_int64(pending, 0);
    const char* blob = static_cast<const char*>(sqlite3_column_blob(pending, 1));
    int len = sqlite3_column_bytes(pending, 1);
    if (!DecodeOps(std::string_view(blob ? blob : "", len), &ops)) {
      corrupt = true;
      break;
    }
    for (const DurableOp& op : ops) {
      sqlite3_stmt* st = nullptr;
      switch (op.kind) {
        case DurableOp::kSet:
          st = stmts_->set;
          bind(st, 1, op.key);
          bind(st, 2, op.param);
          break;
        case DurableOp::kClear:
          st = stmts_->clear;
          bind(st, 1, op.key);
          break;
        case DurableOp::kClearRange:
          st = stmts_->clear_range;
          bind(st, 1, op.key);
          bind(st, 2, op.param);
          break;
      }
      wrc = step(st);
      if (wrc != SQLITE_DONE) break;
    }
    if (wrc != SQLITE_DONE) break;
    bytes += static_cast<size_t>(len);
    to = v;
    ++n;
  }
  if (rc == SQLITE_DONE) to = h;  // every row at or below h is applied
  sqlite3_reset(pending);
  sqlite3_clear_bindings(pending);
  if (corrupt) {
    *detail = dir_ + ": malformed log row";
    return kFileCorrupt;
  }
  if (wrc != SQLITE_DONE) {
    *detail = Why(db_, wrc, "apply the log");
    return CodeForSqlite(wrc);
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
    *detail = Why(db_, rc, "read log");
    return CodeForSqlite(rc);
  }
  sqlite3_bind_int64(stmts_->trim, 1, to);
  rc = step(stmts_->trim);
  if (rc == SQLITE_DONE) {
    sqlite3_bind_int64(stmts_->version, 1, to);
    rc = step(stmts_->version);
  }
  if (rc != SQLITE_DONE) {
    *detail = Why(db_, rc, "apply the log");
    return CodeForSqlite(rc);
  }
  *applied_to = to;
  *rows = n;
  return 0;
}

DurableLog::~DurableLog() {
  if (db_) {
    bool ok;
    {
      // Whatever was appended and not waited for is written now.
      std::unique_lock<std::mutex> lock(mu_);
      done_cv_.wait(lock, [&] { return !writing_; });
      if (!queue_.empty() && error_ == 0) LeadLocked(lock);
      ok = error_ == 0;
    }
    stmts_.reset();
    // A clean close leaves everything in the database file.
    if (ok) sqlite3_exec(db_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

uint64_t DurableLog::Append(Version v, Version horizon, std::vector<DurableOp> ops,
                            bool catch_up) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t ticket = next_ticket_++;
  inflight_.push_back(v);
  if (error_ == 0) {
    queue_.push_back(Pending{ticket, v, horizon, std::move(ops), catch_up});
  }
  return ticket;
}

void DurableLog::Fail(int code, const std::string& detail) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error_ != 0) return;
  error_ = code;
  error_detail_ = "data directory " + dir_ + ": " + detail;
  queue_.clear();
  std::fprintf(stderr, "fdblite: %s; commits now fail with error %d until the database is reopened\n",
               error_detail_.c_str(), code);
  done_cv_.notify_all();
}

Version DurableLog::AppliedVersion() {
  std::lock_guard<std::mutex> lock(mu_);
  return applied_version_;
}

int DurableLog::Wait(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (durable_ticket_ >= ticket) return 0;
    if (error_ != 0) return error_;
    if (!writing_) {
      LeadLocked(lock);  // this commit is queued: the group carries it
    } else {
      done_cv_.wait(lock);
    }
  }
}

int DurableLog::Error() {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

bool DurableLog::FirstPending(Version* v) {
  std::lock_guard<std::mutex> lock(mu_);
  if (inflight_.empty()) return false;
  *v = inflight_.front();
  return true;
}

Version DurableLog::DurableVersion() {
  std::lock_guard<std::mutex> lock(mu_);
  return durable_version_;
}

DurableStats DurableLog::Stats() {
  std::lock_guard<std::mutex> lock(mu_);
  DurableStats s = stats_;
  s.durable_version = durable_version_;
  s.applied_version = applied_version_;
  s.error = error_;
  s.error_detail = error_detail_;
  return s;
}

void DurableLog::LeadLocked(std::unique_lock<std::mutex>& lock) {
  // Group commit: everything queued, which includes what arrived while the
  // previous group was written.
  std::vector<Pending> group;
  group.reserve(queue_.size());
  while (!queue_.empty()) {
    group.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  if (group.empty()) return;
  writing_ = true;
  lock.unlock();
  std::string detail;
  Version applied = applied_version_;  // only leaders change it
  int err = WriteGroup(group, &applied, &detail);
  lock.lock();
  writing_ = false;
  if (err != 0) {
    error_ = err;
    error_detail_ = "data directory " + dir_ + ": " + detail;
    queue_.clear();  // never written: a later group must not follow a gap
    std::fprintf(stderr, "fdblite: %s; commits now fail with error %d until the database is reopened\n",
                 error_detail_.c_str(), err);
  } else {
    durable_ticket_ = group.back().ticket;
    durable_version_ = group.back().version;
    applied_version_ = applied;
    for (size_t i = 0; i < group.size(); ++i) inflight_.pop_front();
    stats_.commits += group.size();
    stats_.groups++;
  }
  done_cv_.notify_all();
}

int DurableLog::WriteGroup(const std::vector<Pending>& group, Version* applied,
                           std::string* detail) {
  if (int e = Exec("BEGIN IMMEDIATE", detail)) return e;
  sqlite3_stmt* st = stmts_->append;
  int rc = SQLITE_DONE;
  size_t appended = 0;
  for (const Pending& p : group) {
    std::string blob = EncodeOps(p.ops);
    appended += blob.size();
    sqlite3_bind_int64(st, 1, p.version);
    sqlite3_bind_blob(st, 2, blob.data(), static_cast<int>(blob.size()), SQLITE_STATIC);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_DONE) break;
  }
  if (rc != SQLITE_DONE) {
    *detail = Why(db_, rc, "write");
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return CodeForSqlite(rc);
  }
  // The apply step (invariant 5). Horizons are below their commits'
  // versions, so every row at or below h is in this group or an earlier one.
  // A group applies at most kApplyBudget bytes of log (kCatchUpBudget
  // while memory is over the window's budget), or twice what it appended,
  // so the log after a restart is applied over several groups and a steady
  // stream still catches up.
  Version h = std::min(group.back().horizon, group.back().version);
  Version to = *applied;
  if (h > *applied) {
    uint64_t rows = 0;
    bool catch_up = false;
    for (const Pending& p : group) catch_up = catch_up || p.catch_up;
    size_t floor = catch_up ? kCatchUpBudget : kApplyBudget;
    if (int e = Apply(h, std::max(floor, 2 * appended), &to, &rows, detail)) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return e;
    }
  }
  rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    *detail = Why(db_, rc, "commit");
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return CodeForSqlite(rc);
  }
  *applied = to;
  return 0;
}

}  // namespace fdblite
