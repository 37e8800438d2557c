#!/usr/bin/env bash
# clupctl against hostile input, as an attacker at the keyboard or in the log would try it:
# text that would forge a line or act on the terminal (a window title, a clear screen), a
# --grep pattern that backtracks, and links planted where diagnostics writes its archive.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

# A terminal's window title (OSC 0 … BEL) and a clear screen (CSI 2J).
ESCAPES=$'\e]0;pwned\a\e[2J'
FORGED=$'\n1999-01-01T00:00:00Z  technician tess       login            ok'

# TEXT shows what matches the extended regular expression RE. The escapes are written with
# one backslash or more: clupctl escapes what it prints, and a clupd that escapes its reports
# too has the backslash doubled.
assert_shows() { grep -Eq -- "$2" <<<"$1" || fail "[$2] not shown in [$1]"; }

# No escape character, no BEL: nothing in TEXT acts on a terminal.
assert_inert() {
  if printf '%s' "$1" | grep -q $'[\e\a]'; then fail "${2:-output} carries a control character: $(printf '%s' "$1" | cat -v | head -n 5)"; fi
}

test_what_a_person_typed_prints_escaped_in_the_audit_the_ledger_the_logs_and_the_errors() {
  kiosk_start
  rc=0; out=$(printf 'wrong\n' | CLUP_SESSION_FILE=$WORK/s2 clupctl login "x$FORGED" 2>&1) || rc=$?
  assert_inert "$out" "the refused login's message"
  clupctl ledger correct --delta 1 --reason counted >/dev/null
  # clupd may refuse such a reason now; what it answers is printed inert either way.
  rc=0; out=$(clupctl ledger correct --delta 1 --reason "again$ESCAPES" 2>&1) || rc=$?
  assert_inert "$out" "ledger correct's answer"
  rc=0; out=$(clupctl skip $'A-1\n'"$ESCAPES" 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_inert "$out" "skip's refusal"
  assert_eq "$(grep -c '^clupctl: ' <<<"$out")" 1 "one refusal line: $out"
  # What a database written before clupd bounded such text may hold (JSON escapes in the
  # stored payloads, so it decodes to the raw characters): a correction's reason and an
  # audit result that would forge a line and act on the terminal.
  sqlite3 "$WORK/state/clup.sqlite" ".timeout 5000" \
    "UPDATE event SET payload = replace(payload, '\"counted\"', '\"counted\\u001b]0;pwned\\u0007\\u001b[2J\\nevent log: agrees with the ledger\"') WHERE type = 'occupancy.corrected'" \
    "UPDATE event SET payload = replace(payload, '\"result\":\"wrong name or secret\"', '\"result\":\"wrong\\u001b]0;pwned\\u0007\\n1999-01-01T00:00:00Z  technician tess       login            ok\"') WHERE type = 'staff.audit'"

  audit=$(clupctl audit)
  assert_inert "$audit" "clupctl audit"
  grep -q '^1999-01-01' <<<"$audit" && fail "a forged line in the audit: $audit"
  assert_shows "$audit" 'login-refused +wrong\\+u\{1B\}\]0;pwned\\+u\{7\}\\+n1999-01-01T00:00:00Z'

  ledger=$(clupctl ledger)
  assert_inert "$ledger" "clupctl ledger"
  assert_eq "$(grep -c '^event log:' <<<"$ledger")" 1 "one verdict in the ledger: $ledger"
  assert_shows "$ledger" 'counted\\+u\{1B\}\]0;pwned\\+u\{7\}\\+u\{1B\}\[2J\\+nevent log: agrees with the ledger'

  # A line in clupd's log file that would retitle the terminal and clear it.
  printf 'evil %s\n' "$ESCAPES" >> "$WORK/clupd.log"
  logs=$(clupctl logs --grep evil)
  assert_inert "$logs" "clupctl logs"
  assert_eq "$logs" 'evil \u{1B}]0;pwned\u{7}\u{1B}[2J'
  # What the user typed, quoted back by clupctl itself: escaped, and bounded.
  rc=0; out=$(clupctl audit --since "$ESCAPES$(printf 'y%.0s' {1..500})" 2>&1) || rc=$?
  assert_status $rc 2 "$out"
  assert_inert "$out" "--since's refusal"
  [ "${#out}" -lt 600 ] || fail "the refusal quotes all 500 characters: ${#out}"
  printf '%s\n' 'report: audit, ledger, logs and refusals printed no escape character; a forged audit line showed as \n inside its entry'
}

test_a_backtracking_grep_pattern_ends_with_a_clear_message() {
  kiosk_start
  printf '%s\n' "$(printf 'a%.0s' {1..40})" >> "$WORK/clupd.log"
  rc=0; out=$(clupctl logs --grep '(a+)+b' 2>&1) || rc=$?
  assert_status $rc 2 "$out"
  assert_contains "$out" "--grep: (a+)+b takes too long on a line of 40 bytes"
  assert_contains "$out" "write it without nesting"
  # An ordinary pattern on the same log still reads it.
  assert_contains "$(clupctl logs --grep 'a{40}|clupd ready')" "clupd ready"
  echo "report: $(head -n 1 <<<"$out")"
}

test_diagnostics_writes_through_no_link_planted_beside_its_file_or_at_it() {
  kiosk_start
  echo precious > "$WORK/victim"
  chmod 644 "$WORK/victim"
  # The old temporary name, planted as a link to the victim.
  ln -s "$WORK/victim" "$WORK/d.tgz.tmp"
  clupctl diagnostics "$WORK/d.tgz" >/dev/null
  assert_eq "$(cat "$WORK/victim")" precious "the victim's content"
  assert_eq "$(stat -c %a "$WORK/victim")" 644 "the victim's mode"
  assert_eq "$(stat -c %a "$WORK/d.tgz")" 600
  assert_contains "$(tar tzf "$WORK/d.tgz")" "./integrity.txt"
  [ -L "$WORK/d.tgz.tmp" ] || fail "the planted link was replaced"
  # The archive's own name a link to the victim: refused.
  ln -s "$WORK/victim" "$WORK/e.tgz"
  rc=0; out=$(clupctl diagnostics "$WORK/e.tgz" 2>&1) || rc=$?
  assert_status $rc 2 "$out"
  assert_contains "$out" "is a symbolic link: clupctl does not write through links"
  assert_eq "$(cat "$WORK/victim")" precious "the victim's content"
  assert_eq "$(stat -c %a "$WORK/victim")" 644 "the victim's mode"
  assert_eq "$(find "$WORK" -maxdepth 1 -name '.*.tmp' | wc -l)" 0 "no temporary file left behind"
}

run_tests
