// faults.cpp: see faults.h.
#include "faults.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "errors.h"

namespace fdblite {

bool FaultConfig::Enabled() const {
  return read_too_old > 0 || read_future_version > 0 ||
         commit_not_committed > 0 || commit_too_old > 0 ||
         commit_unknown_result > 0;
}

bool FaultConfig::Parse(std::string_view text, FaultConfig* out) {
  FaultConfig c;
  std::string s(text);
  std::istringstream in(s);
  std::string field;
  while (in >> field) {
    if (field == "off") continue;
    size_t eq = field.find('=');
    if (eq == std::string::npos || eq + 1 == field.size()) return false;
    std::string name = field.substr(0, eq);
    std::string val = field.substr(eq + 1);
    char* end = nullptr;
    if (name == "seed") {
      unsigned long long v = std::strtoull(val.c_str(), &end, 10);
      if (*end != '\0' || val[0] == '-') return false;
      c.seed = v;
      continue;
    }
    double rate = std::strtod(val.c_str(), &end);
    if (*end != '\0' || !(rate >= 0 && rate <= 1)) return false;
    if (name == "read_too_old") {
      c.read_too_old = rate;
    } else if (name == "read_future_version") {
      c.read_future_version = rate;
    } else if (name == "commit_not_committed") {
      c.commit_not_committed = rate;
    } else if (name == "commit_too_old") {
      c.commit_too_old = rate;
    } else if (name == "commit_unknown_result") {
      c.commit_unknown_result = rate;
    } else {
      return false;
    }
  }
  *out = c;
  return true;
}

std::string FaultConfig::Format() const {
  if (!Enabled() && seed == 0) return "";
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "seed=%llu read_too_old=%g read_future_version=%g "
                "commit_not_committed=%g commit_too_old=%g "
                "commit_unknown_result=%g",
                static_cast<unsigned long long>(seed), read_too_old,
                read_future_version, commit_not_committed, commit_too_old,
                commit_unknown_result);
  return buf;
}

void Faults::Configure(const FaultConfig& config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = config;
  state_ = config.seed;
  enabled_.store(config.Enabled(), std::memory_order_release);
}

FaultConfig Faults::Config() {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

FaultCounters Faults::Counters() {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

double Faults::NextLocked() {
  // splitmix64: small, seedable, good enough to spread faults.
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

Faults::ReadFault Faults::OnReadVersion() {
  ReadFault f;
  if (!enabled_.load(std::memory_order_acquire)) return f;
  std::lock_guard<std::mutex> lock(mu_);
  if (config_.read_too_old > 0 && NextLocked() < config_.read_too_old) {
    f.error = kTransactionTooOld;
  } else if (config_.read_future_version > 0 &&
             NextLocked() < config_.read_future_version) {
    f.error = kFutureVersion;
  }
  if (f.error != 0) f.after = static_cast<int>(NextLocked() * 4);
  return f;
}

void Faults::CountRead(int error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error == kTransactionTooOld) {
    ++counters_.read_too_old;
  } else {
    ++counters_.read_future_version;
  }
}

int Faults::BeforeCommit() {
  if (!enabled_.load(std::memory_order_acquire)) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (config_.commit_not_committed > 0 &&
      NextLocked() < config_.commit_not_committed) {
    ++counters_.commit_not_committed;
    return kNotCommitted;
  }
  if (config_.commit_too_old > 0 && NextLocked() < config_.commit_too_old) {
    ++counters_.commit_too_old;
    return kTransactionTooOld;
  }
  return 0;
}

bool Faults::AfterCommit() {
  if (!enabled_.load(std::memory_order_acquire)) return false;
  std::lock_guard<std::mutex> lock(mu_);
  if (config_.commit_unknown_result > 0 &&
      NextLocked() < config_.commit_unknown_result) {
    ++counters_.commit_unknown_result;
    return true;
  }
  return false;
}

}  // namespace fdblite
