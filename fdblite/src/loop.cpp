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
  while (!stop_) {
    if (tasks_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = tasks_.begin();
    if (first->first > Clock::now()) {
      cv_.wait_until(lock, first->first);
      continue;
    }
    std::function<void()> fn = std::move(first->second);
    tasks_.erase(first);
    lock.unlock();
    fn();
    lock.lock();
  }
  running_ = false;
  thread_ = std::thread::id();
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
