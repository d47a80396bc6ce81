// loop.cpp: see loop.h.
#include "loop.h"

#include "errors.h"

namespace fdblite {

Loop& Loop::Get() {
  static Loop* loop = new Loop();  // NoDestructor: callbacks may arrive at exit
  return *loop;
}

int Loop::Setup() {
  std::lock_guard<std::mutex> lock(mu_);
  if (setup_) return kNetworkAlreadySetup;
  setup_ = true;
  return 0;
}

int Loop::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!setup_) return kNetworkNotSetup;
  if (ran_) return kNetworkCannotBeRestarted;
  ran_ = running_ = true;
  thread_ = std::this_thread::get_id();
  // The thread is busy from `busy_since` until it next waits; the meter
  // closes a window at least once a second, waking the loop to do it.
  Clock::time_point busy_since = Clock::now();
  meter_.Start(busy_since);
  auto wait_until = [&](Clock::time_point when) {
    Clock::time_point now = Clock::now();
    meter_.Add(now - busy_since);
    cv_.wait_until(lock, when);
    busy_since = Clock::now();
  };
  while (!stop_) {
    Clock::time_point now = Clock::now();
    if (now >= meter_.WindowEnd()) {
      meter_.Add(now - busy_since);
      busy_since = now;
      meter_.RollIfDue(now);
    }
    if (tasks_.empty() || tasks_.begin()->first > now) {
      Clock::time_point when = meter_.WindowEnd();
      if (!tasks_.empty() && tasks_.begin()->first < when) when = tasks_.begin()->first;
      wait_until(when);
      continue;
    }
    auto first = tasks_.begin();
    std::function<void()> fn = std::move(first->second);
    tasks_.erase(first);
    lock.unlock();
    fn();
    lock.lock();
  }
  running_ = false;
  thread_ = std::thread::id();
  meter_.Clear();
  return 0;
}

int Loop::Stop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!setup_) return kNetworkNotSetup;
  stop_ = true;
  cv_.notify_all();
  return 0;
}

void Loop::Schedule(double delay_seconds, std::function<void()> fn) {
  if (delay_seconds < 0) delay_seconds = 0;
  auto when = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(delay_seconds));
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.emplace(when, std::move(fn));
  cv_.notify_all();
}

bool Loop::OnLoopThread() {
  std::lock_guard<std::mutex> lock(mu_);
  return running_ && thread_ == std::this_thread::get_id();
}

}  // namespace fdblite
