#pragma once
// The browser build's stand-ins for std::thread and std::condition_variable, for SimCache's two
// simulation lanes (gemm_sim.hpp): a page has one thread, so each lane is a fiber (the host
// backend's, tiles/backend/host/fiber_emscripten.hpp) that the page's frame loop runs for a slice
// of time between frames (run_workers). A lane that runs past its slice's end pauses the next time
// one of its warps hands control back (every batch of trace ops), so a long simulation spreads
// over many frames and the page keeps drawing "simulating...". SimCache's code is the desktop's.
//
// Waits: a lane waiting on a CondVar pauses until the next slice; the page itself waiting (get_now,
// wait_idle: tests and checkers) runs the lanes until what it waits for holds.
#ifndef __EMSCRIPTEN__
#error "web_workers.hpp is the browser build's; the desktop uses std::thread"
#endif
#include <emscripten.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "tiles/backend/host/fiber.hpp"  // its fibers are fiber_emscripten.hpp's; current_warp

namespace ts::viz::web {

namespace fib = ts::host::emfiber;

struct Worker {
  fib::fiber self;  // while paused
  fib::fiber back;  // the page's context, while running (empty while pause_worker switches away)
  const void* context = nullptr;  // the worker's own context, once started
  bool finished = false;
  bool pausing = false;  // inside pause_worker: the return hook must not pause it again
  // The host backend's warp this worker was running when it paused (see pause_worker).
  ts::host::Warp* warp = nullptr;
  // Time this worker has run, its slices summed: the page's stand-in for a thread's CPU time
  // (thread_cpu_ms), so that a simulation's time in the page compares with the desktop's.
  double run_ms = 0, resumed_at_ms = 0;
};

struct Pool {
  std::vector<Worker*> workers;
  Worker* running = nullptr;
  double deadline_ms = 0;  // the running slice ends then (emscripten_get_now's clock)
  uint64_t notifies = 0;   // CondVar notifications so far: a lane that waits runs again only after one
};

inline Pool& pool() {
  static Pool p;
  return p;
}

// From inside a worker: back to the page; returns when the next slice resumes this worker.
//
// Two things a desktop thread has to itself are the worker's to keep here:
// - `w->back` is empty from the moment the switch starts until it returns, and the return hook
//   runs inside that switch when the page resumes the worker: were the hook to pause again there
//   (a worker resumed after its slice's end, e.g. the second lane after the first used the whole
//   slice), it would switch to an empty handle, the page's frame would never be resumed and every
//   later frame would run on the worker's stack with the pool still marked running (the lesson app
//   stopped simulating at its first simulated step). Hence `pausing`.
// - the host backend's current warp (a thread_local: one per desktop thread) is set while a lane
//   runs a warp's batch and the hook may pause the lane right there; the page or the other lane
//   must not see it (TracedBlock and run_block refuse to start inside a warp), so the lane takes it
//   along and puts it back when resumed.
inline void pause_worker() {
  Worker* w = pool().running;
  w->warp = std::exchange(ts::host::current_warp, nullptr);
  w->pausing = true;
  w->back = std::move(w->back).resume();
  w->pausing = false;
  ts::host::current_warp = std::exchange(w->warp, nullptr);
}

// The fiber layer calls this whenever a context regains control from a fiber it resumed: a
// worker whose slice is over pauses there (but not while it is being resumed by the page).
inline void on_return() {
  Pool& p = pool();
  if (p.running && !p.running->pausing && fib::running_context() == p.running->context &&
      emscripten_get_now() > p.deadline_ms)
    pause_worker();
}

inline void resume_worker(Worker& w) {
  Pool& p = pool();
  Worker* outer = std::exchange(p.running, &w);
  w.resumed_at_ms = emscripten_get_now();
  w.self = std::move(w.self).resume();
  w.run_ms += emscripten_get_now() - w.resumed_at_ms;
  p.running = outer;
}

// The running worker's time so far (its earlier slices and this one's part); 0 from the page.
inline double worker_run_ms() {
  const Worker* w = pool().running;
  return w ? w->run_ms + (emscripten_get_now() - w->resumed_at_ms) : 0;
}

// Runs the workers, each in turn, until `budget_ms` have passed or none has anything to do
// (every one waiting with nothing notified since). The page calls it once per frame.
inline void run_workers(double budget_ms) {
  Pool& p = pool();
  if (p.running) return;  // not from inside a worker
  fib::set_return_hook(&on_return);
  const double end = emscripten_get_now() + budget_ms;
  while (emscripten_get_now() < end) {
    const uint64_t notified = p.notifies;
    bool ran = false;
    for (Worker* w : std::vector<Worker*>(p.workers)) {
      if (w->finished) continue;
      p.deadline_ms = end;
      resume_worker(*w);
      ran = true;
    }
    if (!ran || p.notifies == notified) break;  // all waiting, and nobody woke anyone
  }
}

// std::thread's part that SimCache uses: start at construction, join at destruction.
class Thread {
 public:
  Thread() = default;
  template <typename F>
  explicit Thread(F&& f) : w_(std::make_unique<Worker>()) {
    Worker* w = w_.get();
    w->self = fib::fiber(std::allocator_arg, fib::protected_fixedsize_stack(1 << 20),
                         [w, fn = std::function<void()>(std::forward<F>(f))](fib::fiber&& page) mutable {
                           w->back = std::move(page);
                           w->context = fib::running_context();
                           fn();
                           w->finished = true;
                           return std::move(w->back);
                         });
    pool().workers.push_back(w);
  }
  Thread(Thread&&) = default;
  Thread& operator=(Thread&&) = default;
  ~Thread() {
    if (w_) {
      auto& ws = pool().workers;
      ws.erase(std::remove(ws.begin(), ws.end(), w_.get()), ws.end());
    }
  }
  bool joinable() const { return w_ && !w_->finished; }
  // Runs the worker until its function returns (SimCache's destructor has told it to stop).
  void join() {
    while (w_ && !w_->finished) resume_worker(*w_);
  }

 private:
  std::unique_ptr<Worker> w_;
};

// std::condition_variable's part that SimCache uses, over one thread of fibers.
class CondVar {
 public:
  void notify_one() { ++pool().notifies; }
  void notify_all() { ++pool().notifies; }

  template <typename Lock, typename Pred>
  void wait(Lock& lock, Pred pred) {
    while (!pred()) wait_once(lock);
  }
  template <typename Lock, typename Rep, typename Period, typename Pred>
  bool wait_for(Lock& lock, const std::chrono::duration<Rep, Period>& d, Pred pred) {
    const double end = emscripten_get_now() + std::chrono::duration<double, std::milli>(d).count();
    while (!pred()) {
      if (emscripten_get_now() >= end) return pred();
      wait_once(lock);
    }
    return true;
  }

 private:
  // In a worker: pause until the next slice. In the page: run the workers for a while.
  template <typename Lock>
  void wait_once(Lock& lock) {
    lock.unlock();
    if (pool().running) pause_worker();
    else run_workers(50);
    lock.lock();
  }
};

}  // namespace ts::viz::web
