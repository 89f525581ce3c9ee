# SPDX-License-Identifier: MIT
# Install: the library, the public header, the HIP subset headers, a CMake package exporting
# hip::hipfile, and hipfile.pc. The list is explicit: nothing under src/ is installed.
include(CMakePackageConfigHelpers)

set(HIPFILE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hipfile)

install(TARGETS hipfile EXPORT hipfileTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/hipfile.h ${PROJECT_SOURCE_DIR}/include/hipfile_ext.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES
  ${PROJECT_SOURCE_DIR}/include/compat/hip/hip_runtime_api.h
  ${PROJECT_SOURCE_DIR}/include/compat/hip/hip_runtime.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hipfile/compat/hip)

# The cuFile drop-in (docs/cufile.md): libcufile.so.0 in a directory of its own, used only where
# LD_LIBRARY_PATH (or a program's run path) names it, and our cufile.h beside hipFile's headers in
# one of its own, so that neither shadows NVIDIA's.
install(TARGETS hipfile_cufile
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/hipfile-cufile)
install(FILES ${PROJECT_SOURCE_DIR}/include/cufile/cufile.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hipfile-cufile)

install(EXPORT hipfileTargets NAMESPACE hip:: DESTINATION ${HIPFILE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hipfileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hipfileConfig.cmake INSTALL_DESTINATION ${HIPFILE_CMAKE_DIR})
# 0.x: minor versions may break compatibility, so a request for 0.5 accepts 0.5.* only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hipfileConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hipfileConfig.cmake
  ${PROJECT_BINARY_DIR}/hipfileConfigVersion.cmake DESTINATION ${HIPFILE_CMAKE_DIR})

# From <prefix>/<libdir>/pkgconfig back to <prefix>.
file(RELATIVE_PATH HIPFILE_PC_PREFIX_FROM_PCDIR
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/hipfile.pc.in ${PROJECT_BINARY_DIR}/hipfile.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hipfile.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The licence travels with the package (MIT, as upstream hipFile).
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/licenses/hipfile)

# ROCm's names for the HIP subset, on request, for programs built the ROCm way (AMD's fio fork,
# AMD's Python helper hipfile.hipMalloc): `cmake --install BUILD --prefix P --component
# rocm-layout` adds P/include/hip/hip_runtime{,_api}.h and P/lib/libamdhip64.so, a link to
# libhipfile.so.0, whose HIP functions they then find (docs/hip-runtime-subset.md). Not in the
# default install: beside a real ROCm those names would shadow it.
install(FILES
  ${PROJECT_SOURCE_DIR}/include/compat/hip/hip_runtime_api.h
  ${PROJECT_SOURCE_DIR}/include/compat/hip/hip_runtime.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hip COMPONENT rocm-layout EXCLUDE_FROM_ALL)
install(CODE "file(CREATE_LINK libhipfile.so.0
  \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libamdhip64.so\" SYMBOLIC)"
  COMPONENT rocm-layout EXCLUDE_FROM_ALL)
