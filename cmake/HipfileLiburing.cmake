# SPDX-License-Identifier: MIT
# liburing, for the io_uring submission path (src/platform/io_ring.cc, engine::RingIo).
#
# With HIPFILE_IO_URING ON (the default) and liburing found, sets
#   HIPFILE_LIBURING_FOUND     TRUE
#   HIPFILE_LIBURING_LIBRARY   liburing.a where it exists, else the shared library
#   HIPFILE_LIBURING_INCLUDE_DIR
# and src/CMakeLists.txt defines HIPFILE_HAVE_IO_URING. The static library is preferred: a build
# tree is deployed to machines that have no liburing.so. Without liburing the library is built
# without io_uring, and reads and writes run one at a time through pread/pwrite.
set(HIPFILE_LIBURING_FOUND FALSE)
if(NOT HIPFILE_IO_URING)
  message(STATUS "io_uring: off (HIPFILE_IO_URING=OFF); batched I/O uses pread/pwrite")
  return()
endif()

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LIBURING QUIET liburing)
endif()
find_path(HIPFILE_LIBURING_INCLUDE_DIR liburing.h
  HINTS ${PC_LIBURING_INCLUDEDIR} ${PC_LIBURING_INCLUDE_DIRS})
find_library(HIPFILE_LIBURING_STATIC_LIBRARY NAMES liburing.a
  HINTS ${PC_LIBURING_LIBDIR} ${PC_LIBURING_LIBRARY_DIRS})
find_library(HIPFILE_LIBURING_SHARED_LIBRARY NAMES uring
  HINTS ${PC_LIBURING_LIBDIR} ${PC_LIBURING_LIBRARY_DIRS})

if(HIPFILE_LIBURING_INCLUDE_DIR AND HIPFILE_LIBURING_STATIC_LIBRARY)
  set(HIPFILE_LIBURING_FOUND TRUE)
  set(HIPFILE_LIBURING_LIBRARY ${HIPFILE_LIBURING_STATIC_LIBRARY})
  message(STATUS "io_uring: liburing ${PC_LIBURING_VERSION} linked statically "
                 "(${HIPFILE_LIBURING_LIBRARY})")
elseif(HIPFILE_LIBURING_INCLUDE_DIR AND HIPFILE_LIBURING_SHARED_LIBRARY)
  set(HIPFILE_LIBURING_FOUND TRUE)
  set(HIPFILE_LIBURING_LIBRARY ${HIPFILE_LIBURING_SHARED_LIBRARY})
  message(WARNING "io_uring: only a shared liburing was found (${HIPFILE_LIBURING_LIBRARY}); "
                  "machines that run this build need liburing.so too")
else()
  message(WARNING "io_uring: HIPFILE_IO_URING is ON but liburing was not found (Debian/Ubuntu: "
                  "apt-get install liburing-dev). Building without io_uring: batched reads and "
                  "writes run one at a time through pread/pwrite. -DHIPFILE_IO_URING=OFF silences "
                  "this.")
endif()
