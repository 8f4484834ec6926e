# check_layers.cmake — fails the build when a layer includes one above it.
# Run at every build (target moebench_layer_check, a dependency of the
# lowest layer) with -DSRC_DIR=<source tree>; the tests run it on a tree
# holding a violation and expect this script to fail.
#
# Layers, lowest first; each may include its own headers and those of the
# layers listed as below it (engines, probes and reports sit side by side,
# probes reading the engines' kernels and read paths):
#   vocab    — nothing but itself
#   engines  — vocab
#   probes   — vocab, engines
#   reports  — vocab
#   model    — vocab, engines (the one model of bytes, memory and time; it
#              reads the engines' memory plan and cache replay as input)
#   harness  — vocab, engines, probes, reports, model
#   cli      — everything
cmake_minimum_required(VERSION 3.22)
if(NOT SRC_DIR)
  message(FATAL_ERROR "check_layers.cmake: pass -DSRC_DIR=<the source tree>")
endif()

set(ALL_LAYERS vocab engines probes reports model harness cli)
set(ALLOWED_vocab vocab)
set(ALLOWED_engines vocab engines)
set(ALLOWED_probes vocab engines probes)
set(ALLOWED_reports vocab reports)
set(ALLOWED_model vocab engines model)
set(ALLOWED_harness vocab engines probes reports model harness)
set(ALLOWED_cli ${ALL_LAYERS})

set(violations "")
set(files_checked 0)
foreach(layer ${ALL_LAYERS})
  file(GLOB_RECURSE sources ${SRC_DIR}/${layer}/*.h ${SRC_DIR}/${layer}/*.cpp)
  foreach(source ${sources})
    math(EXPR files_checked "${files_checked} + 1")
    file(STRINGS ${source} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(line ${lines})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]*)\".*" "\\1" included "${line}")
      string(REGEX MATCH "^[^/]+" top "${included}")
      list(FIND ALL_LAYERS "${top}" is_layer)
      if(is_layer EQUAL -1)
        continue()  # a system or third-party header, or a file of the same directory
      endif()
      list(FIND ALLOWED_${layer} "${top}" allowed)
      if(allowed EQUAL -1)
        file(RELATIVE_PATH rel ${SRC_DIR} ${source})
        string(REPLACE ";" ", " may "${ALLOWED_${layer}}")
        string(APPEND violations "  ${rel} includes \"${included}\": ${layer}/ may include only ${may}\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(NOT violations STREQUAL "")
  message(FATAL_ERROR "upward #include (the layering in cmake/check_layers.cmake):\n${violations}"
                      "Move the needed declaration down a layer, or the including code up.")
endif()
message(STATUS "layers: ${files_checked} files, no upward #include")
