// latency_test.cpp: the latency model and round-trip counts (latency.h),
// through the C API. Counts are checked exactly; delays only by their lower
// bounds (a delayed future is never early) and by generous upper bounds
// where overlap is the point.
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "latency.h"
#include "test.h"

namespace {

using Clock = std::chrono::steady_clock;

// LatDb opens a database of this file's own. The network may already run
// (c_api_test.cpp starts it first when both files' tests run).
FDBDatabase* LatDb(const char* name) {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)fdb_select_api_version(730);
    if (fdb_setup_network() == 0) {
      static std::thread* network = new std::thread([] { (void)fdb_run_network(); });
      network->detach();
    }
  });
  FDBDatabase* db = nullptr;
  // A name is fdblite's in-memory form; none is the default database.
  std::string named = name ? std::string("fdblite-memory:") + name : "";
  if (fdb_create_database(name ? named.c_str() : nullptr, &db) != 0) std::abort();
  return db;
}

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
int Len(const std::string& s) { return static_cast<int>(s.size()); }

fdb_error_t Wait(FDBFuture* f) {
  if (fdb_future_block_until_ready(f) != 0) return -1;
  return fdb_future_get_error(f);
}

fdb_error_t WaitDestroy(FDBFuture* f) {
  fdb_error_t err = Wait(f);
  fdb_future_destroy(f);
  return err;
}

FDBFuture* Get(FDBTransaction* t, const std::string& k) {
  return fdb_transaction_get(t, U(k), Len(k), 0);
}

// SetSpecial writes a special key (faults, latency) in its own transaction.
fdb_error_t SetSpecial(FDBDatabase* db, const std::string& key, const std::string& value) {
  FDBTransaction* t = nullptr;
  if (fdb_database_create_transaction(db, &t) != 0) std::abort();
  fdb_transaction_set_option(t, FDB_TR_OPTION_SPECIAL_KEY_SPACE_ENABLE_WRITES, nullptr, 0);
  fdb_transaction_set(t, U(key), Len(key), U(value), Len(value));
  fdb_error_t err = WaitDestroy(fdb_transaction_commit(t));
  fdb_transaction_destroy(t);
  return err;
}

// ReadString reads a key's value ("<absent>" if none).
std::string ReadString(FDBTransaction* t, const std::string& key) {
  FDBFuture* f = Get(t, key);
  if (Wait(f) != 0) {
    fdb_future_destroy(f);
    return "<error>";
  }
  fdb_bool_t present = 0;
  const uint8_t* v = nullptr;
  int n = 0;
  fdb_future_get_value(f, &present, &v, &n);
  std::string out = present ? std::string(reinterpret_cast<const char*>(v), n) : "<absent>";
  fdb_future_destroy(f);
  return out;
}

// Counts are parsed out of the stats JSON: {"read_versions":a,"read_waves":b,"commits":c}.
struct Counts {
  long long rv = -1, waves = -1, commits = -1;
  bool operator==(const Counts& o) const {
    return rv == o.rv && waves == o.waves && commits == o.commits;
  }
};
std::ostream& operator<<(std::ostream& os, const Counts& c) {
  return os << "{rv " << c.rv << " waves " << c.waves << " commits " << c.commits << "}";
}

Counts ParseCounts(const std::string& json, const std::string& field) {
  Counts c;
  size_t at = json.find("\"" + field + "\":{");
  if (at == std::string::npos) return c;
  std::sscanf(json.c_str() + at + field.size() + 3,
              "{\"read_versions\":%lld,\"read_waves\":%lld,\"commits\":%lld}", &c.rv,
              &c.waves, &c.commits);
  return c;
}

const std::string kStats("\xff\xff/fdblite/stats", 16);
const std::string kLatency("\xff\xff/fdblite/latency", 18);
const std::string kMetadataVersion("\xff/metadataVersion", 17);

// TxnCounts reads t's own counts (reading stats costs no round trip).
Counts TxnCounts(FDBTransaction* t) { return ParseCounts(ReadString(t, kStats), "transaction"); }

Counts DbCounts(FDBDatabase* db) {
  FDBTransaction* t = nullptr;
  if (fdb_database_create_transaction(db, &t) != 0) std::abort();
  Counts c = ParseCounts(ReadString(t, kStats), "round_trips");
  fdb_transaction_destroy(t);
  return c;
}

FDBTransaction* NewTxn(FDBDatabase* db) {
  FDBTransaction* t = nullptr;
  if (fdb_database_create_transaction(db, &t) != 0) std::abort();
  return t;
}

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

TEST("latency config: parse, defaults and canonical form") {
  fdblite::LatencyConfig c;
  EXPECT_TRUE(fdblite::LatencyConfig::Parse("", &c));
  EXPECT_TRUE(!c.Enabled());
  EXPECT_EQ(c.Format(), std::string());
  EXPECT_TRUE(fdblite::LatencyConfig::Parse("off", &c));
  EXPECT_TRUE(!c.Enabled());

  EXPECT_TRUE(fdblite::LatencyConfig::Parse("default", &c));
  // FoundationDB's published typical latencies below 75% load: start
  // transaction 0.3-1 ms, read 0.1-1 ms, commit 1.5-2.5 ms. Every jittered
  // delay of the default must fall inside its range.
  EXPECT_TRUE(c.grv * (1 - c.jitter) >= 0.3e-3 && c.grv * (1 + c.jitter) <= 1e-3);
  EXPECT_TRUE(c.read * (1 - c.jitter) >= 0.1e-3 && c.read * (1 + c.jitter) <= 1e-3);
  EXPECT_TRUE(c.commit * (1 - c.jitter) >= 1.5e-3 && c.commit * (1 + c.jitter) <= 2.5e-3 + 1e-12);

  EXPECT_TRUE(fdblite::LatencyConfig::Parse("grv=1ms read=500us commit=0.002s jitter=0.1 seed=3", &c));
  EXPECT_EQ(c.grv, 1e-3);
  EXPECT_EQ(c.read, 500e-6);
  EXPECT_EQ(c.commit, 0.002);
  EXPECT_EQ(c.jitter, 0.1);
  EXPECT_EQ(c.seed, 3u);
  fdblite::LatencyConfig back;
  EXPECT_TRUE(fdblite::LatencyConfig::Parse(c.Format(), &back));
  EXPECT_EQ(back.Format(), c.Format());
  EXPECT_TRUE(fdblite::LatencyConfig::Parse("read=1500ns", &c));
  EXPECT_TRUE(c.read > 1.49e-6 && c.read < 1.51e-6);

  for (const char* bad : {"grv=1", "grv=-1ms", "grv=ms", "grv=11s", "jitter=1.5", "jitter=-0.1",
                          "seed=-1", "seed=x", "bogus=1ms", "read", "read=", "read=1msx"}) {
    if (fdblite::LatencyConfig::Parse(bad, &c)) {
      ::fdblite_test::Fail(__FILE__, __LINE__, std::string("accepted ") + bad);
    }
  }
}

TEST("latency: jittered delays stay in range and repeat with the seed") {
  fdblite::LatencyConfig c;
  EXPECT_TRUE(fdblite::LatencyConfig::Parse("read=1ms jitter=0.5 seed=9", &c));
  fdblite::Latency a, b;
  a.Configure(c);
  b.Configure(c);
  bool varied = false;
  double first = a.ReadDelay();
  b.ReadDelay();
  for (int i = 0; i < 1000; ++i) {
    double d = a.ReadDelay();
    EXPECT_TRUE(d >= 0.5e-3 && d < 1.5e-3);
    EXPECT_EQ(d, b.ReadDelay());
    if (d != first) varied = true;
  }
  EXPECT_TRUE(varied);
  EXPECT_EQ(a.GrvDelay(), 0.0);  // not configured: no delay
}

TEST("round trips: read versions, read waves and commits are counted") {
  FDBDatabase* db = LatDb("latency_test_counts");
  Counts before = DbCounts(db);
  {
    // Two reads issued together, then waited: one wave. A third read after
    // waiting: a second wave. One read version for the transaction.
    FDBTransaction* t = NewTxn(db);
    FDBFuture* a = Get(t, "a");
    FDBFuture* b = Get(t, "b");
    EXPECT_EQ(WaitDestroy(a), 0);
    EXPECT_EQ(WaitDestroy(b), 0);
    EXPECT_EQ(WaitDestroy(Get(t, "c")), 0);
    EXPECT_EQ(TxnCounts(t), (Counts{1, 2, 0}));
    // Reads issued after a wait while an older read is still unwaited start
    // a new wave: they could not have left before the wait ended.
    FDBFuture* d = Get(t, "d");
    FDBFuture* e = Get(t, "e");
    EXPECT_EQ(WaitDestroy(d), 0);
    FDBFuture* f = Get(t, "f");
    EXPECT_EQ(WaitDestroy(e), 0);
    EXPECT_EQ(WaitDestroy(f), 0);
    EXPECT_EQ(TxnCounts(t), (Counts{1, 4, 0}));
    // A read-only commit is local: no round trip. (After a commit the
    // transaction's own counts are unreadable; the totals tell.)
    EXPECT_EQ(WaitDestroy(fdb_transaction_commit(t)), 0);
    EXPECT_EQ(DbCounts(db).commits, before.commits);
    fdb_transaction_destroy(t);
  }
  {
    // \xff/metadataVersion comes with the read version: no wave. A read of
    // a key this transaction set is answered from its writes: no wave.
    FDBTransaction* t = NewTxn(db);
    fdb_transaction_set_option(t, FDB_TR_OPTION_READ_SYSTEM_KEYS, nullptr, 0);
    EXPECT_EQ(WaitDestroy(Get(t, kMetadataVersion)), 0);
    fdb_transaction_set(t, U(std::string("k")), 1, U(std::string("v")), 1);
    EXPECT_EQ(ReadString(t, "k"), "v");
    EXPECT_EQ(TxnCounts(t), (Counts{1, 0, 0}));
    // A range read is one read; waiting on the read version is not a wave.
    FDBFuture* grv = fdb_transaction_get_read_version(t);
    EXPECT_EQ(WaitDestroy(grv), 0);
    FDBFuture* r = fdb_transaction_get_range(
        t, FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(U(std::string("a")), 1),
        FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(U(std::string("z")), 1), 0, 0,
        FDB_STREAMING_MODE_WANT_ALL, 0, 0, 0);
    EXPECT_EQ(WaitDestroy(r), 0);
    EXPECT_EQ(TxnCounts(t), (Counts{1, 1, 0}));
    EXPECT_EQ(WaitDestroy(fdb_transaction_commit(t)), 0);
    EXPECT_EQ(DbCounts(db).commits, before.commits + 1);
    fdb_transaction_destroy(t);
  }
  {
    // A write-only transaction still takes a read version for its commit.
    FDBTransaction* t = NewTxn(db);
    fdb_transaction_set(t, U(std::string("w")), 1, U(std::string("1")), 1);
    Counts pre = DbCounts(db);
    EXPECT_EQ(WaitDestroy(fdb_transaction_commit(t)), 0);
    Counts post = DbCounts(db);
    EXPECT_EQ((Counts{post.rv - pre.rv, post.waves - pre.waves, post.commits - pre.commits}),
              (Counts{1, 0, 1}));
    // Reset starts the counts again; a set read version is no request.
    fdb_transaction_reset(t);
    EXPECT_EQ(TxnCounts(t), (Counts{0, 0, 0}));
    FDBFuture* grv = fdb_transaction_get_read_version(t);
    EXPECT_EQ(Wait(grv), 0);
    int64_t rv = 0;
    EXPECT_EQ(fdb_future_get_int64(grv, &rv), 0);
    fdb_future_destroy(grv);
    fdb_transaction_reset(t);
    fdb_transaction_set_read_version(t, rv);
    EXPECT_EQ(WaitDestroy(Get(t, "a")), 0);
    EXPECT_EQ(TxnCounts(t), (Counts{0, 1, 0}));
    fdb_transaction_destroy(t);
  }
  // The database totals are the sum: 1+1+1+1 read versions (the reset
  // transaction asked once before its reset), 4+1+1 waves, 2 commits.
  Counts after = DbCounts(db);
  EXPECT_EQ((Counts{after.rv - before.rv, after.waves - before.waves,
                    after.commits - before.commits}),
            (Counts{4, 6, 2}));
  fdb_database_destroy(db);
}

TEST("latency: the special key configures the database and reads back") {
  FDBDatabase* db = LatDb("latency_test_config");
  FDBTransaction* t = NewTxn(db);
  EXPECT_EQ(ReadString(t, kLatency), "");
  fdb_transaction_destroy(t);
  EXPECT_EQ(SetSpecial(db, kLatency, "grv=1ms read=2ms commit=3ms jitter=0 seed=5"), 0);
  t = NewTxn(db);
  EXPECT_EQ(ReadString(t, kLatency), "grv=1000us read=2000us commit=3000us jitter=0 seed=5");
  fdb_transaction_destroy(t);
  EXPECT_EQ(SetSpecial(db, kLatency, "grv=fast"), 2006);  // invalid_option_value
  EXPECT_EQ(SetSpecial(db, kLatency, "off"), 0);
  t = NewTxn(db);
  EXPECT_EQ(ReadString(t, kLatency), "");
  fdb_transaction_destroy(t);
  // Other databases are untouched.
  FDBDatabase* other = LatDb("latency_test_config_other");
  t = NewTxn(other);
  EXPECT_EQ(ReadString(t, kLatency), "");
  fdb_transaction_destroy(t);
  fdb_database_destroy(other);
  fdb_database_destroy(db);
}

TEST("latency: futures complete after their delay; reads issued together overlap") {
  FDBDatabase* db = LatDb("latency_test_delays");
  const double kRead = 0.3;
  EXPECT_EQ(SetSpecial(db, kLatency, "grv=0us read=300ms commit=200ms jitter=0"), 0);
  {
    FDBTransaction* t = NewTxn(db);
    fdb_transaction_set_option(t, FDB_TR_OPTION_READ_SYSTEM_KEYS, nullptr, 0);
    // The metadata version arrives with the read version (grv=0: at once).
    FDBFuture* mv = Get(t, kMetadataVersion);
    EXPECT_TRUE(fdb_future_is_ready(mv));
    fdb_future_destroy(mv);
    // Two reads issued together complete about together.
    auto t0 = Clock::now();
    FDBFuture* a = Get(t, "a");
    FDBFuture* b = Get(t, "b");
    EXPECT_TRUE(!fdb_future_is_ready(a));
    EXPECT_EQ(WaitDestroy(a), 0);
    EXPECT_TRUE(Since(t0) >= kRead);
    EXPECT_EQ(WaitDestroy(b), 0);
    EXPECT_TRUE(Since(t0) < 2 * kRead);
    // Reads one after another add up.
    t0 = Clock::now();
    EXPECT_EQ(WaitDestroy(Get(t, "c")), 0);
    EXPECT_EQ(WaitDestroy(Get(t, "d")), 0);
    EXPECT_TRUE(Since(t0) >= 2 * kRead);
    // A destroyed unready read is cancelled; its delayed completion is then
    // a no-op.
    fdb_future_destroy(Get(t, "e"));
    // The commit completes after its delay, with its mutations applied.
    EXPECT_EQ(TxnCounts(t), (Counts{1, 4, 0}));
    fdb_transaction_set(t, U(std::string("k")), 1, U(std::string("v")), 1);
    t0 = Clock::now();
    FDBFuture* c = fdb_transaction_commit(t);
    EXPECT_TRUE(!fdb_future_is_ready(c));
    EXPECT_EQ(WaitDestroy(c), 0);
    EXPECT_TRUE(Since(t0) >= 0.2);
    fdb_transaction_destroy(t);
  }
  {
    // The first read of a transaction waits for its read version first.
    EXPECT_EQ(SetSpecial(db, kLatency, "grv=200ms read=100ms jitter=0"), 0);
    FDBTransaction* t = NewTxn(db);
    auto t0 = Clock::now();
    FDBFuture* grv = fdb_transaction_get_read_version(t);
    FDBFuture* a = Get(t, "k");
    EXPECT_EQ(WaitDestroy(grv), 0);
    EXPECT_TRUE(Since(t0) >= 0.2);
    EXPECT_EQ(WaitDestroy(a), 0);
    EXPECT_TRUE(Since(t0) >= 0.3);
    fdb_transaction_destroy(t);
  }
  EXPECT_EQ(SetSpecial(db, kLatency, ""), 0);
  fdb_database_destroy(db);
}

TEST("latency: callbacks of delayed futures run on the network thread") {
  FDBDatabase* db = LatDb("latency_test_callbacks");
  EXPECT_EQ(SetSpecial(db, kLatency, "read=20ms jitter=0"), 0);
  FDBTransaction* t = NewTxn(db);
  struct Ctx {
    std::mutex mu;
    std::condition_variable cv;
    int done = 0;
    fdb_error_t err = -1;
  } ctx;
  FDBFuture* f = Get(t, "x");
  fdb_future_set_callback(
      f,
      [](FDBFuture* fut, void* arg) {
        auto* c = static_cast<Ctx*>(arg);
        std::lock_guard<std::mutex> lock(c->mu);
        c->err = fdb_future_get_error(fut);
        ++c->done;
        c->cv.notify_all();
      },
      &ctx);
  {
    std::unique_lock<std::mutex> lock(ctx.mu);
    ctx.cv.wait(lock, [&] { return ctx.done > 0; });
  }
  EXPECT_EQ(ctx.err, 0);
  EXPECT_EQ(ctx.done, 1);
  fdb_future_destroy(f);
  fdb_transaction_destroy(t);
  EXPECT_EQ(SetSpecial(db, kLatency, ""), 0);
  fdb_database_destroy(db);
}

TEST("latency: the versionstamp arrives with the commit's reply") {
  FDBDatabase* db = LatDb("latency_test_versionstamp");
  EXPECT_EQ(SetSpecial(db, kLatency, "commit=200ms jitter=0"), 0);
  FDBTransaction* t = NewTxn(db);
  fdb_transaction_set(t, U(std::string("k")), 1, U(std::string("v")), 1);
  FDBFuture* vs = fdb_transaction_get_versionstamp(t);
  auto t0 = Clock::now();
  FDBFuture* c = fdb_transaction_commit(t);
  EXPECT_TRUE(!fdb_future_is_ready(vs));
  EXPECT_EQ(Wait(vs), 0);
  EXPECT_TRUE(Since(t0) >= 0.2);
  EXPECT_EQ(WaitDestroy(c), 0);
  const uint8_t* key = nullptr;
  int len = 0;
  EXPECT_EQ(fdb_future_get_key(vs, &key, &len), 0);
  EXPECT_EQ(len, 10);
  int64_t committed = 0;
  EXPECT_EQ(fdb_transaction_get_committed_version(t, &committed), 0);
  uint64_t stamped = 0;
  for (int i = 0; i < 8; ++i) stamped = (stamped << 8) | key[i];
  EXPECT_EQ(static_cast<int64_t>(stamped), committed);
  fdb_future_destroy(vs);
  fdb_transaction_destroy(t);
  EXPECT_EQ(SetSpecial(db, kLatency, ""), 0);
  fdb_database_destroy(db);
}
