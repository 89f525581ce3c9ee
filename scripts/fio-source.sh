#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches the source of the installed fio, the version of its Debian package, and configures it,
# so the fio engine (tools/fio, libhipfile-fio.so) is built against the headers of the fio that
# loads it: fio refuses an engine built for another version (FIO_IOOPS_VERSION). The source comes
# from the distribution's own source archive through apt (checked against its signed index), with a
# private package list: the machine's apt configuration is not changed.
#
#   scripts/fio-source.sh DEST     -> DEST/fio-<version>/ (config-host.h written by its configure)
#
# Does nothing when DEST already holds that version. Exit 1 with a message when fio is not
# installed or the source cannot be fetched.
set -euo pipefail
dest=$1
if ! version=$(dpkg-query -W -f='${Version}' fio 2>/dev/null) || [ -z "$version" ]; then
  echo "fio-source: fio is not installed (apt-get install fio)" >&2
  exit 1
fi
upstream=${version#*:}
upstream=${upstream%-*}
dir=$dest/fio-$upstream
if [ -f "$dir/config-host.h" ]; then
  exit 0
fi

. /etc/os-release
case "$ID" in
  ubuntu) archive=http://archive.ubuntu.com/ubuntu components="main universe" ;;
  *) archive=http://deb.debian.org/debian components=main ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb-src $archive $VERSION_CODENAME $components" > "$work/sources.list"
echo "deb-src $archive $VERSION_CODENAME-updates $components" >> "$work/sources.list"
apt_opts=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache")
if ! apt-get "${apt_opts[@]}" update > "$work/update.log" 2>&1; then
  cat "$work/update.log" >&2
  echo "fio-source: cannot read $archive's source index" >&2
  exit 1
fi
if ! (cd "$work" && apt-get "${apt_opts[@]}" source --download-only "fio=$version") \
    > "$work/source.log" 2>&1; then
  cat "$work/source.log" >&2
  echo "fio-source: cannot fetch the source of fio $version" >&2
  exit 1
fi
mkdir -p "$dest"
rm -rf "$dir"
tar -xf "$(ls "$work"/fio_"$upstream".orig.tar.* | grep -v "\.asc$")" -C "$dest"
# Only fields placed before fio's configuration-dependent members are used by the engine
# (tools/fio/hipfile_fio.h), so the defaults suffice; --disable-native keeps the host CPU's
# instruction set out of the headers' inline code.
if ! (cd "$dir" && ./configure --disable-native > configure.log 2>&1); then
  cat "$dir/configure.log" >&2
  exit 1
fi
echo "fio-source: fio $upstream configured in $dir"
