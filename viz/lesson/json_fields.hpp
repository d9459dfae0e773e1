#pragma once
// Integer fields of the JSON files people edit (data/measured/...). nlohmann turns a floating-point
// value into an integer with a plain cast, which is undefined for values out of range (the measured
// file fuzzer found "m": 1.6e82): an integer field must hold an integer, else the reader's one-line
// error names the key.
#include <cstdint>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace ts::viz {

inline int64_t integer_at(const nlohmann::json& row, const char* key) {
  const nlohmann::json& v = row.at(key);
  if (!v.is_number_integer()) throw std::runtime_error(std::string("'") + key + "' is not an integer");
  return v.get<int64_t>();
}

inline int64_t integer_or(const nlohmann::json& row, const char* key, int64_t fallback) {
  return row.contains(key) ? integer_at(row, key) : fallback;
}

}  // namespace ts::viz
