#!/bin/bash
# tests/packaging/completion_bash.sh ATTN — the bash completion completes verbs, a
# verb's options (asked from attn itself), lesson numbers, shape tables and option values.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
attn=$1
source "$here/packaging/completions/attn.bash"
complete_line() {  # complete_line WORD...: the completions of the last word
    COMP_WORDS=("$attn" "$@")
    COMP_CWORD=$#
    COMPREPLY=()
    _attn
    printf '%s\n' "${COMPREPLY[@]}" | sort
}
source "$here/tests/packaging/completion_expect.sh"
expect lessons les
expect lesson les
expect --version --v
expect --no-pause lesson --no
expect --step lesson 4 --s
expect 4 lesson ""
expect 14 lesson 1
expect check lesson c
expect never lesson 4 --color n
expect cross shapes c
expect --n_tgt shapes cross --n
expect template exercise t
expect --student exercise template 04 --st
expect --gradescope grade --grades
expect weights trace x.toml --heatmap w
expect_not --no-pause grade --no-p
expect model mo
expect run model r
expect --layer model run x.safetensors --la
expect float32 model run x.safetensors --dtype float3
expect induction model run ind
expect sort-100 model heads sort
exit $((fails > 0))
