# tests/packaging/completion_expect.sh — sourced by completion_bash.sh and
# completion_zsh.sh: `expect` and `expect_not` over the shell's own `complete_line WORD...`
# (the completions of the last word, one a line), counting failures in $fails.
fails=0
expect() {  # expect "WANTED" WORD...: WANTED is among the completions
    local want=$1; shift
    if complete_line "$@" | grep -qx -- "$want"; then
        echo "ok: '$*' offers $want"
    else
        echo "FAIL: '$*' does not offer $want; got: $(complete_line "$@" | tr '\n' ' ')"
        fails=$((fails + 1))
    fi
}
expect_not() {  # expect_not "UNWANTED" WORD...: UNWANTED is not among them
    local unwanted=$1; shift
    if complete_line "$@" | grep -qx -- "$unwanted"; then
        echo "FAIL: '$*' offers $unwanted"; fails=$((fails + 1))
    else
        echo "ok: '$*' does not offer $unwanted"
    fi
}
