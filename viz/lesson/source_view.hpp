#pragma once
// The kernel's own source, read at run time from the source tree, so that a lesson step can point
// at the line it is about and the app shows the code that really runs (not a copy that drifts).
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ts::viz {

struct SourceFile {
  std::string relative;  // as a lesson names it, e.g. "kernels/gemm/gemm.cuh"
  std::string path;      // where it was read from
  std::vector<std::string> lines;
  std::string error;     // why it could not be read ("" when it was)
};

// Where source files are read from: $TILESCOPE_SOURCE_ROOT, then the source tree the binary was
// built from, then the current folder.
std::filesystem::path source_root();

// The file, read once and kept (the app shows it every frame). Never throws: a missing file comes
// back with `error` set and no lines.
std::shared_ptr<const SourceFile> source_file(std::string_view relative);

// The first line (1-based) that contains `text`, or 0 when none does.
int find_source_line(const SourceFile& file, std::string_view text);

}  // namespace ts::viz
