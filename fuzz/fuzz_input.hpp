#pragma once
// What the fuzz targets share: the input as text, and as a file for parsers that read paths.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace ts::fuzz {

inline std::string text_of(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// A file of this process holding the input (rewritten on every call), named `name` in a folder
// of its own under the temp dir, so that parallel fuzzers never share one.
inline std::filesystem::path as_file(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("tilescope-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  const auto path = dir / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

}  // namespace ts::fuzz
