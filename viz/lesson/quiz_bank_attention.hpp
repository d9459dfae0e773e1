#pragma once
// The attention lessons' exercises (quiz_bank_attention.cpp); quizzes() and make_question()
// (quiz.hpp) include them beside the GEMM lessons' own.
#include <string_view>
#include <vector>

#include "viz/lesson/quiz.hpp"

namespace ts::viz {

const std::vector<QuizInfo>& attention_quizzes();
bool is_attention_quiz(std::string_view id);
Question make_attention_question(std::string_view id, const QuizParams& params, const SceneState& base);

}  // namespace ts::viz
