#!/bin/sh
# tests/packaging/deb_package.sh BUILD_DIR PACKAGES_TXT [yes] — `cpack -G DEB` makes the .deb;
# its control names every runtime package of the [run] section in Depends, its contents
# are the binary, man page, completion and lessons under /usr; extracted (dpkg-deb -x,
# not installed) the binary runs a lesson from another folder.
set -eu
build=$1
packages=$2
sanitized=${3:-no}   # yes: a -fsanitize build, whose binary also needs the compiler's sanitizer runtimes
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && cpack -G DEB -B "$tmp/out" --config CPackConfig.cmake) >"$tmp/cpack.log" 2>&1 || {
  echo "FAIL: cpack -G DEB"; cat "$tmp/cpack.log"; exit 1; }
deb=$(ls "$tmp"/out/*.deb)
echo "made $(basename "$deb")"
fails=0
dpkg-deb --info "$deb" >"$tmp/info"
cat "$tmp/info"
depends=$(sed -n 's/^ Depends: //p' "$tmp/info")
[ -n "$depends" ] || { echo "FAIL: the package has no Depends"; fails=$((fails + 1)); }
here=$(cd "$(dirname "$0")/../.." && pwd)
# Every package Depends names (first alternative of each) comes with the [run] section:
# what tools/packages.txt lists for running is what the package needs.
"$here/tools/check-packages" --closure run --packages "$packages" >"$tmp/run-closure"
for p in $(echo "$depends" | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/ //g'); do
  case "$p" in lib[alt]san[0-9]*|libubsan[0-9]*) [ "$sanitized" = yes ] && continue ;; esac  # the sanitizer build's runtimes
  grep -qx "$p" "$tmp/run-closure" || { echo "FAIL: Depends names $p, which [run] of $packages does not bring"; fails=$((fails + 1)); }
done
# The libraries attn itself names (NEEDED) each have their package in Depends.
dpkg-deb -x "$deb" "$tmp/root"
for lib in $(readelf -d "$tmp/root/usr/bin/attn" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  path=$(ldd "$tmp/root/usr/bin/attn" | awk -v l="$lib" '$1 == l {print $3}')
  pkg=$( (dpkg-query -S "$path" || dpkg-query -S "$(readlink -f "$path")") 2>/dev/null | sed 's/:.*//' | head -1)
  case "$pkg" in libopenblas0-*) pkg=libopenblas0 ;; esac  # Depends names the alternatives' metapackage
  echo "$depends" | tr ',|' '\n\n' | sed 's/(.*//; s/ //g' | grep -qx "$pkg" || {
    echo "FAIL: attn needs $lib ($pkg), which Depends does not name"; fails=$((fails + 1)); }
done
dpkg-deb --contents "$deb" >"$tmp/contents"
for f in ./usr/bin/attn ./usr/share/man/man1/attn.1 ./usr/share/bash-completion/completions/attn \
         ./usr/share/zsh/vendor-completions/_attn ./usr/share/attn/lessons/04-cross-attention.toml; do
  grep -q " $f\$" "$tmp/contents" || grep -q " $f.gz\$" "$tmp/contents" || {
    echo "FAIL: $f is not in the package"; fails=$((fails + 1)); }
done
! grep -q '\.a$\|/include/' "$tmp/contents" || { echo "FAIL: development files in the runtime package"; fails=$((fails + 1)); }
mkdir "$tmp/elsewhere"
(cd "$tmp/elsewhere" && env -u ATTN_LESSONS_DIR "$tmp/root/usr/bin/attn" lesson 4 --no-pause --color never) >"$tmp/lesson.txt" || {
  echo "FAIL: the extracted attn cannot run lesson 4"; fails=$((fails + 1)); }
head -1 "$tmp/lesson.txt" | grep -q "^Lesson 04 · " || { echo "FAIL: lesson 4 from the package: $(head -1 "$tmp/lesson.txt")"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ] && echo "ok: the .deb has its Depends and contents, and its attn runs from elsewhere"
[ "$fails" -eq 0 ]
