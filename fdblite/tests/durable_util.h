// durable_util.h: what the durable databases' tests share: a temporary
// directory, opening, committing mutations and reading at the Database level.
#ifndef FDBLITE_TESTS_DURABLE_UTIL_H_
#define FDBLITE_TESTS_DURABLE_UTIL_H_

#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "database.h"

namespace fdblite_test {

using fdblite::CommitRequest;
using fdblite::CommitResult;
using fdblite::Database;
using fdblite::Deferred;
using fdblite::KeyRange;
using fdblite::Mutation;
using fdblite::Version;

// TempDir is a fresh directory removed with everything in it at scope end.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/fdblite-durable-XXXXXX";
    path_ = mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

inline std::shared_ptr<Database> MustOpen(const std::string& dir) {
  std::shared_ptr<Database> db;
  std::string detail;
  int err = Database::OpenDurable(dir, &db, &detail);
  if (err != 0) {
    std::fprintf(stderr, "open %s: %d %s\n", dir.c_str(), err, detail.c_str());
    std::abort();
  }
  return db;
}

inline CommitResult CommitMutations(Database& db, std::vector<Mutation> muts) {
  std::vector<KeyRange> reads, writes;
  for (const Mutation& m : muts) writes.push_back({m.key, m.key + '\0'});
  CommitRequest req;
  req.read_version = db.GetReadVersion();
  req.reads = &reads;
  req.writes = &writes;
  req.mutations = &muts;
  req.api_version = 730;
  Deferred work;
  CommitResult r = db.Commit(req, &work);
  for (auto& fn : work) fn();
  return r;
}

inline Mutation Set(const std::string& k, const std::string& v) {
  return Mutation{Mutation::kSet, 0, k, v, 0};
}

// Get reads key at a fresh read version; "<absent>" when it has no value.
inline std::string Get(Database& db, const std::string& key) {
  Version rv = db.GetReadVersion();
  if (db.CheckReadVersion(rv) != 0) return "<unreadable>";
  auto lock = db.ReadLock();
  std::string v;
  return db.reader().Get(key, rv, &v) ? v : "<absent>";
}

}  // namespace fdblite_test

#endif  // FDBLITE_TESTS_DURABLE_UTIL_H_
