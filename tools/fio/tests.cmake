# SPDX-License-Identifier: MIT
# The fio engine's tests, label `fio`: stock fio runs the installed engine as a user does (the
# package installed into a scratch prefix, LD_LIBRARY_PATH unset), on the CPU runtime, through
# tools/expect-exit.sh (exit status and output lines). Included by tools/fio/CMakeLists.txt.
set(fio_prefix ${CMAKE_CURRENT_BINARY_DIR}/prefix)
set(fio_engine ${fio_prefix}/${CMAKE_INSTALL_LIBDIR}/fio/libhipfile-fio.so)
set(fio_expect ${PROJECT_SOURCE_DIR}/tools/expect-exit.sh)
set(fio_jobs ${CMAKE_CURRENT_SOURCE_DIR}/jobs)

add_test(NAME tool.fio.install
         COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --prefix ${fio_prefix})
set_tests_properties(tool.fio.install PROPERTIES LABELS "tools;fio" FIXTURES_SETUP fio_prefix)

# hipfile_fio_test(NAME STATUS status [ENV var=value...] PATTERNS pattern... ARGS fio-arg...):
# fio ARGS in a folder of its own; passes when fio exits with STATUS and every PATTERN matches.
# LD_BIND_NOW: every symbol the engine takes from fio, libc and libhipfile is bound when fio loads
# it, so one fio does not export fails the load, not a later call.
function(hipfile_fio_test name)
  cmake_parse_arguments(PARSE_ARGV 1 t "" "STATUS" "ENV;PATTERNS;ARGS")
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/${name})
  file(MAKE_DIRECTORY ${dir})
  add_test(NAME tool.fio.${name}
           COMMAND sh ${fio_expect} ${t_STATUS} ${t_PATTERNS} -- env -u LD_LIBRARY_PATH
                   ${HIPFILE_FIO_EXECUTABLE} ${t_ARGS}
           WORKING_DIRECTORY ${dir})
  set_tests_properties(tool.fio.${name} PROPERTIES LABELS "tools;fio" TIMEOUT 120
    FIXTURES_REQUIRED fio_prefix
    ENVIRONMENT
      "LD_BIND_NOW=1;HIPFILE_RUNTIME=cpu;HIPFILE_FIO_ENGINE=${fio_engine};FIO_FILE=data.bin;${t_ENV}")
endfunction()

# Upstream's CI job (jobs/write-read-verify.fio: 1 MiB, 4 KiB blocks, write then a stonewalled
# read, verify=md5): the installed job file as it is, then the same jobs on fio's command line in
# every mode, with the compatibility path forced, on the CPU runtime and on cpu-staged, where the
# GPU's data paths run (staging, stream-ordered copies).
set(wrv_ok "^write: \\(groupid=0, jobs=1\\): err= 0" "^read: \\(groupid=1, jobs=1\\): err= 0"
    "ioengine=libhipfile" "WRITE: .*io=1024KiB" "READ: .*io=1024KiB" "!verify failed")
hipfile_fio_test(write-read-verify.job-file STATUS 0
  PATTERNS ${wrv_ok}
  ARGS ${fio_prefix}/${CMAKE_INSTALL_DOCDIR}/fio/write-read-verify.fio)
# hipfile_fio_wrv(NAME [ENV var=value...] [OPTIONS fio-option...] [PATTERNS pattern...]):
# write-read-verify.fio's jobs on fio's command line with the engine's OPTIONS for both.
function(hipfile_fio_wrv name)
  cmake_parse_arguments(PARSE_ARGV 1 w "" "" "ENV;OPTIONS;PATTERNS")
  hipfile_fio_test(${name} STATUS 0 ENV ${w_ENV}
    PATTERNS ${wrv_ok} ${w_PATTERNS}
    ARGS --ioengine=external:${fio_engine} ${w_OPTIONS} --gpu_dev_ids=0 --filename=data.bin
         --size=1M --bs=4k --verify=md5 --verify_fatal=1 --name=write --rw=write --name=read
         --stonewall --rw=read)
endfunction()
foreach(mode sync stream batch)
  foreach(runtime cpu cpu-staged)
    hipfile_fio_wrv(write-read-verify.${mode}.force-compat.${runtime}
      ENV HIPFILE_RUNTIME=${runtime} HIPFILE_FORCE_COMPAT_MODE=true
      OPTIONS --hipfile_mode=${mode} --iodepth=8 --direct=1)
    # The compatibility path (buffered I/O through staging) off: the aligned job runs on the
    # direct paths alone (docs/environment.md).
    hipfile_fio_wrv(write-read-verify.${mode}.no-compat.${runtime}
      ENV HIPFILE_RUNTIME=${runtime} HIPFILE_ALLOW_COMPAT_MODE=false
      OPTIONS --hipfile_mode=${mode} --iodepth=8 --direct=1)
  endforeach()
endforeach()

# Random writes of 4 to 128 KiB blocks, verified by crc32c as fio reads them back in the same job,
# through O_DIRECT and through the page cache, 8 in flight (fio's depth histogram shows 8 reached
# in stream and batch modes).
foreach(mode sync stream batch)
  set(depth_reached "")
  if(NOT mode STREQUAL "sync")
    set(depth_reached "IO depths *: 1=.*, 8=[1-9][0-9]")
  endif()
  foreach(direct 0 1)
    hipfile_fio_test(randwrite-verify-crc32c.${mode}.direct${direct} STATUS 0
      PATTERNS "^randwrite: \\(groupid=0, jobs=1\\): err= 0" "WRITE: .*io=4096KiB"
               "READ: .*io=4096KiB" "!verify failed" ${depth_reached}
      ARGS --name=randwrite --ioengine=external:${fio_engine} --hipfile_mode=${mode}
           --filename=data.bin --size=4M --bsrange=4k-128k --rw=randwrite --iodepth=8
           --direct=${direct} --verify=crc32c --verify_fatal=1)
  endforeach()
endforeach()

# rocm_io=posix, AMD's baseline: pread/pwrite and a GPU copy; its mode is always sync.
hipfile_fio_wrv(write-read-verify.posix
  OPTIONS --rocm_io=posix --hipfile_mode=stream --iodepth=4
  PATTERNS "rocm_io=posix runs hipfile_mode=sync")

# A job file written for AMD's fio runs with its ioengine=libhipfile line unchanged when
# LD_LIBRARY_PATH names the engine's folder (lib/fio/libhipfile).
set(dir ${CMAKE_CURRENT_BINARY_DIR}/work/amd-job-file-unchanged)
file(MAKE_DIRECTORY ${dir})
add_test(NAME tool.fio.amd-job-file-unchanged
         COMMAND sh ${fio_expect} 0 "^amd-write: \\(groupid=0, jobs=1\\): err= 0"
                 "^amd-read: \\(groupid=1, jobs=1\\): err= 0" "!verify failed"
                 -- env LD_LIBRARY_PATH=${fio_prefix}/${CMAKE_INSTALL_LIBDIR}/fio
                 ${HIPFILE_FIO_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tests/amd-job.fio
         WORKING_DIRECTORY ${dir})
set_tests_properties(tool.fio.amd-job-file-unchanged PROPERTIES LABELS "tools;fio" TIMEOUT 120
  FIXTURES_REQUIRED fio_prefix ENVIRONMENT "HIPFILE_RUNTIME=cpu;LD_BIND_NOW=1")

# verify= checks what the engine brought back: a byte flipped in the file between a write and a
# verifying read is reported, in each mode.
foreach(mode sync stream batch)
  add_test(NAME tool.fio.verify-sees-a-flipped-byte.${mode}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/flipped-byte.sh ${fio_expect}
                   ${HIPFILE_FIO_EXECUTABLE} ${fio_engine} ${mode}
                   ${CMAKE_CURRENT_BINARY_DIR}/work/flipped-byte.${mode})
  set_tests_properties(tool.fio.verify-sees-a-flipped-byte.${mode} PROPERTIES LABELS "tools;fio"
    TIMEOUT 120 FIXTURES_REQUIRED fio_prefix ENVIRONMENT "HIPFILE_RUNTIME=cpu;LD_BIND_NOW=1"
    PASS_REGULAR_EXPRESSION "flipped-byte: ${mode} reported the flipped byte")
endforeach()

# hipfile_mode=stream registers its stream with the FIXED flags (hipfile_stream_fixed=1, the
# default): its reads are taken at submission, none staged; with hipfile_stream_fixed=0 they are
# (the installed hipfile-stats' report of fio says which way each went; cpu-staged).
add_test(NAME tool.fio.stream-fixed-flags
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/stream-flags.sh ${HIPFILE_FIO_EXECUTABLE}
                 ${fio_engine} ${fio_prefix}/${CMAKE_INSTALL_BINDIR}/hipfile-stats
                 ${CMAKE_CURRENT_BINARY_DIR}/work/stream-flags)
set_tests_properties(tool.fio.stream-fixed-flags PROPERTIES LABELS "tools;fio" TIMEOUT 120
  FIXTURES_REQUIRED fio_prefix ENVIRONMENT "LD_BIND_NOW=1" SKIP_RETURN_CODE 77
  PASS_REGULAR_EXPRESSION "stream-flags: fixed streams take reads at submission")

# Bad options are refused by name, and the job does no I/O.
hipfile_fio_test(refuses-bad-gpu-dev-ids STATUS 1
  PATTERNS "hipfile: gpu_dev_ids=0:x: not GPU numbers separated by ':'"
  ARGS --name=bad --ioengine=external:${fio_engine} --gpu_dev_ids=0:x --filename=data.bin
       --size=64k --rw=read)
hipfile_fio_test(refuses-unknown-mode STATUS 1
  PATTERNS "hipfile_mode.*async"
  ARGS --name=bad --ioengine=external:${fio_engine} --hipfile_mode=async --filename=data.bin
       --size=64k --rw=read)

# With the compatibility path off, a job only it could serve (1000-byte writes, which O_DIRECT
# cannot take) fails, says why, and is not reported as done.
hipfile_fio_test(no-compat-refuses-unaligned-writes STATUS 1
  ENV HIPFILE_RUNTIME=cpu-staged HIPFILE_ALLOW_COMPAT_MODE=false
  PATTERNS "could move only by the compatibility path" "err=( )?[1-9]"
  ARGS --name=unaligned --ioengine=external:${fio_engine} --filename=data.bin --size=100000
       --bs=1000 --rw=write)
