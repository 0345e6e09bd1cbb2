# packaging/completions/attn.bash — bash completion for attn (installed as
# share/bash-completion/completions/attn). It asks the attn being completed for its
# verbs' options (`attn VERB --help`), lessons (`attn lessons`) and shape tables
# (`attn shapes --list`), so it never lags behind the program.

_attn_verb_options() {  # _attn_verb_options CMD VERB [SUB]: the --options of that help text
    "$1" "${@:2}" --help 2>/dev/null | grep -o -- '--[A-Za-z_][A-Za-z0-9_-]*' | sort -u
}

_attn() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmd=${COMP_WORDS[0]} verb="" sub="" i w
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case "$w" in
            --lessons) ((i++)) ;;
            -*) ;;
            *) if [ -z "$verb" ]; then verb=$w; elif [ -z "$sub" ]; then sub=$w; fi ;;
        esac
    done

    case "$prev" in
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "text json toml" -- "$cur")); return ;;
        --visibility) COMPREPLY=($(compgen -W "visible hidden after_due_date after_published" -- "$cur")); return ;;
        --feedback) COMPREPLY=($(compgen -W "full mistakes score" -- "$cur")); return ;;
        --assignment) COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur")); return ;;
        --heatmap) COMPREPLY=($(compgen -W "none raw scaled masked weights" -- "$cur")); return ;;
        --stage) COMPREPLY=($(compgen -W "q k v raw scaled masked weights output" -- "$cur")); return ;;
        --lessons|--npy|--csv|--class|--submission|--tokenizer) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --dtype) COMPREPLY=($(compgen -W "auto float32 float64" -- "$cur")); return ;;
        --arch) COMPREPLY=($(compgen -W "gpt2 llama qwen2" -- "$cur")); return ;;
        --json|--html|--junit|--gradebook|--histogram|--review-sheet|--reviews|--secret-file|--results|--metadata|-o|--output)
            COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac

    if [ -z "$verb" ]; then
        COMPREPLY=($(compgen -W "lessons lesson trace examples shapes exercise grade model course --lessons --version --help" -- "$cur"))
        return
    fi
    if [[ "$cur" == -* ]]; then
        local help_of=("$verb")
        [ "$verb" = exercise ] && [ -n "$sub" ] && help_of+=("$sub")
        [ "$verb" = model ] && [ -n "$sub" ] && help_of+=("$sub")
        [ "$verb" = course ] && [ -n "$sub" ] && help_of+=("$sub")
        COMPREPLY=($(compgen -W "$(_attn_verb_options "$cmd" "${help_of[@]}")" -- "$cur"))
        return
    fi
    case "$verb" in
        lesson)
            if [ "$sub" = check ]; then
                COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur"))
            elif [ -z "$sub" ]; then
                COMPREPLY=($(compgen -W "check $("$cmd" lessons 2>/dev/null | awk '{print $1}')" -- "$cur")
                           $(compgen -f -X '!*.toml' -- "$cur"))
            fi ;;
        shapes)
            [ -z "$sub" ] && COMPREPLY=($(compgen -W "$("$cmd" shapes --list 2>/dev/null | awk '{print $1}')" -- "$cur")) ;;
        exercise)
            [ -z "$sub" ] && COMPREPLY=($(compgen -W "list show template check" -- "$cur")) ;;
        trace)
            COMPREPLY=($(compgen -f -X '!*.toml' -- "$cur") $(compgen -d -- "$cur")) ;;
        grade)
            COMPREPLY=($(compgen -f -- "$cur")) ;;
        model)  # the sub-verbs as `attn model --help` lists them, then checkpoints (built-in names, files)
            if [ -z "$sub" ]; then
                COMPREPLY=($(compgen -W "$("$cmd" model --help 2>/dev/null | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')" -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$("$cmd" model list --names 2>/dev/null)" -- "$cur")
                           $(compgen -f -X '!*.safetensors' -- "$cur") $(compgen -d -- "$cur"))
            fi ;;
        course)
            if [ -z "$sub" ]; then COMPREPLY=($(compgen -W "secret" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
    esac
}
complete -o filenames -F _attn attn
