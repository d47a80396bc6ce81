// c_api_test.cpp: fdblite driven through its C API only, the way a binding
// drives it, including from many threads at once. Expected values come from
// FoundationDB's documented C API behaviour (the C API reference).
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "test.h"

namespace {

// Network: selected and started once for the whole test program.
FDBDatabase* Db(const char* name = nullptr) {
  static std::once_flag once;
  std::call_once(once, [] {
    // 2201: another test file selected it first.
    if (int e = fdb_select_api_version(730); e != 0 && e != 2201) std::abort();
    if (fdb_setup_network() != 0) std::abort();
    // Never joined: the loop runs until the process exits.
    static std::thread* network = new std::thread([] { (void)fdb_run_network(); });
    network->detach();
  });
  FDBDatabase* db = nullptr;
  // A name is fdblite's in-memory form; none is the default database.
  std::string named = name ? std::string("fdblite-memory:") + name : "";
  if (fdb_create_database(name ? named.c_str() : nullptr, &db) != 0) std::abort();
  return db;
}

// Fut owns one FDBFuture.
class Fut {
 public:
  explicit Fut(FDBFuture* f) : f_(f) {}
  ~Fut() {
    if (f_) fdb_future_destroy(f_);
  }
  Fut(const Fut&) = delete;
  Fut& operator=(const Fut&) = delete;
  Fut(Fut&& o) noexcept : f_(o.f_) { o.f_ = nullptr; }
  fdb_error_t Wait() {
    if (fdb_future_block_until_ready(f_) != 0) return -1;
    return fdb_future_get_error(f_);
  }
  FDBFuture* get() const { return f_; }

 private:
  FDBFuture* f_;
};

// Txn owns one FDBTransaction.
class Txn {
 public:
  explicit Txn(FDBDatabase* db) {
    if (fdb_database_create_transaction(db, &t_) != 0) std::abort();
  }
  ~Txn() { fdb_transaction_destroy(t_); }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;
  FDBTransaction* get() const { return t_; }

  void Set(const std::string& k, const std::string& v) {
    fdb_transaction_set(t_, U(k), Len(k), U(v), Len(v));
  }
  void Clear(const std::string& k) { fdb_transaction_clear(t_, U(k), Len(k)); }
  void ClearRange(const std::string& b, const std::string& e) {
    fdb_transaction_clear_range(t_, U(b), Len(b), U(e), Len(e));
  }
  // Get returns the error; *out is "<absent>" for a missing key.
  fdb_error_t Get(const std::string& k, std::string* out, bool snapshot = false) {
    Fut f(fdb_transaction_get(t_, U(k), Len(k), snapshot));
    fdb_error_t err = f.Wait();
    if (err) return err;
    fdb_bool_t present;
    const uint8_t* v;
    int n;
    err = fdb_future_get_value(f.get(), &present, &v, &n);
    if (err) return err;
    *out = present ? std::string(reinterpret_cast<const char*>(v), n) : "<absent>";
    return 0;
  }
  fdb_error_t Range(const std::string& b, const std::string& e, int limit, bool reverse,
                    std::vector<std::string>* keys, fdb_bool_t* more = nullptr) {
    Fut f(fdb_transaction_get_range(t_, FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(U(b), Len(b)),
                                    FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(U(e), Len(e)), limit, 0,
                                    FDB_STREAMING_MODE_WANT_ALL, 0, 0, reverse));
    fdb_error_t err = f.Wait();
    if (err) return err;
    const FDBKeyValue* kv;
    int count;
    fdb_bool_t m;
    err = fdb_future_get_keyvalue_array(f.get(), &kv, &count, &m);
    if (err) return err;
    keys->clear();
    for (int i = 0; i < count; ++i) {
      keys->emplace_back(reinterpret_cast<const char*>(kv[i].key), kv[i].key_length);
    }
    if (more) *more = m;
    return 0;
  }
  fdb_error_t Commit() { return Fut(fdb_transaction_commit(t_)).Wait(); }
  // OnError returns the error of the on_error future (0: retry).
  fdb_error_t OnError(fdb_error_t code) { return Fut(fdb_transaction_on_error(t_, code)).Wait(); }

  static const uint8_t* U(const std::string& s) {
    return reinterpret_cast<const uint8_t*>(s.data());
  }
  static int Len(const std::string& s) { return static_cast<int>(s.size()); }

 private:
  FDBTransaction* t_ = nullptr;
};

// Prefix gives each test its own keys in the shared default database.
std::string Prefix(const char* name) { return std::string("c_api_test/") + name + "/"; }

std::string Int64LE(int64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return s;
}

int64_t FromLE(const std::string& s) {
  uint64_t u = 0;
  for (int i = 7; i >= 0; --i) u = (u << 8) | static_cast<uint8_t>(s[i]);
  return static_cast<int64_t>(u);
}

}  // namespace

TEST("fdb_select_api_version_impl rejects a second selection and bad versions") {
  fdb_database_destroy(Db());
  EXPECT_EQ(fdb_select_api_version_impl(730, 730), 2201);  // api_version_already_set
  EXPECT_EQ(fdb_get_max_api_version(), 730);
}

TEST("fdb_get_error and fdb_error_predicate") {
  EXPECT_EQ(std::string(fdb_get_error(0)), "Success");
  EXPECT_EQ(std::string(fdb_get_error(1020)),
            "Transaction not committed due to conflict with another transaction");
  EXPECT_TRUE(fdb_error_predicate(FDB_ERROR_PREDICATE_RETRYABLE, 1020));
  EXPECT_TRUE(fdb_error_predicate(FDB_ERROR_PREDICATE_MAYBE_COMMITTED, 1021));
  EXPECT_TRUE(!fdb_error_predicate(FDB_ERROR_PREDICATE_RETRYABLE_NOT_COMMITTED, 1021));
  EXPECT_TRUE(!fdb_error_predicate(FDB_ERROR_PREDICATE_RETRYABLE, 2004));
}

TEST("fdb_transaction_set then get: read your writes, then committed") {
  FDBDatabase* db = Db();
  std::string p = Prefix("ryw");
  {
    Txn t(db);
    t.Set(p + "a", "1");
    std::string v;
    EXPECT_EQ(t.Get(p + "a", &v), 0);
    EXPECT_EQ(v, "1");
    t.Clear(p + "a");
    EXPECT_EQ(t.Get(p + "a", &v), 0);
    EXPECT_EQ(v, "<absent>");
    t.Set(p + "a", "2");
    EXPECT_EQ(t.Commit(), 0);
  }
  Txn t(db);
  std::string v;
  EXPECT_EQ(t.Get(p + "a", &v), 0);
  EXPECT_EQ(v, "2");
  fdb_database_destroy(db);
}

TEST("fdb_transaction_get_range reverse keeps the last rows and sets more") {
  FDBDatabase* db = Db();
  std::string p = Prefix("range");
  {
    Txn t(db);
    for (char c = 'a'; c <= 'e'; ++c) t.Set(p + c, "v");
    EXPECT_EQ(t.Commit(), 0);
  }
  Txn t(db);
  std::vector<std::string> keys;
  fdb_bool_t more = 0;
  EXPECT_EQ(t.Range(p, p + "\xff", 2, true, &keys, &more), 0);
  EXPECT_EQ(keys.size(), 2u);
  if (keys.size() == 2) {
    EXPECT_EQ(keys[0], p + "e");
    EXPECT_EQ(keys[1], p + "d");
  }
  EXPECT_TRUE(more);
  // Own uncommitted writes and clears merge into the range.
  t.Set(p + "c0", "new");
  t.ClearRange(p + "a", p + "c");
  EXPECT_EQ(t.Range(p, p + "\xff", 0, false, &keys), 0);
  std::vector<std::string> want = {p + "c", p + "c0", p + "d", p + "e"};
  EXPECT_TRUE(keys == want);
  fdb_database_destroy(db);
}

// Rows of a range read between two key selectors (a bound at offset 1 is
// used as its key, without resolving it first: transaction.cpp).
std::vector<std::string> SelectorRange(FDBTransaction* t, const std::string& b, bool b_eq,
                                       const std::string& e, bool e_eq, int limit, bool reverse) {
  Fut f(fdb_transaction_get_range(t, Txn::U(b), Txn::Len(b), b_eq, 1, Txn::U(e), Txn::Len(e),
                                  e_eq, 1, limit, 0, FDB_STREAMING_MODE_WANT_ALL, 0, 0, reverse));
  std::vector<std::string> keys;
  const FDBKeyValue* kv;
  int count;
  fdb_bool_t more;
  if (f.Wait() != 0 || fdb_future_get_keyvalue_array(f.get(), &kv, &count, &more) != 0) {
    keys.push_back("<error>");
    return keys;
  }
  for (int i = 0; i < count; ++i) {
    keys.emplace_back(reinterpret_cast<const char*>(kv[i].key), kv[i].key_length);
  }
  return keys;
}

// ResolvedKey is fdb_transaction_get_key of a selector at offset 1.
std::string ResolvedKey(FDBTransaction* t, const std::string& k, bool or_equal) {
  Fut f(fdb_transaction_get_key(t, Txn::U(k), Txn::Len(k), or_equal, 1, 0));
  const uint8_t* key;
  int n;
  if (f.Wait() != 0 || fdb_future_get_key(f.get(), &key, &n) != 0) return "<error>";
  return std::string(reinterpret_cast<const char*>(key), n);
}

TEST("fdb_transaction_get_range between selectors reads what their resolved keys bound") {
  FDBDatabase* db = Db();
  std::string p = Prefix("selector-bounds");
  std::mt19937 rng(36);
  auto key = [&](int i) { return p + static_cast<char>('a' + i); };
  {
    Txn t(db);
    for (int i = 0; i < 20; i += 2) t.Set(key(i), "v");
    EXPECT_EQ(t.Commit(), 0);
  }
  for (int round = 0; round < 20; ++round) {
    Txn t(db);
    // Own writes, clears and a clear range the reads must see.
    for (int i = 0; i < 4; ++i) t.Set(key(static_cast<int>(rng() % 20)), "w");
    t.Clear(key(static_cast<int>(rng() % 20)));
    int c = static_cast<int>(rng() % 18);
    t.ClearRange(key(c), key(c + 2));
    for (int q = 0; q < 30; ++q) {
      // Bounds between keys, on keys, before and after the prefix, and
      // the end of the readable keys.
      auto bound = [&] {
        switch (rng() % 6) {
          case 0: return p;
          case 1: return std::string("\xff");
          default: return key(static_cast<int>(rng() % 21)) + (rng() % 2 ? "" : "0");
        }
      };
      std::string b = bound(), e = bound();
      bool b_eq = rng() % 2, e_eq = rng() % 2;
      if (b == "\xff") b_eq = false;  // beyond the readable keys: an error, not a bound
      int limit = static_cast<int>(rng() % 4);
      bool reverse = rng() % 2;
      std::string rb = ResolvedKey(t.get(), b, b_eq), re = ResolvedKey(t.get(), e, e_eq);
      std::vector<std::string> want =
          SelectorRange(t.get(), rb, false, re, false, limit, reverse);
      std::vector<std::string> got = SelectorRange(t.get(), b, b_eq, e, e_eq, limit, reverse);
      if (got != want) {
        ::fdblite_test::Fail(__FILE__, __LINE__,
                             "round " + std::to_string(round) + ": [" + b + (b_eq ? "+" : "") +
                                 ", " + e + (e_eq ? "+" : "") + ") differs from [" + rb + ", " +
                                 re + ")");
        break;
      }
    }
  }
  fdb_database_destroy(db);
}

TEST("fdb_transaction_commit conflicts with 1020 and on_error retries") {
  FDBDatabase* db = Db();
  std::string k = Prefix("conflict") + "k";
  Txn a(db), b(db);
  std::string v;
  EXPECT_EQ(a.Get(k, &v), 0);  // serializable read
  b.Set(k, "b");
  EXPECT_EQ(b.Commit(), 0);
  a.Set(k, "a");
  fdb_error_t err = a.Commit();
  EXPECT_EQ(err, 1020);
  EXPECT_EQ(a.OnError(err), 0);  // retryable: resets after a backoff
  EXPECT_EQ(a.Get(k, &v), 0);
  EXPECT_EQ(v, "b");
  a.Set(k, "a");
  EXPECT_EQ(a.Commit(), 0);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_on_error gives up on a non-retryable error") {
  FDBDatabase* db = Db();
  Txn t(db);
  EXPECT_EQ(t.OnError(2004), 2004);
  EXPECT_EQ(t.OnError(1020), 1025);  // cancelled until reset (API >= 610)
  fdb_transaction_reset(t.get());
  EXPECT_EQ(t.OnError(1020), 0);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_atomic_op ADD from many threads loses no update") {
  FDBDatabase* db = Db();
  std::string k = Prefix("atomic") + "counter";
  const int kThreads = 4, kEach = 200;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < kEach; ++j) {
        Txn t(db);
        std::string one = Int64LE(1);
        fdb_transaction_atomic_op(t.get(), Txn::U(k), Txn::Len(k), Txn::U(one), 8,
                                  FDB_MUTATION_TYPE_ADD);
        EXPECT_EQ(t.Commit(), 0);
      }
    });
  }
  for (auto& th : threads) th.join();
  Txn t(db);
  std::string v;
  EXPECT_EQ(t.Get(k, &v), 0);
  EXPECT_EQ(FromLE(v), kThreads * kEach);
  fdb_database_destroy(db);
}

TEST("serializable read-modify-write from many threads loses no update") {
  FDBDatabase* db = Db();
  std::string k = Prefix("rmw") + "counter";
  const int kThreads = 4, kEach = 100;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < kEach; ++j) {
        Txn t(db);
        for (;;) {
          std::string v;
          fdb_error_t err = t.Get(k, &v);
          if (err == 0) {
            int64_t n = v == "<absent>" ? 0 : FromLE(v);
            t.Set(k, Int64LE(n + 1));
            err = t.Commit();
          }
          if (err == 0) break;
          if (err == 1020) conflicts.fetch_add(1);
          if (t.OnError(err) != 0) {
            EXPECT_TRUE(false);
            return;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  Txn t(db);
  std::string v;
  EXPECT_EQ(t.Get(k, &v), 0);
  EXPECT_EQ(FromLE(v), kThreads * kEach);
  fdb_database_destroy(db);
}

TEST("one transaction used from many threads at once") {
  FDBDatabase* db = Db();
  std::string p = Prefix("shared_txn");
  Txn t(db);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      for (int j = 0; j < 50; ++j) {
        std::string k = p + std::to_string(i) + "/" + std::to_string(j);
        t.Set(k, "x");
        std::string v;
        EXPECT_EQ(t.Get(k, &v), 0);
        EXPECT_EQ(v, "x");
      }
    });
  }
  for (auto& th : threads) th.join();
  std::vector<std::string> keys;
  EXPECT_EQ(t.Range(p, p + "\xff", 0, false, &keys), 0);
  EXPECT_EQ(keys.size(), 400u);
  EXPECT_EQ(t.Commit(), 0);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_watch fires after another transaction changes the key") {
  FDBDatabase* db = Db();
  std::string k = Prefix("watch") + "k";
  Txn w(db);
  Fut watch(fdb_transaction_watch(w.get(), Txn::U(k), Txn::Len(k)));
  EXPECT_EQ(w.Commit(), 0);
  EXPECT_TRUE(!fdb_future_is_ready(watch.get()));
  std::thread writer([&] {
    Txn t(db);
    t.Set(k, "changed");
    EXPECT_EQ(t.Commit(), 0);
  });
  EXPECT_EQ(watch.Wait(), 0);
  writer.join();
  fdb_database_destroy(db);
}

TEST("fdb_future_cancel fails a pending watch with operation_cancelled") {
  FDBDatabase* db = Db();
  std::string k = Prefix("watch_cancel") + "k";
  Txn w(db);
  Fut watch(fdb_transaction_watch(w.get(), Txn::U(k), Txn::Len(k)));
  EXPECT_EQ(w.Commit(), 0);
  fdb_future_cancel(watch.get());
  EXPECT_EQ(watch.Wait(), 1101);
  // Destroying an unready watch future must be safe too.
  Txn w2(db);
  FDBFuture* f = fdb_transaction_watch(w2.get(), Txn::U(k), Txn::Len(k));
  EXPECT_EQ(w2.Commit(), 0);
  fdb_future_destroy(f);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_watch of an uncommitted transaction fails on reset") {
  FDBDatabase* db = Db();
  std::string k = Prefix("watch_reset") + "k";
  Txn w(db);
  Fut watch(fdb_transaction_watch(w.get(), Txn::U(k), Txn::Len(k)));
  fdb_transaction_reset(w.get());
  EXPECT_EQ(watch.Wait(), 1025);
  fdb_database_destroy(db);
}

TEST("fdb_future_set_callback runs once, now if ready, later otherwise") {
  FDBDatabase* db = Db();
  std::string k = Prefix("callback") + "k";
  static std::atomic<int> calls{0};
  auto cb = [](FDBFuture*, void*) { calls.fetch_add(1); };
  Txn t(db);
  Fut ready(fdb_transaction_get_read_version(t.get()));
  EXPECT_EQ(ready.Wait(), 0);
  EXPECT_EQ(fdb_future_set_callback(ready.get(), cb, nullptr), 0);
  EXPECT_EQ(calls.load(), 1);
  Txn w(db);
  Fut watch(fdb_transaction_watch(w.get(), Txn::U(k), Txn::Len(k)));
  EXPECT_EQ(w.Commit(), 0);
  EXPECT_EQ(fdb_future_set_callback(watch.get(), cb, nullptr), 0);
  EXPECT_EQ(calls.load(), 1);
  Txn t2(db);
  t2.Set(k, "v");
  EXPECT_EQ(t2.Commit(), 0);
  EXPECT_EQ(watch.Wait(), 0);
  EXPECT_EQ(calls.load(), 2);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_get_versionstamp and SET_VERSIONSTAMPED_KEY") {
  FDBDatabase* db = Db();
  std::string p = Prefix("stamp");
  std::string stamps[2];
  for (auto& stamp : stamps) {
    Txn t(db);
    std::string key = p + std::string(10, '\0');
    uint32_t pos = static_cast<uint32_t>(p.size());
    std::string op = key + std::string(reinterpret_cast<const char*>(&pos), 4);  // little-endian host
    fdb_transaction_atomic_op(t.get(), Txn::U(op), Txn::Len(op), Txn::U(std::string("v")), 1,
                              FDB_MUTATION_TYPE_SET_VERSIONSTAMPED_KEY);
    Fut vs(fdb_transaction_get_versionstamp(t.get()));
    EXPECT_EQ(t.Commit(), 0);
    EXPECT_EQ(vs.Wait(), 0);
    const uint8_t* b;
    int n;
    EXPECT_EQ(fdb_future_get_key(vs.get(), &b, &n), 0);
    EXPECT_EQ(n, 10);
    stamp.assign(reinterpret_cast<const char*>(b), n);
    int64_t committed = 0;
    EXPECT_EQ(fdb_transaction_get_committed_version(t.get(), &committed), 0);
    uint64_t first8 = 0;
    for (int i = 0; i < 8; ++i) first8 = (first8 << 8) | static_cast<uint8_t>(stamp[i]);
    EXPECT_EQ(static_cast<int64_t>(first8), committed);
  }
  EXPECT_TRUE(stamps[0] < stamps[1]);
  Txn t(db);
  std::vector<std::string> keys;
  EXPECT_EQ(t.Range(p, p + "\xff", 0, false, &keys), 0);
  EXPECT_EQ(keys.size(), 2u);
  if (keys.size() == 2) EXPECT_EQ(keys[1], p + stamps[1]);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_get_versionstamp twice: independent futures") {
  FDBDatabase* db = Db();
  std::string p = Prefix("stamp2");
  Txn t(db);
  t.Set(p, "v");
  FDBFuture* a = fdb_transaction_get_versionstamp(t.get());
  Fut b(fdb_transaction_get_versionstamp(t.get()));
  Fut c(fdb_transaction_get_versionstamp(t.get()));
  // Destroying one pending future cancels that one only.
  fdb_future_destroy(a);
  EXPECT_EQ(t.Commit(), 0);
  EXPECT_EQ(b.Wait(), 0);
  EXPECT_EQ(c.Wait(), 0);
  const uint8_t* kb;
  int nb;
  EXPECT_EQ(fdb_future_get_key(b.get(), &kb, &nb), 0);
  std::string sb(reinterpret_cast<const char*>(kb), nb);
  // Releasing one future's memory leaves the other readable.
  fdb_future_release_memory(b.get());
  const uint8_t* kc;
  int nc;
  EXPECT_EQ(fdb_future_get_key(c.get(), &kc, &nc), 0);
  EXPECT_EQ(nc, 10);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(kc), nc), sb);
  fdb_database_destroy(db);
}

TEST("bad input returns FoundationDB error codes, never crashes") {
  FDBDatabase* db = Db();
  {
    Txn t(db);
    Fut f(fdb_transaction_get(t.get(), nullptr, -1, 0));
    EXPECT_EQ(f.Wait(), 2000);
  }
  {
    Txn t(db);
    fdb_transaction_set(t.get(), Txn::U(std::string("k")), -5, nullptr, 0);
    EXPECT_EQ(t.Commit(), 2000);  // deferred to the next future
  }
  {
    Txn t(db);
    EXPECT_EQ(fdb_transaction_set_option(t.get(), static_cast<FDBTransactionOption>(12345),
                                         nullptr, 0),
              2007);
    uint8_t bad[3] = {1, 2, 3};
    EXPECT_EQ(fdb_transaction_set_option(t.get(), FDB_TR_OPTION_TIMEOUT, bad, 3), 0);
    EXPECT_EQ(t.Commit(), 2006);  // invalid_option_value, deferred
  }
  {
    Txn t(db);
    std::string big(10'001, 'k');
    t.Set(big, "v");
    EXPECT_EQ(t.Commit(), 2102);
  }
  {
    Txn t(db);
    t.Set("k", std::string(100'001, 'v'));
    EXPECT_EQ(t.Commit(), 2103);
  }
  {
    Txn t(db);
    t.Set("\xff/x", "v");
    EXPECT_EQ(t.Commit(), 2004);
  }
  {
    Txn t(db);
    Fut f(fdb_transaction_get_range(t.get(), FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(Txn::U(std::string("a")), 1),
                                    FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(Txn::U(std::string("b")), 1), -2, 0,
                                    FDB_STREAMING_MODE_WANT_ALL, 0, 0, 0));
    EXPECT_EQ(f.Wait(), 2012);
  }
  {
    Txn t(db);
    EXPECT_EQ(fdb_transaction_add_conflict_range(t.get(), Txn::U(std::string("b")), 1,
                                                 Txn::U(std::string("a")), 1,
                                                 FDB_CONFLICT_RANGE_TYPE_READ),
              2005);
  }
  EXPECT_EQ(fdb_database_set_option(db, static_cast<FDBDatabaseOption>(999), nullptr, 0), 2007);
  EXPECT_EQ(fdb_network_set_option(static_cast<FDBNetworkOption>(9999), nullptr, 0), 2007);
  FDBTenant* tenant = nullptr;
  EXPECT_EQ(fdb_database_open_tenant(db, Txn::U(std::string("t")), 1, &tenant), 2136);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_cancel fails later operations with 1025") {
  FDBDatabase* db = Db();
  Txn t(db);
  fdb_transaction_cancel(t.get());
  std::string v;
  EXPECT_EQ(t.Get("k", &v), 1025);
  EXPECT_EQ(t.Commit(), 1025);
  fdb_transaction_reset(t.get());
  EXPECT_EQ(t.Get("k", &v), 0);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_commit twice is used_during_commit") {
  FDBDatabase* db = Db();
  Txn t(db);
  t.Set(Prefix("udc") + "k", "v");
  EXPECT_EQ(t.Commit(), 0);
  EXPECT_EQ(t.Commit(), 2017);
  fdb_database_destroy(db);
}

// A committed transaction can only be destroyed, reset or retried, so its
// write buffers are freed by commit, not by fdb_transaction_destroy: a
// garbage-collected binding may destroy the handle much later. (Measured
// with mallinfo2, so not under the sanitizers, which replace malloc.)
TEST("fdb_transaction_commit frees the transaction's write buffers") {
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  FDBDatabase* db = Db("release-after-commit");
  const std::string value(100000, 'v');
  const int keys = 80;  // 8 MB: the store keeps one copy of it
  size_t before = mallinfo2().uordblks;
  Txn t(db);
  for (int i = 0; i < keys; ++i) t.Set(Prefix("release") + std::to_string(i), value);
  size_t buffered = mallinfo2().uordblks;
  EXPECT_TRUE(buffered - before >= keys * value.size());
  EXPECT_EQ(t.Commit(), 0);
  size_t committed = mallinfo2().uordblks;
  // Store copy (8 MB) plus slack; the buffers held two more copies.
  EXPECT_TRUE(committed - before < keys * value.size() * 5 / 4);
  int64_t version = -1;
  EXPECT_EQ(fdb_transaction_get_committed_version(t.get(), &version), 0);
  EXPECT_TRUE(version > 0);
  std::string got;
  EXPECT_EQ(t.Get(Prefix("release") + "0", &got), 2017);
  fdb_database_destroy(db);
#endif
}

TEST("transaction timeout option fails with transaction_timed_out") {
  FDBDatabase* db = Db();
  Txn t(db);
  std::string ms = Int64LE(1);
  EXPECT_EQ(fdb_transaction_set_option(t.get(), FDB_TR_OPTION_TIMEOUT, Txn::U(ms), 8), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::string v;
  EXPECT_EQ(t.Get("k", &v), 1031);
  fdb_database_destroy(db);
}

TEST("max_watches database option: too_many_watches") {
  FDBDatabase* db = Db("c_api_test_watches");
  std::string one = Int64LE(1);
  EXPECT_EQ(fdb_database_set_option(db, FDB_DB_OPTION_MAX_WATCHES, Txn::U(one), 8), 0);
  Txn t(db);
  Fut w1(fdb_transaction_watch(t.get(), Txn::U(std::string("a")), 1));
  Fut w2(fdb_transaction_watch(t.get(), Txn::U(std::string("b")), 1));
  EXPECT_EQ(w2.Wait(), 1032);
  fdb_transaction_reset(t.get());
  EXPECT_EQ(w1.Wait(), 1025);
  fdb_database_destroy(db);
}

TEST("fault injection through \\xff\\xff/fdblite/faults") {
  FDBDatabase* db = Db("c_api_test_faults");
  std::string key("\xff\xff/fdblite/faults", 17);
  {
    Txn t(db);
    EXPECT_EQ(fdb_transaction_set_option(t.get(), FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES,
                                         nullptr, 0),
              0);
    t.Set(key, "seed=7 commit_unknown_result=1");
    EXPECT_EQ(t.Commit(), 0);
  }
  {
    Txn t(db);
    t.Set("x", "1");
    EXPECT_EQ(t.Commit(), 1021);  // applied, reported unknown
    Txn r(db);
    std::string v;
    EXPECT_EQ(r.Get("x", &v), 0);
    EXPECT_EQ(v, "1");
  }
  {
    Txn t(db);
    EXPECT_EQ(fdb_transaction_set_option(t.get(), FDB_TR_OPTION_AUTOMATIC_IDEMPOTENCY, nullptr, 0),
              0);
    t.Set("y", "1");
    EXPECT_EQ(t.Commit(), 0);  // the idempotency id tells the client it committed
  }
  {
    Txn t(db);
    EXPECT_EQ(fdb_transaction_set_option(t.get(), FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES,
                                         nullptr, 0),
              0);
    t.Clear(key);
    EXPECT_EQ(t.Commit(), 0);  // changing the configuration is never itself faulted
    Txn u(db);
    u.Set("z", "1");
    EXPECT_EQ(u.Commit(), 0);
  }
  {
    Txn t(db);
    t.Set(key, "seed=1");  // no special_key_space_enable_writes
    EXPECT_EQ(t.Commit(), 2114);
  }
  fdb_database_destroy(db);
}

TEST("read faults belong to the read version, not to each read") {
  // FoundationDB fails reads at a version too old (or too new) for the
  // storage servers: every read at that version, however many there are.
  FDBDatabase* db = Db("c_api_test_read_faults");
  std::string key("\xff\xff/fdblite/faults", 17);
  auto configure = [&](const std::string& config) {
    Txn t(db);
    EXPECT_EQ(fdb_transaction_set_option(t.get(), FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES,
                                         nullptr, 0),
              0);
    t.Set(key, config);
    EXPECT_EQ(t.Commit(), 0);
  };
  configure("seed=3 read_too_old=1");
  for (int i = 0; i < 20; ++i) {
    // Every attempt fails: after 0 to 3 reads, and then every read.
    Txn t(db);
    std::string v;
    int ok = 0;
    while (ok < 8 && t.Get("k" + std::to_string(ok), &v) == 0) ++ok;
    EXPECT_TRUE(ok <= 3);
    for (int j = 0; j < 5; ++j) EXPECT_EQ(t.Get("other", &v), 1007);
  }
  configure("seed=3 read_too_old=0.5");
  int failed = 0;
  for (int i = 0; i < 200; ++i) {
    // 50 reads each: a per-read rate would fail nearly every attempt.
    Txn t(db);
    std::string v;
    bool fail = false;
    for (int j = 0; j < 50; ++j) fail = t.Get("k" + std::to_string(j), &v) != 0 || fail;
    failed += fail ? 1 : 0;
  }
  EXPECT_TRUE(failed > 60 && failed < 140);
  configure("off");
  fdb_database_destroy(db);
}

TEST("future callbacks run with no transaction lock held") {
  // A callback may call back into the transaction whose commit completed its
  // future; fdblite must not hold that transaction's lock while it runs.
  FDBDatabase* db = Db();
  Txn t(db);
  t.Set(Prefix("callback_reentry") + "k", "v");
  Fut vs(fdb_transaction_get_versionstamp(t.get()));
  struct Ctx {
    FDBTransaction* tr;
    std::atomic<int64_t> committed{0};
  } ctx{t.get()};
  auto cb = [](FDBFuture*, void* arg) {
    auto* c = static_cast<Ctx*>(arg);
    int64_t v = 0;
    if (fdb_transaction_get_committed_version(c->tr, &v) == 0) c->committed.store(v);
  };
  EXPECT_EQ(fdb_future_set_callback(vs.get(), cb, &ctx), 0);
  EXPECT_EQ(t.Commit(), 0);
  EXPECT_EQ(vs.Wait(), 0);
  int64_t committed = 0;
  EXPECT_EQ(fdb_transaction_get_committed_version(t.get(), &committed), 0);
  EXPECT_TRUE(committed > 0);
  EXPECT_EQ(ctx.committed.load(), committed);
  fdb_database_destroy(db);
}
