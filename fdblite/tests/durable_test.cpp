// durable_test.cpp: durable databases (durable.h) at the Database level:
// commits survive close and reopen, versions keep increasing, group commit,
// the directory lock, and the failures an operator meets (corrupt or
// truncated files, a full disk). Crash tests (kill -9 of a writer process)
// are Go tests in fdblite/crashtest.
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "atomic.h"
#include "database.h"
#include "durable_util.h"
#include "errors.h"
#include "test.h"

namespace {

using fdblite::CommitRequest;
using fdblite::CommitResult;
using fdblite::Database;
using fdblite::Deferred;
using fdblite::KeyRange;
using fdblite::Mutation;
using fdblite::Version;
using fdblite_test::CommitMutations;
using fdblite_test::Get;
using fdblite_test::MustOpen;
using fdblite_test::Set;
using fdblite_test::TempDir;

std::string LE64(int64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(n >> (8 * i));
  return s;
}

TEST("durable: commits survive close and reopen, versions keep increasing") {
  TempDir dir;
  Version last;
  {
    auto db = MustOpen(dir.path());
    EXPECT_EQ(CommitMutations(*db, {Set("a", "1"), Set("b", "2")}).error, 0);
    EXPECT_EQ(CommitMutations(*db, {Mutation{Mutation::kClear, 0, "a", "", 0}}).error, 0);
    EXPECT_EQ(CommitMutations(*db, {Mutation{Mutation::kAtomic, FDB_MUTATION_TYPE_ADD, "n",
                                             LE64(5), 0}}).error, 0);
    EXPECT_EQ(CommitMutations(*db, {Mutation{Mutation::kAtomic, FDB_MUTATION_TYPE_ADD, "n",
                                             LE64(7), 0}}).error, 0);
    EXPECT_EQ(CommitMutations(*db, {Set("r/1", "x"), Set("r/2", "x"), Set("r/3", "x")}).error, 0);
    EXPECT_EQ(CommitMutations(*db, {Mutation{Mutation::kClearRange, 0, "r/1", "r/3", 0}}).error,
              0);
    // A versionstamped key: the stamp's first 8 bytes are the commit version.
    CommitResult r = CommitMutations(
        *db, {Mutation{Mutation::kStampedKey, 0, std::string("s/") + std::string(10, '\0'), "v", 2}});
    EXPECT_EQ(r.error, 0);
    last = r.version;
    EXPECT_EQ(Get(*db, "b"), "2");
  }
  auto db = MustOpen(dir.path());
  EXPECT_EQ(Get(*db, "a"), "<absent>");
  EXPECT_EQ(Get(*db, "b"), "2");
  EXPECT_EQ(Get(*db, "n"), LE64(12));
  EXPECT_EQ(Get(*db, "r/1"), "<absent>");
  EXPECT_EQ(Get(*db, "r/2"), "<absent>");
  EXPECT_EQ(Get(*db, "r/3"), "x");
  std::string stamped = "s/" + std::string(10, '\0');
  fdblite::WriteVersionstamp(&stamped, 2, last, 0);
  EXPECT_EQ(Get(*db, stamped), "v");
  // After a restart every version (read and commit) is above the last one.
  EXPECT_TRUE(db->GetReadVersion() > last);
  CommitResult r = CommitMutations(*db, {Set("c", "3")});
  EXPECT_EQ(r.error, 0);
  EXPECT_TRUE(r.version > last);
  EXPECT_TRUE(db->StatsJSON().find("\"mode\":\"durable\"") != std::string::npos);
}

TEST("durable: an empty value and binary keys round-trip") {
  TempDir dir;
  std::string key("k\0\xff", 3);
  {
    auto db = MustOpen(dir.path());
    EXPECT_EQ(CommitMutations(*db, {Set(key, ""), Set("z", std::string(100000, 'z'))}).error, 0);
  }
  auto db = MustOpen(dir.path());
  EXPECT_EQ(Get(*db, key), "");
  EXPECT_EQ(Get(*db, "z"), std::string(100000, 'z'));
}

TEST("durable: concurrent commits share fsyncs (group commit)") {
  TempDir dir;
  constexpr int kThreads = 32, kEach = 20;
  {
    auto db = MustOpen(dir.path());
    std::vector<std::thread> threads;
    std::atomic<int> failed{0};
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kEach; ++i) {
          std::string k = "t" + std::to_string(t) + "/" + std::to_string(i);
          if (CommitMutations(*db, {Set(k, k)}).error != 0) failed++;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failed.load(), 0);
    std::string stats = db->StatsJSON();
    auto groups_at = stats.find("\"groups\":");
    ASSERT_TRUE(groups_at != std::string::npos);
    long groups = std::atol(stats.c_str() + groups_at + 9);
    EXPECT_TRUE(groups > 0);
    EXPECT_TRUE(groups < kThreads * kEach);  // some commits shared an fsync
  }
  auto db = MustOpen(dir.path());
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kEach; ++i) {
      std::string k = "t" + std::to_string(t) + "/" + std::to_string(i);
      EXPECT_EQ(Get(*db, k), k);
    }
  }
}

TEST("durable: a second opener of the directory gets lock_file_failure") {
  TempDir dir;
  auto db = MustOpen(dir.path());
  std::shared_ptr<Database> second;
  std::string detail;
  EXPECT_EQ(Database::OpenDurable(dir.path(), &second, &detail), fdblite::kLockFileFailure);
  EXPECT_TRUE(detail.find("in use by another process") != std::string::npos);
  EXPECT_TRUE(second == nullptr);
  db.reset();  // closing releases the directory
  EXPECT_EQ(Database::OpenDurable(dir.path(), &second, &detail), 0);
}

TEST("durable: a data directory under a regular file is an error") {
  TempDir dir;
  std::ofstream(dir.file("plain")) << "x";
  std::shared_ptr<Database> db;
  std::string detail;
  int err = Database::OpenDurable(dir.file("plain") + "/data", &db, &detail);
  EXPECT_EQ(err, fdblite::kIoError);
  EXPECT_TRUE(detail.find("create data directory") != std::string::npos);
}

TEST("durable: a corrupted database file is file_corrupt at open") {
  TempDir dir;
  {
    auto db = MustOpen(dir.path());
    EXPECT_EQ(CommitMutations(*db, {Set("a", "1")}).error, 0);
  }
  {
    std::fstream f(dir.file("fdblite.sqlite"), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0);
    f << "this is not an SQLite database header";
  }
  std::shared_ptr<Database> db;
  std::string detail;
  EXPECT_EQ(Database::OpenDurable(dir.path(), &db, &detail), fdblite::kFileCorrupt);
  EXPECT_TRUE(!detail.empty());
}

TEST("durable: a truncated database file is file_corrupt at open") {
  TempDir dir;
  {
    auto db = MustOpen(dir.path());
    for (int i = 0; i < 200; ++i) {
      EXPECT_EQ(CommitMutations(*db, {Set("k" + std::to_string(i), std::string(1000, 'v'))}).error,
                0);
    }
  }
  auto size = std::filesystem::file_size(dir.file("fdblite.sqlite"));
  EXPECT_TRUE(size > 100000);
  std::filesystem::resize_file(dir.file("fdblite.sqlite"), size / 2);
  std::shared_ptr<Database> db;
  std::string detail;
  EXPECT_EQ(Database::OpenDurable(dir.path(), &db, &detail), fdblite::kFileCorrupt);
}

TEST("durable: a full disk fails commits with io_error, keeps reads, loses nothing acknowledged") {
  TempDir dir;
  int acknowledged = 0;
  {
    setenv("FDBLITE_DURABLE_MAX_PAGES", "64", 1);  // SQLite's max_page_count: SQLITE_FULL
    auto db = MustOpen(dir.path());
    unsetenv("FDBLITE_DURABLE_MAX_PAGES");
    int err = 0;
    for (int i = 0; i < 1000 && err == 0; ++i) {
      err = CommitMutations(*db, {Set("k" + std::to_string(i), std::string(2000, 'v'))}).error;
      if (err == 0) acknowledged++;
    }
    EXPECT_EQ(err, fdblite::kIoError);
    EXPECT_TRUE(acknowledged > 0);
    // Failed for good: later commits fail at once, and write nothing.
    EXPECT_EQ(CommitMutations(*db, {Set("small", "x")}).error, fdblite::kIoError);
    // Reads still see every acknowledged commit, and nothing else.
    EXPECT_EQ(Get(*db, "k0"), std::string(2000, 'v'));
    EXPECT_EQ(Get(*db, "k" + std::to_string(acknowledged)), "<absent>");
    EXPECT_EQ(Get(*db, "small"), "<absent>");
    std::string stats = db->StatsJSON();
    EXPECT_TRUE(stats.find("\"error\":1510") != std::string::npos);
    EXPECT_TRUE(stats.find("disk is full") != std::string::npos);
  }
  auto db = MustOpen(dir.path());
  for (int i = 0; i < acknowledged; ++i) {
    EXPECT_EQ(Get(*db, "k" + std::to_string(i)), std::string(2000, 'v'));
  }
  EXPECT_EQ(Get(*db, "k" + std::to_string(acknowledged)), "<absent>");
  EXPECT_EQ(CommitMutations(*db, {Set("small", "x")}).error, 0);  // space again: writable
}

TEST("durable: fdb_create_database opens fdblite-dir: names durably") {
  TempDir dir;
  int selected = fdb_select_api_version(730);
  EXPECT_TRUE(selected == 0 || selected == 2201);  // 2201: another test selected it
  FDBDatabase* db = nullptr;
  // No directory named: a malformed name, reported by the database's
  // operations (cluster_test.cpp), not by its creation.
  EXPECT_EQ(fdb_create_database("fdblite-dir:", &db), 0);
  fdb_database_destroy(db);
  db = nullptr;
  std::string name = "fdblite-dir:" + dir.path() + "/sub";
  ASSERT_TRUE(fdb_create_database(name.c_str(), &db) == 0);
  FDBDatabase* again = nullptr;
  // The same directory spelled differently is the same database, not a
  // second opener.
  std::string other = "fdblite-dir:" + dir.path() + "/./sub/";
  EXPECT_EQ(fdb_create_database(other.c_str(), &again), 0);
  fdb_database_destroy(again);
  fdb_database_destroy(db);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/sub/fdblite.sqlite"));
}

}  // namespace
