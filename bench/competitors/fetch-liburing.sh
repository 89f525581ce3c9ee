#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# liburing for a machine that cannot install it (the H200 image has no liburing-dev, so a build
# made there has no io_uring: batched and small reads then run one at a time). Downloads Debian's
# liburing-dev (headers and the static liburing.a, about 150 KiB) into DEST; there, unpack it and
# point CMake at it before building (pip install passes the environment on to CMake):
#
#   bench/competitors/fetch-liburing.sh DEST                       # here
#   dpkg -x DEST/liburing-dev_*.deb /tmp/uring                     # there
#   export CMAKE_PREFIX_PATH=/tmp/uring/usr                        # then cmake / pip install
#
# The library links liburing statically (cmake/HipfileLiburing.cmake): nothing more is needed
# where it runs.
set -euo pipefail

DEST=${1:?usage: fetch-liburing.sh DEST}
mkdir -p "$DEST"
cd "$DEST"
apt-get download liburing-dev
ls -l "$PWD"/liburing-dev_*.deb
