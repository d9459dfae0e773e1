// Fuzz target: the app's saved state (viz/lesson/saved_state.cpp, ~/.config/tilescope/state.json),
// which a user may edit or a crash may cut short. Any input gives a state, or an empty one and a
// one-line "file:line: reason" warning; and what it gives is written and read back the same.
#include <stdexcept>

#include "fuzz/fuzz_input.hpp"
#include "viz/lesson/saved_state.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string warning;
  const auto s = ts::viz::parse_saved_state(ts::fuzz::text_of(data, size), "state.json", warning);
  if (!warning.empty()) {
    if (warning.rfind("state.json:", 0) != 0 || warning.find('\n') != std::string::npos)
      throw std::logic_error("bad warning: " + warning);
    return 0;
  }
  std::string again;
  const auto back = ts::viz::parse_saved_state(ts::viz::saved_state_json(s), "state.json", again);
  if (!again.empty()) throw std::logic_error("the app cannot read what it wrote: " + again);
  if (back.lesson != s.lesson || back.exercises != s.exercises || (!s.lesson.empty() && back.step != s.step))
    throw std::logic_error("the state did not survive a round trip");
  return 0;
}
