// cluster_file.cpp: cluster files and connection strings (cluster_file.h).
#include "cluster_file.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <system_error>

#include "errors.h"

namespace fdblite {
namespace {

bool AllOf(const std::string& s, bool underscore) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (!std::isalnum(c) && !(underscore && c == '_')) return false;
  }
  return true;
}

// ValidPort: 1 to 65535, digits only.
bool ValidPort(const std::string& s) {
  if (s.empty() || s.size() > 5) return false;
  for (unsigned char c : s) {
    if (!std::isdigit(c)) return false;
  }
  long n = std::strtol(s.c_str(), nullptr, 10);
  return n >= 1 && n <= 65535;
}

// ValidHost: an IPv4 address or host name, or a bracketed IPv6 address.
bool ValidHost(const std::string& h) {
  if (h.empty()) return false;
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']') return false;
    for (size_t i = 1; i + 1 < h.size(); ++i) {
      unsigned char c = h[i];
      if (!std::isxdigit(c) && c != ':' && c != '.') return false;
    }
    return true;
  }
  for (unsigned char c : h) {
    if (!std::isalnum(c) && c != '.' && c != '-') return false;
  }
  return h.front() != '.' && h.front() != '-';
}

// ValidAddress: host:port or host:port:tls.
bool ValidAddress(std::string a) {
  const std::string tls = ":tls";
  if (a.size() > tls.size() && a.compare(a.size() - tls.size(), tls.size(), tls) == 0) {
    a.resize(a.size() - tls.size());
  }
  size_t colon = a.rfind(':');
  if (colon == std::string::npos) return false;
  return ValidHost(a.substr(0, colon)) && ValidPort(a.substr(colon + 1));
}

// Strip drops comments (`#` to the end of the line) and all whitespace.
std::string Strip(const std::string& s) {
  std::string out;
  bool comment = false;
  for (unsigned char c : s) {
    if (c == '\n' || c == '\r') {
      comment = false;
      continue;
    }
    if (c == '#') comment = true;
    if (comment || std::isspace(c)) continue;
    out.push_back(static_cast<char>(c));
  }
  return out;
}

bool HasPrefix(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

// Synthesized gives an fdblite form its connection string: description
// fdblite, ID a hash of the form's key, one local coordinator.
ConnectionString Synthesized(const std::string& key) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char id[17];
  std::snprintf(id, sizeof id, "%016llx", static_cast<unsigned long long>(h));
  return ConnectionString{"fdblite", id, {"127.0.0.1:4500"}};
}

std::string ClusterKey(const ConnectionString& cs) {
  return "cluster:" + cs.description + ":" + cs.id;
}

bool IsFile(const std::string& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

}  // namespace

std::string ConnectionString::Text() const {
  std::string s = description + ":" + id + "@";
  for (size_t i = 0; i < coordinators.size(); ++i) {
    if (i) s += ",";
    s += coordinators[i];
  }
  return s;
}

bool ParseConnectionString(const std::string& content, ConnectionString* out) {
  std::string s = Strip(content);
  size_t at = s.find('@');
  if (at == std::string::npos || s.find('@', at + 1) != std::string::npos) return false;
  std::string key = s.substr(0, at), addrs = s.substr(at + 1);
  size_t colon = key.find(':');
  if (colon == std::string::npos) return false;
  ConnectionString cs;
  cs.description = key.substr(0, colon);
  cs.id = key.substr(colon + 1);
  if (!AllOf(cs.description, true) || !AllOf(cs.id, false)) return false;
  std::set<std::string> seen;
  size_t pos = 0;
  for (;;) {
    size_t comma = addrs.find(',', pos);
    std::string a = addrs.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!ValidAddress(a) || !seen.insert(a).second) return false;  // no duplicates
    cs.coordinators.push_back(a);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  *out = std::move(cs);
  return true;
}

int ResolveConnectionString(const std::string& text, const std::string& base_dir,
                            DatabaseName* out) {
  DatabaseName n;
  if (HasPrefix(text, kDirPrefix)) {
    std::string dir = text.substr(sizeof kDirPrefix - 1);
    if (dir.empty()) return kConnectionStringInvalid;
    std::filesystem::path p(dir);
    if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
    // One database per directory however it is spelled.
    std::error_code ec;
    auto canon = std::filesystem::weakly_canonical(p, ec);
    n.dir = ec ? p.string() : canon.string();
    n.key = kDirPrefix + n.dir;
    n.connection = Synthesized(n.key);
    n.alias = ClusterKey(n.connection);
  } else if (HasPrefix(text, kMemoryPrefix)) {
    if (text.size() == sizeof kMemoryPrefix - 1) return kConnectionStringInvalid;
    n.key = text;
    n.connection = Synthesized(n.key);
    n.alias = ClusterKey(n.connection);
  } else {
    if (!ParseConnectionString(text, &n.connection)) return kConnectionStringInvalid;
    n.key = ClusterKey(n.connection);
  }
  *out = std::move(n);
  return 0;
}

int ResolveClusterFile(const char* path_arg, DatabaseName* out) {
  std::string path = path_arg ? path_arg : "";
  if (HasPrefix(path, kDirPrefix) || HasPrefix(path, kMemoryPrefix)) {
    return ResolveConnectionString(path, "", out);
  }
  if (path.empty()) {
    const char* data_dir = std::getenv("FDBLITE_DATA_DIR");
    const char* env = std::getenv("FDB_CLUSTER_FILE");
    if (data_dir && *data_dir) {
      return ResolveConnectionString(kDirPrefix + std::string(data_dir), "", out);
    } else if (env && *env) {
      path = env;  // must exist, as FoundationDB's client requires
    } else if (IsFile("fdb.cluster")) {
      path = "fdb.cluster";
    } else if (IsFile("/etc/foundationdb/fdb.cluster")) {
      path = "/etc/foundationdb/fdb.cluster";
    } else {
      return ResolveConnectionString(kDefaultConnectionString, "", out);
    }
  }
  if (!IsFile(path)) return kNoClusterFileFound;
  std::ifstream in(path, std::ios::binary);
  if (!in) return kFileNotReadable;
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) return kIoError;
  // An fdblite form keeps its spaces (a directory may have some); a
  // connection string loses them in parsing.
  std::string text;
  bool comment = false;
  for (char c : content.str()) {
    if (c == '\n' || c == '\r') comment = false;
    if (c == '#') comment = true;
    if (!comment) text.push_back(c);
  }
  size_t b = text.find_first_not_of(" \t\r\n\v\f");
  if (b == std::string::npos) return kConnectionStringInvalid;
  text = text.substr(b, text.find_last_not_of(" \t\r\n\v\f") - b + 1);
  std::string base = std::filesystem::path(path).parent_path().string();
  return ResolveConnectionString(text, base.empty() ? "." : base, out);
}

}  // namespace fdblite
