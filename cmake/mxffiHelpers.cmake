# mxffi_add_library(<name> <sources>...)
#   A shared library whose MXFFI_REGISTER_API functions join mxffi's registry when it is
#   loaded with library.load (mxffi.library.load in Python).
function(mxffi_add_library name)
  add_library(${name} SHARED ${ARGN})
  target_link_libraries(${name} PRIVATE mxffi::mxffi)
  set_target_properties(${name} PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON)
endfunction()
