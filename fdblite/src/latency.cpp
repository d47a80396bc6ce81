// latency.cpp: see latency.h.
#include "latency.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "loop.h"

namespace fdblite {

namespace {

// No modelled delay may exceed this: FoundationDB transactions live 5 s.
constexpr double kMaxDelaySeconds = 10.0;

// ParseDuration reads "<number><unit>" with unit ns, us, ms or s.
bool ParseDuration(const std::string& text, double* seconds) {
  static const struct {
    const char* suffix;
    double scale;
  } kUnits[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};
  for (const auto& u : kUnits) {
    size_t n = std::char_traits<char>::length(u.suffix);
    if (text.size() <= n || text.compare(text.size() - n, n, u.suffix) != 0) continue;
    std::string num = text.substr(0, text.size() - n);
    if (num.empty() || num[0] == '-' || num[0] == '+') return false;
    char* end = nullptr;
    double v = std::strtod(num.c_str(), &end);
    if (*end != '\0' || !(v >= 0)) return false;
    v *= u.scale;
    if (!(v <= kMaxDelaySeconds)) return false;
    *seconds = v;
    return true;
  }
  return false;
}

std::string FormatDuration(double seconds) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%gus", seconds * 1e6);
  return buf;
}

uint64_t SplitMix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

// ---- LatencyConfig ----

LatencyConfig LatencyConfig::Default() {
  LatencyConfig c;
  c.seed = 1;
  c.grv = 650e-6;
  c.read = 550e-6;
  c.commit = 2e-3;
  c.jitter = 0.25;
  return c;
}

bool LatencyConfig::Parse(std::string_view text, LatencyConfig* out) {
  LatencyConfig c;
  std::string s(text);
  std::istringstream in(s);
  std::string field;
  while (in >> field) {
    if (field == "off") continue;
    if (field == "default" || field == "on") {
      c = Default();
      continue;
    }
    size_t eq = field.find('=');
    if (eq == std::string::npos || eq + 1 == field.size()) return false;
    std::string name = field.substr(0, eq);
    std::string val = field.substr(eq + 1);
    char* end = nullptr;
    if (name == "seed") {
      if (val[0] == '-' || val[0] == '+') return false;
      unsigned long long v = std::strtoull(val.c_str(), &end, 10);
      if (*end != '\0') return false;
      c.seed = v;
    } else if (name == "jitter") {
      double v = std::strtod(val.c_str(), &end);
      if (*end != '\0' || !(v >= 0 && v <= 1)) return false;
      c.jitter = v;
    } else if (name == "grv") {
      if (!ParseDuration(val, &c.grv)) return false;
    } else if (name == "read") {
      if (!ParseDuration(val, &c.read)) return false;
    } else if (name == "commit") {
      if (!ParseDuration(val, &c.commit)) return false;
    } else {
      return false;
    }
  }
  *out = c;
  return true;
}

std::string LatencyConfig::Format() const {
  if (!Enabled()) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", jitter);
  return "grv=" + FormatDuration(grv) + " read=" + FormatDuration(read) +
         " commit=" + FormatDuration(commit) + " jitter=" + buf +
         " seed=" + std::to_string(seed);
}

std::string RoundTripCounts::JSON() const {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "{\"read_versions\":%llu,\"read_waves\":%llu,\"commits\":%llu}",
                static_cast<unsigned long long>(read_versions),
                static_cast<unsigned long long>(read_waves),
                static_cast<unsigned long long>(commits));
  return buf;
}

// ---- Latency ----

Latency::Latency() {
  const char* env = std::getenv(kLatencyEnv);
  LatencyConfig c;
  if (env != nullptr && LatencyConfig::Parse(env, &c)) Configure(c);
}

void Latency::Configure(const LatencyConfig& config) {
  std::lock_guard<std::mutex> lock(mu_);
  config_ = config;
  state_ = config.seed;
  enabled_.store(config.Enabled(), std::memory_order_release);
}

LatencyConfig Latency::Config() {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

double Latency::Draw(double base) {
  if (base <= 0) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  if (config_.jitter <= 0) return base;
  double u = static_cast<double>(SplitMix64(&state_) >> 11) * 0x1.0p-53;  // [0, 1)
  return base * (1 - config_.jitter + 2 * config_.jitter * u);
}

double Latency::GrvDelay() {
  if (!enabled()) return 0;
  return Draw(Config().grv);
}

double Latency::ReadDelay() {
  if (!enabled()) return 0;
  return Draw(Config().read);
}

double Latency::CommitDelay() {
  if (!enabled()) return 0;
  return Draw(Config().commit);
}

RoundTripCounts Latency::Counts() const {
  RoundTripCounts c;
  c.read_versions = read_versions_.load(std::memory_order_relaxed);
  c.read_waves = read_waves_.load(std::memory_order_relaxed);
  c.commits = commits_.load(std::memory_order_relaxed);
  return c;
}

// ---- TxnRoundTrips ----

void TxnRoundTrips::ReadVersionRequested() {
  ++counts_.read_versions;
  db_->CountReadVersion();
  rv_ready_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(db_->GrvDelay()));
}

void TxnRoundTrips::ReadVersionSet() { rv_ready_ = Clock::time_point(); }

void TxnRoundTrips::Reset(bool keep_counts) {
  rv_ready_ = Clock::time_point();
  wave_.reset();
  if (!keep_counts) counts_ = RoundTripCounts();
}

TxnRoundTrips::Clock::time_point TxnRoundTrips::ReadVersionReady() const {
  return std::max(Clock::now(), rv_ready_);
}

FuturePtr TxnRoundTrips::After(FuturePtr ready, Clock::time_point when,
                               std::shared_ptr<ReadWave> wave,
                               std::vector<std::function<void()>> first) {
  auto out = std::make_shared<Future>();
  out->SetWave(std::move(wave));
  double delay = std::chrono::duration<double>(when - Clock::now()).count();
  Loop::Get().Schedule(delay, [out, ready, first = std::move(first)] {
    for (auto& fn : first) fn();
    out->Adopt(std::move(*ready));
  });
  return out;
}

FuturePtr TxnRoundTrips::ReadVersion(FuturePtr ready) {
  if (!db_->enabled() || rv_ready_ <= Clock::now()) return ready;
  return After(std::move(ready), rv_ready_, nullptr);
}

FuturePtr TxnRoundTrips::Read(FuturePtr ready) {
  if (!wave_ || wave_->waited.load(std::memory_order_relaxed)) {
    wave_ = std::make_shared<ReadWave>();
    ++counts_.read_waves;
    db_->CountReadWave();
  }
  if (!db_->enabled()) {
    ready->SetWave(wave_);
    return ready;
  }
  auto when = ReadVersionReady() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(db_->ReadDelay()));
  return After(std::move(ready), when, wave_);
}

FuturePtr TxnRoundTrips::MetadataVersionRead(FuturePtr ready) {
  return ReadVersion(std::move(ready));
}

FuturePtr TxnRoundTrips::Commit(FuturePtr ready,
                                std::vector<std::function<void()>>* with) {
  ++counts_.commits;
  db_->CountCommit();
  if (!db_->enabled()) return ready;
  auto when = ReadVersionReady() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(db_->CommitDelay()));
  std::vector<std::function<void()>> first;
  first.swap(*with);
  return After(std::move(ready), when, nullptr, std::move(first));
}

}  // namespace fdblite
