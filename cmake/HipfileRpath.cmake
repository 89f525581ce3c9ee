# SPDX-License-Identifier: MIT
# hipfile_install_rpath(<target> <install dir>): the installed copy of an executable finds
# libhipfile.so.0 relative to itself ($ORIGIN), so programs installed into any prefix start with
# LD_LIBRARY_PATH unset. The build-tree copy keeps CMake's absolute build run path.
function(hipfile_install_rpath target dest)
  file(RELATIVE_PATH to_lib /prefix/${dest} /prefix/${CMAKE_INSTALL_LIBDIR})
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "$ORIGIN/${to_lib}")
endfunction()
