#!/bin/sh
# CTest CMake.InstallAndFindPackage: install the build tree BUILD into a temporary
# prefix, configure and build tests/cmake_consumer against it with find_package,
# run both programs.   run.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
test -f "$tmp/prefix/lib/cmake/fp8kit/fp8kitConfig.cmake" || test -f "$tmp/prefix/lib64/cmake/fp8kit/fp8kitConfig.cmake"
cmake -S "$src/tests/cmake_consumer" -B "$tmp/build" -G Ninja -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
cmake --build "$tmp/build" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }
"$tmp/build/consumer_shared"
"$tmp/build/consumer_static"
