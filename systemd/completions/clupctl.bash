#!/bin/bash

__clupctl_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__clupctl_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__clupctl_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__clupctl_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_clupctl() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(-h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    shell|login|logout|technician|status|tickets|queue|call-next|skip|void|ledger|config|printer|paper|reprint|issue|employee|audit|devices|selftest|calibrate|logs|diagnostics|screenshot|screen|sim|sync|metrics|errors|help)
        # Offer subcommand argument completions
        "_clupctl_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'shell login logout technician status tickets queue call-next skip void ledger config printer paper reprint issue employee audit devices selftest calibrate logs diagnostics screenshot screen sim sync metrics errors help' -- "${cur}"))
        ;;
    esac
}

_clupctl_shell() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_login() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion login -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_logout() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_technician() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|add|secret|remove)
        # Offer subcommand argument completions
        "_clupctl_technician_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list add secret remove' -- "${cur}"))
        ;;
    esac
}

_clupctl_technician_list() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_technician_add() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_technician_secret() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion technician secret -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_technician_remove() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion technician remove -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_status() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_tickets() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_queue() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_call-next() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_skip() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion skip -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_void() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket --reason)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--reason')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion void -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_ledger() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|correct)
        # Offer subcommand argument completions
        "_clupctl_ledger_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show correct' -- "${cur}"))
        ;;
    esac
}

_clupctl_ledger_show() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_ledger_correct() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket --delta --set --reason)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--delta')
        return
        ;;
    '--set')
        return
        ;;
    '--reason')
        return
        ;;
    esac
}

_clupctl_config() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show)
        # Offer subcommand argument completions
        "_clupctl_config_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show' -- "${cur}"))
        ;;
    esac
}

_clupctl_config_show() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_printer() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_paper() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|new-roll)
        # Offer subcommand argument completions
        "_clupctl_paper_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show new-roll' -- "${cur}"))
        ;;
    esac
}

_clupctl_paper_show() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_paper_new-roll() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_reprint() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion reprint -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_issue() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket --priority)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--priority')
        __clupctl_add_completions -W 'pregnant'$'\n''disability'$'\n''elderly'$'\n''other'
        return
        ;;
    esac
}

_clupctl_employee() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|add|pin|remove)
        # Offer subcommand argument completions
        "_clupctl_employee_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list add pin remove' -- "${cur}"))
        ;;
    esac
}

_clupctl_employee_list() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_employee_add() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_employee_pin() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion employee pin -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_employee_remove() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion employee remove -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_audit() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket --since --who)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--since')
        return
        ;;
    '--who')
        return
        ;;
    esac
}

_clupctl_devices() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_selftest() {
    repeating_flags=()
    non_repeating_flags=(--force --no-ask --json -h --help)
    repeating_options=()
    non_repeating_options=(--socket --timeout)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--timeout')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion selftest -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_calibrate() {
    repeating_flags=()
    non_repeating_flags=(--force --yes -h --help)
    repeating_options=()
    non_repeating_options=(--socket --timeout)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_clupctl_logs() {
    repeating_flags=()
    non_repeating_flags=(--follow -f --json -h --help)
    repeating_options=()
    non_repeating_options=(--socket --grep --since --lines -l --file)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--grep')
        return
        ;;
    '--since')
        return
        ;;
    '--lines'|'-l')
        return
        ;;
    '--file')
        __clupctl_add_completions -f
        return
        ;;
    esac
}

_clupctl_diagnostics() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -o plusdirs -fX '!*.@(gz|tgz)'
        return
        ;;
    esac
}

_clupctl_screenshot() {
    repeating_flags=()
    non_repeating_flags=(--door-screen -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_screen() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sim() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    approach|leave|tap|press|pass|scan|headset)
        # Offer subcommand argument completions
        "_clupctl_sim_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'approach leave tap press pass scan headset' -- "${cur}"))
        ;;
    esac
}

_clupctl_sim_approach() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sim_leave() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sim_tap() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sim_press() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket --hold)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    '--hold')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion sim press -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_sim_pass() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W 'in'$'\n''out'
        return
        ;;
    esac
}

_clupctl_sim_scan() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sim_headset() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sync() {
    repeating_flags=()
    non_repeating_flags=(-h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    show|now)
        # Offer subcommand argument completions
        "_clupctl_sync_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'show now' -- "${cur}"))
        ;;
    esac
}

_clupctl_sync_show() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_sync_now() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_metrics() {
    repeating_flags=()
    non_repeating_flags=(--json -h --help)
    repeating_options=()
    non_repeating_options=(--socket)
    __clupctl_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--socket')
        return
        ;;
    esac
}

_clupctl_errors() {
    repeating_flags=()
    non_repeating_flags=(--markdown --json -h --help)
    repeating_options=()
    non_repeating_options=()
    __clupctl_offer_flags_options 1

    # Offer positional completions
    case "${positional_number}" in
    1)
        __clupctl_add_completions -W "$(__clupctl_custom_complete ---completion errors -- positional@0 "${COMP_CWORD}" "$(__clupctl_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_clupctl_help() {
    :
}

complete -o filenames -F _clupctl clupctl
