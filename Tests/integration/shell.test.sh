#!/usr/bin/env bash
# The technician's maintenance shell, driven as a technician would drive it: `clupctl` in a
# terminal (a private tmux server), keys sent with send-keys and the screen read back with
# capture-pane. Waits are on what the screen shows (a prompt, a line), never on a fixed time.
# Also the one-shot commands behind it: logins and their locks, self-tests against the
# private cupsd, calibration through a touch panel stood in for by a FIFO, skip and void,
# logs and diagnostics, and the bash completion script.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

FIXTURES=$ROOT/Tests/Fixtures/evemu
# The shell's prompt: [technician@]store-7/A STATE>
PROMPT_RE='^([a-z0-9._-]+@)?store-7/A [A-Za-z ]+> '

tm() { tmux -S "$WORK/tmux.sock" -f /dev/null "$@"; }

# Opens `clupctl` (the shell) in a 160x48 terminal, with its own home (history) and no
# session, unless a session file is given in SHELL_SESSION. Arguments: a command to run it
# under (setpriv …). The pane stays once the shell has ended, with its exit status.
shell_open() {
  mkdir -p "$WORK/home"
  tm new-session -d -s t -x 160 -y 48 -e HOME="$WORK/home" -e TERM=xterm-256color -e LANG=C.UTF-8 \
     -e CLUP_SOCKET="$WORK/control.sock" -e CLUP_SESSION_FILE="${SHELL_SESSION:-$WORK/shell-session}" \
     "$* ${CLUPCTL:-$BIN/clupctl}; echo SHELL-EXIT=\$?; sleep 3600"  # not a wait: keeps the pane open to be read
  tm set-option -t t history-limit 50000 >/dev/null
}
shell_close() { tm kill-session -t t 2>/dev/null || true; }
pane() { tm capture-pane -p -J -t t -S - -E -; }
# Waits until the screen shows REGEX (SECONDS, default 20).
pane_shows() { pane | grep -Eq -- "$1"; }
wait_pane() {
  local re=$1 seconds=${2:-20}
  (wait_until "$seconds" pane_shows "$re") || fail "the screen never showed [$re]; it shows: $(pane | grep -v '^$' | tail -n 15)"
}
# A prompt after Ctrl-C may follow the terminal's own "^C" on its line: the kernel echoes it
# after it signals, and the shell, woken by the signal, can print its newline first.
prompts() { pane | sed 's/^\^C//' | grep -Ec -- "$PROMPT_RE"; }
keys() { tm send-keys -t t "$@"; }
type_text() { tm send-keys -t t -l -- "$1"; }
# The line being edited: the last prompt line on the screen.
edit_line() { pane | grep -E -- "$PROMPT_RE" | tail -n 1; }
# Waits until there are more than N prompts on the screen.
more_prompts_than() { (( $(prompts) > $1 )); }
wait_prompts() {
  local n=$1 seconds=${2:-30}
  (wait_until "$seconds" more_prompts_than "$n") || fail "no new prompt; the screen shows: $(pane | grep -v '^$' | tail -n 15)"
}
# What came between the last two prompts: the output of the last command.
last_output() {
  pane | awk -v re="$PROMPT_RE" '$0 ~ re { prev = cur; cur = ""; next } { cur = cur $0 "\n" } END { printf "%s", prev }' \
    | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}
# Runs LINE in the shell, waits for the next prompt and prints what the command printed.
shell_run() {
  local n
  n=$(prompts)
  type_text "$1"; keys Enter
  wait_prompts "$n" "${2:-30}"
  last_output
}

# N customers take a ticket each, printed; then nobody is in front and the screen sleeps.
take_tickets() {
  clupctl sim approach >/dev/null
  for n in $(seq 1 "$1"); do
    wait_for_screen welcome
    clupctl sim press get-ticket >/dev/null
    wait_for_print "A-00$n" >/dev/null
  done
  clupctl sim leave >/dev/null
  wait_for_screen asleep
}

# An evemu recording of one tap at raw panel position X Y (the Atmel panel: 0…799 × 0…479).
raw_tap() {
  printf 'E: 1.0 0003 0039 7\nE: 1.0 0003 0035 %d\nE: 1.0 0003 0036 %d\nE: 1.0 0000 0000 0\n' "$1" "$2"
  printf 'E: 1.1 0003 0039 -1\nE: 1.1 0000 0000 0\n'
}

test_the_shell_opens_on_the_totem_and_its_prompt_names_a_printer_fault() {
  kiosk_start
  shell_open
  wait_pane 'help lists the commands; Tab completes'
  wait_pane '^store-7/A ok> $'
  assert_contains "$(shell_run status)" "queue      0 waiting"
  shell_close
  kiosk_stop

  # The paper runs out: the prompt says so once the printer's state is known.
  kiosk_start '[printer]' 'queue = "clup-paperout"'
  clupctl sim approach >/dev/null
  clupctl sim press get-ticket >/dev/null
  [ "$(wait_for_print A-001)" = print-failed ] || fail "the paper-out queue printed"
  wait_until 20 "clupctl printer | grep -q 'NOT READY'"
  shell_open
  wait_pane '^tess@store-7/A PRINTER FAULT> $|^store-7/A PRINTER FAULT> $'
  echo "report: prompt on a printer out of paper: $(edit_line)"
}

test_the_shell_opens_with_clupd_down_offers_what_works_and_reconnects() {
  # The prompt with clupd down: `clupd DOWN> ` before it ever answered.
  PROMPT_RE='^([a-z0-9._-]+@)?(store-7/A [A-Za-z ]+|clupd DOWN)> '
  mkdir -p "$WORK"
  shell_open
  wait_pane 'clupd is not running'
  wait_pane 'works now: logs \[--file PATH\]'
  wait_pane 'start it:  systemctl start clupd'
  wait_pane '^clupd DOWN> $'
  out=$(shell_run status)
  assert_contains "$out" "E-CTL-014 clupd is not running"
  assert_contains "$out" "[exit 69]"
  assert_contains "$(shell_run 'errors E-CTL-014')" "what to do: Start it (\`systemctl start clupd\`)"
  printf '2026-11-23T07:57:10+0000 info clupd: the last words\n' > "$WORK/old.log"
  assert_eq "$(shell_run "logs --file $WORK/old.log")" "2026-11-23T07:57:10+0000 info clupd: the last words"
  assert_contains "$(shell_run "diagnostics $WORK/down.tgz")" "wrote $WORK/down.tgz"
  members=$(tar tzf "$WORK/down.tgz" | sort | tr '\n' ' ')
  for member in clupd-down.txt clupctl.txt logs.txt; do assert_contains "$members" "./$member"; done
  assert_contains "$(tar xzOf "$WORK/down.tgz" ./clupd-down.txt)" "clupd did not answer on $WORK/control.sock"
  # clupd starts: the next command reaches it, and the prompt names the totem again.
  kiosk_start
  out=$(shell_run status)
  assert_contains "$out" "queue      0 waiting"
  assert_contains "$out" "clupd answers again: clupd"
  wait_pane '^store-7/A ok> $'
  # clupd stops: the shell stays, says DOWN, and still reads the log where clupd said it was.
  kill -TERM "$CLUPD_PID"; wait "$CLUPD_PID" || true
  out=$(shell_run status)
  assert_contains "$out" "E-CTL-014"
  wait_pane '^store-7/A DOWN> $'
  assert_contains "$(shell_run 'logs --grep "clupd ready"')" "clupd ready"
  # From a pipe too: each command answers, the last one's status is the shell's.
  rc=0; out=$(printf 'errors E-CTL-014\nstatus\n' | CLUP_SOCKET=$WORK/control.sock "$BIN/clupctl" shell 2>&1) || rc=$?
  assert_status $rc 69 "$out"
  assert_contains "$out" "E-CTL-014  clupd does not answer on its control socket."
  echo "report: with clupd down the shell opened at 'clupd DOWN>', read a log file and wrote a diagnostics archive ($members)"
}

test_tab_completes_commands_options_ticket_numbers_and_steps_and_ctrl_c_abandons_a_line() {
  kiosk_start '[queue]' 'capacity = 2' 'priority_share = 0'
  take_tickets 3
  # Capacity 2: A-001 and A-002 are called, A-003 waits.
  assert_contains "$(clupctl queue)" "A-003"
  SHELL_SESSION=$WORK/session shell_open
  wait_pane "$PROMPT_RE"
  type_text "rep"; keys Tab
  wait_pane "$PROMPT_RE"'reprint $'
  keys C-c
  wait_pane "$PROMPT_RE"'$'
  n=$(prompts)
  type_text "skip A-00"; keys Tab Tab
  wait_pane 'A-001 +A-002'
  pane | grep -q 'A-003' && fail "a waiting ticket was offered to skip: $(pane | tail -n 5)"
  keys C-u
  type_text "selftest pri"; keys Tab
  wait_pane "$PROMPT_RE"'selftest printer $'
  keys C-u
  type_text "calibrate --"; keys Tab Tab
  wait_pane '[-]-timeout'
  wait_pane '[-]-force'
  keys C-u
  # Ctrl-C abandons the line: nothing runs, and the shell is still there.
  n=$(prompts)
  type_text "call-next"; keys C-c
  wait_prompts "$n"
  assert_eq "$(clupctl audit | grep -c 'call-next' || true)" 0 "the abandoned line was not run"
  assert_contains "$(shell_run 'tickets')" "A-003"
  echo "report: Tab: rep → reprint, skip A-00 → A-001 A-002 (the called ones), selftest pri → printer"
}

# The first shell is opened as the package opens it: /usr/bin/clupctl is a link to clupd,
# which runs clupctl when started under that name. The second is a development build's clupctl.
test_help_lists_every_command_and_the_history_outlives_the_shell() {
  kiosk_start
  ln -s "$BIN/clupd" "$WORK/clupctl"
  CLUPCTL=$WORK/clupctl shell_open
  wait_pane "$PROMPT_RE"
  out=$(shell_run help)
  for command in status skip void selftest calibrate logs diagnostics login technician audit; do
    assert_contains "$out" "  $command"
  done
  assert_contains "$out" "login NAME, logout, exit (or Ctrl-D)"
  assert_contains "$(shell_run 'help void')" "USAGE: clupctl void"
  shell_run 'config show' >/dev/null
  keys C-d
  wait_pane 'SHELL-EXIT=0'
  shell_close
  shell_open
  wait_pane "$PROMPT_RE"
  keys Up
  wait_pane "$PROMPT_RE"'config show$'
  assert_eq "$(stat -c %a "$WORK/home/.local/state/clupctl/history")" 600 "the history is its owner's alone"
  # The audit names the program as it was started: clupctl, not the link's target.
  printf 'wrong-secret\n' | CLUP_SOCKET="$WORK/control.sock" CLUP_SESSION_FILE="$WORK/link-session" "$WORK/clupctl" login tess \
    >/dev/null 2>&1 && fail "a wrong secret logged in"
  assert_contains "$(clupctl audit | grep ' login ' | tail -n 1)" "says clupctl" "a login through the link, in the audit"
}

test_every_command_prints_the_same_in_the_shell_as_alone_and_reads_have_json() {
  kiosk_start
  SHELL_SESSION=$WORK/session shell_open
  wait_pane "$PROMPT_RE"
  for line in "errors E-PRN-003" "config show" "technician list" "ledger show" "employee list"; do
    read -ra words <<<"$line"
    alone=$(clupctl "${words[@]}" 2>&1 | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
    assert_eq "$(shell_run "$line")" "$alone" "$line in the shell"
  done
  for line in status tickets queue "ledger show" "config show" printer devices screen "sync show" metrics errors \
              "employee list" "technician list" audit; do
    read -ra words <<<"$line"
    clupctl "${words[@]}" --json | python3 -m json.tool >/dev/null || fail "$line --json is not JSON"
  done
}

test_a_change_asks_for_a_login_and_the_audit_names_the_technician_and_the_uid() {
  kiosk_start
  clupctl sim approach >/dev/null
  clupctl sim press get-ticket >/dev/null
  wait_for_print A-001 >/dev/null
  shell_open
  wait_pane "$PROMPT_RE"
  n=$(prompts)
  type_text "void A-001 --reason 'printed twice'"; keys Enter
  wait_pane 'E-CTL-020 void changes the totem: log in first'
  wait_pane 'technician name'
  type_text tess; keys Enter
  wait_pane 'secret for tess: '
  type_text "$KIOSK_TECHNICIAN_SECRET"; keys Enter
  wait_prompts "$n"
  wait_pane 'A-001 voided: its code no longer opens the door'
  wait_pane '^tess@store-7/A ok> $'
  pane | grep -q -- "$KIOSK_TECHNICIAN_SECRET" && fail "the secret was echoed"
  out=$(shell_run audit)
  assert_contains "$out" 'technician tess       login            ok'
  # Where it came from: the pid and uid the kernel vouches for, then what the shell says of
  # itself (its terminal in tmux, and the login where this machine has one).
  grep -Eq 'technician tess       command          ok  from pid [0-9]+, uid 0 \(root\); says clupctl on pts/[0-9]+(, login [^:]*)?: void A-001 --reason "printed twice"' <<<"$out" \
    || fail "the command's entry does not say where it came from: $(grep 'void A-001' <<<"$out")"
  assert_contains "$out" 'technician -          command          E-CTL-020'
  # The secret is nowhere: not in the event log, not in clupd's log.
  sqlite3 "$WORK/state/clup.sqlite" "SELECT payload FROM event" | grep -q -- "$KIOSK_TECHNICIAN_SECRET" && fail "secret in the event log"
  grep -q -- "$KIOSK_TECHNICIAN_SECRET" "$WORK/clupd.log" && fail "secret in clupd's log"
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "SELECT kdf || ' ' || length(salt) || ' ' || length(secret_hash) FROM technician")" \
    "scrypt:15:8:1 16 32"
  # Leaving the shell ends the session it opened.
  keys C-d
  wait_pane 'SHELL-EXIT=0'
  assert_contains "$(clupctl audit | tail -n 1)" "technician tess       logout           logged out"
}

test_wrong_secrets_lock_the_name_across_a_restart_and_other_names_still_log_in() {
  kiosk_start '[control]' 'login_lock_seconds = 8'
  printf '%s\n' "another-secret-42" | clupctl technician add mario >/dev/null
  for n in 1 2 3 4; do
    rc=0; out=$(printf 'wrong-secret\n' | CLUP_SESSION_FILE=$WORK/s2 clupctl login tess 2>&1) || rc=$?
    assert_status $rc 1 "$out"
    assert_contains "$out" "E-CTL-023 wrong name or secret ($n of 5"
  done
  rc=0; out=$(printf 'wrong-secret\n' | CLUP_SESSION_FILE=$WORK/s2 clupctl login tess 2>&1) || rc=$?
  assert_contains "$out" "E-CTL-022 wrong name or secret; tess is now locked until"
  # Locked: even the right secret is refused, at once.
  start=$(date +%s%N)
  rc=0; out=$(printf '%s\n' "$KIOSK_TECHNICIAN_SECRET" | CLUP_SESSION_FILE=$WORK/s2 clupctl login tess 2>&1) || rc=$?
  refused_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  assert_contains "$out" "E-CTL-022 tess is locked after 5 wrong secrets, until"
  assert_contains "$(clupctl technician list)" "LOCKED until"
  printf '%s\n' "another-secret-42" | CLUP_SESSION_FILE=$WORK/s3 clupctl login mario >/dev/null || fail "mario could not log in"
  # A restart does not lift the lock (rebuilt from the audit trail).
  kill -TERM "$CLUPD_PID"; wait "$CLUPD_PID" || true
  KIOSK_NO_LOGIN=1 kiosk_start_daemon
  rc=0; out=$(printf '%s\n' "$KIOSK_TECHNICIAN_SECRET" | CLUP_SESSION_FILE=$WORK/s2 clupctl login tess 2>&1) || rc=$?
  assert_contains "$out" "E-CTL-022"
  wait_until 20 "printf '%s\n' '$KIOSK_TECHNICIAN_SECRET' | CLUP_SESSION_FILE=$WORK/s2 clupctl login tess >/dev/null 2>&1"
  trail=$(clupctl audit --who tess)
  assert_eq "$(grep -c 'login-refused    wrong name or secret' <<<"$trail")" 5
  assert_contains "$trail" "login-refused    name locked until"
  assert_contains "$trail" "name-locked      5 wrong secrets; locked until"
  echo "report: the locked name was refused in $refused_ms ms (no scrypt run); mario logged in meanwhile; the lock held across a restart"
}

test_an_idle_session_ends_and_says_so() {
  kiosk_start '[control]' 'session_idle_seconds = 2'
  clupctl sim approach >/dev/null
  clupctl sim press get-ticket >/dev/null
  wait_for_print A-001 >/dev/null
  assert_contains "$(clupctl status)" "queue"
  sleep 2.5  # not a wait: the idle limit itself is what is tested (clupd has no clock to move)
  rc=0; out=$(clupctl skip A-001 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$out" "E-CTL-021 your session ended (idle 2 s); log in again"
  assert_contains "$(clupctl audit --who tess)" "logout           idle 2 s"
}

test_a_user_outside_the_control_group_is_refused_before_any_login() {
  kiosk_start
  chmod 0666 "$WORK/control.sock"
  cp "$BIN/clupctl" "$WORK/clupctl"
  chmod 755 "$WORK/clupctl"
  CLUPCTL=$WORK/clupctl shell_open setpriv --reuid=nobody --regid=nogroup --clear-groups
  wait_pane 'E-CTL-003 permission denied'
  wait_pane 'SHELL-EXIT=77'
  pane | grep -Eq 'technician name|secret for|store-7/A .*>' && fail "the outsider was offered a prompt: $(pane | grep -v '^$')"
  assert_contains "$(clupctl audit)" "technician -          command          E-CTL-003"
}

test_selftest_prints_a_test_ticket_and_names_the_paper_fault() {
  kiosk_start
  out=$(clupctl selftest printer)
  assert_contains "$out" "PASS printer    printer (clup-ticket)"
  assert_contains "$out" "completed"
  title=$(cat "$WORK"/cups/jobs/job-*.title)
  assert_contains "$title" "SELFTEST-"
  assert_eq "$(clupctl tickets --json | grep -c '"number"' || true)" 0 "a test ticket takes no number"
  kiosk_stop
  kiosk_start '[printer]' 'queue = "clup-paperout"'
  SHELL_SESSION=$WORK/session shell_open
  wait_pane "$PROMPT_RE"
  out=$(shell_run 'selftest printer --timeout 20' 40)
  assert_contains "$out" "FAIL printer    printer (clup-paperout)"
  assert_contains "$out" "media-empty-error"
  assert_contains "$out" "check: paper: Load a paper roll"
  assert_contains "$out" "[exit 1]"
  echo "report: $(grep FAIL <<<"$out")"
}

test_selftest_waits_for_a_pulse_and_a_code_without_counting_or_admitting() {
  kiosk_start
  take_tickets 1
  code=$(printed_qr_text A-001)
  SHELL_SESSION=$WORK/session shell_open
  wait_pane "$PROMPT_RE"
  n=$(prompts)
  type_text "selftest turnstile"; keys Enter
  wait_pane 'waiting up to 20 s for a turnstile pulse'
  clupctl sim pass in >/dev/null
  wait_prompts "$n"
  assert_contains "$(last_output)" "PASS turnstile  turnstile (simulated)"
  assert_contains "$(clupctl ledger show)" "0 inside"
  n=$(prompts)
  type_text "selftest reader"; keys Enter
  wait_pane 'waiting up to 20 s for a code at the door reader'
  clupctl sim scan "$code" >/dev/null
  wait_prompts "$n"
  assert_contains "$(last_output)" "read A-001: genuine, called; not admitted (self-test)"
  assert_eq "$(ticket_field A-001 state)" called "the test scan admitted nobody"
  assert_contains "$(shell_run 'selftest release')" "PASS release"
  assert_contains "$(clupctl status)" "turnstile    simulated  ok       1 releases"
  out=$(shell_run 'selftest presence --timeout 1')
  assert_contains "$out" "FAIL presence   presence (simulated)"
  assert_contains "$out" "nobody seen arrive or leave within 1 s"
  assert_contains "$(clupctl audit --who tess | grep 'selftest presence')" "FAIL nobody seen arrive or leave within 1 s"
  assert_contains "$(shell_run 'selftest voice')" "PASS voice"
  assert_contains "$(shell_run 'selftest screen --no-ask')" "PASS screen"
  # With a customer at the totem the devices are theirs.
  clupctl sim approach >/dev/null
  clupctl sim press get-ticket >/dev/null
  rc=0; out=$(clupctl selftest turnstile --timeout 1 2>&1) || rc=$?
  assert_contains "$out" "E-CTL-027 a customer is using the totem"
}

test_calibration_corrects_a_panel_turned_and_offset() {
  mkfifo "$WORK/touch"
  # A writer that stays: the panel's node does not end between taps.
  exec 5<>"$WORK/touch"
  kiosk_start '[hardware]' "touchscreen = \"$WORK/touch\"" \
              "touchscreen_axes = \"$FIXTURES/Atmel_maXTouch_Touchscreen.desc\""
  wait_until 20 "clupctl status | grep -q 'touchscreen  evdev      ok'"
  # The panel reads u = y + 0.03, v = 0.98 - x of the picture: turned a quarter and shifted.
  raw_for() { awk -v x="$1" -v y="$2" 'BEGIN { printf "%d %d", (y + 0.03) * 799 + 0.5, (0.98 - x) * 479 + 0.5 }'; }
  targets=("0.1 0.1" "0.9 0.1" "0.9 0.9" "0.1 0.9")
  calibrate() {
    # A clean screen, so that only this run's lines are waited for.
    keys C-l
    tm clear-history -t t
    wait_pane "$PROMPT_RE"'$'
    n=$(prompts)
    type_text "calibrate"; keys Enter
    for k in 1 2 3 4; do
      wait_pane "target $k of 4: touch the centre of the cross"
      read -r tx ty <<<"${targets[$((k - 1))]}"
      read -r rx ry <<<"$(raw_for "$tx" "$ty")"
      raw_tap "$rx" "$ry" > "$WORK/tap.events"
      "$BIN/clupd" encode-events "$WORK/tap.events" > "$WORK/touch"
      wait_pane "touched at .* target \\($(awk -v t="${targets[$((k - 1))]}" 'BEGIN { split(t, a, " "); printf "%.2f, %.2f", a[1], a[2] }')\\)"
    done
    wait_pane 'save this calibration\? \[y/n\]'
  }
  SHELL_SESSION=$WORK/session shell_open
  wait_pane "$PROMPT_RE"
  calibrate
  matrix=$(pane | sed -n 's/^calibration \[\(.*\)\]$/\1/p' | tail -n 1)
  python3 "$ROOT/Tests/integration/tools/numbers-within.py" 0.005 "$matrix" "0, -1, 0.98, 1, 0, -0.03" \
    || fail "matrix [$matrix] is not [0, -1, 0.98, 1, 0, -0.03]"
  error=$(pane | sed -n 's/^max error \([0-9.]*\) mm.*/\1/p' | tail -n 1)
  python3 -c "import sys; sys.exit(0 if float('$error') < 1 else 1)" || fail "max error $error mm"
  type_text n; keys Enter
  wait_prompts "$n"
  assert_contains "$(last_output)" "not saved; the calibration in force is kept: [1.0000, 0.0000, 0.0000, 0.0000, 1.0000, 0.0000]"
  [ -e "$WORK/state/calibration.json" ] && fail "saved though the technician said no"
  calibrate
  type_text y; keys Enter
  wait_prompts "$n"
  assert_contains "$(last_output)" "saved: in force now and at every start"
  assert_contains "$(cat "$WORK/state/calibration.json")" '"by" : "tess"'
  # A touch where the turned panel reads "Get a ticket" now presses it.
  clupctl sim approach >/dev/null
  read -r bx by < <(clupctl screen --json | python3 "$ROOT/Tests/integration/tools/screen-button.py" centre get-ticket)
  read -r rx ry <<<"$(raw_for "$bx" "$by")"
  raw_tap "$rx" "$ry" > "$WORK/tap.events"
  "$BIN/clupd" encode-events "$WORK/tap.events" > "$WORK/touch"
  wait_until 20 "[ -n \"\$(newest_ticket)\" ]"
  assert_contains "$(clupctl audit --who tess)" "calibrated"
  echo "report: calibration [$matrix], max error $error mm; saved, and a turned-panel tap on Get a ticket took $(newest_ticket)"
}

test_skip_and_void_follow_the_queue_rules() {
  kiosk_start '[queue]' 'capacity = 1' 'priority_share = 0'
  take_tickets 3
  code=$(printed_qr_text A-003)
  # A-001 is called, A-002 and A-003 wait.
  rc=0; out=$(clupctl skip A-002 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$out" "E-Q-004 ticket A-002 has not been called yet: only a called ticket is skipped"
  assert_contains "$(clupctl skip A-001)" "A-001 skipped; its place is free (called now: A-002)"
  rc=0; out=$(clupctl skip A-001 2>&1) || rc=$?
  assert_contains "$out" "E-Q-006"
  rc=0; out=$(clupctl void A-003 2>&1) || rc=$?
  assert_status $rc 2 "--reason is required: $out"
  rc=0; out=$(clupctl void A-003 --reason "  " 2>&1) || rc=$?
  assert_contains "$out" "E-Q-013"
  assert_contains "$(clupctl void A-003 --reason 'customer left')" "A-003 voided"
  rc=0; out=$(clupctl void A-003 --reason again 2>&1) || rc=$?
  assert_contains "$out" "E-Q-014 ticket A-003 was already voided"
  rc=0; out=$(clupctl sim scan "$code" 2>&1) || rc=$?
  assert_contains "$out" "E-DOOR-009 ticket A-003 was voided by staff"
  rc=0; out=$(clupctl skip Z-9 2>&1) || rc=$?
  assert_contains "$out" "E-Q-003 unknown ticket Z-009"
  rc=0; out=$(clupctl void nonsense --reason x 2>&1) || rc=$?
  assert_contains "$out" "E-CTL-009 nonsense is not a ticket number"
}

test_logs_and_diagnostics_come_from_clupds_log_and_hold_no_secret() {
  kiosk_start
  clupctl sim approach >/dev/null
  clupctl sim press get-ticket >/dev/null
  wait_for_print A-001 >/dev/null
  out=$(clupctl logs --grep 'ticket issued|recorded')
  assert_contains "$out" "A-001"
  assert_eq "$(clupctl logs --lines 3 | wc -l)" 3
  assert_contains "$(clupctl logs --since 10m --grep 'clupd ready')" "clupd ready"
  SHELL_SESSION=$WORK/session shell_open
  wait_pane "$PROMPT_RE"
  type_text "logs --follow --lines 1 --grep 'control: sim'"; keys Enter
  wait_pane 'control: sim press get-ticket'
  clupctl sim leave >/dev/null
  wait_pane 'control: sim leave'
  n=$(prompts)
  keys C-c
  wait_prompts "$n"
  clupctl diagnostics "$WORK/d.tgz" >/dev/null
  assert_eq "$(stat -c %a "$WORK/d.tgz")" 600
  members=$(tar tzf "$WORK/d.tgz" | sort | tr '\n' ' ')
  for member in versions.txt clupd.toml integrity.txt devices.json printer.json events.jsonl audit.txt logs.txt status.json; do
    assert_contains "$members" "./$member"
  done
  mkdir "$WORK/d" && tar xzf "$WORK/d.tgz" -C "$WORK/d"
  assert_eq "$(cat "$WORK/d/integrity.txt")" ok
  [ "$(wc -l < "$WORK/d/events.jsonl")" -le 100 ] || fail "more than 100 events"
  python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$WORK/d/events.jsonl"
  assert_contains "$(cat "$WORK/d/versions.txt")" "sqlite 3."
  grep -q -- "$KIOSK_TECHNICIAN_SECRET" "$WORK/d"/* && fail "the secret is in the archive"
  echo "report: diagnostics: $members"
}

test_the_completion_scripts_are_current_and_complete_in_bash() {
  for shell in bash zsh; do
    file=$ROOT/systemd/completions/clupctl.$shell
    "$BIN/clupctl" --generate-completion-script $shell | diff -u "$file" - \
      || fail "systemd/completions/clupctl.$shell is stale: clupctl --generate-completion-script $shell > it"
  done
  bash -n "$ROOT/systemd/completions/clupctl.bash"
  kiosk_start
  mkdir -p "$WORK/home"
  tm new-session -d -s t -x 160 -y 20 -e HOME="$WORK/home" -e PS1='bash$ ' -e PATH="$BIN:$PATH" \
     -e CLUP_SOCKET="$WORK/control.sock" "bash --norc --noprofile -i"
  keys -l "export PATH=$BIN:\$PATH; source $ROOT/systemd/completions/clupctl.bash"; keys Enter
  keys -l "clupctl selft"; keys Tab
  wait_pane 'clupctl selftest $'
  keys -l "pri"; keys Tab
  wait_pane 'clupctl selftest printer $'
}

run_tests
