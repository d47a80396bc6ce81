// database.cpp: see database.h.
#include "database.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <unordered_map>

#include "atomic.h"
#include "errors.h"
#include "memory_release.h"

namespace fdblite {

namespace {

// Prune at most this often (in versions, i.e. microseconds), or after this
// many writes, whichever comes first: pruning is amortized over commits.
constexpr Version kPruneEveryVersions = 100'000;
constexpr uint64_t kPruneEveryWrites = 4096;
// Versions start well above zero so a test can ask for a read version more
// than one MVCC window in the past right after the process starts.
constexpr Version kVersionBase = 100'000'000;
// How far ahead of the live version a read version may be before it is
// future_version at once; closer ones wait (storage servers wait ~1 s).
constexpr Version kFutureVersionWait = 1'000'000;

std::string KeyAfter(std::string_view k) {
  std::string s(k);
  s.push_back('\0');
  return s;
}

// JSONString quotes s as a JSON string.
std::string JSONString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char esc[8];
      std::snprintf(esc, sizeof esc, "\\u%04x", c);
      out += esc;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

struct Registry {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<Database>> dbs;  // GUARDED_BY(mu)
};

// ByteCountEnv reads a byte count from the environment variable `name`
// into *out; unset or empty leaves *out alone.
int ByteCountEnv(const char* name, int64_t* out, std::string* detail) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(env, &end, 10);
  if (end == env || *end != '\0' || n < 0 || errno == ERANGE) {
    *detail = std::string(name) + "=" + env + ": not a byte count";
    return kInvalidOptionValue;
  }
  *out = n;
  return 0;
}

Registry& GetRegistry() {
  static Registry* r = new Registry();  // NoDestructor: live for the process
  return *r;
}

}  // namespace

Database::Database(StoreKind kind)
    : base_(kVersionBase), store_(kind), reader_(&store_, &clears_, nullptr) {}
Database::~Database() = default;

// kCoordinatorsKey holds the cluster's connection string, as in FoundationDB.
constexpr char kCoordinatorsKey[] = "\xff/coordinators";

int Database::Open(const DatabaseName& name, std::shared_ptr<Database>* out) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.dbs.find(name.key);
  if (it == r.dbs.end() && !name.alias.empty()) it = r.dbs.find(name.alias);
  if (it != r.dbs.end()) {
    *out = it->second;
    return 0;
  }
  std::shared_ptr<Database> db;
  const std::string connection = name.connection.Text();
  if (name.dir.empty()) {
    int64_t conflict_bytes = kDefaultConflictBytes;
    std::string detail;
    if (int err = ByteCountEnv("FDBLITE_CONFLICT_BYTES", &conflict_bytes, &detail)) {
      std::fprintf(stderr, "fdblite: cannot open database: %s (error %d)\n", detail.c_str(), err);
      return err;
    }
    db = std::make_shared<Database>();
    db->conflicts_.SetBudget(static_cast<size_t>(conflict_bytes));
  } else {
    std::string detail;
    if (int err = OpenDurable(name.dir, &db, &detail, connection)) {
      std::fprintf(stderr, "fdblite: cannot open data directory %s: %s (error %d)\n",
                   name.dir.c_str(), detail.c_str(), err);
      return err;  // not registered: a later open tries again
    }
  }
  if (name.dir.empty()) {
    db->connection_string_ = connection;
    // Like a cluster's, readable with system-key access. Version 1 is below
    // every version a reader can hold; not written to a durable directory.
    std::unique_lock<std::shared_mutex> store_lock(db->store_mu_);
    db->store_.Set(std::string_view(kCoordinatorsKey, sizeof kCoordinatorsKey - 1),
                   db->connection_string_, 1);
  }
  r.dbs[name.key] = db;
  if (!name.alias.empty()) r.dbs[name.alias] = db;
  *out = db;
  return 0;
}

int Database::OpenDurable(const std::string& dir, std::shared_ptr<Database>* out,
                          std::string* detail, std::string_view coordinators) {
  auto byte_count = [&](const char* name, int64_t* out) {
    return ByteCountEnv(name, out, detail);
  };
  int64_t cache = kDefaultCacheBytes, window_bytes = kDefaultWindowBytes;
  int64_t conflict_bytes = kDefaultConflictBytes;
  if (int err = byte_count("FDBLITE_CACHE_BYTES", &cache)) return err;
  if (int err = byte_count("FDBLITE_WINDOW_BYTES", &window_bytes)) return err;
  if (int err = byte_count("FDBLITE_CONFLICT_BYTES", &conflict_bytes)) return err;
  auto db = std::make_shared<Database>(StoreKind::kOverlay);
  db->budget_ = std::make_unique<WindowBudget>(window_bytes);
  db->conflicts_.SetBudget(static_cast<size_t>(conflict_bytes));
  std::unique_ptr<DurableLog> log;
  Version last = 0;
  {
    std::unique_lock<std::shared_mutex> lock(db->store_mu_);
    if (!coordinators.empty()) {
      db->connection_string_ = std::string(coordinators);
      db->store_.Set(std::string_view(kCoordinatorsKey, sizeof kCoordinatorsKey - 1),
                     coordinators, 1);
    }
    // The writer's page cache holds one share, as each reader's does.
    if (int err = DurableLog::Open(
            dir, cache / DiskReader::kCacheShares,
            [&](Version v, const std::vector<DurableOp>& ops) { db->ReplayLocked(v, ops); },
            &log, &last, detail)) {
      return err;
    }
  }
  db->disk_ = std::make_unique<DiskReader>(log->DbPath(), cache);
  db->rows_ = std::make_unique<RowCache>(cache / DiskReader::kCacheShares);
  db->reader_ = Reader(&db->store_, &db->clears_, db->disk_.get(), db->rows_.get());
  db->base_ = std::max(kVersionBase, last + kMvccWindowVersions + 1);
  db->forgotten_ = log->AppliedVersion();
  if (const char* w = std::getenv("FDBLITE_DURABLE_WINDOW_US"); w && std::atoll(w) > 0) {
    db->window_ = std::atoll(w);  // crash tests: the apply step runs every few ms
  }
  db->durable_ = std::move(log);
  *out = std::move(db);
  return 0;
}

Version Database::Now() {
  static const auto start = std::chrono::steady_clock::now();
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - start)
                .count();
  return base_ + us;
}

void Database::BumpVersion(Version v) {
  Version cur = version_.load();
  while (cur < v && !version_.compare_exchange_weak(cur, v)) {
  }
}

Version Database::GetReadVersion() {
  if (durable_) {
    // A commit takes its version and queues it under the exclusive lock, so
    // under the shared one no commit can slip below the version returned.
    auto lock = ReadLock();
    Version first;
    if (durable_->FirstPending(&first)) return first - 1;
    Version v = std::max(version_.load(), Now());
    BumpVersion(v);
    return v;
  }
  Version v = std::max(version_.load(), Now());
  BumpVersion(v);
  return v;
}

int Database::CheckReadVersion(Version rv) {
  Version first;
  if (durable_ && durable_->Error() && durable_->FirstPending(&first)) {
    // The log failed: no commit happens any more, so the last durable
    // version stays readable (it never ages out).
    return rv < first ? 0 : kFutureVersion;
  }
  Version live = std::max(version_.load(), Now());
  if (rv < live - kMvccWindowVersions) return kTransactionTooOld;
  if (rv > live) {
    if (rv - live > kFutureVersionWait) return kFutureVersion;
    std::this_thread::sleep_for(std::chrono::microseconds(rv - live));
    BumpVersion(rv);  // the version is now live: no commit may take it
  }
  return 0;
}

bool Database::ReserveWatch() {
  int n = outstanding_watches_.fetch_add(1) + 1;
  if (n > max_watches_.load()) {
    outstanding_watches_.fetch_sub(1);
    return false;
  }
  return true;
}

void Database::CompleteWatch(const std::shared_ptr<Watch>& w, int code) {
  {
    std::lock_guard<std::mutex> lock(watch_mu_);
    auto range = watches_.equal_range(w->key);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second == w) {
        watches_.erase(it);
        break;
      }
    }
  }
  if (!w->done.exchange(true)) outstanding_watches_.fetch_sub(1);
  w->future->SetError(code);  // no-op if cancelled first
}

void Database::ArmWatch(const std::shared_ptr<Watch>& w, Deferred* defer) {
  bool fire = false;
  {
    auto lock = ReadLock();
    std::string cur;
    bool present = reader_.Get(w->key, INT64_MAX, &cur);
    fire = present != w->value.has_value() || (present && cur != *w->value);
    if (!fire) {
      std::lock_guard<std::mutex> wlock(watch_mu_);
      // A watch cancelled before this point stays out of the table; one
      // cancelled after is removed by its cancel hook.
      if (!w->future->IsReady()) watches_.emplace(w->key, w);
    }
  }
  if (fire) defer->push_back([this, w] { CompleteWatch(w, 0); });
}

void Database::CollectFiredLocked(const std::vector<KeyRange>& touched,
                                  Version v,
                                  std::vector<std::shared_ptr<Watch>>* fired) {
  std::lock_guard<std::mutex> lock(watch_mu_);
  if (watches_.empty()) return;
  for (const KeyRange& r : touched) {
    auto it = watches_.lower_bound(r.begin);
    while (it != watches_.end() && it->first < r.end) {
      const auto& w = it->second;
      std::string cur;
      bool present = reader_.Get(w->key, v, &cur);
      if (present != w->value.has_value() || (present && cur != *w->value)) {
        fired->push_back(w);
        it = watches_.erase(it);
      } else {
        ++it;
      }
    }
  }
}

void Database::ApplyLocked(const Mutation& m, Version v, int api_version,
                           std::vector<KeyRange>* touched,
                           std::vector<DurableOp>* ops) {
  auto touch = [&](std::string_view key) {
    touched->push_back({std::string(key), KeyAfter(key)});
  };
  auto log = [&](DurableOp::Kind kind, std::string_view key, std::string_view param) {
    if (ops) ops->push_back(DurableOp{kind, std::string(key), std::string(param)});
  };
  switch (m.type) {
    case Mutation::kSet:
      store_.Set(m.key, m.param, v);
      log(DurableOp::kSet, m.key, m.param);
      touch(m.key);
      break;
    case Mutation::kClear:
      store_.Clear(m.key, v);
      log(DurableOp::kClear, m.key, {});
      touch(m.key);
      break;
    case Mutation::kClearRange:
      store_.ClearRange(m.key, m.param, v);
      if (durable_) clears_.Add(m.key, m.param, v);
      log(DurableOp::kClearRange, m.key, m.param);
      touched->push_back({m.key, m.param});
      break;
    case Mutation::kAtomic: {
      std::optional<std::string> existing;
      std::string cur;
      if (reader_.Get(m.key, v, &cur)) existing = std::move(cur);
      auto result = ApplyAtomic(m.op, existing, m.param, api_version);
      if (result) {
        store_.Set(m.key, *result, v);
        log(DurableOp::kSet, m.key, *result);
      } else {
        store_.Clear(m.key, v);
        log(DurableOp::kClear, m.key, {});
      }
      touch(m.key);
      break;
    }
    case Mutation::kStampedKey: {
      std::string key = m.key;
      WriteVersionstamp(&key, m.stamp_pos, v, 0);
      store_.Set(key, m.param, v);
      log(DurableOp::kSet, key, m.param);
      touch(key);
      break;
    }
    case Mutation::kStampedValue: {
      std::string value = m.param;
      WriteVersionstamp(&value, m.stamp_pos, v, 0);
      store_.Set(m.key, value, v);
      log(DurableOp::kSet, m.key, value);
      touch(m.key);
      break;
    }
  }
  ++writes_since_prune_;
}

void Database::ReplayLocked(Version v, const std::vector<DurableOp>& ops) {
  for (const DurableOp& op : ops) {
    switch (op.kind) {
      case DurableOp::kSet:
        store_.Set(op.key, op.param, v);
        break;
      case DurableOp::kClear:
        store_.Clear(op.key, v);
        break;
      case DurableOp::kClearRange:
        store_.ClearRange(op.key, op.param, v);
        clears_.Add(op.key, op.param, v);
        break;
    }
  }
}

void Database::MaybePruneLocked(Version v) {
  const Version window = window_.load();
  if (v - last_prune_ < std::min(kPruneEveryVersions, window / 2) &&
      writes_since_prune_ < kPruneEveryWrites) {
    return;
  }
  const Version floor = v - window;
  if (floor > conflicts_oldest_) {
    conflicts_.Prune(floor);
    conflicts_oldest_ = floor;
  }
  Version oldest = floor;
  if (durable_) {
    // Over its budget, the window shrinks (window_budget.h), to a fifth at
    // least, and never past a commit not yet durable: read versions stay
    // below those, and must stay readable.
    Version ceiling = v - MinWindow(window);
    Version first;
    if (durable_->FirstPending(&first)) ceiling = std::min(ceiling, first - 1);
    oldest = budget_->Horizon(floor, ceiling);
  }
  if (oldest > oldest_) {
    if (!durable_) store_.Prune(oldest);
    oldest_ = oldest;
  }
  if (durable_) {
    // What the engine holds durably leaves memory (the overlay's Forget
    // replaces Prune: applied <= every readable version).
    Version applied = durable_->AppliedVersion();
    if (applied > forgotten_) {
      const size_t before = store_.MemoryBytes();
      // The row cache's entries for what kv now holds differently go too
      // (row_cache.h).
      store_.Forget(applied, [&](std::string_view key) { rows_->Invalidate(key); });
      clears_.Forget(applied, [&](std::string_view b, std::string_view e) {
        rows_->InvalidateRange(b, e);
      });
      forgotten_ = applied;
      const size_t after = store_.MemoryBytes();
      if (after < before) NoteFreed(before - after);
    }
  }
  last_prune_ = v;
  writes_since_prune_ = 0;
}

CommitResult Database::Commit(const CommitRequest& req, Deferred* defer) {
  CommitResult r;
  std::vector<std::shared_ptr<Watch>> fired;
  uint64_t ticket = 0;
  {
    std::unique_lock<std::shared_mutex> lock(store_mu_);
    if (durable_) {
      if (int err = durable_->Error()) {
        r.error = err;
        return r;
      }
    }
    Version cv = std::max(version_.load() + 1, Now());
    bool has_reads = !req.reads->empty();
    if (has_reads && req.read_version < cv - window_.load()) {
      r.error = kTransactionTooOld;
      return r;
    }
    if (has_reads &&
        conflicts_.FirstConflict(*req.reads, req.read_version) >= 0) {
      conflicts_seen_.fetch_add(1);
      r.error = kNotCommitted;
      return r;
    }
    if (int injected = faults_.BeforeCommit()) {
      r.error = injected;
      return r;
    }
    BumpVersion(cv);
    std::vector<KeyRange> touched;
    touched.reserve(req.mutations->size());
    std::vector<DurableOp> ops;
    std::vector<DurableOp>* log = durable_ ? &ops : nullptr;
    const size_t bytes_before = store_.MemoryBytes();
    try {
      for (const Mutation& m : *req.mutations) {
        ApplyLocked(m, cv, req.api_version, &touched, log);
      }
    } catch (const Error& e) {
      if (!durable_) throw;
      // An engine read failed (an atomic operation's operand) with the
      // commit half applied to memory. Fail the log for good and keep the
      // commit pending, so no read version ever reaches it.
      durable_->Fail(e.code(), "read the engine during a commit");
      durable_->Append(cv, oldest_, {});
      r.error = e.code();
      return r;
    }
    if (budget_) {
      budget_->Add(cv, static_cast<int64_t>(store_.MemoryBytes()) -
                           static_cast<int64_t>(bytes_before));
    }
    conflicts_.Add(*req.writes, cv);
    key_audit_.Record(*req.reads, *req.writes);
    commits_.fetch_add(1);
    CollectFiredLocked(touched, cv, &fired);
    MaybePruneLocked(cv);
    r.version = cv;
    if (durable_) {
      // Over the window's budget, memory holds log not yet applied: the
      // commit's group catches up (durable.h).
      const bool catch_up =
          budget_ && static_cast<int64_t>(store_.MemoryBytes()) > budget_->budget();
      ticket = durable_->Append(cv, oldest_, std::move(ops), catch_up);
    }
  }
  if (durable_) {
    // Group commit: wait, outside the store lock, for the fsync that carries
    // this commit; commits queued meanwhile share the next one.
    if (int err = durable_->Wait(ticket)) {
      for (auto& w : fired) defer->push_back([this, w, err] { CompleteWatch(w, err); });
      r.error = err;
      r.version = -1;
      return r;
    }
  }
  for (auto& w : fired) defer->push_back([this, w] { CompleteWatch(w, 0); });
  if (faults_.AfterCommit() && !req.automatic_idempotency) {
    r.error = kCommitUnknownResult;  // applied, but the client cannot know
  }
  return r;
}

void Database::SetCacheBytes(int64_t bytes) {
  if (!disk_) return;
  disk_->SetCacheBytes(bytes);
  rows_->SetCapacity(bytes / DiskReader::kCacheShares);
}

std::string Database::StatsJSON() {
  size_t keys, versions, boundaries, bytes, conflict_bytes, conflict_budget;
  unsigned long long coarsenings;
  int64_t window_bytes = 0, window_budget = 0;
  Version read_window = 0;
  {
    auto lock = ReadLock();
    keys = store_.KeyNodes();
    versions = store_.VersionRecords();
    boundaries = conflicts_.Boundaries();
    conflict_bytes = conflicts_.MemoryBytes();
    conflict_budget = conflicts_.budget();
    coarsenings = conflicts_.Coarsenings();
    bytes = store_.MemoryBytes() + conflict_bytes;
    if (budget_) {
      window_bytes = budget_->bytes();
      window_budget = budget_->budget();
      read_window = version_.load() - oldest_;
    }
  }
  FaultCounters c = faults_.Counters();
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      "{\"keys\":%zu,\"versions\":%zu,\"conflict_boundaries\":%zu,"
      "\"conflict_bytes\":%zu,\"conflict_budget_bytes\":%zu,\"conflict_coarsenings\":%llu,"
      "\"commits\":%llu,\"conflicts\":%llu,\"watches\":%d,\"heap_bytes\":%zu,"
      "\"injected\":{\"read_too_old\":%llu,\"read_future_version\":%llu,"
      "\"commit_not_committed\":%llu,\"commit_too_old\":%llu,"
      "\"commit_unknown_result\":%llu}}",
      keys, versions, boundaries, conflict_bytes, conflict_budget, coarsenings,
      static_cast<unsigned long long>(commits_.load()),
      static_cast<unsigned long long>(conflicts_seen_.load()),
      outstanding_watches_.load(), bytes,
      static_cast<unsigned long long>(c.read_too_old),
      static_cast<unsigned long long>(c.read_future_version),
      static_cast<unsigned long long>(c.commit_not_committed),
      static_cast<unsigned long long>(c.commit_too_old),
      static_cast<unsigned long long>(c.commit_unknown_result));
  std::string out = buf;
  out.pop_back();  // the closing brace: round trips and the storage mode follow
  out += ",\"round_trips\":" + latency_.Counts().JSON();
  if (!durable_) return out + ",\"mode\":\"memory\"}";
  DurableStats d = durable_->Stats();
  std::snprintf(buf, sizeof buf,
                ",\"mode\":\"durable\",\"durable\":{\"version\":%lld,\"applied_version\":%lld,"
                "\"commits\":%llu,\"groups\":%llu,\"recovered_commits\":%llu,"
                "\"open_seconds\":%.3f,\"cache_bytes\":%lld,\"cache_used_bytes\":%lld,"
                "\"window_bytes\":%lld,\"window_budget_bytes\":%lld,"
                "\"read_window_versions\":%lld,\"error\":%d,",
                static_cast<long long>(d.durable_version),
                static_cast<long long>(d.applied_version),
                static_cast<unsigned long long>(d.commits),
                static_cast<unsigned long long>(d.groups),
                static_cast<unsigned long long>(d.recovered_commits), d.open_seconds,
                static_cast<long long>(disk_->cache_bytes()),
                static_cast<long long>(disk_->CacheUsedBytes() + rows_->bytes()),
                static_cast<long long>(window_bytes), static_cast<long long>(window_budget),
                static_cast<long long>(read_window), d.error);
  return out + buf + "\"dir\":" + JSONString(d.dir) +
         ",\"error_detail\":" + JSONString(d.error_detail) + "}}";
}

}  // namespace fdblite
