#pragma once
// The host backend's fibers in a browser: the few pieces of Boost.Context that fiber.hpp and
// trace.hpp use (a one-shot `fiber` continuation, its stack allocator, forced unwinding on
// destruction), built on Emscripten's fibers (emscripten_fiber_swap; link with -sASYNCIFY).
// fiber.hpp picks this file or Boost.Context at compile time, so the scheduler, trace mode and
// every kernel run unchanged on either.
//
// The model is Boost's: a `fiber` handle names a suspended context and is its only owner;
// `std::move(f).resume()` switches to it and returns a handle to whoever switches back (empty
// once `f` has finished). Destroying the handle of a started, unfinished fiber throws
// `detail::forced_unwind` at its suspension point, so its stack's destructors run; the fiber's
// function must let that exception through (fiber.hpp and trace.hpp rethrow it).
//
// One addition for the browser, where there is one thread and the page must keep drawing:
// `set_return_hook` names a function called every time control comes back to a context from a
// fiber it resumed. viz/lesson/web_workers.hpp uses it to pause a long simulation between frames.
#ifndef __EMSCRIPTEN__
#error "fiber_emscripten.hpp is the Emscripten build's fiber layer; native builds use Boost.Context"
#endif
#include <emscripten/fiber.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <utility>

namespace ts::host::emfiber {

struct stack_context {
  void* sp = nullptr;  // the stack's highest address (stacks grow down), as Boost's
  std::size_t size = 0;
};

// No guard pages in WebAssembly's linear memory: a plain allocation of the asked-for size.
class protected_fixedsize_stack {
 public:
  explicit protected_fixedsize_stack(std::size_t bytes = 128 * 1024) : bytes_(bytes) {}
  stack_context allocate() {
    void* p = std::malloc(bytes_);
    if (!p) throw std::bad_alloc();
    return {static_cast<char*>(p) + bytes_, bytes_};
  }
  void deallocate(stack_context& sc) {
    if (sc.sp) std::free(static_cast<char*>(sc.sp) - sc.size);
    sc = {};
  }

 private:
  std::size_t bytes_;
};

namespace detail {

struct Context;

// Thrown inside a fiber whose handle is destroyed; carries the context to return to.
struct forced_unwind {
  Context* to = nullptr;
};

struct Context {
  emscripten_fiber_t ef{};
  bool created = false;   // made by a fiber constructor (not a thread's own context)
  bool started = false, finished = false, unwinding = false;
  Context* from = nullptr;  // who switched to this context last
  // A created context's function and stacks (the C stack, and Asyncify's copy of the wasm call
  // stack while suspended).
  std::function<Context*(Context*)> run;
  stack_context stack;
  std::function<void(stack_context&)> free_stack;
  std::unique_ptr<char[]> asyncify_stack;
};

// The running context of this thread; the thread's own context is made on first use.
inline Context*& running() {
  thread_local Context* cur = nullptr;
  if (!cur) {
    constexpr std::size_t kMainAsyncify = 1 << 20;  // the whole call stack below the first switch
    thread_local Context self;
    thread_local std::unique_ptr<char[]> buf(new char[kMainAsyncify]);
    emscripten_fiber_init_from_current_context(&self.ef, buf.get(), kMainAsyncify);
    self.started = true;
    cur = &self;
  }
  return cur;
}

inline void (*&return_hook())() {
  thread_local void (*hook)() = nullptr;
  return hook;
}

inline void destroy(Context* c) {
  if (c->free_stack) c->free_stack(c->stack);
  delete c;
}

// Switches from the running context to `to`; returns, in the running context, once something
// switches back: the context that did (nullptr if it finished, which is then freed).
inline Context* switch_to(Context* to) {
  Context* self = running();
  to->from = self;
  running() = to;
  emscripten_fiber_swap(&self->ef, &to->ef);
  Context* from = self->from;
  if (from && from->finished) {
    destroy(from);
    from = nullptr;
  }
  if (self->unwinding) {
    self->unwinding = false;
    throw forced_unwind{from};
  }
  if (return_hook()) return_hook()();
  return from;
}

[[noreturn]] inline void finish_and_leave(Context* self, Context* to) {
  self->finished = true;
  to->from = self;
  running() = to;
  emscripten_fiber_swap(&self->ef, &to->ef);
  std::abort();  // a finished fiber is never resumed
}

inline void entry(void* arg) {
  Context* self = static_cast<Context*>(arg);
  self->started = true;
  Context* to = nullptr;
  try {
    to = self->run(self->from);
  } catch (const forced_unwind& u) {
    to = u.to;
  } catch (...) {
    std::terminate();  // as Boost.Context: a fiber's function must not throw
  }
  finish_and_leave(self, to);
}

}  // namespace detail

class fiber {
 public:
  fiber() = default;
  // `fn(fiber&& caller) -> fiber`: runs on its own stack from `salloc`; the fiber it returns is
  // where control goes when it ends.
  template <typename StackAlloc, typename Fn>
  fiber(std::allocator_arg_t, StackAlloc salloc, Fn&& fn) {
    auto* c = new detail::Context();
    c->created = true;
    c->stack = salloc.allocate();
    c->free_stack = [salloc](stack_context& sc) mutable { salloc.deallocate(sc); };
    // Asyncify saves a suspended fiber's wasm locals here; a quarter of the C stack is ample
    // (host tiles live on the C stack, the locals that point at them are few).
    const std::size_t async_bytes = c->stack.size / 4 < 16384 ? 16384 : c->stack.size / 4;
    c->asyncify_stack.reset(new char[async_bytes]);
    c->run = [f = std::forward<Fn>(fn)](detail::Context* caller) mutable {
      fiber back = f(fiber(caller));
      return back.release();
    };
    emscripten_fiber_init(&c->ef, &detail::entry, c, static_cast<char*>(c->stack.sp) - c->stack.size, c->stack.size,
                          c->asyncify_stack.get(), async_bytes);
    c_ = c;
  }
  fiber(fiber&& o) noexcept : c_(std::exchange(o.c_, nullptr)) {}
  fiber& operator=(fiber&& o) noexcept {
    if (this != &o) {
      reset();
      c_ = std::exchange(o.c_, nullptr);
    }
    return *this;
  }
  fiber(const fiber&) = delete;
  fiber& operator=(const fiber&) = delete;
  ~fiber() { reset(); }

  // Resuming an empty handle is a bug (Boost asserts); here it would swap to no context at all and
  // the caller's stack would never be resumed, silently: stop with a message instead.
  fiber resume() && {
    if (!c_) {
      std::fputs("ts::host::emfiber: resume() of an empty fiber handle\n", stderr);
      std::abort();
    }
    return fiber(detail::switch_to(release()));
  }
  explicit operator bool() const noexcept { return c_ != nullptr; }
  bool operator!() const noexcept { return c_ == nullptr; }

  // A thread's own context is never owned by a handle: dropping one does nothing.
  detail::Context* release() noexcept { return std::exchange(c_, nullptr); }

 private:
  explicit fiber(detail::Context* c) : c_(c) {}
  void reset() {
    detail::Context* c = std::exchange(c_, nullptr);
    if (!c || !c->created) return;
    if (!c->started) return detail::destroy(c);
    // Unwind its stack: it throws forced_unwind where it is suspended, runs its destructors and
    // finishes, handing control back here (switch_to frees it).
    c->unwinding = true;
    detail::switch_to(c);
  }
  detail::Context* c_ = nullptr;
};

// Called every time a context regains control from a fiber it resumed (nullptr: none).
inline void set_return_hook(void (*hook)()) { detail::return_hook() = hook; }
// Which context is running (to tell, inside a hook, the context that installed it from others).
inline const void* running_context() { return detail::running(); }

}  // namespace ts::host::emfiber
