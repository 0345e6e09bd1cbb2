#!/bin/bash
# tests/packaging/completion_zsh.sh ATTN — the zsh completion (packaging/completions/_attn)
# offers what the bash one does: verbs, a verb's options (asked from attn itself), lesson
# numbers, shape tables and option values. zsh's completion builtins exist only inside
# a real completion widget, so `compadd` and `_files` are stood in for by functions that
# collect their words; `words` and `CURRENT` are set as zsh sets them (1-based).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
attn=$1
complete_line() {  # complete_line WORD...: the completions of the last word, one a line
    zsh -f -c '
        completion=$1; attn=$2; shift 2
        reply=()
        compadd() { local a; for a in "$@"; do [[ $a == -- ]] || reply+=("$a"); done }
        _files() { reply+=("<files>") }
        words=("$attn" "$@")
        CURRENT=${#words}
        source "$completion"
        print -rl -- "${reply[@]}"
    ' zsh "$here/packaging/completions/_attn" "$attn" "$@" | sort
}
source "$here/tests/packaging/completion_expect.sh"
# zsh must read the file without a syntax error before anything else means something.
if ! zsh -n "$here/packaging/completions/_attn"; then
    echo "FAIL: zsh -n finds a syntax error in packaging/completions/_attn"; exit 1
fi
expect lessons ""
expect lesson ""
expect --version ""
expect --no-pause lesson --no
expect --step lesson 4 --s
expect 4 lesson ""
expect 14 lesson ""
expect check lesson ""
expect never lesson 4 --color ""
expect cross shapes ""
expect --n_tgt shapes cross --n
expect template exercise ""
expect --student exercise template 04 --st
expect --gradescope grade --grades
expect weights trace x.toml --heatmap ""
expect induction model run ""
expect "<files>" grade --class ""
expect_not --no-pause grade --no-p
exit $((fails > 0))
