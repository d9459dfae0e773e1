#pragma once
// Exercises a lesson step can end with ("exercise: ID"): the step's knobs pose the question, the
// student moves one knob to answer, and a checker (a plain function of the two states) says
// whether the answer is right. Answers that need the simulator read it through the SimCache; until
// it has run they are "pending".
#include <string>
#include <string_view>
#include <vector>

#include "viz/lesson/scenes.hpp"

namespace ts::viz {

class SimCache;

struct ExerciseInfo {
  std::string_view id;
  SceneKind scene;
  std::string_view answer_knob;  // the knob(s) the student moves
  std::string_view task;         // what to do, in one line
};
const std::vector<ExerciseInfo>& exercises();
const ExerciseInfo* find_exercise(std::string_view id);

enum class Verdict { right, wrong, pending };
struct ExerciseResult {
  Verdict verdict = Verdict::pending;
  std::string message;  // for the student: why right, or what is off (never the answer itself)
};

// `question`: the scene as the step set it; `answer`: the scene as the student left it.
ExerciseResult check_exercise(std::string_view id, const SceneState& question, const SceneState& answer, SimCache& sims);

// The checkers themselves, one per exercise.
ExerciseResult check_owner_lane(const FragmentsState& question, const FragmentsState& answer);
ExerciseResult check_zero_conflict_swizzle(const BanksState& question, const BanksState& answer);
ExerciseResult check_stages_stop_paying(const PipelineState& question, const PipelineState& answer, SimCache& sims);
ExerciseResult check_least_hbm_order(const GridState& question, const GridState& answer, SimCache& sims);
ExerciseResult check_consumer_registers(const RegistersState& question, const RegistersState& answer);

// The stage count past which one more stage gains less than 5 % of simulated TFLOPS (4 when each
// one pays); 0 while a simulation is missing. `tflops[s - 1]` is the figure for s stages.
uint32_t stages_that_stop_paying(const std::vector<double>& tflops);

}  // namespace ts::viz
