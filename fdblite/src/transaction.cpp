// transaction.cpp: see transaction.h.
#include "transaction.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <random>

#include "atomic.h"
#include "cost.h"
#include "errors.h"
#include "loop.h"
#include "option_value.h"
#include "view.h"

namespace fdblite {

namespace {

constexpr size_t kMaxKeySize = 10'000;
constexpr size_t kMaxSystemKeySize = 30'000;
constexpr size_t kMaxValueSize = 100'000;
constexpr int64_t kDefaultSizeLimit = 10'000'000;
constexpr int kMaxTags = 5;
constexpr size_t kMaxTagLength = 255;
constexpr double kInitialBackoff = 0.01;
constexpr double kMemoryLimitMaxBackoff = 30.0;

const std::string kSpecialBegin("\xff\xff", 2);
const std::string kSpecialEnd("\xff\xff\xff", 3);
const std::string kFdbliteModule("\xff\xff/fdblite/", 11);
const std::string kFdbliteModuleEnd("\xff\xff/fdblite0", 11);
const std::string kFaultsKey("\xff\xff/fdblite/faults", 17);
const std::string kStatsKey("\xff\xff/fdblite/stats", 16);
const std::string kLatencyKey("\xff\xff/fdblite/latency", 18);
const std::string kKeyAuditKey("\xff\xff/fdblite/keyaudit", 19);
const std::string kMetadataVersion(kMetadataVersionKey,
                                   sizeof(kMetadataVersionKey) - 1);

std::string KeyAfter(std::string_view k) {
  std::string s(k);
  s.push_back('\0');
  return s;
}

bool IsSpecial(std::string_view k) {
  return k >= std::string_view(kSpecialBegin) &&
         k < std::string_view(kSpecialEnd);
}

size_t MaxKeySize(std::string_view k) {
  return !k.empty() && static_cast<uint8_t>(k[0]) == 0xff ? kMaxSystemKeySize
                                                          : kMaxKeySize;
}

// Byte caps of the streaming modes (FDBStreamingMode values -2..4).
int64_t ModeByteCap(int mode, int iteration) {
  static const int64_t kIteratorCaps[] = {4096,  6144,  9216,  13824, 20736,
                                          31104, 46656, 69984, 80000};
  switch (mode) {
    case -2:  // WANT_ALL
    case 4:   // SERIAL
      return 80000;
    case -1:  // ITERATOR
      return iteration <= 9 ? kIteratorCaps[iteration - 1] : 120000;
    case 0:  // EXACT
      return 0;
    case 1:
      return 256;
    case 2:
      return 1000;
    case 3:
      return 4096;
  }
  return 0;
}

bool RetryableWithBackoff(int code) {
  switch (code) {
    case kNotCommitted:
    case kCommitUnknownResult:
    case kDatabaseLocked:
    case kCommitProxyMemoryLimitExceeded:
    case kGrvProxyMemoryLimitExceeded:
    case kProcessBehind:
    case kBatchTransactionThrottled:
    case kTagThrottled:
    case 1079:  // blob_granule_request_failed
    case 1223:  // proxy_tag_throttled
      return true;
  }
  return false;
}

double Uniform01() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
}

}  // namespace

Transaction::Lock::~Lock() {
  Deferred work;
  work.swap(t_->deferred_work_);
  t_->mu_.unlock();
  for (auto& fn : work) fn();
}

// ---- WriteMap ----

const std::pair<const std::string, std::string>* WriteMap::ClearedRange(
    std::string_view k) const {
  auto it = cleared.upper_bound(k);
  if (it == cleared.begin()) return nullptr;
  --it;
  if (std::string_view(it->second) > k) return &*it;
  return nullptr;
}

void WriteMap::Clear(std::string_view begin, std::string_view end) {
  if (begin >= end) return;
  points.erase(points.lower_bound(begin), points.lower_bound(end));
  std::string b(begin), e(end);
  // Merge with every range that overlaps or touches [b, e).
  auto it = cleared.upper_bound(b);
  if (it != cleared.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= b) it = prev;
  }
  while (it != cleared.end() && it->first <= e) {
    if (it->first < b) b = it->first;
    if (it->second > e) e = it->second;
    it = cleared.erase(it);
  }
  cleared.emplace(std::move(b), std::move(e));
}

// ---- lifecycle ----

Transaction::Transaction(std::shared_ptr<Database> db,
                         const DatabaseOptions& db_options, int api_version,
                         int db_error)
    : db_(std::move(db)),
      db_options_(db_options),
      api_version_(api_version),
      db_error_(db_error),
      rt_(&db_->latency()) {
  Lock lock(this);
  ResetLocked(false);
}

Transaction::~Transaction() {
  Lock lock(this);
  AbandonPendingLocked(kTransactionCancelled);
}

void Transaction::AbandonPendingLocked(int code) {
  auto db = db_;
  for (auto& w : watches_) DeferLocked([db, w, code] { db->CompleteWatch(w, code); });
  watches_.clear();
  for (auto& f : versionstamps_) DeferLocked([f, code] { f->SetError(code); });
  versionstamps_.clear();
}

void Transaction::ResetLocked(bool for_retry) {
  AbandonPendingLocked(kTransactionCancelled);
  TxnOptions keep = opt_;
  opt_ = TxnOptions();
  opt_.snapshot_ryw = (api_version_ >= 300 ? 1 : 0) + db_options_.snapshot_ryw_delta;
  opt_.timeout_ms = db_options_.timeout_ms;
  opt_.retry_limit = db_options_.retry_limit;
  opt_.max_retry_delay_ms = db_options_.max_retry_delay_ms;
  if (db_options_.size_limit > 0) opt_.size_limit = db_options_.size_limit;
  opt_.automatic_idempotency = db_options_.automatic_idempotency;
  opt_.bypass_unreadable = db_options_.bypass_unreadable;
  opt_.udc_protection_disabled = db_options_.used_during_commit_protection_disable;
  if (for_retry && api_version_ >= 610) {
    // timeout, retry_limit, max_retry_delay and the authorization token
    // persist across retries.
    opt_.timeout_ms = keep.timeout_ms;
    opt_.retry_limit = keep.retry_limit;
    opt_.max_retry_delay_ms = keep.max_retry_delay_ms;
    opt_.has_auth_token = keep.has_auth_token;
  }
  read_version_ = -1;
  deferred_ = 0;
  cancelled_ = 0;
  commit_called_ = false;
  used_ = false;
  committed_version_ = -1;
  ReleaseWritesLocked();
  special_faults_.reset();
  read_fault_.reset();
  read_fault_counted_ = false;
  special_latency_.reset();
  rt_.Reset(for_retry);
  size_ = 0;
  cost_ = 0;
  if (!for_retry) {
    retries_ = 0;
    backoff_ = kInitialBackoff;
    start_ = Clock::now();
  }
}

void Transaction::Reset() {
  Lock lock(this);
  ResetLocked(false);
}

void Transaction::Cancel() {
  Lock lock(this);
  if (cancelled_ == 0) cancelled_ = kTransactionCancelled;
  AbandonPendingLocked(kTransactionCancelled);
}

void Transaction::Poison(int code) {
  Lock lock(this);
  if (cancelled_ == 0) SetDeferredLocked(code);
}

// ---- state checks ----

void Transaction::CheckTimeoutLocked() {
  if (opt_.timeout_ms <= 0 || cancelled_ != 0) return;
  if (Clock::now() - start_ >= std::chrono::milliseconds(opt_.timeout_ms)) {
    cancelled_ = kTransactionTimedOut;
    AbandonPendingLocked(kTransactionTimedOut);
  }
}

void Transaction::SetDeferredLocked(int code) {
  if (deferred_ == 0) deferred_ = code;
}

int Transaction::ReadErrorLocked() {
  if (db_error_ != 0) return db_error_;
  CheckTimeoutLocked();
  if (cancelled_ != 0) return cancelled_;
  if (deferred_ != 0) return deferred_;
  if (commit_called_) {
    if (!opt_.udc_protection_disabled) SetDeferredLocked(kUsedDuringCommit);
    return kUsedDuringCommit;
  }
  return 0;
}

bool Transaction::WriteAllowedLocked() {
  if (db_error_ != 0) return false;
  CheckTimeoutLocked();
  if (cancelled_ != 0 || deferred_ != 0) return false;
  if (commit_called_) {
    if (!opt_.udc_protection_disabled) SetDeferredLocked(kUsedDuringCommit);
    return false;
  }
  used_ = true;
  return true;
}

Version Transaction::ReadVersionLocked() {
  if (read_version_ < 0) {
    read_version_ = db_->GetReadVersion();
    rt_.ReadVersionRequested();
  }
  return read_version_;
}

int Transaction::ReadFaultLocked() {
  if (!read_fault_) read_fault_ = db_->faults().OnReadVersion();
  if (read_fault_->error == 0) return 0;
  if (read_fault_->after > 0) {
    --read_fault_->after;
    return 0;
  }
  if (!read_fault_counted_) {
    db_->faults().CountRead(read_fault_->error);
    read_fault_counted_ = true;
  }
  return read_fault_->error;
}

std::string Transaction::MaxReadKeyLocked() const {
  return (opt_.access_system_keys || opt_.read_system_keys) ? kSpecialBegin
                                                             : std::string("\xff");
}

std::string Transaction::MaxWriteKeyLocked() const {
  return opt_.access_system_keys ? kSpecialBegin : std::string("\xff");
}

bool Transaction::ReadYourWritesLocked(bool snapshot) const {
  if (opt_.ryw_disabled) return false;
  return !snapshot || opt_.snapshot_ryw > 0;
}

// ---- options ----

int Transaction::SetOption(int code, const uint8_t* value, int length) {
  Lock lock(this);
  enum Param { kNoParam, kString, kInt };
  Param p;
  switch (code) {
    case 10: case 20: case 21: case 23: case 30: case 50: case 51: case 52:
    case 110: case 120: case 130: case 200: case 201: case 300: case 301:
    case 302: case 303: case 304: case 404: case 406: case 505: case 507:
    case 508: case 509: case 510: case 511: case 600: case 601: case 700:
    case 701: case 702: case 710: case 711: case 712: case 713: case 714:
    case 1000: case 1100: case 1101:
      p = kNoParam;
      break;
    case 401: case 402: case 403: case 800: case 801: case 900: case 2000:
      p = kString;
      break;
    case 405: case 500: case 501: case 502: case 503:
      p = kInt;
      break;
    default:
      return kInvalidOption;
  }
  if (deferred_ != 0 || cancelled_ != 0) return 0;
  int64_t n = 0;
  if (p == kNoParam && value != nullptr && length > 0) {
    SetDeferredLocked(kInvalidOptionValue);
    return 0;
  }
  if (p == kString && value == nullptr && length > 0) {
    SetDeferredLocked(kInvalidOptionValue);
    return 0;
  }
  if (p == kInt && !ReadIntOption(value, length, &n)) {
    SetDeferredLocked(kInvalidOptionValue);
    return 0;
  }
  auto in_range = [&](int64_t lo, int64_t hi) {
    if (n < lo || n > hi) {
      SetDeferredLocked(kInvalidOptionValue);
      return false;
    }
    return true;
  };
  switch (code) {
    case 30: opt_.next_write_no_conflict = true; break;
    case 51:
      if (used_ || read_version_ >= 0) {
        SetDeferredLocked(kClientInvalidOperation);
        return 0;
      }
      opt_.ryw_disabled = true;
      break;
    case 301: opt_.access_system_keys = true; break;
    case 302: opt_.read_system_keys = true; break;
    case 303: opt_.raw_access = true; break;
    case 500: if (in_range(0, INT_MAX)) opt_.timeout_ms = n; break;
    case 501: if (in_range(-1, INT_MAX)) opt_.retry_limit = n; break;
    case 502: if (in_range(0, INT_MAX)) opt_.max_retry_delay_ms = n; break;
    case 503: if (in_range(32, kDefaultSizeLimit)) opt_.size_limit = n; break;
    case 505: opt_.automatic_idempotency = true; break;
    case 600: ++opt_.snapshot_ryw; break;
    case 601: --opt_.snapshot_ryw; break;
    case 701: opt_.udc_protection_disabled = true; break;
    case 713: opt_.special_key_relaxed = true; break;
    case 714: opt_.special_key_writes = true; break;
    case 1100: opt_.bypass_unreadable = true; break;
    case 800: case 801:
      if (static_cast<size_t>(length) > kMaxTagLength) {
        SetDeferredLocked(kTagTooLong);
      } else if (++opt_.tags > kMaxTags) {
        SetDeferredLocked(kTooManyTags);
      }
      break;
    case 2000: opt_.has_auth_token = true; break;
    default: break;  // accepted; no meaning in process
  }
  return 0;
}

// ---- versions ----

FuturePtr Transaction::GetReadVersion() {
  Lock lock(this);
  if (db_error_ != 0) return Future::Error(db_error_);
  CheckTimeoutLocked();
  if (cancelled_ != 0) return Future::Error(cancelled_);
  if (deferred_ != 0) return Future::Error(deferred_);
  return rt_.ReadVersion(Future::Int64(ReadVersionLocked()));
}

void Transaction::SetReadVersion(int64_t version) {
  Lock lock(this);
  if (!WriteAllowedLocked()) return;
  if (read_version_ >= 0) {
    SetDeferredLocked(kReadVersionAlreadySet);
  } else if (version <= 0) {
    SetDeferredLocked(kVersionInvalid);
  } else {
    read_version_ = version;
    rt_.ReadVersionSet();
  }
}

// ---- reads ----

bool Transaction::UnreadableLocked(std::string_view key) const {
  auto it = writes_.points.find(key);
  if (it != writes_.points.end() && it->second.unreadable) return true;
  for (const KeyRange& r : unreadable_) {
    if (key >= std::string_view(r.begin) && key < std::string_view(r.end)) return true;
  }
  return false;
}

bool Transaction::RangeUnreadableLocked(std::string_view begin,
                                        std::string_view end) const {
  for (const KeyRange& r : unreadable_) {
    if (std::string_view(r.begin) < end && begin < std::string_view(r.end)) return true;
  }
  return false;
}

void Transaction::AddReadConflictLocked(std::string begin, std::string end) {
  if (begin >= end) return;
  size_ += static_cast<int64_t>(begin.size() + end.size());
  read_conflicts_.push_back({std::move(begin), std::move(end)});
}

// AddRangeReadConflictLocked adds [begin, end) minus the parts this
// transaction's own sets and clears fully decide: another transaction's
// write there cannot change what this one read.
void Transaction::AddRangeReadConflictLocked(const std::string& begin,
                                             const std::string& end) {
  if (writes_.empty()) {
    AddReadConflictLocked(begin, end);
    return;
  }
  std::string cur = begin;
  auto point = writes_.points.lower_bound(begin);
  auto cleared = writes_.cleared.upper_bound(begin);
  if (cleared != writes_.cleared.begin() && std::prev(cleared)->second > begin) --cleared;
  for (;;) {
    while (point != writes_.points.end() && point->second.kind == WriteEntry::kAtomic) ++point;
    bool has_point = point != writes_.points.end() && point->first < end;
    bool has_clear = cleared != writes_.cleared.end() && cleared->first < end;
    if (!has_point && !has_clear) break;
    std::string seg_begin, seg_end;
    if (has_point && (!has_clear || point->first < cleared->first)) {
      seg_begin = point->first;
      seg_end = KeyAfter(point->first);
      ++point;
    } else {
      seg_begin = cleared->first;
      seg_end = cleared->second;
      ++cleared;
    }
    if (seg_begin > cur) AddReadConflictLocked(cur, std::min(seg_begin, end));
    if (seg_end > cur) cur = seg_end;
    if (cur >= end) return;
  }
  AddReadConflictLocked(cur, end);
}

void Transaction::AddWriteConflictLocked(std::string begin, std::string end) {
  if (begin >= end) return;
  size_ += static_cast<int64_t>(begin.size() + end.size());
  write_conflicts_.push_back({std::move(begin), std::move(end)});
}

int Transaction::GetLocked(std::string_view key, bool snapshot, bool* present,
                           std::string* value, bool* remote) {
  Version rv = ReadVersionLocked();
  if (int fault = ReadFaultLocked()) return fault;
  bool ryw = ReadYourWritesLocked(snapshot);
  const WriteEntry* entry = nullptr;
  bool decided = false;  // fully determined by this transaction's writes
  if (ryw) {
    if (UnreadableLocked(key)) {
      auto it = writes_.points.find(key);
      if (!(opt_.bypass_unreadable && it != writes_.points.end())) {
        return kAccessedUnreadable;
      }
    }
    auto it = writes_.points.find(key);
    if (it != writes_.points.end()) {
      entry = &it->second;
      decided = entry->kind != WriteEntry::kAtomic;
    } else if (writes_.ClearedRange(key)) {
      decided = true;
    }
  }
  if (decided) {
    *present = entry != nullptr && ResolveEntry(*entry, nullptr, api_version_, value);
  } else {
    if (remote) *remote = true;
    std::string dbv;
    bool db_present;
    {
      auto lock = db_->ReadLock();
      if (rv < db_->OldestReadableLocked()) return kTransactionTooOld;
      if (int err = db_->CheckReadVersion(rv)) return err;
      db_present = db_->reader().Get(key, rv, &dbv);
    }
    if (entry) {
      *present = ResolveEntry(*entry, db_present ? &dbv : nullptr, api_version_, value);
    } else {
      *present = db_present;
      if (db_present) *value = std::move(dbv);
    }
  }
  if (!snapshot && !decided) AddReadConflictLocked(std::string(key), KeyAfter(key));
  return 0;
}

FuturePtr Transaction::Get(std::string_view key, bool snapshot) {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  used_ = true;
  if (IsSpecial(key)) return SpecialGetLocked(key);
  if (key != kMetadataVersion && key >= MaxReadKeyLocked()) {
    return Future::Error(kKeyOutsideLegalRange);
  }
  if (key.size() > MaxKeySize(key)) {
    return Future::Value(false, std::string());  // too long to exist
  }
  bool present = false, remote = false;
  std::string value;
  int err = GetLocked(key, snapshot, &present, &value, &remote);
  if (!err && remote) cost_ += ReadCost(static_cast<int64_t>(key.size() + value.size()));
  FuturePtr f = err ? Future::Error(err) : Future::Value(present, std::move(value));
  if (key == kMetadataVersion) return rt_.MetadataVersionRead(std::move(f));
  return remote ? rt_.Read(std::move(f)) : f;
}

// ResolveLocked resolves a key selector over the visible keys below the
// maximum readable key. REQUIRES: database read lock held by the caller.
int Transaction::ResolveLocked(const Selector& sel, bool ryw, std::string* out) {
  std::string max_key = MaxReadKeyLocked();
  std::string k(sel.key);
  if (sel.or_equal) k.push_back('\0');
  const WriteMap* w = ryw ? &writes_ : nullptr;
  const Reader& reader = db_->reader();
  if (sel.offset >= 1) {
    ForwardView v(reader, read_version_, w, api_version_, k, max_key);
    for (int steps = sel.offset - 1; v.Valid() && steps > 0; --steps) v.Next();
    if (!v.Valid()) {
      *out = max_key;
      return 0;
    }
    if (ryw && UnreadableLocked(v.key())) return kAccessedUnreadable;
    *out = v.key();
  } else {
    ReverseView v(reader, read_version_, w, api_version_, k, max_key);
    for (int steps = -sel.offset; v.Valid() && steps > 0; --steps) v.Prev();
    if (!v.Valid()) {
      out->clear();
      return 0;
    }
    if (ryw && UnreadableLocked(v.key())) return kAccessedUnreadable;
    *out = v.key();
  }
  return 0;
}

int Transaction::RangeBoundLocked(const Selector& sel, bool ryw, const std::string& max_key,
                                  std::string* out) {
  // A selector at offset 1 resolves to the first visible key at or after
  // k (its key, or just after it with or_equal): no visible key lies
  // between k and it, so as a bound of a range read it is k itself. That
  // spares a cursor (an SQLite query in durable mode) per bound. Resolving
  // also fails with accessed_unreadable when it lands on a key this
  // transaction's versionstamped writes made unreadable, so a transaction
  // that wrote versionstamps (under read-your-writes) resolves.
  if (sel.offset != 1 || (ryw && stamped_)) return ResolveLocked(sel, ryw, out);
  out->assign(sel.key);
  if (sel.or_equal) out->push_back('\0');
  if (*out > max_key) *out = max_key;  // as resolving past the last key gives
  return 0;
}

FuturePtr Transaction::GetKey(Selector sel, bool snapshot) {
  Lock lock(this);
  bool remote = false;
  FuturePtr f = GetKeyLocked(sel, snapshot, &remote);
  return remote ? rt_.Read(std::move(f)) : f;
}

FuturePtr Transaction::GetKeyLocked(Selector sel, bool snapshot, bool* remote) {
  if (int err = ReadErrorLocked()) return Future::Error(err);
  used_ = true;
  if (sel.key > MaxReadKeyLocked()) return Future::Error(kKeyOutsideLegalRange);
  Version rv = ReadVersionLocked();
  *remote = true;
  if (int fault = ReadFaultLocked()) return Future::Error(fault);
  std::string result;
  {
    auto dblock = db_->ReadLock();
    if (rv < db_->OldestReadableLocked()) return Future::Error(kTransactionTooOld);
    if (int err = db_->CheckReadVersion(rv)) return Future::Error(err);
    if (int err = ResolveLocked(sel, ReadYourWritesLocked(snapshot), &result)) {
      return Future::Error(err);
    }
  }
  if (!snapshot) {
    std::string k(sel.key);
    if (sel.or_equal) k.push_back('\0');
    if (sel.offset > 0) {
      AddReadConflictLocked(k, KeyAfter(result));
    } else {
      AddReadConflictLocked(result, k);
    }
  }
  cost_ += ReadCost(static_cast<int64_t>(result.size()));
  return Future::Key(std::move(result));
}

FuturePtr Transaction::GetRange(Selector begin, Selector end, int limit,
                                int target_bytes, int mode, int iteration,
                                bool snapshot, bool reverse) {
  Lock lock(this);
  bool remote = false;
  FuturePtr f = GetRangeLocked(begin, end, limit, target_bytes, mode, iteration,
                               snapshot, reverse, &remote);
  return remote ? rt_.Read(std::move(f)) : f;
}

FuturePtr Transaction::GetRangeLocked(Selector begin, Selector end, int limit,
                                      int target_bytes, int mode, int iteration,
                                      bool snapshot, bool reverse, bool* remote) {
  if (int err = ReadErrorLocked()) return Future::Error(err);
  used_ = true;
  if (limit < -1 || target_bytes < -1) return Future::Error(kRangeLimitsInvalid);
  if (limit == -1) limit = 0;
  if (target_bytes == -1) target_bytes = 0;
  if (mode < -2 || mode > 4) return Future::Error(kClientInvalidOperation);
  if (mode == -1 && iteration < 1) return Future::Error(kClientInvalidOperation);
  if (mode == 0 && limit == 0 && target_bytes == 0) {
    return Future::Error(kExactModeWithoutLimits);
  }
  if (IsSpecial(begin.key)) {
    return SpecialRangeLocked(begin.key, end.key, limit, reverse);
  }
  std::string max_key = MaxReadKeyLocked();
  if (begin.key > max_key || end.key > max_key) {
    return Future::Error(kKeyOutsideLegalRange);
  }
  int64_t byte_cap = ModeByteCap(mode, iteration);
  if (target_bytes > 0 && (byte_cap == 0 || target_bytes < byte_cap)) {
    byte_cap = target_bytes;
  }
  Version rv = ReadVersionLocked();
  *remote = true;
  if (int fault = ReadFaultLocked()) return Future::Error(fault);
  bool ryw = ReadYourWritesLocked(snapshot);
  const WriteMap* w = ryw ? &writes_ : nullptr;
  std::string b, e;
  KvBuilder rows;
  bool more = false;
  std::string last;
  // [observed_begin, observed_end) is every key whose presence could change
  // this result: the rows, plus what resolving the selectors looked at. A
  // first_greater_or_equal end selector resolves past its key, but rows
  // stop below the key anyway, so the key bounds what was observed.
  std::string observed_begin(begin.key), observed_end(end.key);
  int64_t bytes = 0;  // keys and values returned
  if (begin.or_equal) observed_begin.push_back('\0');
  if (end.or_equal) observed_end.push_back('\0');
  {
    auto dblock = db_->ReadLock();
    if (rv < db_->OldestReadableLocked()) return Future::Error(kTransactionTooOld);
    if (int err = db_->CheckReadVersion(rv)) return Future::Error(err);
    if (int err = RangeBoundLocked(begin, ryw, max_key, &b)) return Future::Error(err);
    if (int err = RangeBoundLocked(end, ryw, max_key, &e)) return Future::Error(err);
    observed_begin = std::min(observed_begin, b);
    if (end.offset > 1) observed_end = std::max(observed_end, KeyAfter(e));
    if (ryw && RangeUnreadableLocked(observed_begin, observed_end)) {
      return Future::Error(kAccessedUnreadable);
    }
    int64_t charged = 0;  // with the 8-byte overhead per row the limits count
    auto add = [&](std::string_view k, std::string_view v) {
      if (rows.rows() == 0) {
        // Expect rows the size of the first, up to the limits.
        const size_t row = k.size() + v.size();
        size_t expect = limit > 0 ? static_cast<size_t>(limit) : SIZE_MAX;
        if (byte_cap > 0) expect = std::min<size_t>(expect, byte_cap / (row + 8) + 1);
        rows.Reserve(expect, row);
      }
      rows.Add(k, v);
      bytes += static_cast<int64_t>(k.size() + v.size());
      charged += static_cast<int64_t>(k.size() + v.size()) + 8;
      if ((limit > 0 && static_cast<int>(rows.rows()) >= limit) ||
          (byte_cap > 0 && charged >= byte_cap)) {
        more = true;
        last.assign(k);
        return false;
      }
      return true;
    };
    const Reader& reader = db_->reader();
    if (b < e && !reverse) {
      for (ForwardView v(reader, rv, w, api_version_, b, e); v.Valid(); v.Next()) {
        if (v.unreadable()) return Future::Error(kAccessedUnreadable);
        if (!add(v.key(), v.value())) break;
      }
    } else if (b < e) {
      for (ReverseView v(reader, rv, w, api_version_, e, e); v.Valid(); v.Prev()) {
        if (v.key() < std::string_view(b)) break;
        if (v.unreadable()) return Future::Error(kAccessedUnreadable);
        if (!add(v.key(), v.value())) break;
      }
    }
  }
  if (!snapshot) {
    if (more && !reverse) observed_end = KeyAfter(last);
    if (more && reverse) observed_begin = last;
    AddRangeReadConflictLocked(observed_begin, observed_end);
  }
  cost_ += ReadCost(bytes);
  return Future::KeyValues(std::move(rows), more);
}

// ---- writes ----

bool Transaction::ValidWriteKeyLocked(std::string_view key) {
  if (key.size() > MaxKeySize(key)) {
    SetDeferredLocked(kKeyTooLarge);
    return false;
  }
  if (key >= MaxWriteKeyLocked()) {
    SetDeferredLocked(kKeyOutsideLegalRange);
    return false;
  }
  return true;
}

void Transaction::CheckWatchesLocked() {
  if (watches_.empty()) return;
  for (auto it = watches_.begin(); it != watches_.end();) {
    auto& w = *it;
    bool present = false;
    std::string v;
    auto p = writes_.points.find(w->key);
    bool known = p != writes_.points.end() && p->second.kind != WriteEntry::kAtomic;
    if (p == writes_.points.end() && writes_.ClearedRange(w->key)) {
      known = true;  // cleared: absent
    } else if (known) {
      present = ResolveEntry(p->second, nullptr, api_version_, &v);
    }
    if (known && (present != w->value.has_value() || (present && v != *w->value))) {
      // The transaction itself changed the value: the watch fires now.
      DeferLocked([db = db_, w] { db->CompleteWatch(w, 0); });
      it = watches_.erase(it);
    } else {
      ++it;
    }
  }
}

void Transaction::Set(std::string_view key, std::string_view value) {
  Lock lock(this);
  if (!WriteAllowedLocked()) return;
  if (IsSpecial(key)) {
    SpecialWriteLocked(key, value);
    return;
  }
  if (key == kMetadataVersion) {
    // Only a versionstamped value may change the metadata version.
    SetDeferredLocked(kClientInvalidOperation);
    return;
  }
  if (!ValidWriteKeyLocked(key)) return;
  if (value.size() > kMaxValueSize) {
    SetDeferredLocked(kValueTooLarge);
    return;
  }
  WriteEntry& e = writes_.points[std::string(key)];
  e.kind = WriteEntry::kSet;
  e.value.assign(value);
  e.ops.clear();
  mutations_.push_back({Mutation::kSet, 0, std::string(key), std::string(value), 0});
  size_ += static_cast<int64_t>(key.size() + value.size());
  cost_ += WriteCost(static_cast<int64_t>(key.size() + value.size()));
  if (!opt_.next_write_no_conflict) {
    AddWriteConflictLocked(std::string(key), KeyAfter(key));
  }
  opt_.next_write_no_conflict = false;
  CheckWatchesLocked();
}

void Transaction::Clear(std::string_view key) {
  Lock lock(this);
  if (!WriteAllowedLocked()) return;
  if (IsSpecial(key)) {
    SpecialWriteLocked(key, std::nullopt);
    return;
  }
  if (key == kMetadataVersion) {
    SetDeferredLocked(kClientInvalidOperation);
    return;
  }
  if (key.size() > MaxKeySize(key)) return;  // cannot exist
  if (key >= MaxWriteKeyLocked()) {
    SetDeferredLocked(kKeyOutsideLegalRange);
    return;
  }
  WriteEntry& e = writes_.points[std::string(key)];
  e.kind = WriteEntry::kClear;
  e.value.clear();
  e.ops.clear();
  mutations_.push_back({Mutation::kClear, 0, std::string(key), std::string(), 0});
  size_ += static_cast<int64_t>(key.size());
  cost_ += WriteCost(static_cast<int64_t>(key.size()));
  if (!opt_.next_write_no_conflict) {
    AddWriteConflictLocked(std::string(key), KeyAfter(key));
  }
  opt_.next_write_no_conflict = false;
  CheckWatchesLocked();
}

void Transaction::ClearRange(std::string_view begin, std::string_view end) {
  Lock lock(this);
  if (!WriteAllowedLocked()) return;
  if (IsSpecial(begin)) {
    if (!opt_.special_key_writes) {
      SetDeferredLocked(kSpecialKeysWriteDisabled);
    } else if ((begin <= std::string_view(kFaultsKey) && std::string_view(kFaultsKey) < end) ||
               (begin <= std::string_view(kLatencyKey) && std::string_view(kLatencyKey) < end) ||
               (begin <= std::string_view(kKeyAuditKey) && std::string_view(kKeyAuditKey) < end)) {
      for (const std::string* k : {&kFaultsKey, &kLatencyKey, &kKeyAuditKey}) {
        if (begin <= std::string_view(*k) && std::string_view(*k) < end) {
          SpecialWriteLocked(*k, std::nullopt);
        }
      }
    } else {
      SetDeferredLocked(kSpecialKeysNoWriteModuleFound);
    }
    return;
  }
  if (begin > end) {
    SetDeferredLocked(kInvertedRange);
    return;
  }
  std::string max_key = MaxWriteKeyLocked();
  if (begin > max_key || end > max_key) {
    SetDeferredLocked(kKeyOutsideLegalRange);
    return;
  }
  if (begin == end) return;
  writes_.Clear(begin, end);
  mutations_.push_back({Mutation::kClearRange, 0, std::string(begin), std::string(end), 0});
  size_ += static_cast<int64_t>(begin.size() + end.size());
  cost_ += WriteCost(static_cast<int64_t>(begin.size() + end.size()));
  if (!opt_.next_write_no_conflict) {
    AddWriteConflictLocked(std::string(begin), std::string(end));
  }
  opt_.next_write_no_conflict = false;
  CheckWatchesLocked();
}

void Transaction::AtomicOp(std::string_view key, std::string_view param, int type) {
  Lock lock(this);
  if (!WriteAllowedLocked()) return;
  if (!IsKnownMutationType(type)) {
    SetDeferredLocked(kInvalidMutationType);
    return;
  }
  bool metadata = key == kMetadataVersion;
  if (metadata) {
    // Layers bump the metadata version only through a versionstamped value.
    if (type != kMutSetVersionstampedValue || param.size() != 14 ||
        param.find_first_not_of('\0') != std::string_view::npos) {
      SetDeferredLocked(kClientInvalidOperation);
      return;
    }
  }
  if (type == kMutSetVersionstampedKey) {
    std::string body;
    uint32_t pos = 0;
    if (!ParseVersionstampOperand(key, true, api_version_, &body, &pos)) {
      SetDeferredLocked(kClientInvalidOperation);
      return;
    }
    if (!ValidWriteKeyLocked(body)) return;
    if (param.size() > kMaxValueSize) {
      SetDeferredLocked(kValueTooLarge);
      return;
    }
    // Until commit the final key is unknown: every key it could become is
    // unreadable to this transaction.
    std::string lo = body, hi = body;
    WriteVersionstamp(&lo, pos, read_version_ > 0 ? read_version_ : 0, 0);
    std::memset(&hi[pos], 0xff, 10);
    std::string max_key = MaxReadKeyLocked();
    hi = std::min(KeyAfter(hi), max_key);
    if (lo < hi) unreadable_.push_back({lo, hi});
    stamped_ = true;
    size_ += static_cast<int64_t>(key.size() + param.size());
    cost_ += WriteCost(static_cast<int64_t>(key.size() + param.size()));
    mutations_.push_back({Mutation::kStampedKey, 0, std::move(body), std::string(param), pos});
    opt_.next_write_no_conflict = false;
    return;
  }
  if (!metadata && !ValidWriteKeyLocked(key)) return;
  if (param.size() > kMaxValueSize) {
    SetDeferredLocked(kValueTooLarge);
    return;
  }
  if (type == kMutSetVersionstampedValue) {
    std::string body;
    uint32_t pos = 0;
    if (!ParseVersionstampOperand(param, false, api_version_, &body, &pos)) {
      SetDeferredLocked(kClientInvalidOperation);
      return;
    }
    WriteEntry& e = writes_.points[std::string(key)];
    e.kind = WriteEntry::kSet;
    e.value = body;  // the unstamped value, seen only with bypass_unreadable
    e.ops.clear();
    e.unreadable = true;
    stamped_ = true;
    mutations_.push_back({Mutation::kStampedValue, 0, std::string(key), std::move(body), pos});
  } else {
    WriteEntry* e = nullptr;
    auto it = writes_.points.find(key);
    if (it != writes_.points.end()) {
      e = &it->second;
    } else if (writes_.ClearedRange(key)) {
      e = &writes_.points[std::string(key)];
      e->kind = WriteEntry::kClear;
    } else {
      e = &writes_.points[std::string(key)];
      e->kind = WriteEntry::kAtomic;
    }
    if (e->kind == WriteEntry::kAtomic) {
      e->ops.emplace_back(type, std::string(param));
    } else {
      std::optional<std::string> cur;
      if (e->kind == WriteEntry::kSet) cur = e->value;
      auto next = ApplyAtomic(type, cur, param, api_version_);
      e->kind = next ? WriteEntry::kSet : WriteEntry::kClear;
      e->value = next ? std::move(*next) : std::string();
    }
    mutations_.push_back({Mutation::kAtomic, type, std::string(key), std::string(param), 0});
  }
  size_ += static_cast<int64_t>(key.size() + param.size());
  cost_ += WriteCost(static_cast<int64_t>(key.size() + param.size()));
  if (!opt_.next_write_no_conflict) {
    AddWriteConflictLocked(std::string(key), KeyAfter(key));
  }
  opt_.next_write_no_conflict = false;
  CheckWatchesLocked();
}

int Transaction::AddConflictRange(std::string_view begin, std::string_view end,
                                  int type) {
  if (begin > end) return kInvertedRange;
  if (type != 0 && type != 1) return kClientInvalidOperation;
  Lock lock(this);
  if (!WriteAllowedLocked()) return 0;
  std::string max_key = MaxReadKeyLocked();
  if (begin > max_key || end > max_key) {
    SetDeferredLocked(kKeyOutsideLegalRange);
    return 0;
  }
  if (type == 0) {
    ReadVersionLocked();
    if (opt_.ryw_disabled) {
      AddReadConflictLocked(std::string(begin), std::string(end));
    } else {
      // As FoundationDB's read-your-writes layer: keys this transaction's
      // own sets and clears decide take no read conflict.
      AddRangeReadConflictLocked(std::string(begin), std::string(end));
    }
  } else {
    AddWriteConflictLocked(std::string(begin), std::string(end));
  }
  return 0;
}

// ---- watches ----

FuturePtr Transaction::Watch(std::string_view key) {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  if (opt_.ryw_disabled) return Future::Error(kWatchesDisabled);
  if (key >= MaxReadKeyLocked() && key != kMetadataVersion) {
    return Future::Error(kKeyOutsideLegalRange);
  }
  if (key.size() > kMaxKeySize) return Future::Error(kKeyTooLarge);
  used_ = true;
  bool present = false;
  std::string value;
  if (int err = GetLocked(key, false, &present, &value)) return Future::Error(err);
  if (!db_->ReserveWatch()) return Future::Error(kTooManyWatches);
  auto w = std::make_shared<struct Watch>();
  w->key.assign(key);
  if (present) w->value = std::move(value);
  w->future = std::make_shared<Future>();
  std::weak_ptr<struct Watch> weak = w;
  std::weak_ptr<Database> weak_db = db_;
  w->future->OnCancel([weak, weak_db] {
    auto wp = weak.lock();
    auto db = weak_db.lock();
    if (wp && db) db->CompleteWatch(wp, kOperationCancelled);
  });
  if (opt_.timeout_ms > 0) {
    auto deadline = start_ + std::chrono::milliseconds(opt_.timeout_ms);
    double delay = std::chrono::duration<double>(deadline - Clock::now()).count();
    Loop::Get().Schedule(delay, [weak, weak_db] {
      auto wp = weak.lock();
      auto db = weak_db.lock();
      if (wp && db) db->CompleteWatch(wp, kTransactionTimedOut);
    });
  }
  watches_.push_back(w);
  return w->future;
}

// ---- commit ----

FuturePtr Transaction::GetVersionstamp() {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  // Each call gets a future of its own, as from FoundationDB: releasing or
  // destroying one must not touch another.
  versionstamps_.push_back(std::make_shared<Future>());
  return versionstamps_.back();
}

// Commit checks and applies the transaction. Once commit is called every
// later read or write fails with used_during_commit and on_error or reset
// starts afresh, so the write buffers are dead: they are freed at once
// rather than when the handle is destroyed, which for a garbage-collected
// binding may be much later.
FuturePtr Transaction::Commit() {
  Lock lock(this);
  bool sent = false;
  FuturePtr f = CommitLocked(&sent);
  if (commit_called_) ReleaseWritesLocked();
  // The versionstamp is known when the commit's reply arrives.
  if (sent) f = rt_.Commit(std::move(f), &commit_replies_);
  for (auto& fn : commit_replies_) DeferLocked(std::move(fn));
  commit_replies_.clear();
  return f;
}

// ReleaseWritesLocked frees what the transaction has buffered to commit.
void Transaction::ReleaseWritesLocked() {
  writes_ = WriteMap();
  std::vector<Mutation>().swap(mutations_);
  std::vector<KeyRange>().swap(read_conflicts_);
  std::vector<KeyRange>().swap(write_conflicts_);
  std::vector<KeyRange>().swap(unreadable_);
  stamped_ = false;
}

FuturePtr Transaction::CommitLocked(bool* sent) {
  if (int err = ReadErrorLocked()) return Future::Error(err);
  commit_called_ = true;
  if (special_faults_) {
    FaultConfig c;
    FaultConfig::Parse(*special_faults_, &c);  // validated when written
    db_->faults().Configure(c);
  }
  if (special_latency_) {
    LatencyConfig c;
    LatencyConfig::Parse(*special_latency_, &c);  // validated when written
    db_->latency().Configure(c);
  }
  auto fail = [&](int code) {
    for (auto& w : watches_) DeferLocked([db = db_, w, code] { db->CompleteWatch(w, code); });
    watches_.clear();
    for (auto& f : versionstamps_) {
      commit_replies_.push_back([f] { f->SetError(kTransactionInvalidVersion); });
    }
    versionstamps_.clear();
    return Future::Error(code);
  };
  if (mutations_.empty() && write_conflicts_.empty()) {
    // Read-only: nothing to check or apply.
    for (auto& f : versionstamps_) DeferLocked([f] { f->SetError(kNoCommitVersion); });
    versionstamps_.clear();
    for (auto& w : watches_) db_->ArmWatch(w, &deferred_work_);
    watches_.clear();
    return Future::Void();
  }
  if (size_ > opt_.size_limit) return fail(kTransactionTooLarge);
  CommitRequest req;
  // A write-only transaction still takes a read version for its commit.
  req.read_version = ReadVersionLocked();
  *sent = true;
  req.reads = &read_conflicts_;
  req.writes = &write_conflicts_;
  req.mutations = &mutations_;
  req.api_version = api_version_;
  req.automatic_idempotency = opt_.automatic_idempotency;
  CommitResult r = db_->Commit(req, &deferred_work_);
  if (r.error != 0 && r.version < 0) return fail(r.error);
  committed_version_ = r.version;
  if (!versionstamps_.empty()) {
    std::string stamp(10, '\0');
    WriteVersionstamp(&stamp, 0, r.version, r.batch);
    commit_replies_.push_back([fs = std::move(versionstamps_), stamp = std::move(stamp)] {
      for (auto& f : fs) f->SetKey(stamp);
    });
    versionstamps_.clear();
  }
  if (r.error != 0) {
    // Applied, but reported as unknown: watches learn the same.
    return fail(r.error);
  }
  for (auto& w : watches_) db_->ArmWatch(w, &deferred_work_);
  watches_.clear();
  return Future::Void();
}

int Transaction::GetCommittedVersion(int64_t* out) {
  Lock lock(this);
  *out = committed_version_;
  return 0;
}

FuturePtr Transaction::GetApproximateSize() {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  int64_t size = size_;
  return Future::Int64(size);
}

FuturePtr Transaction::GetAddressesForKey(std::string_view key) {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  if (key > MaxReadKeyLocked()) return Future::Error(kKeyOutsideLegalRange);
  ConnectionString cs;
  if (!ParseConnectionString(db_->connection_string(), &cs)) {
    return Future::Error(kClientInvalidOperation);  // cannot happen: built valid
  }
  std::vector<std::string> addresses;
  for (std::string a : cs.coordinators) {
    const std::string tls = ":tls";
    if (a.size() > tls.size() && a.compare(a.size() - tls.size(), tls.size(), tls) == 0) {
      a.resize(a.size() - tls.size());
    }
    // host:port: ports are included from API version 630 on (fdblite
    // accepts 700 and later).
    addresses.push_back(std::move(a));
  }
  return Future::Strings(std::move(addresses));
}

FuturePtr Transaction::GetTagThrottledDuration() {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  return Future::Double(0.0);
}

FuturePtr Transaction::GetTotalCost() {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  return Future::Int64(cost_);
}

FuturePtr Transaction::GetEstimatedRangeSizeBytes(std::string_view begin,
                                                  std::string_view end) {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  if (begin > end) return Future::Error(kInvertedRange);
  Version rv = ReadVersionLocked();
  auto dblock = db_->ReadLock();
  return rt_.Read(Future::Int64(
      static_cast<int64_t>(db_->reader().EstimateRangeBytes(begin, end, rv))));
}

FuturePtr Transaction::GetRangeSplitPoints(std::string_view begin,
                                           std::string_view end,
                                           int64_t chunk_size) {
  Lock lock(this);
  if (int err = ReadErrorLocked()) return Future::Error(err);
  if (begin > end) return Future::Error(kInvertedRange);
  std::string max_key = MaxReadKeyLocked();
  if (begin > max_key || end > max_key) return Future::Error(kKeyOutsideLegalRange);
  if (chunk_size <= 0) return Future::Error(kInvalidOptionValue);
  Version rv = ReadVersionLocked();
  auto dblock = db_->ReadLock();
  return rt_.Read(Future::Keys(db_->reader().SplitPoints(begin, end, rv, chunk_size)));
}

// ---- retries ----

FuturePtr Transaction::OnError(int code) {
  Lock lock(this);
  CheckTimeoutLocked();
  if (cancelled_ != 0) return Future::Error(cancelled_);
  if (deferred_ == kUsedDuringCommit) return Future::Error(kUsedDuringCommit);
  if (code == 0) return Future::Error(kClientInvalidOperation);
  bool with_backoff = RetryableWithBackoff(code);
  bool quick = code == kTransactionTooOld || code == kFutureVersion;
  bool limited = opt_.retry_limit != -1 && retries_ >= opt_.retry_limit;
  ++retries_;
  if (limited || (!with_backoff && !quick)) {
    if (api_version_ >= 610) {
      cancelled_ = kTransactionCancelled;
      AbandonPendingLocked(kTransactionCancelled);
    }
    return Future::Error(code);
  }
  double max_delay = static_cast<double>(opt_.max_retry_delay_ms) / 1000.0;
  double delay;
  if (quick) {
    delay = std::min(kInitialBackoff, max_delay);
  } else {
    delay = backoff_ * Uniform01();
    double cap = (code == kCommitProxyMemoryLimitExceeded ||
                  code == kGrvProxyMemoryLimitExceeded)
                     ? kMemoryLimitMaxBackoff
                     : max_delay;
    backoff_ = std::min(backoff_ * 2, cap);
  }
  ResetLocked(true);
  auto f = std::make_shared<Future>();
  if (delay <= 0) {
    f->SetVoid();
  } else {
    Loop::Get().Schedule(delay, [f] { f->SetVoid(); });
  }
  return f;
}

// ---- special keys ----

// StatsLocked is the database's stats with this transaction's own round
// trips so far added as "transaction".
std::string Transaction::StatsLocked() {
  std::string out = db_->StatsJSON();
  out.insert(out.size() - 1, ",\"transaction\":" + rt_.counts().JSON());
  return out;
}

FuturePtr Transaction::SpecialGetLocked(std::string_view key) {
  if (key == kFaultsKey) return Future::Value(true, db_->faults().Config().Format());
  if (key == kStatsKey) return Future::Value(true, StatsLocked());
  if (key == kLatencyKey) return Future::Value(true, db_->latency().Config().Format());
  if (key == kKeyAuditKey) return Future::Value(true, db_->key_audit().JSON());
  if (key >= std::string_view(kFdbliteModule) && key < std::string_view(kFdbliteModuleEnd)) {
    return Future::Value(false, std::string());
  }
  if (opt_.special_key_relaxed) return Future::Value(false, std::string());
  return Future::Error(kSpecialKeysNoModuleFound);
}

FuturePtr Transaction::SpecialRangeLocked(std::string_view begin,
                                          std::string_view end, int limit,
                                          bool reverse) {
  bool inside = begin >= std::string_view(kFdbliteModule) &&
                end <= std::string_view(kFdbliteModuleEnd);
  if (!inside && !opt_.special_key_relaxed) {
    return Future::Error(kSpecialKeysNoModuleFound);
  }
  std::vector<std::pair<std::string, std::string>> kv = {
      {kFaultsKey, db_->faults().Config().Format()},
      {kStatsKey, StatsLocked()},
      {kLatencyKey, db_->latency().Config().Format()},
      {kKeyAuditKey, db_->key_audit().JSON()}};
  std::sort(kv.begin(), kv.end());
  if (reverse) std::reverse(kv.begin(), kv.end());
  KvBuilder rows;
  bool more = false;
  for (auto& [k, v] : kv) {
    if (k < begin || k >= end) continue;
    if (limit > 0 && static_cast<int>(rows.rows()) >= limit) {
      more = true;
      break;
    }
    rows.Add(k, v);
  }
  return Future::KeyValues(std::move(rows), more);
}

void Transaction::SpecialWriteLocked(std::string_view key,
                                     std::optional<std::string_view> value) {
  if (!opt_.special_key_writes) {
    SetDeferredLocked(kSpecialKeysWriteDisabled);
    return;
  }
  if (key == kLatencyKey) {
    LatencyConfig c;
    if (value && !LatencyConfig::Parse(*value, &c)) {
      SetDeferredLocked(kInvalidOptionValue);
      return;
    }
    special_latency_ = value ? std::string(*value) : std::string();
    return;
  }
  if (key == kKeyAuditKey) {
    // Applied at once, not at commit: the audit is a test instrument.
    if (value && *value != "on" && *value != "off") {
      SetDeferredLocked(kInvalidOptionValue);
      return;
    }
    db_->key_audit().Set(value && *value == "on");
    return;
  }
  if (key != kFaultsKey) {
    SetDeferredLocked(kSpecialKeysNoWriteModuleFound);
    return;
  }
  FaultConfig c;
  if (value && !FaultConfig::Parse(*value, &c)) {
    SetDeferredLocked(kInvalidOptionValue);
    return;
  }
  special_faults_ = value ? std::string(*value) : std::string();
}

}  // namespace fdblite
