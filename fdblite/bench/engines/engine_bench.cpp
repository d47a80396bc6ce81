// engine_bench: how fast can a candidate embedded engine make commits
// durable on this machine? This is the measurement behind fdblite's choice of
// storage engine (fdblite/README.md, "Durable mode").
//
// For each engine it commits transactions of `group` key writes (100-byte
// values, random 16-byte keys), each commit synchronously durable (fsync),
// and reports commits per second and key writes per second. group=1 is one
// writer without group commit; group=64 is what group commit makes of 64
// concurrent writers sharing one fsync.
//
//   make -C fdblite engine-bench        (needs liblmdb-dev for the LMDB part)
#include <lmdb.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace {

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string RandomKey(std::mt19937_64& rng) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "engine_bench: %s failed\n", what);
    std::exit(1);
  }
}

void BenchSqlite(const std::string& dir, int commits, int group) {
  std::string path = dir + "/sqlite-" + std::to_string(group) + ".db";
  sqlite3* db = nullptr;
  Check(sqlite3_open(path.c_str(), &db) == SQLITE_OK, "sqlite3_open");
  Check(sqlite3_exec(db,
                     "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                     "CREATE TABLE kv(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID;",
                     nullptr, nullptr, nullptr) == SQLITE_OK,
        "sqlite schema");
  sqlite3_stmt* put = nullptr;
  Check(sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO kv(k, v) VALUES(?, ?)", -1, &put,
                           nullptr) == SQLITE_OK,
        "prepare");
  std::mt19937_64 rng(1);
  std::string value(100, 'v');
  auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < commits; ++c) {
    Check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK, "begin");
    for (int i = 0; i < group; ++i) {
      std::string k = RandomKey(rng);
      sqlite3_bind_blob(put, 1, k.data(), static_cast<int>(k.size()), SQLITE_TRANSIENT);
      sqlite3_bind_blob(put, 2, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
      Check(sqlite3_step(put) == SQLITE_DONE, "insert");
      sqlite3_reset(put);
    }
    Check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK, "commit");
  }
  double s = Seconds(t0);
  std::printf("sqlite %s  WAL synchronous=FULL  group=%-3d  %7.0f commits/s  %8.0f writes/s\n",
              sqlite3_libversion(), group, commits / s, commits * group / s);
  sqlite3_finalize(put);
  sqlite3_close(db);
}

void BenchLmdb(const std::string& dir, int commits, int group) {
  std::string path = dir + "/lmdb-" + std::to_string(group);
  Check(system(("mkdir -p " + path).c_str()) == 0, "mkdir");
  MDB_env* env = nullptr;
  Check(mdb_env_create(&env) == 0, "mdb_env_create");
  Check(mdb_env_set_mapsize(env, size_t{1} << 30) == 0, "mapsize");
  Check(mdb_env_open(env, path.c_str(), 0, 0644) == 0, "mdb_env_open");
  MDB_dbi dbi;
  std::mt19937_64 rng(1);
  std::string value(100, 'v');
  auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < commits; ++c) {
    MDB_txn* txn = nullptr;
    Check(mdb_txn_begin(env, nullptr, 0, &txn) == 0, "txn_begin");
    Check(mdb_dbi_open(txn, nullptr, 0, &dbi) == 0, "dbi_open");
    for (int i = 0; i < group; ++i) {
      std::string k = RandomKey(rng);
      MDB_val key{k.size(), k.data()};
      MDB_val val{value.size(), value.data()};
      Check(mdb_put(txn, dbi, &key, &val, 0) == 0, "mdb_put");
    }
    Check(mdb_txn_commit(txn) == 0, "txn_commit");
  }
  double s = Seconds(t0);
  int maj, min, pat;
  mdb_version(&maj, &min, &pat);
  std::printf("lmdb %d.%d.%d  default sync (fsync per commit)  group=%-3d  %7.0f commits/s  %8.0f writes/s\n",
              maj, min, pat, group, commits / s, commits * group / s);
  mdb_env_close(env);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: engine_bench DIR [COMMITS]\n");
    return 2;
  }
  std::string dir = argv[1];
  int commits = argc > 2 ? std::atoi(argv[2]) : 1000;
  for (int group : {1, 64}) {
    BenchSqlite(dir, commits, group);
    BenchLmdb(dir, commits, group);
  }
  return 0;
}
