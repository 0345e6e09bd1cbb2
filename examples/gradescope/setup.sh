#!/bin/bash
# examples/gradescope/setup.sh — Gradescope runs this once, as root, when it builds
# the autograder image. It installs attn's Debian/Ubuntu packages and builds attn
# from the source tree shipped inside the autograder zip (/autograder/source/attn).
# Package names are those of tools/packages.txt; on an Ubuntu image they are the same.
set -euo pipefail
src=/autograder/source/attn
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# [build] + [run] of tools/packages.txt: the tests' packages are not needed to grade.
apt-get install -y -qq --no-install-recommends $("$src/tools/packages" build run)
cmake -S "$src" -B "$src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTN_BUILD_TESTS=OFF
cmake --build "$src/build" --target attn
