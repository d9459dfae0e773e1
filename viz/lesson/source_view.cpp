#include "viz/lesson/source_view.hpp"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

namespace ts::viz {

namespace fs = std::filesystem;

fs::path source_root() {
  if (const char* env = std::getenv("TILESCOPE_SOURCE_ROOT"); env && *env) return env;
#ifdef TILESCOPE_SOURCE_DIR
  if (fs::is_directory(TILESCOPE_SOURCE_DIR)) return TILESCOPE_SOURCE_DIR;
#endif
  return ".";
}

std::shared_ptr<const SourceFile> source_file(std::string_view relative) {
  static std::mutex lock;
  static std::map<std::string, std::shared_ptr<const SourceFile>, std::less<>> cache;
  const std::lock_guard<std::mutex> guard(lock);
  if (auto it = cache.find(relative); it != cache.end()) return it->second;
  auto file = std::make_shared<SourceFile>();
  file->relative = std::string(relative);
  const fs::path path = source_root() / file->relative;
  file->path = path.string();
  std::ifstream in(path);
  if (!in) {
    file->error = "cannot read " + file->path;
  } else {
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      file->lines.push_back(std::move(line));
    }
  }
  cache.emplace(file->relative, file);
  return file;
}

int find_source_line(const SourceFile& file, std::string_view text) {
  for (size_t i = 0; i < file.lines.size(); ++i)
    if (file.lines[i].find(text) != std::string::npos) return static_cast<int>(i) + 1;
  return 0;
}

}  // namespace ts::viz
