// The page's simulation lanes (viz/lesson/web_workers.hpp) under node, on Emscripten's fibers:
// the situation that stopped the page at its first simulated step (tma-mbarriers/1). One lane
// works past its slice's end, pausing from inside a fiber it resumed (as a lane does while it
// traces a kernel's warps), with the host backend's current warp set; the other lane waits, and is
// resumed only after the slice has ended. Each "frame" must get control back with no lane marked
// running and no warp current, and each lane must see only its own current warp.
#include <catch2/catch.hpp>
#include <mutex>

#include "tiles/backend/host/fiber.hpp"  // Warp, current_warp
#include "viz/lesson/web_workers.hpp"

namespace {

namespace web = ts::viz::web;
namespace fib = ts::host::emfiber;

void busy(double ms) {
  const double end = emscripten_get_now() + ms;
  while (emscripten_get_now() < end) {
  }
}

}  // namespace

TEST_CASE("web lanes: one resumed after its slice's end pauses again cleanly; each keeps its own current warp",
          "[web]") {
  constexpr int kRounds = 40;
  ts::host::Warp fake;  // stands for the warp lane A is running when its slice ends
  std::mutex m;
  web::CondVar cv;
  bool go = false, b_done = false, b_saw_a_warp = false, a_lost_its_warp = false;
  int rounds = 0;

  web::Thread a([&] {
    fib::fiber inner(std::allocator_arg, fib::protected_fixedsize_stack(64 * 1024), [&](fib::fiber&& caller) {
      for (int i = 0; i < kRounds; ++i) {
        busy(1);
        caller = std::move(caller).resume();
      }
      return std::move(caller);
    });
    for (int i = 0; i < kRounds; ++i) {
      ts::host::current_warp = &fake;
      inner = std::move(inner).resume();  // back from a fiber it resumed: the slice may end right here
      if (ts::host::current_warp != &fake) a_lost_its_warp = true;
      ts::host::current_warp = nullptr;
      ++rounds;
    }
    while (inner) inner = std::move(inner).resume();
    {
      const std::lock_guard<std::mutex> guard(m);
      go = true;
    }
    cv.notify_all();
  });
  web::Thread b([&] {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] {
      if (ts::host::current_warp) b_saw_a_warp = true;
      return go;
    });
    b_done = true;
  });

  int frames = 0;
  for (; frames < 2000 && !(b_done && rounds == kRounds); ++frames) {
    web::run_workers(5);  // 5 ms slices: lane A (1 ms a round) runs past the end of most of them
    REQUIRE(web::pool().running == nullptr);
    REQUIRE(ts::host::current_warp == nullptr);
  }
  INFO("frames: " << frames);
  CHECK(rounds == kRounds);
  CHECK(b_done);
  CHECK_FALSE(b_saw_a_warp);
  CHECK_FALSE(a_lost_its_warp);
  CHECK(frames > 1);  // the work did spread over several slices
  CHECK_FALSE(a.joinable());
  CHECK_FALSE(b.joinable());
}
