// key_audit.cpp: see key_audit.h.
#include "key_audit.h"

#include <algorithm>
#include <set>

namespace fdblite {

namespace {

std::string Hex(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() * 2);
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace

void KeyAudit::Set(bool on) {
  std::lock_guard<std::mutex> lock(mu_);
  transactions_ = 0;
  writes_.clear();
  reads_.clear();
  on_.store(on, std::memory_order_release);
}

void KeyAudit::Count(const std::vector<KeyRange>& ranges, Counts* counts) {
  std::set<std::pair<std::string, std::string>> seen;
  for (const KeyRange& r : ranges) {
    if (seen.insert({r.begin, r.end}).second) ++(*counts)[{r.begin, r.end}];
  }
}

void KeyAudit::Record(const std::vector<KeyRange>& reads,
                      const std::vector<KeyRange>& writes) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(mu_);
  ++transactions_;
  Count(reads, &reads_);
  Count(writes, &writes_);
}

std::string KeyAudit::Top(const Counts& counts) {
  std::vector<std::pair<uint64_t, const std::pair<std::string, std::string>*>> all;
  all.reserve(counts.size());
  for (const auto& [range, n] : counts) all.push_back({n, &range});
  // Most first; the map's key order breaks ties (stable).
  std::stable_sort(all.begin(), all.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (all.size() > kTop) all.resize(kTop);
  std::string out = "[";
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) out += ",";
    out += "{\"begin\":\"" + Hex(all[i].second->first) + "\",\"end\":\"" +
           Hex(all[i].second->second) + "\",\"count\":" + std::to_string(all[i].first) + "}";
  }
  return out + "]";
}

std::string KeyAudit::JSON() {
  std::lock_guard<std::mutex> lock(mu_);
  return "{\"transactions\":" + std::to_string(transactions_) +
         ",\"writes\":" + Top(writes_) + ",\"reads\":" + Top(reads_) + "}";
}

}  // namespace fdblite
