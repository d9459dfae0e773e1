# Compiles tests/compile_fail/tile_ops.cpp once per CASE: case 0 must compile, every other case must
# fail with its static_assert message. Arguments: -DCXX=<compiler> -DSOURCE_DIR=<repo> -DINCLUDES=<a|b|...>
set(cases
  "1|warp::mma_AB/mma_AtB: b must be a K x N tile in col_l"
  "2|warp::mma_AB/mma_ABt: a must be an M x K tile in row_l"
  "3|each source must have dst's layout"
  "4|row op: the vector must be laid out like the tile's rows"
  "5|swap_layout: dst must be in the other layout"
  "6|register and shared tiles must hold the same type"
  "7|warp::mma: a and b disagree on K"
  "8|each source must have dst's shape"
  "9|column op: the vector must have one value per column"
  "10|each source must have dst's layout")
set(file ${SOURCE_DIR}/tests/compile_fail/tile_ops.cpp)
set(flags -std=c++20 -fsyntax-only -I${SOURCE_DIR})
string(REPLACE "|" ";" include_list "${INCLUDES}")
foreach(dir IN LISTS include_list)
  if(dir)
    list(APPEND flags -I${dir})
  endif()
endforeach()

execute_process(COMMAND ${CXX} ${flags} -DCASE=0 ${file} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "case 0 (correct use) does not compile:\n${err}")
endif()
foreach(entry IN LISTS cases)
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} n)
  math(EXPR start "${bar} + 1")
  string(SUBSTRING "${entry}" ${start} -1 want)
  execute_process(COMMAND ${CXX} ${flags} -DCASE=${n} ${file} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(rc EQUAL 0)
    message(FATAL_ERROR "case ${n} compiled; it must fail with \"${want}\"")
  endif()
  string(FIND "${err}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "case ${n} failed without \"${want}\":\n${err}")
  endif()
  message(STATUS "case ${n}: fails with \"${want}\"")
endforeach()
