// future.cpp: see future.h.
#include "future.h"

#include "errors.h"

namespace fdblite {

FuturePtr Future::Error(int code) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->error_ = code;
  return f;
}

FuturePtr Future::Void() {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  return f;
}

FuturePtr Future::Int64(int64_t v) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kInt64;
  f->int64_ = v;
  return f;
}

FuturePtr Future::Double(double v) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kDouble;
  f->double_ = v;
  return f;
}

FuturePtr Future::Key(std::string key) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kKey;
  f->strings_.push_back(std::move(key));
  return f;
}

FuturePtr Future::Value(bool present, std::string value) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kValue;
  f->present_ = present;
  f->strings_.push_back(std::move(value));
  return f;
}

FuturePtr Future::KeyValues(KvBuilder&& rows, bool more) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kKeyValues;
  f->more_ = more;
  f->rows_ = std::move(rows);
  f->BuildArraysLocked();
  return f;
}

FuturePtr Future::Keys(std::vector<std::string> keys) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kKeys;
  f->strings_ = std::move(keys);
  f->BuildArraysLocked();
  return f;
}

FuturePtr Future::Strings(std::vector<std::string> strings) {
  auto f = std::make_shared<Future>();
  f->ready_ = true;
  f->kind_ = ResultKind::kStrings;
  f->strings_ = std::move(strings);
  f->BuildArraysLocked();
  return f;
}

// BuildArraysLocked lays out the C arrays over strings_; the strings are
// never touched again, so the pointers stay valid for the future's life.
void Future::BuildArraysLocked() {
  switch (kind_) {
    case ResultKind::kKeyValues:
      kvs_.resize(rows_.rows());
      for (size_t i = 0; i < kvs_.size(); ++i) {
        const auto* base = reinterpret_cast<const uint8_t*>(rows_.arena_.data());
        size_t k = rows_.index_[2 * i], v = rows_.index_[2 * i + 1];
        size_t end = 2 * i + 2 < rows_.index_.size() ? rows_.index_[2 * i + 2]
                                                     : rows_.arena_.size();
        kvs_[i].key = base + k;
        kvs_[i].key_length = static_cast<int>(v - k);
        kvs_[i].value = base + v;
        kvs_[i].value_length = static_cast<int>(end - v);
      }
      break;
    case ResultKind::kKeys:
      keys_.resize(strings_.size());
      for (size_t i = 0; i < keys_.size(); ++i) {
        keys_[i].key = reinterpret_cast<const uint8_t*>(strings_[i].data());
        keys_[i].key_length = static_cast<int>(strings_[i].size());
      }
      break;
    case ResultKind::kStrings:
      cstrs_.resize(strings_.size());
      for (size_t i = 0; i < cstrs_.size(); ++i) cstrs_[i] = strings_[i].c_str();
      break;
    default:
      break;
  }
}

void Future::FinishLocked(std::unique_lock<std::mutex>& lock) {
  ready_ = true;
  std::vector<Callback> cbs;
  cbs.swap(callbacks_);
  on_cancel_.clear();
  if (!cbs.empty()) NoteWaited();  // the caller is told now
  lock.unlock();
  cv_.notify_all();
  for (auto& cb : cbs) cb.fn(cb.handle, cb.arg);
}

bool Future::SetError(int code) {
  std::unique_lock<std::mutex> lock(mu_);
  if (ready_) return false;
  error_ = code;
  FinishLocked(lock);
  return true;
}

bool Future::SetVoid() {
  std::unique_lock<std::mutex> lock(mu_);
  if (ready_) return false;
  FinishLocked(lock);
  return true;
}

bool Future::SetKey(std::string key) {
  std::unique_lock<std::mutex> lock(mu_);
  if (ready_) return false;
  kind_ = ResultKind::kKey;
  strings_.assign(1, std::move(key));
  FinishLocked(lock);
  return true;
}

bool Future::Adopt(Future&& src) {
  std::unique_lock<std::mutex> lock(mu_);
  if (ready_) return false;
  error_ = src.error_;
  kind_ = src.kind_;
  int64_ = src.int64_;
  double_ = src.double_;
  present_ = src.present_;
  more_ = src.more_;
  strings_ = std::move(src.strings_);
  rows_ = std::move(src.rows_);
  BuildArraysLocked();  // the arrays point into this future's own copies
  FinishLocked(lock);
  return true;
}

void Future::OnCancel(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!ready_) on_cancel_.push_back(std::move(fn));
}

bool Future::IsReady() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (ready_) NoteWaited();
  return ready_;
}

int Future::ErrorCode() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (ready_) NoteWaited();
  return ready_ ? error_ : kFutureNotSet;
}

void Future::AddCallback(FDBCallback cb, FDBFuture* handle, void* arg) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ready_) {
      callbacks_.push_back({cb, handle, arg});
      return;
    }
  }
  NoteWaited();
  cb(handle, arg);
}

void Future::Cancel() {
  std::unique_lock<std::mutex> lock(mu_);
  if (ready_) return;
  error_ = kOperationCancelled;
  std::vector<std::function<void()>> fns;
  fns.swap(on_cancel_);
  FinishLocked(lock);
  for (auto& fn : fns) fn();
}

void Future::BlockUntilReady() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return ready_; });
  NoteWaited();
}

// ReleaseMemory drops one use taken by a successful getter; at zero uses the
// result memory is freed and later getters fail with future_released.
void Future::ReleaseMemory() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!ready_ || error_ != 0 || released_) return;
  if (uses_ > 0) --uses_;
  if (uses_ > 0) return;
  released_ = true;
  std::vector<std::string>().swap(strings_);
  rows_ = KvBuilder();
  std::vector<FDBKeyValue>().swap(kvs_);
  std::vector<FDBKey>().swap(keys_);
  std::vector<const char*>().swap(cstrs_);
}

int Future::CheckGetLocked(ResultKind kind) {
  if (!ready_) return kFutureNotSet;
  NoteWaited();
  if (error_ != 0) return error_;
  if (released_) return kFutureReleased;
  if (kind_ != kind) return kClientInvalidOperation;
  ++uses_;
  return 0;
}

int Future::GetInt64(int64_t* out) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kInt64);
  if (err == 0) *out = int64_;
  return err;
}

int Future::GetDouble(double* out) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kDouble);
  if (err == 0) *out = double_;
  return err;
}

int Future::GetKey(const uint8_t** key, int* len) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kKey);
  if (err != 0) return err;
  *key = reinterpret_cast<const uint8_t*>(strings_[0].data());
  *len = static_cast<int>(strings_[0].size());
  return 0;
}

int Future::GetValue(fdb_bool_t* present, const uint8_t** value, int* len) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kValue);
  if (err != 0) {
    // Python reads the client status through get_key, Go through get_value:
    // a key future answers both.
    if (err != kClientInvalidOperation || kind_ != ResultKind::kKey) return err;
    ++uses_;
  }
  *present = kind_ == ResultKind::kKey ? 1 : present_;
  *value = reinterpret_cast<const uint8_t*>(strings_[0].data());
  *len = *present ? static_cast<int>(strings_[0].size()) : 0;
  return 0;
}

int Future::GetKeyValues(const FDBKeyValue** kv, int* count, fdb_bool_t* more) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kKeyValues);
  if (err != 0) return err;
  *kv = kvs_.data();
  *count = static_cast<int>(kvs_.size());
  *more = more_;
  return 0;
}

int Future::GetKeys(const FDBKey** keys, int* count) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kKeys);
  if (err != 0) return err;
  *keys = keys_.data();
  *count = static_cast<int>(keys_.size());
  return 0;
}

int Future::GetStrings(const char*** strings, int* count) {
  std::lock_guard<std::mutex> lock(mu_);
  int err = CheckGetLocked(ResultKind::kStrings);
  if (err != 0) return err;
  *strings = cstrs_.data();
  *count = static_cast<int>(cstrs_.size());
  return 0;
}

}  // namespace fdblite
