#!/usr/bin/env bash
# The whole slice as a user drives it: private cupsd, clupd --simulate, clupctl.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

BUTTON_X=360 BUTTON_Y=640

test_ticket_prints_and_its_qr_reads_back_as_the_code() {
  kiosk_start
  assert_contains "$(clupctl sim approach)" "screen: welcome"
  out=$(clupctl sim tap $BUTTON_X $BUTTON_Y)
  assert_contains "$out" "[ticket: A-001]"
  # The store is empty, so the printed ticket is called at once.
  assert_eq "$(wait_for_print A-001)" called "ticket state after printing"
  decoded=$(printed_qr_text A-001)
  assert_eq "$decoded" "$(ticket_field A-001 code)" "QR on paper vs clupctl tickets"
  assert_eq "$(ticket_field A-001 lane)" regular
  # The second ticket of the day gets the next number.
  clupctl sim tap 1 1 >/dev/null   # may wake nothing: the result screen has no button
  wait_for_screen welcome
  assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "[ticket: A-002]"
  assert_eq "$(wait_for_print A-002)" called
  assert_eq "$(printed_qr_text A-002)" "$(ticket_field A-002 code)"
}

test_the_tickets_documents_wait_in_the_spool_given_not_beside_the_database() {
  # As the package runs it: --spool in systemd's runtime directory (a tmpfs), so that a
  # document's writes do not ride on the database's commits.
  # A spool an earlier release left beside the database goes at the start.
  mkdir -p "$WORK/state/spool" && touch "$WORK/state/spool/A-007-2026-11-29.pdf"
  KIOSK_SPOOL="$WORK/run/spool" kiosk_start
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  assert_eq "$(stat -c %a "$WORK/run/spool")" 700 "the spool given, made private"
  assert_eq "$(ls -A "$WORK/run/spool")" "" "each document deleted once cupsd has it"
  [ ! -e "$WORK/state/spool" ] || fail "a spool beside the database: $(ls -la "$WORK/state")"
}

test_tap_outside_any_button_does_nothing() {
  kiosk_start
  clupctl sim approach >/dev/null
  out=$(clupctl sim tap 10 10)
  assert_contains "$out" "hit no button"
  assert_contains "$(clupctl tickets)" "0 tickets"
  rc=0; out=$(clupctl sim tap 720 10 2>&1) || rc=$?
  assert_status $rc 1 "tap off the panel"
  assert_contains "$out" "off the 720x1280 panel"
}

test_first_touch_on_a_sleeping_screen_only_wakes_it() {
  kiosk_start
  assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "woke the screen"
  assert_contains "$(clupctl tickets)" "0 tickets"
}

test_turnstile_passages_change_occupancy() {
  kiosk_start
  clupctl sim pass in >/dev/null
  clupctl sim pass in >/dev/null
  clupctl sim pass out >/dev/null
  assert_contains "$(clupctl status)" "1 inside of 30 (2 in, 1 out)"
  assert_contains "$(clupctl status --json)" '"inside" : 1'
}

test_screen_sleeps_after_idle_and_screenshot_is_a_png() {
  kiosk_start
  clupctl sim approach >/dev/null
  clupctl screenshot "$WORK/awake.png" >/dev/null
  assert_eq "$(head -c 8 "$WORK/awake.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "PNG signature"
  zbarimg -q "$WORK/awake.png" >/dev/null 2>&1 && fail "the welcome screen has no QR code"
  clupctl sim leave >/dev/null
  wait_for_screen asleep
}

test_paper_out_is_shown_and_the_ticket_is_not_counted() {
  kiosk_start '[printer]' 'queue = "clup-paperout"'
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" print-failed
  assert_contains "$(clupctl status)" "screen     print-failed"
  clupctl screenshot "$WORK/failed.png" >/dev/null
  # The printer monitor polls every 5 s; wait for it to see the reason.
  wait_until 7 'clupctl status | grep -q media-empty-error'
  assert_contains "$(clupctl status)" "NOT READY"
  assert_contains "$(clupctl status)" "0 waiting, 0 called"
}

test_ippeveprinter_as_a_second_independent_printer_gets_a_readable_ticket() {
  IPP_PORT=$((20000 + RANDOM % 20000))
  mkdir -p "$WORK"
  kiosk_start_ipp_printer
  kiosk_write_config '[printer]' 'queue = "clup-ipp"'
  kiosk_start_cups
  kiosk_start_daemon
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  # ippeveprinter keeps each document as <its id>-<job name, lower-cased>.pdf.
  kept=$(ls "$WORK"/ipp/spool/*-a-001-*.pdf)
  pdftoppm -r 203 -gray -singlefile -png "$kept" "$WORK/ipp-A-001"
  assert_eq "$(zbarimg --quiet --raw "$WORK/ipp-A-001.png" 2>/dev/null)" "$(ticket_field A-001 code)"
}

test_a_printer_that_never_answers_does_not_freeze_the_kiosk() {
  kiosk_start '[printer]' 'queue = "clup-hang"' 'timeout_seconds = 600'
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  # While the job hangs, the kiosk answers, counts a passage and shows that it is printing.
  assert_contains "$(clupctl status)" "screen     printing"
  assert_contains "$(clupctl sim pass in)" "1 inside"
  assert_eq "$(ticket_field A-001 state)" printing "the printer has not answered yet"
  # A printer that does not finish within printer.timeout_seconds fails the ticket.
  kiosk_stop
  sed -i 's/^timeout_seconds = .*/timeout_seconds = 2/' "$WORK/clupd.toml"
  kiosk_start_cups
  kiosk_start_daemon
  assert_eq "$(wait_for_print A-001)" print-failed
  assert_contains "$(clupctl printer)" "E-PRN-007 the printer did not finish within 2 s"
}

# Creates a job without a document in the private cupsd's queue QUEUE, named NAME, as
# clupd does before it records the job's id; prints the job id.
create_empty_job() {
  local queue=$1 name=$2 socket
  socket=$(printf '%s' "$WORK/cups/cups.sock" | sed 's|/|%2F|g')
  cat > "$WORK/create-job.test" <<TEST
{
  OPERATION Create-Job
  GROUP operation-attributes-tag
  ATTR charset attributes-charset utf-8
  ATTR naturalLanguage attributes-natural-language en
  ATTR uri printer-uri \$uri
  ATTR name requesting-user-name $(id -un)
  ATTR name job-name "$name"
  STATUS successful-ok
  DISPLAY job-id
}
TEST
  ipptool -t -v "ipp://$socket/printers/$queue" "$WORK/create-job.test" | sed -n 's/^ *job-id (integer) = //p'
}

# Whether clupd has recorded the print job of ticket NUMBER.
a_print_job_is_recorded_for() { [ -n "$(sqlite3 "$WORK/state/clup.sqlite" "SELECT print_job FROM ticket WHERE number = '$1'")" ]; }

test_print_jobs_a_stop_interrupted_are_settled_with_cupsd_at_once_on_restart() {
  # A printer that never finishes, and a follow that would wait ten minutes: only settling
  # with cupsd at once ends the ticket within the test.
  kiosk_start '[printer]' 'queue = "clup-hang"' 'timeout_seconds = 600'
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  day=$(clupctl status --json | sed -n 's/^ *"businessDay" : "\(.*\)",*$/\1/p')
  wait_until 10 a_print_job_is_recorded_for A-001
  kill -KILL "$CLUPD_PID"; wait "$CLUPD_PID" 2>/dev/null || true
  # As if clupd had been stopped between creating A-001's job and sending its document:
  # the job it recorded is one without a document; the job with the document is one it
  # never recorded; and A-002's job was created but its id never recorded.
  empty=$(create_empty_job clup-hang "A-001-$day")
  orphan=$(create_empty_job clup-hang "A-002-$day")
  sent=$(sqlite3 "$WORK/state/clup.sqlite" "SELECT print_job FROM ticket WHERE number = 'A-001'")
  sqlite3 "$WORK/state/clup.sqlite" "UPDATE ticket SET print_job = $empty WHERE number = 'A-001'"
  assert_eq "$(lpstat -h "$WORK/cups/cups.sock" -o clup-hang | wc -l)" 3 "unfinished jobs before the restart"
  kiosk_start_daemon
  assert_eq "$(wait_for_print A-001)" print-failed
  assert_contains "$(clupctl printer)" "E-KSK-003 clupd restarted before the ticket reached the printer"
  # No job left unfinished in cupsd.
  wait_until_prints 10 "" lpstat -h "$WORK/cups/cups.sock" -o clup-hang
  grep -q "job=$sent name=A-001-$day .*cancelling a print job no ticket was recorded for" "$WORK/clupd.log" \
    || fail "the job with A-001's document was not cancelled"
  grep -q "job=$orphan name=A-002-$day .*cancelling a print job no ticket was recorded for" "$WORK/clupd.log" \
    || fail "A-002's orphan job was not cancelled"
}

test_an_escpos_printer_gets_the_ticket_as_escpos_bytes() {
  kiosk_start '[printer]' "profile = \"$ROOT/hardware/printers/escpos-80mm-native-qr.json\""
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  job=$(printed_job_file A-001)
  assert_eq "$(head -c 2 "$job" | od -An -tx1 | tr -d ' \n')" 1b40 "ESC @ first"
  grep -qF "$(ticket_field A-001 code)" "$job" || fail "the code is not in the printer's QR command"
  assert_eq "$(tail -c 4 "$job" | od -An -tx1 | tr -d ' \n')" 1d564200 "GS V 66 0: cut last"
}

# Writes $WORK/NAME.json: the 80 mm ESC/POS profile with a 1 m roll (7 tickets of 140 mm,
# low from 5 left), and a near-end sensor if $2 is true.
short_roll_profile() {
  python3 - "$ROOT/hardware/printers/escpos-80mm-raster.json" "$2" > "$WORK/$1.json" <<'PY'
import json, sys
profile = json.load(open(sys.argv[1]))
profile["roll"].update(lengthMillimetres=1000, lowTickets=5, nearEndSensor=sys.argv[2] == "true")
json.dump(profile, sys.stdout)
PY
}

# The paper on the roll: counted from the technician's "new roll" (audited), low at the
# profile's mark in `clupctl paper`, the status and the metrics, kept across a restart; a
# printer's near-end sensor (IPP media-low through CUPS) has the last word.
test_the_paper_left_on_the_roll_is_counted_and_the_printers_sensor_wins() {
  short_roll_profile short-roll false
  kiosk_start '[printer]' "profile = \"$WORK/short-roll.json\""
  assert_contains "$(clupctl paper)" "the roll's start is not known"
  out=$(clupctl paper new-roll)
  assert_contains "$out" "paper    ok (the count)"
  assert_contains "$out" "about 7 tickets left (1 m roll, 140 mm a ticket); 0 tickets and 0 test prints since the roll was put in"
  clupctl sim approach >/dev/null
  assert_eq "$(take_ticket)" A-001
  assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "[ticket: A-002]"
  assert_eq "$(wait_for_print A-002)" called
  out=$(clupctl paper)
  assert_contains "$out" "paper    LOW (the count)"
  assert_contains "$out" "about 5 tickets left (1 m roll, 140 mm a ticket); 2 tickets and 0 test prints since the roll was put in"
  assert_contains "$out" "by $KIOSK_TECHNICIAN"
  assert_contains "$(clupctl status)" "PAPER LOW: about 5 tickets left"
  metrics=$(clupctl metrics)
  assert_contains "$metrics" "clup_totem_paper_low 1"
  assert_contains "$metrics" "clup_totem_paper_tickets_left 5"
  assert_contains "$(clupctl printer)" "paper    LOW: about 5 tickets left"
  assert_contains "$(clupctl audit)" "paper new-roll"
  # Restarted, the count is where it was.
  kiosk_stop
  kiosk_start '[printer]' "profile = \"$WORK/short-roll.json\""
  assert_contains "$(clupctl paper)" "about 5 tickets left"
  # A new roll: fine again.
  assert_contains "$(clupctl paper new-roll)" "about 7 tickets left"
  case "$(clupctl status)" in *"PAPER LOW"*) fail "the status still says paper low after a new roll" ;; esac
  assert_contains "$(clupctl metrics)" "clup_totem_paper_low 0"
  # A printer with a near-end sensor: the count says 6 left, the printer says nearly out.
  kiosk_stop
  short_roll_profile sensor true
  kiosk_start '[printer]' "profile = \"$WORK/sensor.json\""
  lpadmin -p clup-ticket -v "clupcapture://$WORK/cups/jobs?low" 2>/dev/null
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "[ticket: A-003]"
  assert_eq "$(wait_for_print A-003)" called
  (wait_until 60 'clupctl paper | grep -q "^paper    LOW (the printer.s sensor)"') || fail "the sensor's word never came: $(clupctl paper; clupctl printer)"
  assert_contains "$(clupctl paper)" "the printer's near-end sensor says the roll is nearly out; about 6 tickets left by the count"
  echo "report: 2 tickets on a 1 m roll left about 5 (low at 5) by the count, kept over a restart; a new roll said 7; the printer's media-low through CUPS made it low with 6 left by the count"
}

test_staff_see_a_paper_out_and_reprint_the_ticket_once_paper_is_back() {
  kiosk_start '[printer]' 'queue = "clup-paperout"'
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" print-failed
  out=$(clupctl printer)
  assert_contains "$out" "failed today (1)"
  assert_contains "$out" "A-001"
  assert_contains "$out" "E-PRN-003 printer out of paper"
  rc=0; out=$(clupctl reprint A-002 2>&1) || rc=$?
  assert_status $rc 1 "reprint of an unknown ticket"
  # A technician loads paper: the queue now reaches the working capture backend.
  lpadmin -p clup-paperout -v "clupcapture://$WORK/cups/jobs" 2>/dev/null
  assert_contains "$(clupctl reprint A-001)" "ticket A-001 sent to the printer again"
  assert_eq "$(wait_for_print A-001)" called
  assert_eq "$(printed_qr_text A-001)" "$(ticket_field A-001 code)"
  rc=0; out=$(clupctl reprint A-001 2>&1) || rc=$?
  assert_status $rc 1 "a printed ticket is not reprinted"
  assert_contains "$out" "E-Q-010 ticket A-001 is called; only a ticket the printer failed is reprinted"
}

test_status_shows_the_ticket_key_other_totems_need() {
  kiosk_start
  key=$(clupctl status | sed -n 's/^ticket key //p')
  [ "$(printf '%s' "$key" | base64 -d | wc -c)" -eq 32 ] || fail "not a 32-byte key: $key"
  [ "$(stat -c %a "$WORK/state/totem.key")" = 600 ] || fail "the private key is not mode 0600"
  # The same key after a restart: printed tickets stay valid.
  kill -TERM "$CLUPD_PID"; wait "$CLUPD_PID"
  kiosk_start_daemon
  assert_eq "$(clupctl status | sed -n 's/^ticket key //p')" "$key"
}

test_a_ticket_of_another_totem_is_verified_with_its_key() {
  # Totem B of the same store issues a ticket; totem A knows B's key from its configuration.
  mkdir -p "$WORK/b"
  kiosk_start_cups
  WORK=$WORK/b kiosk_write_config '[totem]' 'letter = "B"'
  "$BIN/clupd" --simulate --state-dir "$WORK/b/state" --socket "$WORK/b/control.sock" --config "$WORK/b/clupd.toml" \
    >"$WORK/b/clupd.log" 2>&1 & pid_b=$!
  clupctl_b() { CLUP_SOCKET="$WORK/b/control.sock" "$BIN/clupctl" "$@"; }
  wait_until 10 'clupctl_b status >/dev/null 2>&1'
  key_b=$(clupctl_b status | sed -n 's/^ticket key //p')
  kiosk_write_config '[keys]' "B = \"$key_b\""
  kiosk_start_daemon
  clupctl_b sim approach >/dev/null
  clupctl_b sim tap $BUTTON_X $BUTTON_Y >/dev/null
  wait_until 30 'clupctl_b tickets | grep -q "B-001 .* called"'
  code_b=$(clupctl_b tickets --json | sed -n 's/^ *"code" : "\(.*\)",*$/\1/p')
  kill -TERM $pid_b; wait $pid_b || true
  # A does not know whether B called it (B calls its own tickets), but the signature is B's:
  # genuine, and the customer is sent to B's door.
  rc=0; out=$(clupctl sim scan "$code_b" 2>&1) || rc=$?
  assert_status $rc 1
  assert_contains "$out" "E-DOOR-007 ticket B-001 is genuine, but totem B issued it and has not called it (as far as this door has heard from the hub): please use totem B's door"
  # A forgery in B's name is not.
  forged=${code_b:0:100}$(echo "${code_b:100}" | tr '0-9A-Z' '1-9A-Z0')
  rc=0; out=$(clupctl sim scan "$forged" 2>&1) || rc=$?
  assert_status $rc 1
  case "$out" in *E-DOOR-007*) fail "a forged code of B's was taken for genuine: $out" ;; esac
  # Without B's key the same code is one A cannot vouch for.
  kiosk_stop
  kiosk_write_config
  kiosk_start_cups
  kiosk_start_daemon
  rc=0; out=$(clupctl sim scan "$code_b" 2>&1) || rc=$?
  assert_contains "$out" "E-DOOR-004 issued by totem B, whose key this totem does not know"
}

test_unknown_command_prints_usage_and_exits_2() {
  rc=0; out=$("$BIN/clupctl" frobnicate 2>&1) || rc=$?
  assert_status $rc 2
  assert_contains "$out" "clupctl: Unexpected argument 'frobnicate'"
  assert_contains "$out" "USAGE: clupctl <subcommand>"
}

test_help_is_printed_and_exits_0() {
  for command in "" "ledger correct" "issue" "sim tap"; do
    read -ra words <<<"$command"
    rc=0; out=$("$BIN/clupctl" "${words[@]}" --help 2>&1) || rc=$?
    assert_status $rc 0 "clupctl $command --help"
    assert_contains "$out" "USAGE: clupctl $command"
    case "$out" in *CommandError*) fail "clupctl $command --help printed the parser's error: $out" ;; esac
  done
  assert_contains "$("$BIN/clupctl" ledger correct --help)" "--delta <delta>"
  rc=0; out=$("$BIN/clupctl" help issue 2>&1) || rc=$?
  assert_status $rc 0 "clupctl help issue"
  assert_contains "$out" "USAGE: clupctl issue"
}

test_a_caller_outside_the_control_group_is_refused_with_exit_77() {
  kiosk_start
  # The file mode would keep `nobody` out before clupd is even asked; opened up, the peer
  # check is all that stands in the way.
  chmod 0666 "$WORK/control.sock"
  cp "$BIN/clupctl" "$WORK/clupctl"
  rc=0; out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$WORK/clupctl" status --socket "$WORK/control.sock" 2>&1) || rc=$?
  assert_status $rc 77 "$out"
  assert_contains "$out" "E-CTL-003 permission denied"
  assert_contains "$(cat "$WORK/clupd.log")" "refused a caller without permission"
}

# A technician is let in by a supplementary group, which clupd reads from the socket
# (SO_PEERGROUPS), not from /proc, which the unit's ProtectProc=invisible hides.
test_a_member_of_the_control_group_by_a_supplementary_group_is_let_in() {
  kiosk_start '[control]' 'group = "lp"'
  chmod 0666 "$WORK/control.sock"
  cp "$BIN/clupctl" "$WORK/clupctl"
  rc=0; out=$(setpriv --reuid=nobody --regid=nogroup --groups=lp "$WORK/clupctl" status --socket "$WORK/control.sock" 2>&1) || rc=$?
  assert_status $rc 0 "$out"
  assert_contains "$out" "screen"
  rc=0; out=$(setpriv --reuid=nobody --regid=nogroup --groups=dialout "$WORK/clupctl" status --socket "$WORK/control.sock" 2>&1) || rc=$?
  assert_status $rc 77 "$out"
}

test_silent_clients_holding_the_control_socket_do_not_stall_the_kiosk() {
  kiosk_start
  python3 "$ROOT/Tests/integration/tools/silent-clients.py" "$WORK/control.sock" 200 > "$WORK/silent.out" 2>&1 &
  silent=$!
  wait_until 60 grep -q "holding 200" "$WORK/silent.out"
  clupctl sim approach >/dev/null
  for n in 1 2 3; do
    assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "[ticket: A-00$n]"
    wait_for_print "A-00$n" >/dev/null
    wait_for_screen welcome
    assert_contains "$(clupctl sim pass in)" "passage in"
  done
  assert_contains "$(clupctl status)" "(3 in, 0 out)"
  kill -TERM "$silent"; wait "$silent" || true
  echo "report: $(tail -n 1 "$WORK/silent.out") while 200 silent clients kept reconnecting; 3 tickets and 3 passages served meanwhile"
}

test_clupctl_says_when_the_daemon_is_not_running() {
  rc=0; out=$(CLUP_SOCKET="$WORK/nobody.sock" "$BIN/clupctl" status 2>&1) || rc=$?
  assert_status $rc 69
  assert_contains "$out" "clupd is not running"
}

test_a_second_daemon_does_not_take_over_the_socket() {
  kiosk_start
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state2" --socket "$WORK/control.sock" \
        --config "$WORK/clupd.toml" 2>&1) || rc=$?
  assert_status $rc 73
  assert_contains "$out" "another clupd is already answering"
  clupctl status >/dev/null || fail "the first daemon stopped answering"
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/other.sock" \
        --config "$WORK/clupd.toml" 2>&1) || rc=$?
  assert_status $rc 73 "same state directory"
  assert_contains "$out" "another clupd is using the state directory"
}

test_a_stale_socket_file_is_replaced() {
  kiosk_start
  kill -KILL "$CLUPD_PID"; wait "$CLUPD_PID" 2>/dev/null || true
  [ -S "$WORK/control.sock" ] || fail "expected the dead daemon's socket file to remain"
  kiosk_start_daemon
  clupctl status >/dev/null || fail "restarted daemon does not answer"
}

# What each bad value or file says is checked in KioskConfigurationTests; here, what only the
# process shows: one line on stderr, naming the file and line, and exit 78 (EX_CONFIG).
test_bad_config_gives_one_line_and_exit_78() {
  mkdir -p "$WORK"
  printf '[printer]\npaper = "90mm"\n' > "$WORK/bad.toml"
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/c.sock" --config "$WORK/bad.toml" 2>&1) || rc=$?
  assert_status $rc 78
  assert_eq "$(echo "$out" | wc -l)" 1 "one line"
  assert_contains "$out" "$WORK/bad.toml:2: printer.paper: expected \"80mm\" or \"58mm\", got \"90mm\""
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/c.sock" --config "$WORK/missing.toml" 2>&1) || rc=$?
  assert_status $rc 78
  assert_contains "$out" "missing.toml: cannot read the file"
}

test_the_example_configuration_is_valid() {
  mkdir -p "$WORK"
  cp "$ROOT/hardware/clupd.example.toml" "$WORK/clupd.toml"
  kiosk_start_cups
  kiosk_start_daemon
  assert_contains "$(clupctl config show)" 'queue = "clup-ticket"'
  rc=0; kill -TERM "$CLUPD_PID"; wait "$CLUPD_PID" || rc=$?
  assert_status $rc 0 "clupd with the example configuration"
  assert_contains "$(cat "$WORK/clupd.log")" "clupd ready"
}

test_a_corrupt_database_is_refused_and_left_alone() {
  mkdir -p "$WORK/state"
  head -c 8192 /dev/urandom > "$WORK/state/clup.sqlite"
  before=$(sha256sum < "$WORK/state/clup.sqlite")
  kiosk_write_config
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/c.sock" --config "$WORK/clupd.toml" 2>&1) || rc=$?
  assert_status $rc 65
  assert_contains "$out" "is not a readable SQLite database"
  assert_eq "$(sha256sum < "$WORK/state/clup.sqlite")" "$before" "database file changed"
}

# Overwrites the middle of TABLE's root page in the database with garbage.
damage_table() {
  local table=$1 db=$WORK/state/clup.sqlite page size
  page=$(sqlite3 "$db" "SELECT rootpage FROM sqlite_master WHERE name = '$table'")
  size=$(sqlite3 "$db" "PRAGMA page_size")
  head -c 512 /dev/urandom | dd of="$db" bs=1 seek=$(( (page - 1) * size + 8 )) conv=notrunc status=none
}

# The bytes of the database and of its write-ahead log, if any (not of its -shm, the
# readers' shared index, which every reader, sqlite3 too, writes to).
database_bytes() {
  cat "$WORK/state/clup.sqlite"
  [ ! -e "$WORK/state/clup.sqlite-wal" ] || cat "$WORK/state/clup.sqlite-wal"
}

test_a_damaged_page_is_refused_with_the_file_named_and_never_written() {
  for table in ticket event; do
    rm -rf "$WORK/state"
    kiosk_start
    clupctl sim approach >/dev/null
    for n in 1 2 3; do clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null; wait_for_print "A-00$n" >/dev/null; wait_for_screen welcome; done
    kiosk_stop
    damage_table "$table"
    before=$(database_bytes | sha256sum)
    rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/c.sock" --config "$WORK/clupd.toml" 2>&1) || rc=$?
    assert_status $rc 65 "clupd on a damaged $table page: $out"
    assert_contains "$out" "E-DB-004 $WORK/state/clup.sqlite is damaged (PRAGMA quick_check: "
    assert_eq "$(database_bytes | sha256sum)" "$before" "the damaged file was written"
    [ -e "$WORK/c.sock" ] && fail "clupd listened on a damaged database"
    echo "report: a damaged $table page: $(echo "$out" | cut -c 1-160)…"
  done
}

test_every_start_leaves_the_schema_alone() {
  kiosk_start
  kiosk_stop
  version=$(sqlite3 "$WORK/state/clup.sqlite" "PRAGMA schema_version")
  pages=$(sqlite3 "$WORK/state/clup.sqlite" "PRAGMA page_count")
  for _ in 1 2 3; do kiosk_start_cups; kiosk_start_daemon; kiosk_stop; done
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "PRAGMA schema_version")" "$version" "schema_version after 3 starts"
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "PRAGMA page_count")" "$pages" "pages after 3 starts"
}

test_a_full_disk_is_told_to_the_customer_and_nothing_is_half_done() {
  # The state directory on a disk of its own, small enough to fill.
  mkdir -p "$WORK/state"
  mount -t tmpfs -o size=4m tmpfs "$WORK/state"
  # systemd's notify socket, as under the unit: what `systemctl status clupd` would show.
  python3 -c '
import socket, sys
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(sys.argv[1])
with open(sys.argv[2], "a") as out:
    while True:
        out.write(listener.recv(4096).decode() + "\n"); out.flush()
' "$WORK/notify.sock" "$WORK/notify.log" &
  notify_pid=$!
  trap 'kiosk_stop; kill "$notify_pid" 2>/dev/null; umount -l "$WORK/state" 2>/dev/null || true' EXIT
  wait_until 10 [ -S "$WORK/notify.sock" ]
  export NOTIFY_SOCKET="$WORK/notify.sock"
  kiosk_start
  clupctl sim approach >/dev/null
  take_ticket >/dev/null
  jobs_before=$(find "$WORK/cups/jobs" -maxdepth 1 -name '*.title' | wc -l)
  # Something else fills the disk while the kiosk runs.
  dd if=/dev/zero of="$WORK/state/filler" bs=4k status=none 2>/dev/null || true
  rc=0; out=$(clupctl sim tap $BUTTON_X $BUTTON_Y 2>&1) || rc=$?
  assert_status $rc 1 "a ticket on a full disk: $out"
  assert_contains "$out" "E-KSK-001 no ticket: E-DB-005 the disk holding $WORK/state/clup.sqlite is full"
  assert_contains "$(clupctl status)" "screen     print-failed"
  # The technician is told too: in the status, in systemd's status line, in the metrics.
  assert_contains "$(clupctl status)" "NOT RECORDING: E-DB-005 the disk holding $WORK/state/clup.sqlite is full"
  wait_until 10 grep -q "^STATUS=kiosk running, .*; NOT RECORDING: E-DB-005 the disk holding" "$WORK/notify.log"
  assert_contains "$(clupctl metrics)" "clup_totem_not_recording 1"
  clupctl screenshot "$WORK/told.png" >/dev/null
  assert_eq "$(find "$WORK/cups/jobs" -maxdepth 1 -name '*.title' | wc -l)" "$jobs_before" \
    "a ticket that was not recorded was sent to the printer"
  # Room again: said by itself, with nothing recorded yet (a closed store records nothing);
  # the next ticket takes the number the refused one never had.
  rm "$WORK/state/filler"
  (wait_until 60 '! clupctl status | grep -q "NOT RECORDING"') || fail "NOT RECORDING stayed once there was room: $(clupctl status)"
  wait_for_screen welcome
  assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "[ticket: A-002]"
  assert_eq "$(wait_for_print A-002)" called
  case "$(clupctl status)" in *"NOT RECORDING"*) fail "the status still says nothing is recorded" ;; esac
  assert_contains "$(clupctl metrics)" "clup_totem_not_recording 0"
  # shellcheck disable=SC2016 # run again at each try
  (wait_until 10 '[ "$(grep "^STATUS=" "$WORK/notify.log" | tail -n 1 | grep -c "NOT RECORDING")" = 0 ]') \
    || fail "systemd's status line after room came back: $(grep '^STATUS=' "$WORK/notify.log" | tail -n 1)"
  kiosk_stop
  sql() { sqlite3 -batch -noheader "$WORK/state/clup.sqlite" "$1"; }
  assert_eq "$(sql "PRAGMA integrity_check")" ok
  assert_eq "$(sql "SELECT COUNT(*) FROM ticket")" "$(sql "SELECT COUNT(*) FROM event WHERE type = 'ticket.issued'")" "tickets vs their events"
  assert_eq "$(sql "SELECT MIN(seq) || '..' || MAX(seq) || '/' || COUNT(*) FROM event")" \
            "1..$(sql "SELECT COUNT(*) FROM event")/$(sql "SELECT COUNT(*) FROM event")" "event seq has a gap"
  echo "report: on a full disk the tap was refused with E-DB-005 on the screen and in the shell, NOT RECORDING in the status, systemd's status line and the metrics; no job reached cupsd; A-002 printed once there was room"
}

test_sigterm_stops_cleanly_and_state_survives_restart() {
  kiosk_start
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  wait_for_print A-001 >/dev/null
  clupctl sim pass in >/dev/null
  rc=0; kill -TERM "$CLUPD_PID"; wait "$CLUPD_PID" || rc=$?
  assert_status $rc 0 "clupd exit status on SIGTERM"
  [ -e "$WORK/control.sock" ] && fail "socket left behind"
  kiosk_start_daemon
  assert_eq "$(ticket_field A-001 state)" called
  assert_contains "$(clupctl status)" "1 inside"
}

# What the package runs before an upgrade: a copy of the database while clupd serves,
# the newest three kept, nothing migrated; a first install has nothing to copy.
test_clupd_backup_copies_the_database_while_clupd_runs() {
  local out copy
  out=$("$BIN/clupd" backup --state-dir "$WORK/none")
  assert_eq "$out" "backup: no database in $WORK/none, nothing to back up"
  kiosk_start
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  wait_for_print A-001 >/dev/null
  out=$("$BIN/clupd" backup --state-dir "$WORK/state")
  assert_contains "$out" "1 tickets"
  copy=$(sed -n 's/^backup: \([^:]*\): .*/\1/p' <<< "$out")
  assert_eq "$(sqlite3 "$copy" "SELECT number, state FROM ticket")" "A-001|called"
  assert_eq "$(sqlite3 "$copy" "PRAGMA integrity_check")" ok
  assert_eq "$(stat -c %a "$copy")" 600
  for _ in 1 2 3; do "$BIN/clupd" backup --state-dir "$WORK/state" >/dev/null; done
  assert_eq "$(find "$WORK/state/backups" -maxdepth 1 -name 'clupd-*.sqlite' | wc -l)" 3
  [ -e "$copy" ] && fail "the oldest copy was kept"
  assert_contains "$(clupctl status)" "screen"
  echo "report: $out"
}

test_systemd_unit_verifies_and_is_hardened() {
  assert_unit_hardened clupd 1.5
}

# Takes a ticket on the welcome screen and waits for the printer; prints its number.
take_ticket() {
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  local number; number=$(newest_ticket)
  wait_for_print "$number" >/dev/null
  wait_for_screen welcome >&2
  echo "$number"
}

test_the_door_admits_a_called_ticket_once() {
  kiosk_start
  clupctl sim approach >/dev/null
  take_ticket >/dev/null
  code=$(printed_qr_text A-001)
  assert_contains "$(clupctl sim scan "$code")" "admitted A-001: the turnstile is released"
  assert_contains "$(clupctl sim pass in)" "passage in by ticket A-001; 1 inside"
  assert_eq "$(ticket_field A-001 state)" entered
  # Scanned again once inside: on the way out (its time in store); the turnstile is not
  # released to come in. Once more (a photocopy): refused.
  assert_contains "$(clupctl sim scan "$code")" "goodbye: A-001 leaves after 0 min in the store"
  assert_contains "$(clupctl sim pass out)" "passage out"
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "SELECT left_at IS NOT NULL FROM ticket WHERE number = 'A-001'")" 1 \
    "A-001's exit, stored"
  rc=0; out=$(clupctl sim scan "$code" 2>&1) || rc=$?
  assert_status $rc 1 "a photocopy"
  assert_contains "$out" "E-Q-005 ticket A-001 (it left at"
  rc=0; out=$(clupctl sim scan "NOT A TICKET" 2>&1) || rc=$?
  assert_status $rc 1 "a stranger's code"
  assert_contains "$out" "E-DOOR-001 unreadable: not a CLup ticket code"
  assert_contains "$(cat "$WORK/clupd.log")" "scan refused at the door"
}

test_the_store_fills_up_then_calls_when_someone_leaves_and_expires_no_shows() {
  kiosk_start '[queue]' 'capacity = 1' 'priority_share = 0' 'presentation_window_minutes = 0.15'
  clupctl sim approach >/dev/null
  take_ticket >/dev/null; take_ticket >/dev/null; take_ticket >/dev/null
  assert_eq "$(ticket_field A-001 state)" called
  assert_eq "$(ticket_field A-002 state)" waiting "the store is full"
  rc=0; out=$(clupctl call-next 2>&1) || rc=$?
  assert_status $rc 1 "call-next with no room"
  assert_contains "$out" "E-Q-001 no room: 1 of 1 places taken or promised"
  clupctl sim scan "$(ticket_field A-001 code)" >/dev/null
  clupctl sim pass in >/dev/null
  assert_eq "$(ticket_field A-002 state)" waiting "still full with A-001 inside"
  clupctl sim pass out >/dev/null
  assert_eq "$(ticket_field A-002 state)" called "called when someone left"
  assert_contains "$(clupctl queue)" "A-002    regular   called"
  # The 9 s window ends on clupd's monotonic clock; the rules' tests check it is exact.
  wait_until_prints 60 no-show ticket_field A-002 state
  assert_eq "$(ticket_field A-003 state)" called "the no-show's place goes to the next"
}

test_an_employees_priority_ticket_is_called_before_waiting_regular_ones() {
  kiosk_start '[queue]' 'capacity = 1' 'priority_share = 0'
  clupctl sim approach >/dev/null
  take_ticket >/dev/null; take_ticket >/dev/null
  assert_contains "$(clupctl issue --priority elderly)" "ticket AP-001 recorded and sent to the printer"
  wait_for_print AP-001 >/dev/null
  assert_eq "$(ticket_field A-002 state)" waiting
  assert_eq "$(ticket_field AP-001 lane)" priority
  clupctl sim scan "$(ticket_field A-001 code)" >/dev/null
  clupctl sim pass in >/dev/null
  clupctl sim pass out >/dev/null
  assert_eq "$(ticket_field AP-001 state)" called "priority goes first"
  assert_eq "$(ticket_field A-002 state)" waiting
  assert_contains "$(clupctl queue)" "priority: before regular tickets"
  rc=0; out=$(clupctl issue --priority curious 2>&1) || rc=$?
  assert_status $rc 2 "an unknown reason is a usage error"
}

test_ledger_corrections_are_audited_and_never_go_below_zero() {
  kiosk_start
  clupctl sim pass in >/dev/null
  rc=0; out=$(clupctl ledger correct --delta -2 --reason "recount" 2>&1) || rc=$?
  assert_status $rc 1
  assert_contains "$out" "E-OCC-001 a correction of -2 would make the count -1, below zero"
  rc=0; out=$(clupctl ledger correct --delta 2 --reason "" 2>&1) || rc=$?
  assert_status $rc 1
  assert_contains "$out" "E-OCC-002 a correction needs a reason"
  clupctl ledger correct --delta 2 --reason "two children under the turnstile" >/dev/null
  out=$(clupctl ledger)
  assert_contains "$out" "1 in, 0 out, corrections 2, inside 3"
  assert_contains "$out" "+2 by $KIOSK_TECHNICIAN: two children under the turnstile"
  assert_contains "$out" "event log: agrees with the ledger"
  assert_contains "$(clupctl ledger --json)" '"matchesEventLog" : true'
}

# Fails, naming WHERE, when a line of TEXT starts with 1999 (a forged entry) or TEXT holds
# an ESC byte: what a person typed must stay data.
assert_no_forged_line() {
  local text=$1 where=$2
  if printf '%s\n' "$text" | grep -q '^1999'; then fail "a forged line in $where: $text"; fi
  if printf '%s' "$text" | grep -q $'\e'; then fail "an ESC byte in $where"; fi
}

test_typed_text_forges_no_line_of_the_audit_the_ledger_or_the_log() {
  kiosk_start
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  forged=$'x\n1999-01-01T00:00:00Z  technician tess  login  ok'
  # Five wrong secrets lock the name, which clupd logs.
  for _ in 1 2 3 4 5; do printf 'wrong-secret-1\n' | clupctl login "$forged" >/dev/null 2>&1 || true; done
  rc=0; out=$(clupctl skip $'A-001\n1999-01-01T00:00:00Z  technician tess  skip  ok' 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$out" "E-CTL-009 A-001"
  assert_no_forged_line "$out" "the refusal of a skip"
  rc=0; out=$(clupctl void A-001 --reason $'dup\e]0;pwned\a' 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$out" "E-Q-015 the reason holds a line break or a control character"
  rc=0; out=$(clupctl ledger correct --delta 1 --reason "$(head -c 60000 /dev/zero | tr '\0' r)" 2>&1) || rc=$?
  assert_status $rc 1 "${out:0:200}"
  assert_contains "$out" "E-Q-015 the reason has 60000 characters"
  assert_eq "$(ticket_field A-001 state)" called "the void was refused"
  # What clupd keeps and logs holds it, whatever clupctl shows: every text of every event, and the log.
  stored=$(sqlite3 "$WORK/state/clup.sqlite" "SELECT value FROM event, json_tree(event.payload) WHERE json_tree.type = 'text'")
  assert_contains "$stored" 'x\n1999-01-01T00:00:00Z  techn'
  assert_no_forged_line "$stored" "the stored events"
  assert_contains "$(cat "$WORK/clupd.log")" 'name=x\n1999-01-01T00:00:00Z'
  assert_no_forged_line "$(cat "$WORK/clupd.log")" "clupd's log"
  assert_no_forged_line "$(clupctl audit)" "clupctl audit"
  assert_no_forged_line "$(clupctl ledger)" "clupctl ledger"
}

# Stores what a clupd without the bound on corrections committed: a correction of
# 9223372036854775807 people at door main on business day DAY, in the ledger and as an event.
store_unbounded_correction() {
  local day=$1
  sqlite3 "$WORK/state/clup.sqlite" "
    INSERT INTO ledger (business_day, door, entries, exits, corrections) VALUES ('$day', 'main', 0, 0, 9223372036854775807)
      ON CONFLICT (business_day, door) DO UPDATE SET corrections = 9223372036854775807;
    INSERT INTO event (device_id, seq, wall_time, type, payload) SELECT device_id, MAX(seq) + 1, MAX(wall_time), 'occupancy.corrected',
      '{\"occupancyCorrected\":{\"at\":0,\"businessDay\":{\"date\":\"$day\"},\"by\":\"root\",\"delta\":9223372036854775807,\"door\":\"main\",\"reason\":\"x\"}}'
      FROM event GROUP BY device_id;"
}

test_an_absurd_correction_is_refused_and_one_stored_earlier_does_not_stop_clupd() {
  kiosk_start '[queue]' 'capacity = 2' 'priority_share = 0'
  clupctl sim approach >/dev/null
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  assert_eq "$(wait_for_print A-001)" called "nobody inside: called at once"
  rc=0; out=$(clupctl ledger correct --delta 9223372036854775807 --reason x 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$out" "E-OCC-004 a correction of 9223372036854775807 is more than the 10000 people one correction may change"
  rc=0; out=$(clupctl ledger correct --delta -9223372036854775808 --reason x 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$(clupctl status)" "0 inside of 2"
  # What a clupd without the bound committed: the correction, in the ledger and the log.
  day=$(clupctl status --json | sed -n 's/^ *"businessDay" : "\(.*\)",*$/\1/p')
  kiosk_stop
  store_unbounded_correction "$day"
  kiosk_start_cups
  kiosk_start_daemon || fail "clupd did not start with the stored correction"
  assert_contains "$(clupctl status)" "9223372036854775807 inside of 2"
  assert_contains "$(clupctl queue)" "next call: none"
  # A technician who counted the people inside sets the count right.
  clupctl ledger correct --set 0 --reason "counted: nobody inside" >/dev/null
  assert_contains "$(clupctl status)" "0 inside of 2"
  assert_contains "$(clupctl ledger)" "event log: agrees with the ledger"
}

test_sighup_reloads_the_configuration_and_a_bad_file_keeps_the_one_in_force() {
  kiosk_start '[queue]' 'capacity = 1' 'priority_share = 0'
  clupctl sim approach >/dev/null
  take_ticket >/dev/null; take_ticket >/dev/null
  assert_eq "$(ticket_field A-002 state)" waiting "the store is full"
  # The manager raises the capacity: a reload calls A-002 at once.
  sed -i 's/^capacity = 1$/capacity = 2/' "$WORK/clupd.toml"
  kill -HUP "$CLUPD_PID"
  wait_until 60 'clupctl status | grep -q "inside of 2"'
  assert_contains "$(clupctl status)" "0 inside of 2"
  assert_eq "$(ticket_field A-002 state)" called "called once there was room"
  assert_contains "$(clupctl config show)" "capacity = 2"
  # A file with an error: nothing changes, clupd keeps running, and status says why.
  cp "$WORK/clupd.toml" "$WORK/good.toml"
  sed -i 's/^capacity = 2$/capacity = "lots"/' "$WORK/clupd.toml"
  kill -HUP "$CLUPD_PID"
  wait_until 60 'clupctl status | grep -q PROBLEM'
  kill -0 "$CLUPD_PID" || fail "SIGHUP stopped clupd"
  assert_contains "$(clupctl status)" "PROBLEM    E-CFG-002 the configuration was not reloaded (E-CFG-001 $WORK/clupd.toml:"
  assert_contains "$(clupctl status)" "queue.capacity: expected an integer, got a string); the one read at"
  assert_contains "$(clupctl status)" "0 inside of 2"
  assert_contains "$(cat "$WORK/clupd.log")" "configuration not reloaded; the one in force stays"
  # A key only a restart can change is kept, and said; the rest is in force.
  cp "$WORK/good.toml" "$WORK/clupd.toml"
  printf '[totem]\nletter = "B"\n' >> "$WORK/clupd.toml"
  sed -i 's/^capacity = 2$/capacity = 3/' "$WORK/clupd.toml"
  kill -HUP "$CLUPD_PID"
  wait_until 60 'clupctl status | grep -q "inside of 3"'
  assert_contains "$(clupctl status)" "PROBLEM    E-CFG-003 reloaded, but totem.letter changed and take effect only when clupd restarts"
  assert_contains "$(clupctl sim tap $BUTTON_X $BUTTON_Y)" "[ticket: A-003]"
}

test_config_show_prints_the_configuration_in_force() {
  kiosk_start '[queue]' 'capacity = 12' 'presentation_window_minutes = 2.5'
  clupctl config show > "$WORK/shown.toml"
  assert_contains "$(cat "$WORK/shown.toml")" "capacity = 12"
  assert_contains "$(cat "$WORK/shown.toml")" "presentation_window_minutes = 2.5"
  kiosk_stop
  # What the shell shows is itself a configuration clupd accepts.
  cp "$WORK/shown.toml" "$WORK/clupd.toml"
  kiosk_start_cups
  kiosk_start_daemon
  assert_eq "$(clupctl config show | tail -n +2)" "$(tail -n +2 "$WORK/shown.toml")"
}

run_tests
