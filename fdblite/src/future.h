// future.h: FDBFuture, a one-shot result with callbacks.
//
// A Future is shared: the FDBFuture* handle the C caller holds owns one
// reference, and whoever will complete it later (a commit, a watch, a timer)
// owns another. The caller's handle may be destroyed at any time from any
// thread (Go destroys futures from GC finalizers); destroying an unready
// future cancels it.
//
// Thread safety: all methods are safe for concurrent use. Callbacks and
// wakeups run after mu_ is released, never under it.
//
// Result ownership: the memory a getter hands out (keys, values, arrays)
// belongs to the Future and stays valid until the handle is destroyed or
// release_memory drops the last use, as FoundationDB's futures do.
#ifndef FDBLITE_FUTURE_H_
#define FDBLITE_FUTURE_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fdb_api.h"

namespace fdblite {

class Future;
using FuturePtr = std::shared_ptr<Future>;

// ReadWave is one wave of reads in flight together (see latency.h): it ends
// once the caller has waited for, or looked at, any of its futures.
struct ReadWave {
  std::atomic<bool> waited{false};
};

// KvBuilder collects range-read rows into one arena (one allocation for the
// bytes, one for the index), which the future then owns.
class KvBuilder {
 public:
  void Add(std::string_view key, std::string_view value) {
    index_.push_back(arena_.size());
    arena_.append(key);
    index_.push_back(arena_.size());
    arena_.append(value);
  }
  size_t rows() const { return index_.size() / 2; }
  // Reserve makes room for `rows` rows of `row_bytes` each, up to
  // kMaxReserveBytes, so a range read's arena is allocated once instead of
  // growing (and copying itself) as rows arrive.
  void Reserve(size_t rows, size_t row_bytes) {
    constexpr size_t kMaxReserveBytes = 1 << 20;
    rows = std::min(rows, kMaxReserveBytes / std::max<size_t>(row_bytes, 1));
    arena_.reserve(rows * row_bytes);
    index_.reserve(2 * rows);
  }

 private:
  friend class Future;
  std::string arena_;
  std::vector<size_t> index_;  // start of key i, start of value i, ...
};

// What a future yields when it succeeds; the getter that may read it must
// match (fdb_future_get_value on an int64 future is client_invalid_operation).
enum class ResultKind { kNone, kInt64, kDouble, kKey, kValue, kKeyValues, kKeys, kStrings };

class Future {
 public:
  Future() = default;
  Future(const Future&) = delete;
  Future& operator=(const Future&) = delete;

  // Ready futures, built complete.
  static FuturePtr Error(int code);
  static FuturePtr Void();
  static FuturePtr Int64(int64_t v);
  static FuturePtr Double(double v);
  static FuturePtr Key(std::string key);
  static FuturePtr Value(bool present, std::string value);
  // KeyValues takes rows laid out by a KvBuilder.
  static FuturePtr KeyValues(class KvBuilder&& rows, bool more);
  static FuturePtr Keys(std::vector<std::string> keys);
  static FuturePtr Strings(std::vector<std::string> strings);

  // Completion, for futures created unready with std::make_shared<Future>().
  // Each returns false (and does nothing) if the future is already ready,
  // e.g. cancelled first.
  bool SetError(int code);
  bool SetVoid();
  bool SetKey(std::string key);
  // Adopt completes this future with the result of `src`, a ready future
  // nobody else holds (the latency model computes a result now and delivers
  // it later).
  bool Adopt(Future&& src);
  // SetWave makes this future a member of a read wave; call before the
  // future is handed out. Waiting for it, or reading it, ends the wave.
  void SetWave(std::shared_ptr<ReadWave> wave) { wave_ = std::move(wave); }

  // OnCancel registers work to run when the future is cancelled or
  // destroyed before it is ready (releasing a watch slot, a timer).
  void OnCancel(std::function<void()> fn);

  bool IsReady() const;
  int ErrorCode() const;  // 2015 if not ready
  // Callback: runs now (in this thread) if ready, else once at completion.
  void AddCallback(FDBCallback cb, FDBFuture* handle, void* arg);
  // Cancel: no-op if ready; else fails with operation_cancelled (1101).
  void Cancel();
  // BlockUntilReady waits without holding any fdblite lock.
  void BlockUntilReady();
  void ReleaseMemory();

  // Getters: 0 on success; the future's error, 2015 if not ready,
  // 1102 once released, 2000 if the kind does not match.
  int GetInt64(int64_t* out);
  int GetDouble(double* out);
  int GetKey(const uint8_t** key, int* len);
  int GetValue(fdb_bool_t* present, const uint8_t** value, int* len);
  int GetKeyValues(const FDBKeyValue** kv, int* count, fdb_bool_t* more);
  int GetKeys(const FDBKey** keys, int* count);
  int GetStrings(const char*** strings, int* count);

 private:
  struct Callback {
    FDBCallback fn;
    FDBFuture* handle;
    void* arg;
  };
  // Finish marks the future ready (under mu_) and then, outside mu_, fires
  // callbacks and wakes waiters. REQUIRES: mu_ held via `lock`.
  void FinishLocked(std::unique_lock<std::mutex>& lock);
  int CheckGetLocked(ResultKind kind);  // counts a use on success
  void BuildArraysLocked();
  // NoteWaited ends this future's read wave, if it has one: the caller has
  // seen the result.
  void NoteWaited() const {
    if (wave_) wave_->waited.store(true, std::memory_order_relaxed);
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool ready_ = false;                 // GUARDED_BY(mu_)
  int error_ = 0;                      // GUARDED_BY(mu_)
  bool released_ = false;              // GUARDED_BY(mu_)
  int uses_ = 0;                       // GUARDED_BY(mu_)
  ResultKind kind_ = ResultKind::kNone;
  int64_t int64_ = 0;
  double double_ = 0;
  bool present_ = false;
  bool more_ = false;
  std::vector<std::string> strings_;  // key / value / keys / strings
  KvBuilder rows_;                    // key-value rows
  std::vector<FDBKeyValue> kvs_;
  std::vector<FDBKey> keys_;
  std::vector<const char*> cstrs_;
  std::vector<Callback> callbacks_;              // GUARDED_BY(mu_)
  std::vector<std::function<void()>> on_cancel_;  // GUARDED_BY(mu_)
  std::shared_ptr<ReadWave> wave_;  // set before the future is shared
};

}  // namespace fdblite

// The C handle: one reference to a Future.
struct FDB_future {
  fdblite::FuturePtr f;
};

#endif  // FDBLITE_FUTURE_H_
