#compdef clupctl

__clupctl_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__clupctl_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __clupctl_complete "${completions[@]:0:-1}"
    fi
}

__clupctl_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_clupctl() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'shell:Open the interactive maintenance shell (what clupctl does with no command).'
            'login:Log in as a technician: commands that change the totem need it.'
            'logout:End the technician'\''s session.'
            'technician:List, add or remove technicians, or set one'\''s secret.'
            'status:Show devices, queue, occupancy and printer.'
            'tickets:List today'\''s tickets with their state and QR code text.'
            'queue:Show waiting and called tickets and the next call.'
            'call-next:Call the next ticket by the queue rule.'
            'skip:Skip a called ticket whose customer did not come: its place goes to the next one now.'
            'void:Void a ticket: it leaves the queue and its code no longer opens the door.'
            'ledger:Show or correct today'\''s occupancy ledger.'
            'config:Show the configuration in force.'
            'printer:Show the ticket printer'\''s state and today'\''s print failures.'
            'paper:Show the paper left on the printer'\''s roll; say when a new roll goes in.'
            'reprint:Print again a ticket the printer failed.'
            'issue:Issue a priority ticket for a customer (pregnant, disability, elderly, other).'
            'employee:The employees who may log in at the totem'\''s PIN pad.'
            'audit:Show what staff did at the totem, oldest first.'
            'devices:List what is connected on USB and which known device each is, and the kiosk'\''s devices.'
            'selftest:Test the devices: print a test ticket, show a test pattern, speak, read the sensor, wait for a turnstile pulse, pulse the release line, read a code.'
            'calibrate:Calibrate the touch panel: touch four targets; the matrix is saved only if you confirm.'
            'logs:Show clupd'\''s log: from the journal, or from clupd'\''s own log file where there is no journal.'
            'diagnostics:Write one archive (.tar.gz) for support: configuration without secrets, versions, recent logs, the database'\''s integrity check, devices, printer, sync and the last 100 events.'
            'screenshot:Save the current screen as a PNG file.'
            'screen:Show the current screen, its language and its buttons (names for `clupctl sim press`).'
            'sim:Drive the simulated devices (clupd --simulate).'
            'sync:Show the sync with the hub: state, outbox, last success, clock skew, dead letters.'
            'metrics:Print clupd'\''s metrics as Prometheus text: events by type, sync, queue, this door'\''s places, printer, devices.'
            'errors:Explain an error code (E-PRN-003), or list them all.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        shell|login|logout|technician|status|tickets|queue|call-next|skip|void|ledger|config|printer|paper|reprint|issue|employee|audit|devices|selftest|calibrate|logs|diagnostics|screenshot|screen|sim|sync|metrics|errors|help)
            "_clupctl_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_shell() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_login() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':name:{__clupctl_custom_complete ---completion login -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_logout() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_technician() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:List the technicians.'
            'add:Add a technician; their secret is asked twice.'
            'secret:Set a technician'\''s secret (their sessions end).'
            'remove:Remove a technician (their sessions end).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|add|secret|remove)
            "_clupctl_technician_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_technician_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_technician_add() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':name:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_technician_secret() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':name:{__clupctl_custom_complete ---completion technician secret -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_technician_remove() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':name:{__clupctl_custom_complete ---completion technician remove -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_status() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_tickets() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_queue() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_call-next() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_skip() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':number:{__clupctl_custom_complete ---completion skip -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_void() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':number:{__clupctl_custom_complete ---completion void -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '--reason[Why, for the audit trail.]:reason:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_ledger() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'show:Show entries, exits and corrections per door.'
            'correct:Correct the count of people inside, with a reason (audited).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        show|correct)
            "_clupctl_ledger_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_ledger_show() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_ledger_correct() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--delta[People to add (negative to remove).]:delta:'
        '--set[The number of people you counted inside.]:set:'
        '--reason[Why, for the audit log.]:reason:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_config() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'show:Print the configuration as TOML.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        show)
            "_clupctl_config_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_config_show() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON\: where the configuration comes from, and its TOML.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_printer() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_paper() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'show:Show the paper left on the roll, by the count and the printer'\''s sensor.'
            'new-roll:Say a full roll was just put in: the count of tickets left starts again (audited).'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        show|new-roll)
            "_clupctl_paper_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_paper_show() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_paper_new-roll() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_reprint() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':number:{__clupctl_custom_complete ---completion reprint -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_issue() {
    local -i ret=1
    local -ar ___priority=('pregnant' 'disability' 'elderly' 'other')
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--priority[Why\: pregnant, disability, elderly, other.]:priority:{__clupctl_complete "${___priority[@]}"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_employee() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:Staff numbers, and whether the PIN pad is locked.'
            'add:Add an employee; their PIN is asked twice (or read from one line of stdin when it is not a terminal).'
            'pin:Give an employee a new PIN.'
            'remove:Remove an employee: their PIN no longer opens a session.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|add|pin|remove)
            "_clupctl_employee_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_employee_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[As JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_employee_add() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':staff-number:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_employee_pin() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':staff-number:{__clupctl_custom_complete ---completion employee pin -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_employee_remove() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':staff-number:{__clupctl_custom_complete ---completion employee remove -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_audit() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--since[Only the last so long\: 30m, 2h, 7d; or from an ISO 8601 instant.]:since:'
        '--who[Only what this technician, staff number or user did.]:who:'
        '--json[As JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_devices() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_selftest() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':step:{__clupctl_custom_complete ---completion selftest -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '--timeout[How long a step waits for the device (a person at the sensor, a pulse, a code, the print job), in seconds.]:timeout:'
        '--force[Even while a customer uses the totem.]'
        '--no-ask[Do not ask whether the test pattern was seen.]'
        '--json[Print JSON, one result per step.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_calibrate() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--timeout[How long to wait for each touch, in seconds.]:timeout:'
        '--force[Even while a customer uses the totem.]'
        '--yes[Save without asking (if the error is within hardware.calibration_max_error_mm).]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_logs() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(--follow -f)'{--follow,-f}'[Keep showing new lines as they come (Ctrl-C stops).]'
        '--grep[Only lines matching this regular expression.]:grep:'
        '--since[Only the last so long\: 30m, 2h, 7d; or from an ISO 8601 instant.]:since:'
        '(--lines -l)'{--lines,-l}'[At most this many lines (the newest).]:lines:'
        '--file[Read this log file directly, without asking clupd (what its standard error was written to).]:file:_files'
        '--json[Print JSON, one object per line.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_diagnostics() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':file:_files -g '\''*.gz *.tgz'\'''
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_screenshot() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--door-screen[The calling board above the door (hardware.calling_display) rather than the customer'\''s screen.]'
        ':file:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_screen() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'approach:A person steps up to the totem.'
            'leave:The person walks away.'
            'tap:A touch at screen pixel (X, Y).'
            'press:A tap in the middle of a button of the screen shown, by name (`clupctl screen`).'
            'pass:Someone passes the turnstile: in or out.'
            'scan:A ticket'\''s code read by the door reader.'
            'headset:A personal headset goes into the jack (speech to it, explore by touch on) or comes out.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        approach|leave|tap|press|pass|scan|headset)
            "_clupctl_sim_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_sim_approach() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim_leave() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim_tap() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':x:'
        ':y:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim_press() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':name:{__clupctl_custom_complete ---completion sim press -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '--hold[Hold the touch this many seconds (a long press\: 3 in the staff-corner opens the PIN pad).]:hold:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim_pass() {
    local -i ret=1
    local -ar _direction=('in' 'out')
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':direction:{__clupctl_complete "${_direction[@]}"}'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim_scan() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':code:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sim_headset() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        ':state:'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sync() {
    local -i ret=1
    local -ar arg_specs=(
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'show:Show the sync with the hub.'
            'now:Try the hub now instead of after the current wait.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        show|now)
            "_clupctl_sync_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_clupctl_sync_show() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_sync_now() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_metrics() {
    local -i ret=1
    local -ar arg_specs=(
        '--socket[clupd'\''s control socket (or set CLUP_SOCKET).]:socket:'
        '--json[Print JSON\: each sample'\''s name, labels and value.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_errors() {
    local -i ret=1
    local -ar arg_specs=(
        ':code:{__clupctl_custom_complete ---completion errors -- positional@0 "${current_word_index}" "$(__clupctl_cursor_index_in_current_word)"}'
        '--markdown[Print the whole list as Markdown (docs/errors.md).]'
        '--json[Print JSON\: each code, its meaning and what to do.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_clupctl_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _clupctl ]]; then
    _clupctl "${@}"
else
    compdef _clupctl clupctl
fi
