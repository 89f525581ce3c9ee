# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced (not run) by the scripts that run on the H200 through `device`: the set-up each of them
# repeated. The H200 image has cmake, ninja, nanobind, scikit-build-core, torch and CuPy, but no
# liburing-dev and no network; the tree's .whl folder (gitignored, carried) holds what it lacks.
#
#   source bench/h200-prep.sh
#   h200_build /tmp/b hipfile-bench async-bench   # Release build of those targets (log /tmp/b.log)
#   h200_package /tmp/site                        # the Python package into a --target folder,
#                                                 # put on PYTHONPATH (log /tmp/site.log)
#   h200_install /tmp/b /tmp/prefix               # the libraries and headers of a build that made
#                                                 # hipfile and hipfile_cufile (log /tmp/prefix.log)
#   h200_kvikio /tmp/kv [/tmp/nv]                 # KvikIO's wheels from .whl into a --target dir;
#                                                 # NVIDIA's libcufile wheel apart, or not at all
#                                                 # (log /tmp/kv.log)
#
# Each returns non-zero after printing the log's last lines when it fails. H200_JOBS (unset: all
# cores) bounds the build's parallel jobs, for a trial run on a small machine.

# liburing's headers and static library from .whl/deb (bench/competitors/fetch-liburing.sh), so
# that what is built there has io_uring as a user's build would.
h200_uring() {
  if [[ -z ${H200_URING_DONE:-} ]] && ls .whl/deb/liburing-dev_*.deb > /dev/null 2>&1; then
    dpkg -x .whl/deb/liburing-dev_*.deb /tmp/uring &&
      export CMAKE_PREFIX_PATH=/tmp/uring/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH} &&
      H200_URING_DONE=1
  fi
}

h200_build() {  # h200_build BUILD_DIR TARGET...
  local dir=$1
  shift
  h200_uring
  {
    cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIPFILE_BUILD_TESTS=OFF \
      -DHIPFILE_BUILD_EXAMPLES=OFF &&
      cmake --build "$dir" ${H200_JOBS:+-j "$H200_JOBS"} --target "$@"
  } > "$dir.log" 2>&1 || { tail -20 "$dir.log"; return 1; }
}

h200_package() {  # h200_package SITE_DIR
  local site=$1
  h200_uring
  python3 -m pip install -q --no-build-isolation --no-index --no-deps --target "$site" . \
    -C build-dir=/tmp/bpy > "$site.log" 2>&1 || { tail -20 "$site.log"; return 1; }
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
}

# The top directory's install rules only (cmake/HipfileInstall.cmake: libhipfile.so, the drop-in
# libcufile.so.0 in lib/hipfile-cufile, the headers, the package files), so that a build of the
# targets hipfile and hipfile_cufile is enough: `cmake --install` would also want every tool that
# tools/ installs.
h200_install() {  # h200_install BUILD_DIR PREFIX (log PREFIX.log)
  local dir=$1 prefix=$2
  cmake -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LOCAL_ONLY=ON -P "$dir/cmake_install.cmake" \
    > "$prefix.log" 2>&1 || { tail -20 "$prefix.log"; return 1; }
}

# KvikIO (bench/competitors/fetch-kvikio-wheels.sh) into SITE_DIR, for PYTHONPATH. NVIDIA's
# libcufile wheel goes into NVIDIA_DIR when one is named (its library in
# NVIDIA_DIR/nvidia/cu13/lib), else nowhere: KvikIO finds libcufile through cuda-pathfinder, which
# looks in site-packages (not PYTHONPATH) before the loader's path, so the wheel in SITE_DIR would
# not be taken anyway, but apart there is no doubt which library a process was given.
h200_kvikio() {  # h200_kvikio SITE_DIR [NVIDIA_DIR]
  local site=$1 nv=${2:-} wheels=()
  local w
  for w in .whl/*.whl; do
    [[ -f $w && $w != .whl/nvidia_cufile-* ]] && wheels+=("$w")
  done
  if ! ls .whl/kvikio_*.whl > /dev/null 2>&1; then
    echo "no KvikIO wheel in $PWD/.whl: bench/competitors/fetch-kvikio-wheels.sh .whl" >&2
    return 1
  fi
  {
    python3 -m pip install -q --no-index --no-deps --target "$site" "${wheels[@]}" &&
      if [[ -n $nv ]] && ls .whl/nvidia_cufile-*.whl > /dev/null 2>&1; then
        python3 -m pip install -q --no-index --no-deps --target "$nv" .whl/nvidia_cufile-*.whl
      fi
  } > "$site.log" 2>&1 || { tail -20 "$site.log"; return 1; }
}
