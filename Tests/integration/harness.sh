# shellcheck shell=bash
# A small test harness for the integration tests: every function named test_* in the
# sourced test file runs in its own subshell with a fresh $WORK and `set -e` (so a command
# expected to fail is written `rc=0; out=$(command) || rc=$?`), and `run_tests` prints
# one line per test (and the lines a passing test prints starting with "report: ") and a
# closing "N passed, N failed". ONLY=REGEX runs only the tests whose names match.

source "$ROOT/scripts/lib/kiosk.sh"

fail() { echo "    FAIL: $*" >&2; exit 1; }
assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected [$2], got [$1]"; }
assert_contains() { case "$1" in *"$2"*) ;; *) fail "${3:-missing text}: [$2] not in [$1]" ;; esac; }
assert_status() { [ "$1" -eq "$2" ] || fail "${3:-exit status}: expected $2, got $1"; }

# Prints each line of TEXT as a report line, after PREFIX if given.
report_lines() {
  local prefix="report: ${2:-}"
  printf '%s\n' "$prefix${1//$'\n'/$'\n'$prefix}"
}

# Fails unless Prometheus' own linter, `promtool check metrics`, finds nothing to say about
# the Prometheus text $1 (of $2; its last newline, which $(…) drops, put back).
assert_promtool_clean() {
  local out rc=0
  out=$(printf '%s\n' "$1" | promtool check metrics 2>&1) || rc=$?
  assert_status $rc 0 "promtool check metrics, $2: $out"
  assert_eq "$out" "" "promtool check metrics, $2"
}

# Runs CONDITION until it succeeds, up to SECONDS. CONDITION is a command with its
# arguments (wait_until 10 [ -S "$WORK/hold.sock" ]), or one string of shell code, run
# again at each try (wait_until 10 'clupctl status | grep -q ok'): for pipes, and for a
# $(…) that must run again each time, in single quotes, where shellcheck asks (SC2016)
# whether they are meant: say so with `# shellcheck disable=SC2016` on the line above.
# For [ "$(COMMAND)" = VALUE ], wait_until_prints needs neither, and says more on failure.
# Both fail the test when the time is up; inside ( … ) they end only that subshell, so that
# `(wait_until 10 COND) || fail "MESSAGE"` can add what would help to see why.
# These are the tests' waits: no test sleeps for something to happen.
wait_until() {
  local seconds=$1; shift
  for _ in $(seq 1 $((seconds * 10))); do
    if [ $# -eq 1 ]; then eval "$1" && return 0; else "$@" && return 0; fi
    sleep 0.1  # not a wait: the pause between polls
  done
  fail "not within $seconds s: $*"
}

# As wait_until, bounded by the clock rather than by a count of tries: for checks that take
# a while themselves (inside an emulated VM, one try may take seconds).
wait_within() {
  local seconds=$1 deadline; shift
  deadline=$((SECONDS + seconds))
  while :; do
    if [ $# -eq 1 ]; then eval "$1" && return 0; else "$@" && return 0; fi
    [ "$SECONDS" -lt "$deadline" ] || break
    sleep 0.1  # not a wait: the pause between polls
  done
  fail "not within $seconds s: $*"
}

# Whether `clupctl status` shows TEXT (a grep pattern), and a wait for it, bounded by the
# clock: STATUS_WAIT seconds (60 unless a test file sets it; the VM tests give 120, their CPUs
# being emulated and slower still while the host's other core is busy). The bound is only
# for a kiosk that never gets there.
status_shows() { clupctl status | grep -q -- "$1"; }
wait_status() { (wait_within "${STATUS_WAIT:-60}" status_shows "$1") || fail "status never showed [$1]: $(clupctl status)"; }
# Milliseconds since STARTED, a `date +%s%N`.
milliseconds_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

# Runs COMMAND [ARG…] until what it prints is EXPECTED, up to SECONDS (its exit status
# does not count, as in `[ "$(COMMAND)" = EXPECTED ]`).
wait_until_prints() {
  local seconds=$1 expected=$2 out=; shift 2
  for _ in $(seq 1 $((seconds * 10))); do
    out=$("$@") || true
    [ "$out" = "$expected" ] && return 0
    sleep 0.1  # not a wait: the pause between polls
  done
  fail "not within $seconds s: $* printed [$out], not [$expected]"
}

# Checks the unit file systemd/NAME.service, pointed at $BIN's NAME: it verifies, and its
# exposure (`systemd-analyze security`, out of 10) is MAX or lower (issue 24: 1.5 for clupd,
# 1.2 for clup-hub). Prints systemd's verdict as a report line.
assert_unit_hardened() {
  local name=$1 max=$2 out rc=0
  mkdir -p "$WORK/unit"
  # Beside it, the units it requires (clupd's clup-keys.service), pointed at $BIN too.
  for unit in "$ROOT"/systemd/*.service; do
    sed "s|/usr/bin/clup|$BIN/clup|" "$unit" > "$WORK/unit/${unit##*/}"
  done
  # --man=no: the man pages the unit names are installed by the package, not here.
  out=$(systemd-analyze verify --man=no "$WORK/unit/$name.service" 2>&1) || rc=$?
  assert_status $rc 0 "systemd-analyze verify: $out"
  # --threshold counts tenths.
  systemd-analyze security --offline=true --threshold="${max/./}" "$WORK/unit/$name.service" >"$WORK/security.txt" 2>&1 \
    || fail "exposure above $max: $(tail -n 1 "$WORK/security.txt")"
  echo "report: $(tail -n 1 "$WORK/security.txt" | sed 's/→ //')"
}

run_tests() {
  local passed=0 failed=0 name outcome started
  for name in $(declare -F | awk '{print $3}' | grep '^test_' | grep -E -- "${ONLY:-.}"); do
    WORK=$(mktemp -d /tmp/clup-it.XXXXXX) && chmod 755 "$WORK"
    started=$SECONDS
    # Not inside `if` nor before `||`: there bash would ignore set -e in the test.
    ( trap kiosk_stop EXIT; set -euo pipefail; "$name" ) >"$WORK/test.out" 2>&1
    outcome=$?
    if [ "$outcome" -eq 0 ]; then
      passed=$((passed + 1)); echo "  ok    $name ($((SECONDS - started)) s)"
      sed -n 's/^report: /        /p' "$WORK/test.out"
      rm -rf "$WORK"
    else
      failed=$((failed + 1)); echo "  FAIL  $name after $((SECONDS - started)) s (work dir kept: $WORK)"
      sed 's/^/        /' "$WORK/test.out" | tail -n 30
    fi
  done
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
