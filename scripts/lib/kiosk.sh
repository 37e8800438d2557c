# shellcheck shell=bash
# Shared by scripts/demo and the integration tests: starts and stops a private cupsd and
# a simulated clupd in one work directory, and reads back what was printed.
#
# Source it, set WORK (a fresh directory) and BIN (swift build --show-bin-path), then call
# kiosk_start [extra clupd.toml lines]. Everything started is stopped by kiosk_stop.

ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

# clupctl against this work directory's daemon, as the technician kiosk_start logs in.
clupctl() { CLUP_SOCKET="$WORK/control.sock" CLUP_SESSION_FILE="$WORK/session" "$BIN/clupctl" "$@"; }

# The technician the demo and the tests log in as (commands that change the totem need one).
KIOSK_TECHNICIAN=${KIOSK_TECHNICIAN:-tess}
KIOSK_TECHNICIAN_SECRET=${KIOSK_TECHNICIAN_SECRET:-correct-horse-2026}

# Adds the technician (root may, before anyone is logged in) where the state directory has
# none yet, and logs in; KIOSK_NO_LOGIN=1 leaves clupctl without a session.
kiosk_login() {
  [ "${KIOSK_NO_LOGIN:-}" = 1 ] && return 0
  if ! clupctl technician list | grep -q "^$KIOSK_TECHNICIAN "; then
    printf '%s\n' "$KIOSK_TECHNICIAN_SECRET" | clupctl technician add "$KIOSK_TECHNICIAN" >/dev/null
  fi
  printf '%s\n' "$KIOSK_TECHNICIAN_SECRET" | clupctl login "$KIOSK_TECHNICIAN" >/dev/null
}

# Writes $WORK/clupd.toml: a small screen-timeout (KIOSK_IDLE_SECONDS, default 2 s; and
# its warning) so the demo and tests see the screen sleep, the store's time zone KIOSK_TIMEZONE
# (default UTC), the start of its business day KIOSK_DAY_START (HH:MM, default clupd's), plus
# any lines given.
kiosk_write_config() {
  {
    echo '[store]'
    echo 'id = 7'
    echo 'name = "CLup Market Demo"'
    echo "timezone = \"${KIOSK_TIMEZONE:-UTC}\""
    if [ -n "${KIOSK_DAY_START:-}" ]; then echo "business_day_start = \"$KIOSK_DAY_START\""; fi

    echo '[screen]'
    echo "idle_timeout_seconds = ${KIOSK_IDLE_SECONDS:-2}"
    echo 'timeout_warning_seconds = 1'
    echo "result_seconds = 1"
    printf '%s\n' "$@"
  } > "$WORK/clupd.toml"
}

# Starts the private cupsd; with IPP_PORT set, also its queue clup-ipp to that IPP printer.
kiosk_start_cups() {
  eval "$("$ROOT/scripts/private-cupsd" start "$WORK/cups" ${IPP_PORT:+--ipp-port "$IPP_PORT"} \
    2>"$WORK/private-cupsd.log")"
  export CUPS_SERVER
}

# Starts ippeveprinter, an independent IPP printer, on IPP_PORT (kept files in $WORK/ipp/spool).
kiosk_start_ipp_printer() {
  "$ROOT/scripts/private-ipp-printer" start "$WORK/ipp" "$IPP_PORT" 2>"$WORK/private-ipp-printer.log"
}

# Starts clupd --simulate (plain clupd with KIOSK_MODE=config, so hardware.mode counts)
# and waits until it answers.
kiosk_start_daemon() {
  local simulate=(--simulate)
  [ "${KIOSK_MODE:-}" = config ] && simulate=()
  # KIOSK_WRAP: a command clupd runs under (nsenter into a network namespace, say).
  # KIOSK_SPOOL: the tickets' documents elsewhere than in the state folder (the bench's, on
  # a tmpfs, as the package's are).
  ${KIOSK_WRAP:-} "$BIN/clupd" "${simulate[@]}" --state-dir "$WORK/state" --socket "$WORK/control.sock" \
    ${KIOSK_SPOOL:+--spool "$KIOSK_SPOOL"} --config "$WORK/clupd.toml" >>"$WORK/clupd.log" 2>&1 &
  CLUPD_PID=$!
  for _ in $(seq 1 100); do
    clupctl status >/dev/null 2>&1 && { kiosk_login; return $?; }
    kill -0 "$CLUPD_PID" 2>/dev/null || { echo "clupd exited; its log:" >&2; cat "$WORK/clupd.log" >&2; return 1; }
    sleep 0.1  # not a wait: the pause between this helper's polls
  done
  echo "clupd did not answer within 10 s" >&2
  return 1
}

kiosk_start() {
  mkdir -p "$WORK"
  kiosk_write_config "$@"
  kiosk_start_cups
  kiosk_start_daemon
}

# Stops clupd (SIGTERM, as systemd does) and the private cupsd.
kiosk_stop() {
  if [ -n "${CLUPD_PID:-}" ] && kill -0 "$CLUPD_PID" 2>/dev/null; then
    kill -TERM "$CLUPD_PID"
    wait "$CLUPD_PID" 2>/dev/null || true
  fi
  CLUPD_PID=
  # A shell test's private tmux server, if one runs.
  if [ -S "$WORK/tmux.sock" ]; then tmux -S "$WORK/tmux.sock" kill-server 2>/dev/null || true; fi
  "$ROOT/scripts/private-cupsd" stop "$WORK/cups" 2>/dev/null || true
  if [ -d "$WORK/ipp" ]; then "$ROOT/scripts/private-ipp-printer" stop "$WORK/ipp" 2>/dev/null || true; fi
}

# The value of field KEY of ticket NUMBER, from `clupctl tickets --json` (one field per
# line, keys sorted, so each ticket's fields are gathered until its closing brace).
ticket_field() {
  local number=$1 key=$2
  clupctl tickets --json | awk -v number="$number" -v key="$key" '
    /^ *"[a-zA-Z]+" : "/ {
      name = $0; sub(/^ *"/, "", name); sub(/".*/, "", name)
      value = $0; sub(/^[^:]*: "/, "", value); sub(/",?$/, "", value)
      field[name] = value
    }
    /^ *}/ { if (field["number"] == number) { print field[key]; exit } delete field }'
}

# The number of the newest ticket.
newest_ticket() {
  clupctl tickets --json | sed -n 's/^ *"number" : "\(.*\)",*$/\1/p' | tail -n 1
}

# Waits until ticket NUMBER has left the printing state (a minute at most); prints its
# final state.
wait_for_print() {
  local number=$1 state
  for _ in $(seq 1 600); do
    state=$(ticket_field "$number" state)
    if [ -n "$state" ] && [ "$state" != printing ]; then echo "$state"; return 0; fi
    sleep 0.1  # not a wait: the pause between this helper's polls
  done
  echo "timeout"
  return 1
}

# Waits until the kiosk shows screen NAME (clupctl status), up to a minute.
wait_for_screen() {
  local name=$1
  for _ in $(seq 1 600); do
    clupctl status | grep -q "^screen  *$name\$" && return 0
    sleep 0.1  # not a wait: the pause between this helper's polls
  done
  echo "the screen never became $name: $(clupctl status | sed -n 's/^screen *//p')" >&2
  return 1
}

# The file the capture backend wrote for ticket NUMBER's print job (the job title starts
# with the number).
printed_job_file() {
  local number=$1 title
  for title in "$WORK"/cups/jobs/job-*.title; do
    [ -e "$title" ] || continue
    case "$(cat "$title")" in "$number"-*) echo "${title%.title}.prn"; return 0 ;; esac
  done
  return 1
}

# Renders the printed PDF of ticket NUMBER to PNG at the printer's 203 dpi, decodes its QR
# code with zbarimg and prints the text. Leaves NUMBER.pdf and NUMBER.png in $WORK.
printed_qr_text() {
  local number=$1 job
  job=$(printed_job_file "$number") || { echo "no print job for $number" >&2; return 1; }
  cp "$job" "$WORK/$number.pdf"
  pdftoppm -r 203 -gray -singlefile -png "$WORK/$number.pdf" "$WORK/$number"
  zbarimg --quiet --raw "$WORK/$number.png" 2>/dev/null
}
