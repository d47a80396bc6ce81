// busyness.cpp: the busyness meter (busyness.h).
#include "busyness.h"

#include <algorithm>

namespace fdblite {
namespace {

int64_t Ns(Busyness::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

Busyness& Busyness::Get() {
  static Busyness* b = new Busyness();  // NoDestructor: used until exit
  return *b;
}

void Busyness::Add(Clock::time_point start, Clock::time_point end) {
  int64_t now = Ns(end);
  RollIfDue(now);
  busy_ns_.fetch_add(std::max<int64_t>(0, now - Ns(start)), std::memory_order_relaxed);
}

double Busyness::Read() {
  measuring_.store(true, std::memory_order_relaxed);
  RollIfDue(Ns(Clock::now()));
  return last_.load(std::memory_order_relaxed);
}

void Busyness::RollIfDue(int64_t now) {
  int64_t start = window_start_ns_.load(std::memory_order_relaxed);
  if (start >= 0 && now - start < kWindowNs) return;
  std::unique_lock<std::mutex> lock(roll_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return;  // another thread is closing it
  start = window_start_ns_.load(std::memory_order_relaxed);
  if (start >= 0 && now - start < kWindowNs) return;
  int64_t busy = busy_ns_.exchange(0, std::memory_order_relaxed);
  if (start >= 0) {
    last_.store(std::min(1.0, static_cast<double>(busy) / static_cast<double>(now - start)),
                std::memory_order_relaxed);
  }
  window_start_ns_.store(now, std::memory_order_relaxed);
}

}  // namespace fdblite
