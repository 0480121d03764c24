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
#   exported; everything else stays hidden, so two op libraries never bind to each other:
#   hidden visibility for the library's own code, and a linker version script for the rest
#   (the weak instantiations of std:: templates, which the standard library's headers give
#   default visibility). Further symbols to export, such as a C function of the library's own,
#   are named in the target property MXFFI_OP_LIBRARY_EXPORTS:
#     set_property(TARGET <name> APPEND PROPERTY MXFFI_OP_LIBRARY_EXPORTS my_function)
function(mxffi_add_op_library name)
  add_library(${name} SHARED ${ARGN})
  target_include_directories(${name} PRIVATE "${mxffi_INCLUDE_DIR}")
  set_target_properties(${name} PROPERTIES
    CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON PREFIX "lib")
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
    set(_exports "$<TARGET_PROPERTY:${name},MXFFI_OP_LIBRARY_EXPORTS>")
    set(_map "${CMAKE_CURRENT_BINARY_DIR}/${name}.exports.map")
    file(GENERATE OUTPUT "${_map}" CONTENT
         "{\n  global:\n    MXFFIOpLib*;\n$<$<BOOL:${_exports}>:    $<JOIN:${_exports},;\n    >;\n>  local:\n    *;\n};\n")
    target_link_options(${name} PRIVATE "LINKER:--version-script=${_map}")
    set_property(TARGET ${name} APPEND PROPERTY LINK_DEPENDS "${_map}")
  endif()
endfunction()
