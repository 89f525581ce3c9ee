# SPDX-License-Identifier: MIT
# Every source, header, build and script file carries an SPDX licence identifier in its first
# lines (LICENSE: MIT), so a packager can tell each file's licence on its own.
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/src/* ${SOURCE_DIR}/include/* ${SOURCE_DIR}/tests/* ${SOURCE_DIR}/tools/*
  ${SOURCE_DIR}/examples/* ${SOURCE_DIR}/bench/* ${SOURCE_DIR}/scripts/* ${SOURCE_DIR}/cmake/*)
set(missing "")
foreach(f ${files} CMakeLists.txt .ci/run)
  if(NOT f MATCHES "(\\.(cc|h|cpp|c|cu|cmake|sh|py|in|map)|CMakeLists\\.txt|^\\.ci/run)$")
    continue()
  endif()
  file(READ ${SOURCE_DIR}/${f} head LIMIT 300)
  if(NOT head MATCHES "SPDX-License-Identifier: MIT")
    list(APPEND missing ${f})
  endif()
endforeach()
if(missing)
  list(JOIN missing "\n  " text)
  message(FATAL_ERROR "files without an SPDX-License-Identifier line:\n  ${text}")
endif()
if(NOT EXISTS ${SOURCE_DIR}/LICENSE)
  message(FATAL_ERROR "LICENSE is missing")
endif()
