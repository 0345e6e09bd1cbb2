#!/bin/sh
# tests/packaging/man_page.sh ATTN — packaging/attn.1 renders without a warning and
# documents every verb and every option that `attn [VERB [SUB]] --help` lists, so the
# man page cannot fall behind the program.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
attn=$1
page="$here/packaging/attn.1"
fails=0
warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
[ -z "$warnings" ] || { echo "FAIL: groff warns about attn.1:"; echo "$warnings"; fails=$((fails + 1)); }
rendered=$(groff -man -Tutf8 -P-cbou "$page" 2>/dev/null)
# The sub-verbs of `attn model` register themselves (cli/model_verbs.hpp): ask attn for them.
model_verbs=$("$attn" model --help 2>/dev/null | sed -n '/^[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:/,$p' |
              sed -n 's/^  \([a-z][a-z-]*\) .*/model_\1/p' | tr '\n' ' ')
for verb in "" lessons lesson "lesson check" trace shapes exercise "exercise list" "exercise show" \
            "exercise template" "exercise check" grade course "course secret" model $model_verbs; do
  case "$verb" in
    "exercise "*) pattern="^ *${verb#exercise }" ;;   # the exercise sub-verbs are items of 'attn exercise'
    model_*) verb="model ${verb#model_}"; pattern="attn $verb" ;;
    *) pattern="attn $verb" ;;
  esac
  if [ -n "$verb" ]; then
    echo "$rendered" | grep -q "$pattern" || { echo "FAIL: the man page has no 'attn $verb'"; fails=$((fails + 1)); }
  fi
  # shellcheck disable=SC2086
  for opt in $("$attn" $verb --help 2>/dev/null | grep -o -- '--[A-Za-z_][A-Za-z0-9_-]*' | sort -u); do
    echo "$rendered" | grep -q -- "$opt" || { echo "FAIL: attn $verb $opt is not in the man page"; fails=$((fails + 1)); }
  done
done
for word in "EXIT STATUS" ATTN_LESSONS_DIR ATTN_COURSE_SECRET NO_COLOR COLUMNS; do
  echo "$rendered" | grep -q "$word" || { echo "FAIL: the man page does not mention $word"; fails=$((fails + 1)); }
done
[ "$fails" -eq 0 ] && echo "ok: attn.1 renders and covers every verb and option"
[ "$fails" -eq 0 ]
