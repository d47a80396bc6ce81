// c_api.cpp: the extern "C" surface of libfdb_c. Only shims live here: each
// function checks its arguments (null handles, negative lengths, the API
// version), then calls into fdblite inside guard(), which turns any C++
// exception into a FoundationDB error code or a failed future. Nothing
// throws across this boundary.
//
// Memory: every input buffer is copied before the call returns (cgo may move
// Go memory afterwards). Memory a getter hands out belongs to its future;
// see future.h.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include "data_dir.h"
#include "database.h"
#include "errors.h"
#include "fdb_api.h"
#include "future.h"
#include "loop.h"
#include "option_value.h"
#include "transaction.h"

using fdblite::Future;
using fdblite::FuturePtr;
using fdblite::ReadIntOption;

static_assert(sizeof(FDBKey) == 12, "FDBKey must be packed to 12 bytes");
static_assert(sizeof(FDBKeyValue) == 24, "FDBKeyValue must be packed to 24 bytes");
static_assert(offsetof(FDBKeyValue, key_length) == 8, "FDBKeyValue layout");
static_assert(offsetof(FDBKeyValue, value) == 12, "FDBKeyValue layout");
static_assert(offsetof(FDBKeyValue, value_length) == 20, "FDBKeyValue layout");

namespace {

constexpr int kMinApiVersion = 700;
constexpr int kMaxApiVersion = 730;
constexpr char kClientVersion[] = "7.3.0,fdblite,fdb00b073000000";

std::atomic<int> g_api_version{0};

// Placeholder results for the blob-granule calls fdblite cannot serve.
struct FDBResultStub {
  int error;
};

int Api() { return g_api_version.load(std::memory_order_acquire); }

FDBFuture* Wrap(FuturePtr f) noexcept {
  try {
    return new FDB_future{std::move(f)};
  } catch (...) {
    return nullptr;  // out of memory: as the real client, nothing to return
  }
}

FDBFuture* ErrorFuture(int code) noexcept {
  try {
    return Wrap(Future::Error(code));
  } catch (...) {
    return nullptr;
  }
}

template <typename F>
fdb_error_t Guard(F&& fn) noexcept {
  try {
    return fn();
  } catch (const fdblite::Error& e) {
    return e.code();
  } catch (const std::bad_alloc&) {
    return fdblite::kInternalError;
  } catch (...) {
    return fdblite::kInternalError;
  }
}

template <typename F>
FDBFuture* GuardFuture(F&& fn) noexcept {
  try {
    return Wrap(fn());
  } catch (const fdblite::Error& e) {
    return ErrorFuture(e.code());
  } catch (...) {
    return ErrorFuture(fdblite::kInternalError);
  }
}

template <typename F>
void GuardVoid(FDBTransaction* tr, F&& fn) noexcept {
  try {
    fn();
  } catch (const fdblite::Error& e) {
    try {
      tr->t.Poison(e.code());
    } catch (...) {
    }
  } catch (...) {
    try {
      tr->t.Poison(fdblite::kInternalError);
    } catch (...) {
    }
  }
}

// Bytes checks a (pointer, length) argument: length >= 0, and a pointer
// unless the length is zero.
bool Bytes(const uint8_t* p, int len, std::string_view* out) {
  if (len < 0 || (p == nullptr && len > 0)) return false;
  *out = len == 0 ? std::string_view() : std::string_view(reinterpret_cast<const char*>(p), len);
  return true;
}

// Code reads an enum argument as the int the caller passed. A caller may pass
// any int (an unknown option code is an error, not UB), so the value is
// copied as bytes instead of loaded as the enum type.
template <typename E>
int Code(const E& e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int code;
  std::memcpy(&code, &e, sizeof code);
  return code;
}

enum class Param { kNone, kString, kInt, kAny };

// NetworkOptionParam: every network option of 7.3 and its parameter.
bool NetworkOptionParam(int code, Param* p) {
  switch (code) {
    case 10: case 20: case 30: case 33: case 34: case 35: case 36: case 39:
    case 40: case 41: case 42: case 43: case 45: case 46: case 47: case 52:
    case 53: case 54: case 62: case 63: case 66: case 90: case 91:
      *p = Param::kString;
      return true;
    case 31: case 32: case 50: case 51: case 65: case 82: case 83:
      *p = Param::kInt;
      return true;
    case 37: case 38: case 48: case 49: case 60: case 61: case 64: case 67:
    case 68: case 69: case 70: case 71: case 72: case 80: case 81:
      *p = Param::kNone;
      return true;
  }
  return false;
}

std::atomic<bool> g_network_setup{false};
std::mutex g_hooks_mu;
std::vector<std::pair<void (*)(void*), void*>>* g_hooks =
    new std::vector<std::pair<void (*)(void*), void*>>();  // NoDestructor

}  // namespace

extern "C" {

// ---- errors and versions ----

DLLEXPORT const char* fdb_get_error(fdb_error_t code) noexcept {
  return fdblite::ErrorMessage(code);
}

DLLEXPORT fdb_bool_t fdb_error_predicate(int predicate_test, fdb_error_t code) noexcept {
  return fdblite::MatchesPredicate(predicate_test, code) ? 1 : 0;
}

DLLEXPORT fdb_error_t fdb_select_api_version_impl(int runtime_version,
                                                  int header_version) noexcept {
  if (Api() != 0) return fdblite::kApiVersionAlreadySet;
  if (runtime_version > header_version) return fdblite::kApiVersionInvalid;
  if (header_version > kMaxApiVersion) return fdblite::kApiVersionNotSupported;
  if (runtime_version < kMinApiVersion) return fdblite::kApiVersionNotSupported;
  int expected = 0;
  if (!g_api_version.compare_exchange_strong(expected, runtime_version)) {
    return fdblite::kApiVersionAlreadySet;
  }
  return 0;
}

DLLEXPORT int fdb_get_max_api_version(void) noexcept { return kMaxApiVersion; }

DLLEXPORT const char* fdb_get_client_version(void) noexcept { return kClientVersion; }

// fdblite_version marks the library as fdblite's. FoundationDB's libfdb_c
// exports no such symbol, so `make install` tells the two apart by it and
// never overwrites FoundationDB's client; a program may look it up (dlsym)
// to learn which library it runs on.
extern "C" DLLEXPORT const char* fdblite_version(void) noexcept {
  return "fdblite: FoundationDB 7.3 C API (API version 730), in process";
}

// fdblite_copy_data_dir writes to dst a consistent copy of the durable
// database in src while it may be serving (data_dir.h). fdblite's own
// entry point, outside FoundationDB's API: a program finds it with a weak
// symbol or dlsym and, on FoundationDB's client, does without it. On
// failure, up to detail_len - 1 bytes of the reason go to detail.
extern "C" DLLEXPORT fdb_error_t fdblite_copy_data_dir(const char* src, const char* dst,
                                                      char* detail, int detail_len) noexcept {
  if (src == nullptr || dst == nullptr || *src == 0 || *dst == 0) return fdblite::kInvalidOptionValue;
  std::string why;
  int err;
  try {
    err = fdblite::CopyDataDir(src, dst, &why);
  } catch (const std::exception& e) {
    why = e.what();
    err = fdblite::kIoError;
  }
  if (err != 0 && detail != nullptr && detail_len > 0) {
    size_t n = std::min(why.size(), static_cast<size_t>(detail_len - 1));
    std::memcpy(detail, why.data(), n);
    detail[n] = 0;
  }
  return err;
}

// ---- network ----

DLLEXPORT fdb_error_t fdb_network_set_option(FDBNetworkOption option, uint8_t const* value,
                                             int value_length) noexcept {
  if (Api() == 0) return fdblite::kApiVersionUnset;
  Param p;
  if (!NetworkOptionParam(Code(option), &p)) return fdblite::kInvalidOption;
  if (value_length < 0) return fdblite::kInvalidOptionValue;
  if (p == Param::kInt) {
    int64_t n;
    if (!ReadIntOption(value, value_length, &n)) return fdblite::kInvalidOptionValue;
  }
  if (p == Param::kString && value == nullptr && value_length > 0) {
    return fdblite::kInvalidOptionValue;
  }
  if (g_network_setup.load()) {
    // These shape how the client starts; after setup they are refused.
    switch (Code(option)) {
      case 60: case 61: case 64: case 65:
        return fdblite::kInvalidOption;
      case 72:
        return fdblite::kInternalError;
      default:
        break;
    }
  }
  return 0;
}

DLLEXPORT fdb_error_t fdb_setup_network(void) noexcept {
  if (Api() == 0) return fdblite::kApiVersionUnset;
  int err = fdblite::Loop::Get().Setup();
  if (err == 0) g_network_setup.store(true);
  return err;
}

DLLEXPORT fdb_error_t fdb_run_network(void) noexcept {
  fdb_error_t err = Guard([] { return fdblite::Loop::Get().Run(); });
  if (err == 0) {
    std::vector<std::pair<void (*)(void*), void*>> hooks;
    {
      std::lock_guard<std::mutex> lock(g_hooks_mu);
      hooks = *g_hooks;
    }
    for (auto& [fn, arg] : hooks) fn(arg);
  }
  return err;
}

DLLEXPORT fdb_error_t fdb_stop_network(void) noexcept { return fdblite::Loop::Get().Stop(); }

DLLEXPORT fdb_error_t fdb_add_network_thread_completion_hook(void (*hook)(void*),
                                                             void* hook_parameter) noexcept {
  if (hook == nullptr) return fdblite::kClientInvalidOperation;
  return Guard([&] {
    std::lock_guard<std::mutex> lock(g_hooks_mu);
    g_hooks->emplace_back(hook, hook_parameter);
    return 0;
  });
}

// ---- futures ----

DLLEXPORT void fdb_future_cancel(FDBFuture* f) noexcept {
  if (f) f->f->Cancel();
}

DLLEXPORT void fdb_future_release_memory(FDBFuture* f) noexcept {
  if (f) f->f->ReleaseMemory();
}

DLLEXPORT void fdb_future_destroy(FDBFuture* f) noexcept {
  if (!f) return;
  f->f->Cancel();  // no-op when ready
  delete f;
}

DLLEXPORT fdb_error_t fdb_future_block_until_ready(FDBFuture* f) noexcept {
  if (!f) return fdblite::kClientInvalidOperation;
  if (!f->f->IsReady() && fdblite::Loop::Get().OnLoopThread()) {
    return fdblite::kBlockedFromNetworkThread;
  }
  f->f->BlockUntilReady();
  return 0;
}

DLLEXPORT fdb_bool_t fdb_future_is_ready(FDBFuture* f) noexcept {
  return f && f->f->IsReady() ? 1 : 0;
}

DLLEXPORT fdb_error_t fdb_future_set_callback(FDBFuture* f, FDBCallback callback,
                                              void* callback_parameter) noexcept {
  if (!f || !callback) return fdblite::kClientInvalidOperation;
  return Guard([&] {
    f->f->AddCallback(callback, f, callback_parameter);
    return 0;
  });
}

DLLEXPORT fdb_error_t fdb_future_get_error(FDBFuture* f) noexcept {
  if (!f) return fdblite::kClientInvalidOperation;
  return f->f->ErrorCode();
}

// Getters of result kinds fdblite never produces: the future's error, or
// client_invalid_operation.
static fdb_error_t NoSuchResult(FDBFuture* f) {
  if (!f) return fdblite::kClientInvalidOperation;
  int err = f->f->ErrorCode();
  return err != 0 ? err : fdblite::kClientInvalidOperation;
}

DLLEXPORT fdb_error_t fdb_future_get_bool(FDBFuture* f, fdb_bool_t*) noexcept {
  return NoSuchResult(f);
}

DLLEXPORT fdb_error_t fdb_future_get_int64(FDBFuture* f, int64_t* out) noexcept {
  if (!f || !out) return fdblite::kClientInvalidOperation;
  return f->f->GetInt64(out);
}

DLLEXPORT fdb_error_t fdb_future_get_uint64(FDBFuture* f, uint64_t* out) noexcept {
  if (!f || !out) return fdblite::kClientInvalidOperation;
  int64_t v;
  int err = f->f->GetInt64(&v);
  if (err == 0) *out = static_cast<uint64_t>(v);
  return err;
}

DLLEXPORT fdb_error_t fdb_future_get_double(FDBFuture* f, double* out) noexcept {
  if (!f || !out) return fdblite::kClientInvalidOperation;
  return f->f->GetDouble(out);
}

DLLEXPORT fdb_error_t fdb_future_get_key(FDBFuture* f, uint8_t const** out_key,
                                         int* out_key_length) noexcept {
  if (!f || !out_key || !out_key_length) return fdblite::kClientInvalidOperation;
  return f->f->GetKey(out_key, out_key_length);
}

DLLEXPORT fdb_error_t fdb_future_get_value(FDBFuture* f, fdb_bool_t* out_present,
                                           uint8_t const** out_value,
                                           int* out_value_length) noexcept {
  if (!f || !out_present || !out_value || !out_value_length) {
    return fdblite::kClientInvalidOperation;
  }
  return f->f->GetValue(out_present, out_value, out_value_length);
}

DLLEXPORT fdb_error_t fdb_future_get_keyvalue_array(FDBFuture* f, FDBKeyValue const** out_kv,
                                                    int* out_count,
                                                    fdb_bool_t* out_more) noexcept {
  if (!f || !out_kv || !out_count || !out_more) return fdblite::kClientInvalidOperation;
  return f->f->GetKeyValues(out_kv, out_count, out_more);
}

DLLEXPORT fdb_error_t fdb_future_get_mappedkeyvalue_array(FDBFuture* f,
                                                          FDBMappedKeyValue const**, int*,
                                                          fdb_bool_t*) noexcept {
  return NoSuchResult(f);
}

DLLEXPORT fdb_error_t fdb_future_get_key_array(FDBFuture* f, FDBKey const** out_key_array,
                                               int* out_count) noexcept {
  if (!f || !out_key_array || !out_count) return fdblite::kClientInvalidOperation;
  return f->f->GetKeys(out_key_array, out_count);
}

DLLEXPORT fdb_error_t fdb_future_get_string_array(FDBFuture* f, const char*** out_strings,
                                                  int* out_count) noexcept {
  if (!f || !out_strings || !out_count) return fdblite::kClientInvalidOperation;
  return f->f->GetStrings(out_strings, out_count);
}

DLLEXPORT fdb_error_t fdb_future_get_keyrange_array(FDBFuture* f, FDBKeyRange const**,
                                                    int*) noexcept {
  return NoSuchResult(f);
}

DLLEXPORT fdb_error_t fdb_future_get_granule_summary_array(FDBFuture* f,
                                                           FDBGranuleSummary const**,
                                                           int*) noexcept {
  return NoSuchResult(f);
}

DLLEXPORT fdb_error_t fdb_future_readbg_get_descriptions(FDBFuture* f, FDBBGFileDescription**,
                                                         int*) noexcept {
  return NoSuchResult(f);
}

// ---- blob granule results: never produced in process ----

static FDBResult* UnsupportedResult() noexcept {
  try {
    return reinterpret_cast<FDBResult*>(new FDBResultStub{fdblite::kUnsupportedOperation});
  } catch (...) {
    return nullptr;
  }
}

DLLEXPORT FDBResult* fdb_readbg_parse_snapshot_file(const uint8_t*, int, FDBBGTenantPrefix const*,
                                                    FDBBGEncryptionCtx const*) noexcept {
  return UnsupportedResult();
}

DLLEXPORT FDBResult* fdb_readbg_parse_delta_file(const uint8_t*, int, FDBBGTenantPrefix const*,
                                                 FDBBGEncryptionCtx const*) noexcept {
  return UnsupportedResult();
}

DLLEXPORT void fdb_result_destroy(FDBResult* r) noexcept {
  delete reinterpret_cast<FDBResultStub*>(r);
}

DLLEXPORT fdb_error_t fdb_result_get_keyvalue_array(FDBResult* r, FDBKeyValue const**, int*,
                                                    fdb_bool_t*) noexcept {
  return r ? reinterpret_cast<FDBResultStub*>(r)->error : fdblite::kClientInvalidOperation;
}

DLLEXPORT fdb_error_t fdb_result_get_bg_mutations_array(FDBResult* r, FDBBGMutation const**,
                                                        int*) noexcept {
  return r ? reinterpret_cast<FDBResultStub*>(r)->error : fdblite::kClientInvalidOperation;
}

// ---- databases ----

namespace {

fdb_error_t OpenResolved(const fdblite::DatabaseName& name, FDBDatabase** out_database) {
  std::shared_ptr<fdblite::Database> db;
  if (int err = fdblite::Database::Open(name, &db)) return err;
  auto* d = new FDB_database;
  d->db = std::move(db);
  *out_database = d;
  return 0;
}

// OpenFailed hands out a handle holding the error of a name that did not
// resolve. FoundationDB 7.3's client reads the cluster file when it builds
// the database object, catches what that throws and stores it in the object
// (reported by its transactions' operations), so creating the database
// succeeds whatever the file holds. Durable directories that cannot be
// opened are fdblite's own failure and stay errors of the create call.
fdb_error_t OpenFailed(int error, FDBDatabase** out_database) {
  auto* d = new FDB_database;
  d->db = std::make_shared<fdblite::Database>();
  d->error = error;
  *out_database = d;
  return 0;
}

}  // namespace

DLLEXPORT fdb_error_t fdb_create_database(const char* cluster_file_path,
                                          FDBDatabase** out_database) noexcept {
  if (!out_database) return fdblite::kClientInvalidOperation;
  if (Api() == 0) return fdblite::kApiVersionUnset;
  return Guard([&] {
    fdblite::DatabaseName name;
    if (int err = fdblite::ResolveClusterFile(cluster_file_path, &name)) {
      return OpenFailed(err, out_database);
    }
    return OpenResolved(name, out_database);
  });
}

DLLEXPORT fdb_error_t fdb_create_database_from_connection_string(
    const char* connection_string, FDBDatabase** out_database) noexcept {
  if (!out_database) return fdblite::kClientInvalidOperation;
  if (Api() == 0) return fdblite::kApiVersionUnset;
  return Guard([&] {
    fdblite::DatabaseName name;
    int err = connection_string
                  ? fdblite::ResolveConnectionString(connection_string, "", &name)
                  : fdblite::kConnectionStringInvalid;
    if (err) return OpenFailed(err, out_database);
    return OpenResolved(name, out_database);
  });
}

DLLEXPORT void fdb_database_destroy(FDBDatabase* d) noexcept { delete d; }

DLLEXPORT fdb_error_t fdb_database_set_option(FDBDatabase* d, FDBDatabaseOption option,
                                              uint8_t const* value, int value_length) noexcept {
  if (!d) return fdblite::kClientInvalidOperation;
  if (value_length < 0) return fdblite::kInvalidOptionValue;
  return Guard([&]() -> fdb_error_t {
    int64_t n = 0;
    auto need_int = [&](int64_t lo, int64_t hi) {
      return ReadIntOption(value, value_length, &n) && n >= lo && n <= hi;
    };
    std::lock_guard<std::mutex> lock(d->mu);
    fdblite::DatabaseOptions& o = d->options;
    switch (Code(option)) {
      case 10:
        return need_int(0, INT_MAX) ? 0 : fdblite::kInvalidOptionValue;
      case 20:
        if (!need_int(0, fdblite::kMaxMaxWatches)) return fdblite::kInvalidOptionValue;
        if (d->error == 0) d->db->set_max_watches(static_cast<int>(n));
        return 0;
      case 21: case 22:
        return 0;
      case 26: ++o.snapshot_ryw_delta; return 0;
      case 27: --o.snapshot_ryw_delta; return 0;
      case 405: case 900:
        return ReadIntOption(value, value_length, &n) ? 0 : fdblite::kInvalidOptionValue;
      case 500:
        if (!need_int(0, INT_MAX)) return fdblite::kInvalidOptionValue;
        o.timeout_ms = n;
        return 0;
      case 501:
        if (!need_int(-1, INT_MAX)) return fdblite::kInvalidOptionValue;
        o.retry_limit = n;
        return 0;
      case 502:
        if (!need_int(0, INT_MAX)) return fdblite::kInvalidOptionValue;
        o.max_retry_delay_ms = n;
        return 0;
      case 503:
        if (!need_int(32, 10'000'000)) return fdblite::kInvalidOptionValue;
        o.size_limit = n;
        return 0;
      case 504: o.causal_read_risky = true; return 0;
      case 505: o.include_port = true; return 0;
      case 506: o.automatic_idempotency = true; return 0;
      case 700: o.bypass_unreadable = true; return 0;
      case 701: o.used_during_commit_protection_disable = true; return 0;
      case 702: o.read_lock_aware = true; return 0;
      case 800: return 0;
      case fdblite::kCacheBytesOption:
        if (!need_int(0, INT64_MAX)) return fdblite::kInvalidOptionValue;
        if (d->error == 0) d->db->SetCacheBytes(n);
        return 0;
    }
    return fdblite::kInvalidOption;
  });
}

DLLEXPORT fdb_error_t fdb_database_open_tenant(FDBDatabase* d, uint8_t const*, int,
                                               FDBTenant** out_tenant) noexcept {
  if (!d || !out_tenant) return fdblite::kClientInvalidOperation;
  return fdblite::kTenantsDisabled;  // tenants have no meaning in process
}

DLLEXPORT fdb_error_t fdb_database_create_transaction(FDBDatabase* d,
                                                      FDBTransaction** out_transaction) noexcept {
  if (!d || !out_transaction) return fdblite::kClientInvalidOperation;
  return Guard([&] {
    fdblite::DatabaseOptions options;
    {
      std::lock_guard<std::mutex> lock(d->mu);
      options = d->options;
    }
    *out_transaction = new FDB_transaction(d->db, options, Api(), d->error);
    return 0;
  });
}

#define FDBLITE_UNSUPPORTED_FUTURE(handle) \
  return handle ? ErrorFuture(fdblite::kUnsupportedOperation) \
                : ErrorFuture(fdblite::kClientInvalidOperation)
// A database's management calls report a failed open first, as
// FoundationDB's do.
#define FDBLITE_UNSUPPORTED_DB_FUTURE(d)                  \
  return !d ? ErrorFuture(fdblite::kClientInvalidOperation) \
            : ErrorFuture(d->error ? d->error : fdblite::kUnsupportedOperation)

DLLEXPORT FDBFuture* fdb_database_reboot_worker(FDBDatabase* db, uint8_t const*, int, fdb_bool_t,
                                                int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_force_recovery_with_data_loss(FDBDatabase* db, uint8_t const*,
                                                                int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_create_snapshot(FDBDatabase* db, uint8_t const*, int,
                                                  uint8_t const*, int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

// The network thread's busy fraction (busyness.h); process-wide, like the
// thread, and reported whatever the database.
DLLEXPORT double fdb_database_get_main_thread_busyness(FDBDatabase*) noexcept {
  return fdblite::Loop::Get().Busyness();
}

// FoundationDB 7.3's protocol version.
constexpr uint64_t kProtocolVersion73 = 0x0FDB00B073000000ull;

DLLEXPORT FDBFuture* fdb_database_get_server_protocol(FDBDatabase* db,
                                                      uint64_t expected_version) noexcept {
  if (!db) return ErrorFuture(fdblite::kClientInvalidOperation);
  if (db->error) return ErrorFuture(db->error);
  return GuardFuture([&] {
    // With the current version expected, the future waits for the cluster's
    // protocol to change: in process it never does (cancel to end it).
    if (expected_version == kProtocolVersion73) return std::make_shared<fdblite::Future>();
    return fdblite::Future::Int64(static_cast<int64_t>(kProtocolVersion73));
  });
}

DLLEXPORT FDBFuture* fdb_database_purge_blob_granules(FDBDatabase* db, uint8_t const*, int,
                                                      uint8_t const*, int, int64_t,
                                                      fdb_bool_t) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_wait_purge_granules_complete(FDBDatabase* db, uint8_t const*,
                                                               int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_blobbify_range(FDBDatabase* db, uint8_t const*, int,
                                                 uint8_t const*, int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_blobbify_range_blocking(FDBDatabase* db, uint8_t const*, int,
                                                          uint8_t const*, int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_unblobbify_range(FDBDatabase* db, uint8_t const*, int,
                                                   uint8_t const*, int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_list_blobbified_ranges(FDBDatabase* db, uint8_t const*, int,
                                                         uint8_t const*, int, int) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_verify_blob_range(FDBDatabase* db, uint8_t const*, int,
                                                    uint8_t const*, int, int64_t) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_flush_blob_range(FDBDatabase* db, uint8_t const*, int,
                                                   uint8_t const*, int, fdb_bool_t,
                                                   int64_t) noexcept {
  FDBLITE_UNSUPPORTED_DB_FUTURE(db);
}

DLLEXPORT FDBFuture* fdb_database_get_client_status(FDBDatabase* db) noexcept {
  if (!db) return ErrorFuture(fdblite::kClientInvalidOperation);
  // Empty status: there is no multi-version client in process.
  return GuardFuture([] { return Future::Key(std::string()); });
}

// ---- tenants: never opened (open_tenant fails), so every call is an error ----

DLLEXPORT fdb_error_t fdb_tenant_create_transaction(FDBTenant*, FDBTransaction**) noexcept {
  return fdblite::kTenantsDisabled;
}

DLLEXPORT FDBFuture* fdb_tenant_purge_blob_granules(FDBTenant*, uint8_t const*, int,
                                                    uint8_t const*, int, int64_t,
                                                    fdb_bool_t) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_wait_purge_granules_complete(FDBTenant*, uint8_t const*,
                                                             int) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_blobbify_range(FDBTenant*, uint8_t const*, int, uint8_t const*,
                                               int) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_blobbify_range_blocking(FDBTenant*, uint8_t const*, int,
                                                        uint8_t const*, int) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_unblobbify_range(FDBTenant*, uint8_t const*, int, uint8_t const*,
                                                 int) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_list_blobbified_ranges(FDBTenant*, uint8_t const*, int,
                                                       uint8_t const*, int, int) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_verify_blob_range(FDBTenant*, uint8_t const*, int, uint8_t const*,
                                                  int, int64_t) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_flush_blob_range(FDBTenant*, uint8_t const*, int, uint8_t const*,
                                                 int, fdb_bool_t, int64_t) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT FDBFuture* fdb_tenant_get_id(FDBTenant*) noexcept {
  return ErrorFuture(fdblite::kTenantsDisabled);
}

DLLEXPORT void fdb_tenant_destroy(FDBTenant*) noexcept {}

// ---- transactions ----

DLLEXPORT void fdb_transaction_destroy(FDBTransaction* tr) noexcept { delete tr; }

DLLEXPORT void fdb_transaction_cancel(FDBTransaction* tr) noexcept {
  if (tr) GuardVoid(tr, [&] { tr->t.Cancel(); });
}

DLLEXPORT void fdb_transaction_reset(FDBTransaction* tr) noexcept {
  if (tr) GuardVoid(tr, [&] { tr->t.Reset(); });
}

DLLEXPORT fdb_error_t fdb_transaction_set_option(FDBTransaction* tr, FDBTransactionOption option,
                                                 uint8_t const* value, int value_length) noexcept {
  if (!tr) return fdblite::kClientInvalidOperation;
  if (value_length < 0) {
    tr->t.Poison(fdblite::kInvalidOptionValue);
    return 0;
  }
  return Guard([&] { return tr->t.SetOption(Code(option), value, value_length); });
}

DLLEXPORT void fdb_transaction_set_read_version(FDBTransaction* tr, int64_t version) noexcept {
  if (tr) GuardVoid(tr, [&] { tr->t.SetReadVersion(version); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_read_version(FDBTransaction* tr) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.GetReadVersion(); });
}

DLLEXPORT FDBFuture* fdb_transaction_get(FDBTransaction* tr, uint8_t const* key_name,
                                         int key_name_length, fdb_bool_t snapshot) noexcept {
  std::string_view key;
  if (!tr || !Bytes(key_name, key_name_length, &key)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] { return tr->t.Get(key, snapshot != 0); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_key(FDBTransaction* tr, uint8_t const* key_name,
                                             int key_name_length, fdb_bool_t or_equal, int offset,
                                             fdb_bool_t snapshot) noexcept {
  std::string_view key;
  if (!tr || !Bytes(key_name, key_name_length, &key)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] {
    return tr->t.GetKey(fdblite::Selector{key, or_equal != 0, offset}, snapshot != 0);
  });
}

DLLEXPORT FDBFuture* fdb_transaction_get_addresses_for_key(FDBTransaction* tr,
                                                           uint8_t const* key_name,
                                                           int key_name_length) noexcept {
  std::string_view key;
  if (!tr || !Bytes(key_name, key_name_length, &key)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] { return tr->t.GetAddressesForKey(key); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_range(
    FDBTransaction* tr, uint8_t const* begin_key_name, int begin_key_name_length,
    fdb_bool_t begin_or_equal, int begin_offset, uint8_t const* end_key_name,
    int end_key_name_length, fdb_bool_t end_or_equal, int end_offset, int limit,
    int target_bytes, FDBStreamingMode mode, int iteration, fdb_bool_t snapshot,
    fdb_bool_t reverse) noexcept {
  std::string_view b, e;
  if (!tr || !Bytes(begin_key_name, begin_key_name_length, &b) ||
      !Bytes(end_key_name, end_key_name_length, &e)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] {
    return tr->t.GetRange(fdblite::Selector{b, begin_or_equal != 0, begin_offset},
                          fdblite::Selector{e, end_or_equal != 0, end_offset}, limit,
                          target_bytes, Code(mode), iteration, snapshot != 0, reverse != 0);
  });
}

DLLEXPORT FDBFuture* fdb_transaction_get_mapped_range(FDBTransaction* tr, uint8_t const*, int,
                                                      fdb_bool_t, int, uint8_t const*, int,
                                                      fdb_bool_t, int, uint8_t const*, int, int,
                                                      int, FDBStreamingMode, int, fdb_bool_t,
                                                      fdb_bool_t) noexcept {
  FDBLITE_UNSUPPORTED_FUTURE(tr);
}

DLLEXPORT void fdb_transaction_set(FDBTransaction* tr, uint8_t const* key_name,
                                   int key_name_length, uint8_t const* value,
                                   int value_length) noexcept {
  if (!tr) return;
  std::string_view k, v;
  if (!Bytes(key_name, key_name_length, &k) || !Bytes(value, value_length, &v)) {
    tr->t.Poison(fdblite::kClientInvalidOperation);
    return;
  }
  GuardVoid(tr, [&] { tr->t.Set(k, v); });
}

DLLEXPORT void fdb_transaction_atomic_op(FDBTransaction* tr, uint8_t const* key_name,
                                         int key_name_length, uint8_t const* param,
                                         int param_length,
                                         FDBMutationType operation_type) noexcept {
  if (!tr) return;
  std::string_view k, p;
  if (!Bytes(key_name, key_name_length, &k) || !Bytes(param, param_length, &p)) {
    tr->t.Poison(fdblite::kClientInvalidOperation);
    return;
  }
  GuardVoid(tr, [&] { tr->t.AtomicOp(k, p, Code(operation_type)); });
}

DLLEXPORT void fdb_transaction_clear(FDBTransaction* tr, uint8_t const* key_name,
                                     int key_name_length) noexcept {
  if (!tr) return;
  std::string_view k;
  if (!Bytes(key_name, key_name_length, &k)) {
    tr->t.Poison(fdblite::kClientInvalidOperation);
    return;
  }
  GuardVoid(tr, [&] { tr->t.Clear(k); });
}

DLLEXPORT void fdb_transaction_clear_range(FDBTransaction* tr, uint8_t const* begin_key_name,
                                           int begin_key_name_length,
                                           uint8_t const* end_key_name,
                                           int end_key_name_length) noexcept {
  if (!tr) return;
  std::string_view b, e;
  if (!Bytes(begin_key_name, begin_key_name_length, &b) ||
      !Bytes(end_key_name, end_key_name_length, &e)) {
    tr->t.Poison(fdblite::kClientInvalidOperation);
    return;
  }
  GuardVoid(tr, [&] { tr->t.ClearRange(b, e); });
}

DLLEXPORT FDBFuture* fdb_transaction_watch(FDBTransaction* tr, uint8_t const* key_name,
                                           int key_name_length) noexcept {
  std::string_view k;
  if (!tr || !Bytes(key_name, key_name_length, &k)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] { return tr->t.Watch(k); });
}

DLLEXPORT FDBFuture* fdb_transaction_commit(FDBTransaction* tr) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.Commit(); });
}

DLLEXPORT fdb_error_t fdb_transaction_get_committed_version(FDBTransaction* tr,
                                                            int64_t* out_version) noexcept {
  if (!tr || !out_version) return fdblite::kClientInvalidOperation;
  return Guard([&] { return tr->t.GetCommittedVersion(out_version); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_tag_throttled_duration(FDBTransaction* tr) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.GetTagThrottledDuration(); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_total_cost(FDBTransaction* tr) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.GetTotalCost(); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_approximate_size(FDBTransaction* tr) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.GetApproximateSize(); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_versionstamp(FDBTransaction* tr) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.GetVersionstamp(); });
}

DLLEXPORT FDBFuture* fdb_transaction_on_error(FDBTransaction* tr, fdb_error_t error) noexcept {
  if (!tr) return ErrorFuture(fdblite::kClientInvalidOperation);
  return GuardFuture([&] { return tr->t.OnError(error); });
}

DLLEXPORT fdb_error_t fdb_transaction_add_conflict_range(FDBTransaction* tr,
                                                         uint8_t const* begin_key_name,
                                                         int begin_key_name_length,
                                                         uint8_t const* end_key_name,
                                                         int end_key_name_length,
                                                         FDBConflictRangeType type) noexcept {
  std::string_view b, e;
  if (!tr || !Bytes(begin_key_name, begin_key_name_length, &b) ||
      !Bytes(end_key_name, end_key_name_length, &e)) {
    return fdblite::kClientInvalidOperation;
  }
  return Guard([&] { return tr->t.AddConflictRange(b, e, Code(type)); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_estimated_range_size_bytes(
    FDBTransaction* tr, uint8_t const* begin_key_name, int begin_key_name_length,
    uint8_t const* end_key_name, int end_key_name_length) noexcept {
  std::string_view b, e;
  if (!tr || !Bytes(begin_key_name, begin_key_name_length, &b) ||
      !Bytes(end_key_name, end_key_name_length, &e)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] { return tr->t.GetEstimatedRangeSizeBytes(b, e); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_range_split_points(FDBTransaction* tr,
                                                            uint8_t const* begin_key_name,
                                                            int begin_key_name_length,
                                                            uint8_t const* end_key_name,
                                                            int end_key_name_length,
                                                            int64_t chunk_size) noexcept {
  std::string_view b, e;
  if (!tr || !Bytes(begin_key_name, begin_key_name_length, &b) ||
      !Bytes(end_key_name, end_key_name_length, &e)) {
    return ErrorFuture(fdblite::kClientInvalidOperation);
  }
  return GuardFuture([&] { return tr->t.GetRangeSplitPoints(b, e, chunk_size); });
}

DLLEXPORT FDBFuture* fdb_transaction_get_blob_granule_ranges(FDBTransaction* tr, uint8_t const*,
                                                             int, uint8_t const*, int,
                                                             int) noexcept {
  FDBLITE_UNSUPPORTED_FUTURE(tr);
}

DLLEXPORT FDBResult* fdb_transaction_read_blob_granules(FDBTransaction*, uint8_t const*, int,
                                                        uint8_t const*, int, int64_t, int64_t,
                                                        FDBReadBlobGranuleContext) noexcept {
  return UnsupportedResult();
}

DLLEXPORT FDBFuture* fdb_transaction_summarize_blob_granules(FDBTransaction* tr, uint8_t const*,
                                                             int, uint8_t const*, int, int64_t,
                                                             int) noexcept {
  FDBLITE_UNSUPPORTED_FUTURE(tr);
}

DLLEXPORT FDBFuture* fdb_transaction_read_blob_granules_description(FDBTransaction* tr,
                                                                    uint8_t const*, int,
                                                                    uint8_t const*, int, int64_t,
                                                                    int64_t, int64_t*) noexcept {
  FDBLITE_UNSUPPORTED_FUTURE(tr);
}

// ---- functions older API versions declared; fdblite serves API >= 700 ----
// At API 730 the header turns these names into compile errors; the library
// still exports them, as libfdb_c does, for programs built against old
// headers.
#undef fdb_future_get_version
#undef fdb_future_get_cluster
#undef fdb_future_get_database
#undef fdb_create_cluster
#undef fdb_cluster_destroy
#undef fdb_cluster_set_option
#undef fdb_cluster_create_database
#undef fdb_future_is_error
#undef fdb_transaction_get_range_selector

DLLEXPORT fdb_error_t fdb_future_get_version(FDBFuture*, int64_t*) noexcept {
  return fdblite::kApiVersionNotSupported;
}
DLLEXPORT fdb_error_t fdb_future_get_cluster(FDBFuture*, void**) noexcept {
  return fdblite::kApiVersionNotSupported;
}
DLLEXPORT fdb_error_t fdb_future_get_database(FDBFuture*, FDBDatabase**) noexcept {
  return fdblite::kApiVersionNotSupported;
}
DLLEXPORT FDBFuture* fdb_create_cluster(const char*) noexcept {
  return ErrorFuture(fdblite::kApiVersionNotSupported);
}
DLLEXPORT void fdb_cluster_destroy(void*) noexcept {}
DLLEXPORT fdb_error_t fdb_cluster_set_option(void*, int, uint8_t const*, int) noexcept {
  return fdblite::kApiVersionNotSupported;
}
DLLEXPORT FDBFuture* fdb_cluster_create_database(void*, uint8_t const*, int) noexcept {
  return ErrorFuture(fdblite::kApiVersionNotSupported);
}
DLLEXPORT fdb_bool_t fdb_future_is_error(FDBFuture* f) noexcept {
  return f && f->f->IsReady() && f->f->ErrorCode() != 0 ? 1 : 0;
}
DLLEXPORT FDBFuture* fdb_transaction_get_range_selector(FDBTransaction*, uint8_t const*, int,
                                                        fdb_bool_t, int, uint8_t const*, int,
                                                        fdb_bool_t, int, int) noexcept {
  return ErrorFuture(fdblite::kApiVersionNotSupported);
}

}  // extern "C"
