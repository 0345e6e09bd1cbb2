#!/bin/sh
# tests/packaging/consumer.sh CONSUMER_SRC PREFIX WORK CXX [FLAGS] — configures and builds
# tests/consumer (find_package(attn) with CMAKE_PREFIX_PATH=PREFIX, the install tree made by
# packaging.install_tree) in WORK, a fresh folder, and runs it.
set -eu
src=$1 prefix=$(realpath -m "$2") work=$(realpath -m "$3") cxx=$4 flags=${5:-}
rm -rf "$work"
cmake -S "$src" -B "$work" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
      -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_BUILD_TYPE=Release
cmake --build "$work"
"$work/attn_consumer"
