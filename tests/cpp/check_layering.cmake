# The layering rule (docs/design.md, section 1): the core (src/core, include/mxffi/*.h) and the
# tensors (src/ndarray, include/mxffi/ndarray) never include op code: nothing under src/op or
# src/api, and of the public op headers only mxffi/op/storage.h (the storage types, which the
# C ABI defines). The np.*, sparse.* and ops.* API bodies live under src/api and nowhere else.
# Run by ctest as: cmake -DMXFFI_SOURCE_DIR=<checkout> -P check_layering.cmake
file(GLOB_RECURSE lower_layers
     "${MXFFI_SOURCE_DIR}/src/core/*" "${MXFFI_SOURCE_DIR}/src/ndarray/*"
     "${MXFFI_SOURCE_DIR}/include/mxffi/ndarray/*")
file(GLOB core_headers "${MXFFI_SOURCE_DIR}/include/mxffi/*.h")
list(APPEND lower_layers ${core_headers})
list(LENGTH lower_layers count)
if(count LESS 10)
  message(FATAL_ERROR "check_layering: found only ${count} files under ${MXFFI_SOURCE_DIR}")
endif()
set(violations "")
foreach(file IN LISTS lower_layers)
  # lib_api.h is the standalone op-library header, which includes nothing of mxffi's.
  if(file MATCHES "/lib_api\\.h$")
    continue()
  endif()
  file(STRINGS "${file}" includes REGEX "^[ \t]*#[ \t]*include")
  foreach(line IN LISTS includes)
    if(line MATCHES "[\"/](op|api)/" AND NOT line MATCHES "<mxffi/op/storage\\.h>")
      file(RELATIVE_PATH rel "${MXFFI_SOURCE_DIR}" "${file}")
      string(APPEND violations "\n  ${rel}: ${line}")
    endif()
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "core or tensor code includes op code:${violations}")
endif()

# API bodies: a registration of an np.*, sparse.* or ops.* global outside src/api.
file(GLOB_RECURSE all_sources "${MXFFI_SOURCE_DIR}/src/*.cc" "${MXFFI_SOURCE_DIR}/src/*.h")
set(api_count 0)
foreach(file IN LISTS all_sources)
  file(STRINGS "${file}" regs REGEX "MXFFI_REGISTER_API\\(\"(np|sparse|ops)\\.")
  if(NOT regs)
    continue()
  endif()
  if(file MATCHES "/src/api/")
    list(LENGTH regs n)
    math(EXPR api_count "${api_count} + ${n}")
    continue()
  endif()
  file(RELATIVE_PATH rel "${MXFFI_SOURCE_DIR}" "${file}")
  foreach(line IN LISTS regs)
    string(APPEND violations "\n  ${rel}: ${line}")
  endforeach()
endforeach()
if(violations)
  message(FATAL_ERROR "np.*, sparse.* or ops.* API bodies outside src/api:${violations}")
endif()
if(api_count LESS 20)
  message(FATAL_ERROR "check_layering: found only ${api_count} API registrations under src/api")
endif()

message(STATUS "check_layering: ${count} files of src/core, src/ndarray and their headers "
               "include no op code; ${api_count} np/sparse/ops API bodies, all under src/api")
