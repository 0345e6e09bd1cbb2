#!/bin/sh
# tests/packaging/install_tree.sh BUILD_DIR PREFIX — `cmake --install BUILD_DIR --prefix
# PREFIX`, then what a user of the install tree meets: PREFIX/bin/attn runs lesson 1 from
# another folder with no source tree variables, the man page renders, the completion
# files and the lessons are there, and attnConfig.cmake is installed for find_package.
# PREFIX is left in place for the consumer test (fixture attn_install_tree).
set -eu
build=$1
prefix=$(realpath -m "$2")
rm -rf "$prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
fails=0
need() { [ -e "$prefix/$1" ] || { echo "FAIL: $1 is not installed"; fails=$((fails + 1)); }; }
need bin/attn
need share/man/man1/attn.1
need share/bash-completion/completions/attn
need share/zsh/vendor-completions/_attn
need share/attn/lessons/01-self-attention.toml
need share/attn/lessons/README.md
need include/attn/core/attention.hpp
[ -n "$(find "$prefix" -name attnConfig.cmake)" ] || { echo "FAIL: no attnConfig.cmake"; fails=$((fails + 1)); }
[ -z "$(find "$prefix/include" -path '*/cli/*')" ] || { echo "FAIL: cli/ headers are installed"; fails=$((fails + 1)); }

out=$(cd / && env -u ATTN_LESSONS_DIR "$prefix/bin/attn" lesson 1 --no-pause --color never) || {
  echo "FAIL: $prefix/bin/attn lesson 1 --no-pause exits $?"; fails=$((fails + 1)); }
echo "$out" | head -1 | grep -q "^Lesson 01 · " || { echo "FAIL: lesson 1 does not start as it should: $(echo "$out" | head -1)"; fails=$((fails + 1)); }
(cd / && "$prefix/bin/attn" --version) | grep -q "^attn [0-9]" || { echo "FAIL: attn --version"; fails=$((fails + 1)); }
# The installed lessons are a course folder of their own (--lessons DIR). Lesson lines
# start with their number (a line under a lesson may show the reader's progress).
[ "$(cd / && "$prefix/bin/attn" --lessons "$prefix/share/attn/lessons" lessons | grep -cE '^ ?[0-9]+  ')" -eq \
  "$(ls "$prefix"/share/attn/lessons/[0-9][0-9]-*.toml | wc -l)" ] || { echo "FAIL: --lessons share/attn/lessons"; fails=$((fails + 1)); }
rendered=$(groff -man -Tutf8 -P-cbou "$prefix/share/man/man1/attn.1" 2>&1)
echo "$rendered" | grep -q "EXIT STATUS" || { echo "FAIL: the installed man page does not render"; fails=$((fails + 1)); }
bash -n "$prefix/share/bash-completion/completions/attn" || fails=$((fails + 1))
[ "$fails" -eq 0 ] && echo "ok: install tree at $prefix works from /"
[ "$fails" -eq 0 ]
