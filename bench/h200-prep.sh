# SPDX-License-Identifier: MIT
# Sourced (not run) by the scripts that run on the H200 through `device`: the set-up each of them
# repeated. The H200 image has cmake, ninja, nanobind, scikit-build-core, torch and CuPy, but no
# liburing-dev and no network; the tree's .whl folder (gitignored, carried) holds what it lacks.
#
#   source bench/h200-prep.sh
#   h200_build /tmp/b hipfile-bench async-bench   # Release build of those targets (log /tmp/b.log)
#   h200_package /tmp/site                        # the Python package into a --target folder,
#                                                 # put on PYTHONPATH (log /tmp/site.log)
#
# Both return non-zero after printing the log's last lines when the build fails.

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
      -DHIPFILE_BUILD_EXAMPLES=OFF && cmake --build "$dir" --target "$@"
  } > "$dir.log" 2>&1 || { tail -20 "$dir.log"; return 1; }
}

h200_package() {  # h200_package SITE_DIR
  local site=$1
  h200_uring
  python3 -m pip install -q --no-build-isolation --no-index --no-deps --target "$site" . \
    -C build-dir=/tmp/bpy > "$site.log" 2>&1 || { tail -20 "$site.log"; return 1; }
  export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
}
