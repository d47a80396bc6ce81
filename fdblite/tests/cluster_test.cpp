// cluster_test.cpp: cluster files and connection strings, the cluster
// metadata calls, and read conflicts over a transaction's own writes, through
// the C API. Expected values come from FoundationDB's documentation: the
// cluster file format and client errors (no_cluster_file_found 1515,
// connection_string_invalid 2104), the C API reference, and the
// read-your-writes rules for conflict ranges.
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "busyness.h"
#include "loop.h"
#include "test.h"

namespace {

void Network() {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)fdb_select_api_version(730);  // 2201 if another file selected it
    if (fdb_setup_network() == 0) {
      static std::thread* network = new std::thread([] { (void)fdb_run_network(); });
      network->detach();
    }
  });
}

const uint8_t* U(const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); }
int Len(const std::string& s) { return static_cast<int>(s.size()); }

// Dir is a fresh directory, removed at scope end.
class Dir {
 public:
  Dir() {
    char tmpl[] = "/tmp/fdblite-cluster-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~Dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // Write creates the file `name` holding `content`; returns its path.
  std::string Write(const std::string& name, const std::string& content) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Open opens a database by cluster-file path: 0 or the error.
int Open(const char* path, FDBDatabase** db) {
  Network();
  *db = nullptr;
  return fdb_create_database(path, db);
}

int OpenCs(const std::string& cs, FDBDatabase** db) {
  Network();
  *db = nullptr;
  return fdb_create_database_from_connection_string(cs.c_str(), db);
}

// Wait blocks on f and returns its error.
int Wait(FDBFuture* f) {
  if (fdb_future_block_until_ready(f) != 0) return -1;
  return fdb_future_get_error(f);
}

// Put commits k=v in db.
int Put(FDBDatabase* db, const std::string& k, const std::string& v) {
  FDBTransaction* tr;
  if (fdb_database_create_transaction(db, &tr) != 0) return -1;
  fdb_transaction_set(tr, U(k), Len(k), U(v), Len(v));
  FDBFuture* f = fdb_transaction_commit(tr);
  int err = Wait(f);
  fdb_future_destroy(f);
  fdb_transaction_destroy(tr);
  return err;
}

// GetIn reads k in tr ("<absent>" if missing, "<error N>" on error).
std::string GetIn(FDBTransaction* tr, const std::string& k) {
  FDBFuture* f = fdb_transaction_get(tr, U(k), Len(k), 0);
  std::string out;
  if (int err = Wait(f)) {
    out = "<error " + std::to_string(err) + ">";
  } else {
    fdb_bool_t present;
    const uint8_t* v;
    int n;
    fdb_future_get_value(f, &present, &v, &n);
    out = present ? std::string(reinterpret_cast<const char*>(v), n) : "<absent>";
  }
  fdb_future_destroy(f);
  return out;
}

std::string Get(FDBDatabase* db, const std::string& k, bool system = false) {
  FDBTransaction* tr;
  if (fdb_database_create_transaction(db, &tr) != 0) return "<no transaction>";
  if (system) fdb_transaction_set_option(tr, FDB_TR_OPTION_READ_SYSTEM_KEYS, nullptr, 0);
  std::string v = GetIn(tr, k);
  fdb_transaction_destroy(tr);
  return v;
}

// OpenError is the error a database handle reports: 0 if it works,
// otherwise the code its transactions' operations fail with. It checks what
// FoundationDB 7.3's client does with a cluster file it could not use:
// creating the database succeeded, the error is kept in the database, and
// every transaction created from it fails every future-returning call with
// that error, after reset and retry too, while database options and
// transaction creation still succeed.
int OpenError(FDBDatabase* db) {
  int64_t one = 1;
  if (fdb_database_set_option(db, FDB_DB_OPTION_MAX_WATCHES, reinterpret_cast<uint8_t*>(&one), 8) != 0) {
    return -1;
  }
  FDBTransaction* tr;
  if (fdb_database_create_transaction(db, &tr) != 0) return -2;
  std::string k = "open_error/k";
  auto code = [](FDBFuture* f) {
    int err = Wait(f);
    fdb_future_destroy(f);
    return err;
  };
  int first = code(fdb_transaction_get(tr, U(k), Len(k), 0));
  if (first == 0) {
    fdb_transaction_destroy(tr);
    return 0;
  }
  std::vector<int> got;
  fdb_transaction_set(tr, U(k), Len(k), U(k), Len(k));
  got.push_back(code(fdb_transaction_get_read_version(tr)));
  got.push_back(code(fdb_transaction_get_key(tr, U(k), Len(k), 0, 1, 0)));
  got.push_back(code(fdb_transaction_get_range(tr, U(k), Len(k), 0, 1, U(k + "z"), Len(k) + 1, 0, 1, 0,
                                               0, FDB_STREAMING_MODE_WANT_ALL, 0, 0, 0)));
  got.push_back(code(fdb_transaction_get_approximate_size(tr)));
  got.push_back(code(fdb_transaction_get_versionstamp(tr)));
  got.push_back(code(fdb_transaction_commit(tr)));
  fdb_transaction_reset(tr);
  got.push_back(code(fdb_transaction_get(tr, U(k), Len(k), 1)));
  got.push_back(code(fdb_transaction_watch(tr, U(k), Len(k))));
  // Retrying a retryable error resets the transaction; the error stays.
  got.push_back(code(fdb_transaction_on_error(tr, 1020)) == 0 ? first : -3);
  got.push_back(code(fdb_transaction_commit(tr)));
  // The error itself is not retryable: on_error hands it back.
  got.push_back(code(fdb_transaction_on_error(tr, first)));
  got.push_back(code(fdb_database_get_server_protocol(db, 0)));
  got.push_back(code(fdb_database_reboot_worker(db, U(k), Len(k), 0, 0)));
  fdb_transaction_destroy(tr);
  for (int g : got) {
    if (g != first) return -100 - g;  // inconsistent: visible in the failure
  }
  return first;
}

TEST("cluster file: a path that names no file gives a database failing with no_cluster_file_found") {
  Dir d;
  FDBDatabase* db = nullptr;
  ASSERT_TRUE(Open((d.path() + "/missing.cluster").c_str(), &db) == 0);
  ASSERT_TRUE(db != nullptr);
  EXPECT_EQ(OpenError(db), 1515);
  fdb_database_destroy(db);
  db = nullptr;
  ASSERT_TRUE(Open(d.path().c_str(), &db) == 0);  // a directory is no cluster file
  EXPECT_EQ(OpenError(db), 1515);
  fdb_database_destroy(db);
  // The error was the database's, not the path's for ever: once the file
  // exists a new handle works.
  std::string later = d.Write("missing.cluster", "fdblitetest:later@127.0.0.1:4500\n");
  ASSERT_TRUE(Open(later.c_str(), &db) == 0);
  EXPECT_EQ(OpenError(db), 0);
  fdb_database_destroy(db);
}

TEST("cluster file: empty or malformed content gives a database failing with connection_string_invalid") {
  Dir d;
  const char* bad[] = {
      "",                                      // empty
      "   \n\t\n",                              // whitespace only
      "# only a comment\n",                     // comment only
      "no_at_sign",                             // no @
      "desc@127.0.0.1:4500",                    // no ID
      "desc:id@",                               // no coordinator
      "desc:id@127.0.0.1",                      // no port
      "desc:id@127.0.0.1:0",                    // port out of range
      "desc:id@127.0.0.1:65536",                // port out of range
      "desc:id@127.0.0.1:port",                 // port not a number
      "de-sc:id@127.0.0.1:4500",                // description: letters, digits, _
      "desc:i_d@127.0.0.1:4500",                // ID: letters and digits
      ":id@127.0.0.1:4500",                     // empty description
      "desc:id@127.0.0.1:4500,127.0.0.1:4500",  // duplicate coordinator
      "desc:id@127.0.0.1:4500,",                // empty coordinator
      "a:b@127.0.0.1:4500@127.0.0.1:4501",      // two @
      "fdblite-memory:",                        // fdblite form without a name
      "fdblite-dir:",                           // fdblite form without a directory
  };
  int i = 0;
  for (const char* content : bad) {
    std::string path = d.Write("bad" + std::to_string(i++) + ".cluster", content);
    FDBDatabase* db = nullptr;
    int err = Open(path.c_str(), &db);
    int deferred = err == 0 ? OpenError(db) : -1;
    if (db) fdb_database_destroy(db);
    if (err != 0 || deferred != 2104) {
      ::fdblite_test::Fail(__FILE__, __LINE__, std::string("content \"") + content + "\": create " +
                                                   std::to_string(err) + ", operations " +
                                                   std::to_string(deferred) + ", want 0 and 2104");
    }
    if (std::string(content).find('@') != std::string::npos || std::string(content).empty()) {
      db = nullptr;
      EXPECT_EQ(OpenCs(content, &db), 0);
      if (db) {
        EXPECT_EQ(OpenError(db), 2104);
        fdb_database_destroy(db);
      }
    }
  }
  FDBDatabase* db = nullptr;
  ASSERT_TRUE(OpenCs("", &db) == 0);
  EXPECT_EQ(OpenError(db), 2104);
  fdb_database_destroy(db);
  db = nullptr;
  ASSERT_TRUE(fdb_create_database_from_connection_string(nullptr, &db) == 0);
  EXPECT_EQ(OpenError(db), 2104);
  fdb_database_destroy(db);
}

TEST("cluster file: the connection string, not the path, names the database") {
  Dir d;
  const std::string cs = "fdblitetest:cl0n3d@127.0.0.1:4500,10.0.0.2:4500";
  std::string a = d.Write("a.cluster", cs + "\n");
  // A second copy, with a comment, other whitespace and a TLS-free spelling.
  std::string b = d.Write("b.cluster",
                          "# copied from a.cluster\n  fdblitetest:cl0n3d@127.0.0.1:4500,\n"
                          "  10.0.0.2:4500  # second coordinator\n");
  std::string other = d.Write("c.cluster", "fdblitetest:other@127.0.0.1:4500\n");
  FDBDatabase *da, *db2, *dc, *dcs;
  ASSERT_TRUE(Open(a.c_str(), &da) == 0);
  ASSERT_TRUE(Open(b.c_str(), &db2) == 0);
  ASSERT_TRUE(Open(other.c_str(), &dc) == 0);
  ASSERT_TRUE(OpenCs(cs, &dcs) == 0);
  EXPECT_EQ(Put(da, "cluster_test/k", "v"), 0);
  EXPECT_EQ(Get(db2, "cluster_test/k"), "v");  // the copy reaches the same data
  EXPECT_EQ(Get(dcs, "cluster_test/k"), "v");  // so does the connection string
  EXPECT_EQ(Get(dc, "cluster_test/k"), "<absent>");  // another cluster
  // \xff/coordinators holds the connection string (system keys only).
  EXPECT_EQ(Get(db2, "\xff/coordinators", true), cs);
  EXPECT_EQ(Get(db2, "\xff/coordinators", false), "<error 2004>");
  fdb_database_destroy(da);
  fdb_database_destroy(db2);
  fdb_database_destroy(dc);
  fdb_database_destroy(dcs);
}

TEST("cluster file: fdblite's forms, as a path, a connection string and file content") {
  Dir d;
  FDBDatabase *mem, *again;
  ASSERT_TRUE(Open("fdblite-memory:cluster_test_forms", &mem) == 0);
  EXPECT_EQ(Put(mem, "cluster_test/m", "1"), 0);
  ASSERT_TRUE(OpenCs("fdblite-memory:cluster_test_forms", &again) == 0);
  EXPECT_EQ(Get(again, "cluster_test/m"), "1");
  fdb_database_destroy(again);
  // Its \xff/coordinators is a connection string that reaches it too.
  std::string cs = Get(mem, "\xff/coordinators", true);
  EXPECT_TRUE(cs.find('@') != std::string::npos && cs.find(':') < cs.find('@'));
  ASSERT_TRUE(OpenCs(cs, &again) == 0);
  EXPECT_EQ(Get(again, "cluster_test/m"), "1");
  fdb_database_destroy(again);
  std::string file = d.Write("mem.cluster", cs + "\n");
  ASSERT_TRUE(Open(file.c_str(), &again) == 0);
  EXPECT_EQ(Get(again, "cluster_test/m"), "1");
  fdb_database_destroy(again);
  fdb_database_destroy(mem);

  // A cluster file holding fdblite-dir:, relative to the file's directory.
  std::string durable = d.Write("durable.cluster", "# fdblite durable\nfdblite-dir:data\n");
  FDBDatabase *fromfile, *direct;
  ASSERT_TRUE(Open(durable.c_str(), &fromfile) == 0);
  EXPECT_EQ(Put(fromfile, "cluster_test/d", "2"), 0);
  EXPECT_TRUE(std::filesystem::exists(d.path() + "/data/fdblite.sqlite"));
  std::string dir = "fdblite-dir:" + d.path() + "/data";
  ASSERT_TRUE(Open(dir.c_str(), &direct) == 0);
  EXPECT_EQ(Get(direct, "cluster_test/d"), "2");
  fdb_database_destroy(direct);
  fdb_database_destroy(fromfile);
}

TEST("cluster file: the default is FDB_CLUSTER_FILE, else the in-process default database") {
  if (std::getenv("FDBLITE_DATA_DIR")) return;  // the default is durable there
  Dir d;
  std::string file = d.Write("env.cluster", "fdblitetest:env@127.0.0.1:4500\n");
  FDBDatabase *byfile, *def;
  ASSERT_TRUE(Open(file.c_str(), &byfile) == 0);
  EXPECT_EQ(Put(byfile, "cluster_test/env", "e"), 0);
  const char* saved = std::getenv("FDB_CLUSTER_FILE");
  std::string keep = saved ? saved : "";
  setenv("FDB_CLUSTER_FILE", file.c_str(), 1);
  ASSERT_TRUE(Open(nullptr, &def) == 0);
  EXPECT_EQ(Get(def, "cluster_test/env"), "e");
  fdb_database_destroy(def);
  setenv("FDB_CLUSTER_FILE", (d.path() + "/gone.cluster").c_str(), 1);
  ASSERT_TRUE(Open(nullptr, &def) == 0);
  EXPECT_EQ(OpenError(def), 1515);  // FDB_CLUSTER_FILE must name a file
  fdb_database_destroy(def);
  unsetenv("FDB_CLUSTER_FILE");
  if (!std::filesystem::exists("fdb.cluster") &&
      !std::filesystem::exists("/etc/foundationdb/fdb.cluster")) {
    ASSERT_TRUE(Open(nullptr, &def) == 0);  // zero setup: the default database
    EXPECT_EQ(Get(def, "cluster_test/env"), "<absent>");
    EXPECT_EQ(Get(def, "\xff/coordinators", true), "fdblite:default@127.0.0.1:4500");
    fdb_database_destroy(def);
    ASSERT_TRUE(Open("", &def) == 0);
    fdb_database_destroy(def);
  }
  if (saved) setenv("FDB_CLUSTER_FILE", keep.c_str(), 1);
  fdb_database_destroy(byfile);
}

// ---- cluster metadata ----

TEST("fdb_transaction_get_addresses_for_key: the coordinators' addresses") {
  Dir d;
  std::string file = d.Write("addr.cluster", "fdblitetest:addr@10.1.2.3:4500,10.1.2.4:4501:tls\n");
  FDBDatabase* db;
  ASSERT_TRUE(Open(file.c_str(), &db) == 0);
  FDBTransaction* tr;
  ASSERT_TRUE(fdb_database_create_transaction(db, &tr) == 0);
  std::string k = "any key";
  FDBFuture* f = fdb_transaction_get_addresses_for_key(tr, U(k), Len(k));
  EXPECT_EQ(Wait(f), 0);
  const char** strings = nullptr;
  int count = 0;
  EXPECT_EQ(fdb_future_get_string_array(f, &strings, &count), 0);
  ASSERT_TRUE(count == 2);
  EXPECT_EQ(std::string(strings[0]), "10.1.2.3:4500");
  EXPECT_EQ(std::string(strings[1]), "10.1.2.4:4501");
  fdb_future_destroy(f);
  std::string beyond = "\xff\xff";
  f = fdb_transaction_get_addresses_for_key(tr, U(beyond), Len(beyond));
  EXPECT_EQ(Wait(f), 2004);  // beyond the readable keys
  fdb_future_destroy(f);
  fdb_transaction_destroy(tr);
  fdb_database_destroy(db);
}

TEST("fdb_transaction_get_tag_throttled_duration is 0 and get_total_cost follows the cost model") {
  FDBDatabase* db;
  ASSERT_TRUE(Open("fdblite-memory:cluster_test_cost", &db) == 0);
  EXPECT_EQ(Put(db, "big", std::string(40000, 'x')), 0);
  FDBTransaction* tr;
  ASSERT_TRUE(fdb_database_create_transaction(db, &tr) == 0);
  FDBFuture* f = fdb_transaction_get_tag_throttled_duration(tr);
  double secs = -1;
  EXPECT_EQ(Wait(f), 0);
  EXPECT_EQ(fdb_future_get_double(f, &secs), 0);
  EXPECT_EQ(secs, 0.0);
  fdb_future_destroy(f);
  auto cost = [&] {
    FDBFuture* c = fdb_transaction_get_total_cost(tr);
    int64_t v = -1;
    if (Wait(c) != 0 || fdb_future_get_int64(c, &v) != 0) v = -1;
    fdb_future_destroy(c);
    return v;
  };
  const int64_t page = 16384;
  EXPECT_EQ(cost(), 0);
  GetIn(tr, "small");  // absent: one page
  EXPECT_EQ(cost(), page);
  GetIn(tr, "big");  // 3 + 40000 bytes: three pages
  EXPECT_EQ(cost(), 4 * page);
  fdb_transaction_set(tr, U(std::string("w")), 1, U(std::string("v")), 1);  // 5 x one page
  EXPECT_EQ(cost(), 9 * page);
  std::string big(20000, 'y');
  fdb_transaction_set(tr, U(std::string("w2")), 2, U(big), Len(big));  // 5 x two pages
  EXPECT_EQ(cost(), 19 * page);
  GetIn(tr, "w");  // answered from this transaction's own write: free
  EXPECT_EQ(cost(), 19 * page);
  fdb_transaction_reset(tr);
  EXPECT_EQ(cost(), 0);
  fdb_transaction_destroy(tr);
  fdb_database_destroy(db);
}

TEST("fdb_database_get_server_protocol is FoundationDB 7.3's protocol version") {
  FDBDatabase* db;
  ASSERT_TRUE(Open("fdblite-memory:cluster_test_protocol", &db) == 0);
  const uint64_t v73 = 0x0FDB00B073000000ull;
  FDBFuture* f = fdb_database_get_server_protocol(db, 0);
  uint64_t got = 0;
  EXPECT_EQ(Wait(f), 0);
  EXPECT_EQ(fdb_future_get_uint64(f, &got), 0);
  EXPECT_EQ(got, v73);
  fdb_future_destroy(f);
  f = fdb_database_get_server_protocol(db, 0x0FDB00B072000000ull);  // differs: at once
  EXPECT_EQ(Wait(f), 0);
  fdb_future_destroy(f);
  // Expecting the current version waits for a change that never comes.
  f = fdb_database_get_server_protocol(db, v73);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(fdb_future_is_ready(f), 0);
  fdb_future_cancel(f);
  EXPECT_EQ(Wait(f), 1101);
  fdb_future_destroy(f);
  fdb_database_destroy(db);
}

// WaitBusyness polls the busyness until ok(value) or 5 seconds pass; the
// last value read.
template <typename Ok>
double WaitBusyness(FDBDatabase* db, Ok ok) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  double v = fdb_database_get_main_thread_busyness(db);
  while (!ok(v) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    v = fdb_database_get_main_thread_busyness(db);
  }
  return v;
}

TEST("fdb_database_get_main_thread_busyness: above 0 while the network runs, with no transactions") {
  FDBDatabase* db;
  ASSERT_TRUE(Open("fdblite-memory:cluster_test_busyness", &db) == 0);
  // The network thread's own work (closing each one-second window) is
  // work: the figure is above 0 once a window has closed, and small.
  double idle = WaitBusyness(db, [](double v) { return v > 0; });
  EXPECT_TRUE(idle > 0.0);
  EXPECT_TRUE(idle < 0.5);
  // Any handle reports the same process-wide figure, one whose open failed
  // included.
  FDBDatabase* broken;
  ASSERT_TRUE(Open("/nonexistent/fdblite/busyness.cluster", &broken) == 0);
  EXPECT_TRUE(fdb_database_get_main_thread_busyness(broken) > 0.0);
  fdb_database_destroy(broken);
  fdb_database_destroy(db);
}

TEST("fdb_database_get_main_thread_busyness: work on the network thread raises it") {
  FDBDatabase* db;
  ASSERT_TRUE(Open("fdblite-memory:cluster_test_busyness", &db) == 0);
  WaitBusyness(db, [](double v) { return v > 0; });  // a window has closed
  // 1.2 s of work on the network thread: the window it ends is at least
  // 1.2 / (1 + 1.2) busy, wherever in the window it started.
  auto done = std::make_shared<std::atomic<bool>>(false);
  fdblite::Loop::Get().Schedule(0, [done] {
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(1200);
    while (std::chrono::steady_clock::now() < until) {
    }
    *done = true;
  });
  double busy = WaitBusyness(db, [&](double v) { return done->load() && v > 0.5; });
  EXPECT_TRUE(done->load());
  EXPECT_TRUE(busy > 0.5);
  EXPECT_TRUE(busy <= 1.0);
  fdb_database_destroy(db);
}

TEST("BusyMeter: the busy fraction of each closed window, capped at 1") {
  using std::chrono::milliseconds;
  fdblite::BusyMeter m;
  auto t0 = fdblite::BusyMeter::Clock::time_point() + std::chrono::hours(1);
  m.Start(t0);
  EXPECT_EQ(m.Read(), 0.0);  // no window closed yet
  m.Add(milliseconds(250));
  EXPECT_TRUE(!m.RollIfDue(t0 + milliseconds(999)));  // not a second yet
  EXPECT_EQ(m.Read(), 0.0);
  EXPECT_TRUE(m.RollIfDue(t0 + milliseconds(1000)));
  EXPECT_EQ(m.Read(), 0.25);
  EXPECT_TRUE(m.WindowEnd() == t0 + milliseconds(2000));
  // A longer window (the thread was busy past its end): busy / elapsed.
  m.Add(milliseconds(1500));
  EXPECT_TRUE(m.RollIfDue(t0 + milliseconds(3000)));
  EXPECT_EQ(m.Read(), 0.75);
  m.Add(milliseconds(5000));  // more busy time than elapsed: capped
  EXPECT_TRUE(m.RollIfDue(t0 + milliseconds(4000)));
  EXPECT_EQ(m.Read(), 1.0);
  EXPECT_TRUE(m.RollIfDue(t0 + milliseconds(5000)));  // an idle window
  EXPECT_EQ(m.Read(), 0.0);
  m.Clear();
  EXPECT_EQ(m.Read(), 0.0);
}

// ---- read conflicts over the transaction's own writes ----

// ConflictCase: t1 writes `own` (by a set or an atomic add), adds a read
// conflict range [rb, re), then t2 commits a write to `other`; returns t1's
// commit error.
int ConflictCase(FDBDatabase* db, bool atomic, bool ryw_disabled, const std::string& own,
                 const std::string& rb, const std::string& re, const std::string& other) {
  FDBTransaction *t1, *t2;
  if (fdb_database_create_transaction(db, &t1) || fdb_database_create_transaction(db, &t2)) {
    return -1;
  }
  if (ryw_disabled) fdb_transaction_set_option(t1, FDB_TR_OPTION_READ_YOUR_WRITES_DISABLE, nullptr, 0);
  std::string one("\x01\0\0\0\0\0\0\0", 8);
  if (atomic) {
    fdb_transaction_atomic_op(t1, U(own), Len(own), U(one), Len(one), FDB_MUTATION_TYPE_ADD);
  } else {
    fdb_transaction_set(t1, U(own), Len(own), U(one), Len(one));
  }
  int err = fdb_transaction_add_conflict_range(t1, U(rb), Len(rb), U(re), Len(re),
                                               FDB_CONFLICT_RANGE_TYPE_READ);
  if (err) return err;
  fdb_transaction_set(t2, U(other), Len(other), U(one), Len(one));
  FDBFuture* f = fdb_transaction_commit(t2);
  err = Wait(f);
  fdb_future_destroy(f);
  if (err) return -2;
  f = fdb_transaction_commit(t1);
  err = Wait(f);
  fdb_future_destroy(f);
  fdb_transaction_destroy(t1);
  fdb_transaction_destroy(t2);
  return err;
}

TEST("add_conflict_range READ over keys the transaction set takes no conflict there") {
  FDBDatabase* db;
  ASSERT_TRUE(Open("fdblite-memory:cluster_test_ryw_conflicts", &db) == 0);
  std::string k = "ryw/k", k0 = k + std::string(1, '\0');
  // The key the transaction set itself: another writer does not conflict.
  EXPECT_EQ(ConflictCase(db, false, false, k, k, k0, k), 0);
  // A range around it: the own key is exempt, the rest is not.
  EXPECT_EQ(ConflictCase(db, false, false, k, "ryw/a", "ryw/z", k), 0);
  EXPECT_EQ(ConflictCase(db, false, false, k, "ryw/a", "ryw/z", "ryw/j"), 1020);
  // A key it did not write conflicts as always.
  EXPECT_EQ(ConflictCase(db, false, false, k, "ryw/j", "ryw/j0", "ryw/j"), 1020);
  // An atomic operation depends on the database value: the conflict stays.
  EXPECT_EQ(ConflictCase(db, true, false, k, k, k0, k), 1020);
  // Without read-your-writes every read conflict range is kept whole.
  EXPECT_EQ(ConflictCase(db, false, true, k, k, k0, k), 1020);
  fdb_database_destroy(db);
}

}  // namespace
