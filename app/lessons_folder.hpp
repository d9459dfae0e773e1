#pragma once
// The lesson folder as the lessons and render verbs read it.
#include <string>

#include "app/verbs.hpp"
#include "viz/lesson/lesson.hpp"

namespace ts::app {

// Lessons from `dir`, or from the default folder when it is empty; a missing folder is a UsageError.
viz::LessonSet load_lessons_or_usage_error(const std::string& dir);

}  // namespace ts::app
