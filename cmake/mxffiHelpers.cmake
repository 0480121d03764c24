# mxffi_add_library(<name> <sources>...)
#   A shared library whose MXFFI_REGISTER_API functions join mxffi's registry when it is
#   loaded with library.load (mxffi.library.load in Python).
function(mxffi_add_library name)
  add_library(${name} SHARED ${ARGN})
  target_link_libraries(${name} PRIVATE mxffi::mxffi)
  set_target_properties(${name} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
endfunction()

# mxffi_add_op_library(<name> <sources>...)
#   A custom op library: built against mxffi/lib_api.h alone, with no link to libmxffi, and
#   loaded with mxffi.library.load. Only the MXFFIOpLib* entry points the header defines are
#   exported; everything else stays hidden, so two op libraries never bind to each other.
function(mxffi_add_op_library name)
  add_library(${name} SHARED ${ARGN})
  target_include_directories(${name} PRIVATE "${mxffi_INCLUDE_DIR}")
  set_target_properties(${name} PROPERTIES
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON PREFIX "lib")
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()
