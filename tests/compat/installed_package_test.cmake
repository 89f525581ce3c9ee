# SPDX-License-Identifier: MIT
# Installs the build into a scratch prefix, then builds and runs tests/compat/consumer and the
# fault programs of tests/compat/fault_programs against it with find_package(hipfile CONFIG), and
# compiles the consumer with pkg-config's flags.
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

# Installed programs start from the prefix with LD_LIBRARY_PATH unset: their run path points at
# the prefix's library ($ORIGIN-relative).
unset(ENV{LD_LIBRARY_PATH})
run(${prefix}/bin/hipfile-info)
if(NOT last_output MATCHES "runtime")
  message(FATAL_ERROR "installed hipfile-info printed no runtime line:\n${last_output}")
endif()
# hipfile-check on the prefix's own folder: the driver opens and a read has a way there (exit 0).
run(${prefix}/bin/hipfile-check --json ${prefix})
if(NOT last_output MATCHES "\"can_do_io\": true")
  message(FATAL_ERROR "installed hipfile-check cannot do I/O in ${prefix}:\n${last_output}")
endif()
# It names the drop-in installed beside the library, and says which libcufile.so.0 a program
# started with a given LD_LIBRARY_PATH would load: the drop-in, or another one (a decoy here).
file(GLOB_RECURSE dropin ${prefix}/*/hipfile-cufile/libcufile.so.0)
if(NOT last_output MATCHES "\"installed\": \"${dropin}\"")
  message(FATAL_ERROR "installed hipfile-check does not name the drop-in ${dropin}:\n${last_output}")
endif()
get_filename_component(dropin_dir ${dropin} DIRECTORY)
set(ENV{LD_LIBRARY_PATH} ${dropin_dir})
run(${prefix}/bin/hipfile-check ${prefix})
if(NOT last_output MATCHES "cuFile           libcufile.so.0 is ${dropin} \\(LD_LIBRARY_PATH\\): hipfile's drop-in")
  message(FATAL_ERROR "with LD_LIBRARY_PATH=${dropin_dir} hipfile-check said:\n${last_output}")
endif()
file(WRITE ${WORK_DIR}/decoy/libcufile.so.0 "not hipfile's library\n")
set(ENV{LD_LIBRARY_PATH} ${WORK_DIR}/decoy:${dropin_dir})
run(${prefix}/bin/hipfile-check ${prefix})
if(NOT last_output MATCHES "libcufile.so.0 is ${WORK_DIR}/decoy/libcufile.so.0 \\(LD_LIBRARY_PATH\\): not hipfile's")
  message(FATAL_ERROR "with a decoy first hipfile-check said:\n${last_output}")
endif()
unset(ENV{LD_LIBRARY_PATH})
file(GLOB installed_examples_bin ${prefix}/share/doc/*/examples/bin)
run(${installed_examples_bin}/get-version)
if(NOT last_output MATCHES "hipFileGetVersion")
  message(FATAL_ERROR "installed get-version printed:\n${last_output}")
endif()
run(${installed_examples_bin}/roundtrip-async-multi-stream-registered ${WORK_DIR}/i.in
    ${WORK_DIR}/i.out)
if(NOT last_output MATCHES "across 4 registered streams")
  message(FATAL_ERROR "the installed tutorial program did not print its OK line")
endif()
# Every other installed example runs from the prefix too; the tutorial's i.in (4 MiB) is the
# input of those that read one. Each prints its OK line, except the cp-like aiscp and offsetcp,
# whose copies are compared here.
set(w ${WORK_DIR})
foreach(command "roundtrip-sync ${w}/s.in ${w}/s.out" "roundtrip-verify ${w}/v.in ${w}/v.out"
                "roundtrip-async ${w}/a.in ${w}/a.out"
                "roundtrip-async-nonblocking-stream ${w}/n.in ${w}/n.out"
                "roundtrip-async-multi-stream ${w}/m.in ${w}/m.out"
                "batch-roundtrip ${w}/b.in ${w}/b.out 1000001 8 0"
                "bufregister-write ${w}/bw.out" "no-bufregister-write ${w}/nbw.out"
                "no-odirect-write ${w}/now.out" "iterative-read ${w}/i.in ${w}/ir.out"
                "iterative-devmem-offset-read ${w}/i.in ${w}/ido.out"
                "subregion-write ${w}/i.in ${w}/sw.out" "various-mem-rw ${w}/i.in ${w}/v1.out 1"
                "various-mem-rw ${w}/i.in ${w}/v2.out 2" "various-mem-rw ${w}/i.in ${w}/v3.out 3"
                "read-write-check ${w}/c.out ${w}/cc.out")
  separate_arguments(command)
  list(POP_FRONT command program)
  run(${installed_examples_bin}/${program} ${command})
  if(NOT last_output MATCHES "^OK  ")
    message(FATAL_ERROR "installed ${program} printed no OK line:\n${last_output}")
  endif()
endforeach()
run(${installed_examples_bin}/aiscp ${w}/i.in ${w}/cp.out)
run(${CMAKE_COMMAND} -E compare_files ${w}/i.in ${w}/cp.out)
run(${installed_examples_bin}/offsetcp ${w}/i.in ${w}/off.out 0)
file(SIZE ${w}/off.out off_size)
if(NOT off_size EQUAL 4186112)
  message(FATAL_ERROR "installed offsetcp wrote ${off_size} bytes, not 4 MiB - 8192")
endif()
run(${installed_examples_bin}/buffertofile ${w}/btf.out 0)
file(SIZE ${w}/btf.out btf_size)
if(NOT btf_size EQUAL 16384)
  message(FATAL_ERROR "installed buffertofile wrote ${btf_size} bytes, not 16384")
endif()
file(GLOB licence ${prefix}/share/licenses/hipfile/LICENSE)
if(NOT licence)
  message(FATAL_ERROR "LICENSE is not installed under share/licenses/hipfile")
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/build -G ${CMAKE_GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/consumer ${WORK_DIR}/data.bin)
message(STATUS "consumer (CMake package): ${last_output}")
if(NOT last_output MATCHES "consumer OK")
  message(FATAL_ERROR "consumer did not print 'consumer OK'")
endif()

# The fault programs (a full file system, a shrinking file, a descriptor closed under an async
# read) build against the package and run; exit status 77 means this machine cannot stage the
# fault (no tmpfs mount), reported and not counted as a failure.
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR}/../fault_programs -B ${WORK_DIR}/faults
    -G ${CMAKE_GENERATOR} -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/faults)
foreach(program full_fs shrinking_file closed_fd_async)
  execute_process(COMMAND ${WORK_DIR}/faults/${program} ${WORK_DIR}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 77)
    message(STATUS "fault program ${program}: SKIPPED: ${out}")
  elseif(NOT rc EQUAL 0 OR NOT out MATCHES "${program} OK")
    message(FATAL_ERROR "fault program ${program} failed (${rc}):\n${out}")
  else()
    message(STATUS "fault program: ${out}")
  endif()
endforeach()

# The installed examples build on their own against the package (all of them, the CTest driver
# too), and the tutorial's program runs.
file(GLOB examples_dir ${prefix}/share/doc/*/examples)
run(${CMAKE_COMMAND} -S ${examples_dir} -B ${WORK_DIR}/examples -G ${CMAKE_GENERATOR}
    -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/examples)
run(${WORK_DIR}/examples/roundtrip-async-multi-stream-registered ${WORK_DIR}/t.in ${WORK_DIR}/t.out)
message(STATUS "installed example: ${last_output}")
if(NOT last_output MATCHES "across 4 registered streams")
  message(FATAL_ERROR "the installed tutorial example did not print its OK line")
endif()

# pkg-config: the .pc file alone must be enough to compile and link.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
list(JOIN pc_dirs ":" pc_path)
set(ENV{PKG_CONFIG_PATH} "${pc_path}")
run(${PKG_CONFIG} --cflags --libs hipfile)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
# The installed headers compile as C, with nothing but pkg-config's flags.
find_program(CC NAMES cc gcc REQUIRED)
string(REGEX MATCHALL "-I[^;]*" cflags "${flags}")
run(${CC} -std=c11 -Wall -Wextra -Werror -pedantic -c ${CONSUMER_DIR}/../c_header_check.c
    -o ${WORK_DIR}/c_header_check.o ${cflags})
find_program(CXX NAMES c++ g++ REQUIRED)
run(${CXX} -std=c++17 ${CONSUMER_DIR}/consumer.cpp -o ${WORK_DIR}/consumer-pc ${flags})
file(GLOB libdirs ${prefix}/lib*)
list(JOIN libdirs ":" ld_path)
set(ENV{LD_LIBRARY_PATH} "${ld_path}")
run(${WORK_DIR}/consumer-pc ${WORK_DIR}/data-pc.bin)
message(STATUS "consumer (pkg-config): ${last_output}")
