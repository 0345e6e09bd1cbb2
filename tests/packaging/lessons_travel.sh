#!/bin/sh
# tests/packaging/lessons_travel.sh ATTN — a copied attn carries its lessons: copied to
# an empty folder and run from / with no ATTN_LESSONS_DIR, every lesson of lessons/
# prints byte for byte what the build-tree binary prints from the source tree's files.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
attn=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$attn" "$tmp/attn"
unset ATTN_LESSONS_DIR
fails=0
count=0
for file in "$here"/lessons/[0-9][0-9]-*.toml; do
  n=$(basename "$file" | cut -c1-2 | sed 's/^0//')
  (cd / && "$tmp/attn" lesson "$n" --no-pause --color never) >"$tmp/copied.txt" 2>&1 || {
    echo "FAIL: the copied attn cannot run lesson $n from /:"; head -5 "$tmp/copied.txt"; fails=$((fails + 1)); continue; }
  ATTN_LESSONS_DIR="$here/lessons" "$attn" lesson "$n" --no-pause --color never >"$tmp/tree.txt" 2>&1
  if cmp -s "$tmp/copied.txt" "$tmp/tree.txt"; then
    count=$((count + 1))
  else
    echo "FAIL: lesson $n differs between the built-in copy and lessons/:"; diff "$tmp/tree.txt" "$tmp/copied.txt" | head -10
    fails=$((fails + 1))
  fi
done
# The binary names no lessons/ folder of the source tree: it cannot be reading it.
if grep -a -q -F "$here/lessons" "$attn"; then
  echo "FAIL: attn holds the path $here/lessons"; fails=$((fails + 1))
fi
# The listing and the lookup say where the lessons come from. Lesson lines start with
# their number (a line under a lesson may show the reader's progress).
(cd / && "$tmp/attn" lessons) | grep -E '^ ?[0-9]+  ' >"$tmp/list.txt"
[ "$(wc -l <"$tmp/list.txt")" -eq "$(ls "$here"/lessons/[0-9][0-9]-*.toml | wc -l)" ] || {
  echo "FAIL: the copied attn lists $(wc -l <"$tmp/list.txt") lessons, lessons/ has $(ls "$here"/lessons/[0-9][0-9]-*.toml | wc -l)"; fails=$((fails + 1)); }
(cd / && "$tmp/attn" lesson 99 2>&1 || true) | grep -q "lessons built into attn" || {
  echo "FAIL: the copied attn does not look in its built-in lessons"; fails=$((fails + 1)); }
# --lessons and ATTN_LESSONS_DIR still override; a lesson file runs directly.
mkdir "$tmp/course"
cp "$here/lessons/04-cross-attention.toml" "$tmp/course/01-only.toml"
sed -i 's/^number = 4$/number = 1/' "$tmp/course/01-only.toml"
[ "$(cd / && "$tmp/attn" --lessons "$tmp/course" lessons | wc -l)" -eq 1 ] || { echo "FAIL: --lessons DIR does not override"; fails=$((fails + 1)); }
[ "$(cd / && ATTN_LESSONS_DIR="$tmp/course" "$tmp/attn" lessons | wc -l)" -eq 1 ] || { echo "FAIL: ATTN_LESSONS_DIR does not override"; fails=$((fails + 1)); }
(cd / && "$tmp/attn" lesson "$here/lessons/04-cross-attention.toml" --no-pause --color never) >"$tmp/file.txt"
ATTN_LESSONS_DIR="$here/lessons" "$attn" lesson 4 --no-pause --color never >"$tmp/tree.txt"
cmp -s "$tmp/file.txt" "$tmp/tree.txt" || { echo "FAIL: attn lesson FILE.toml differs from attn lesson 4"; fails=$((fails + 1)); }
echo "$count lessons identical from the copied binary"
[ "$fails" -eq 0 ]
