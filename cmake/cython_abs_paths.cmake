# Rewrites the file names in a Cython-generated C file's filename table (__pyx_f, the names its
# tracebacks show) from paths relative to the folder Cython ran in to absolute paths, for the
# entries naming a file that exists there (Cython 3 always writes them relative to its working
# directory, and has no option to do otherwise).
# usage: cmake -DC_FILE=core.c -DBASE_DIR=<folder Cython ran in> -P cython_abs_paths.cmake
file(READ "${C_FILE}" _text)
string(FIND "${_text}" "static const char* const __pyx_f[] = {" _begin)
if(_begin EQUAL -1)
  message(FATAL_ERROR "cython_abs_paths: no filename table (__pyx_f) in ${C_FILE}")
endif()
string(SUBSTRING "${_text}" ${_begin} -1 _rest)
string(FIND "${_rest}" "};" _len)
string(SUBSTRING "${_rest}" 0 ${_len} _table)
set(_new "${_table}")
string(REGEX MATCHALL "\n  \"[^\"\\\\]+\"," _entries "${_table}")
foreach(_entry IN LISTS _entries)
  string(REGEX REPLACE "^\n  \"([^\"]+)\",$" "\\1" _name "${_entry}")
  if(NOT IS_ABSOLUTE "${_name}" AND EXISTS "${BASE_DIR}/${_name}")
    get_filename_component(_abs "${BASE_DIR}/${_name}" ABSOLUTE)
    string(REPLACE "${_entry}" "\n  \"${_abs}\"," _new "${_new}")
  endif()
endforeach()
string(REPLACE "${_table}" "${_new}" _text "${_text}")
file(WRITE "${C_FILE}" "${_text}")
