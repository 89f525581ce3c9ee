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
