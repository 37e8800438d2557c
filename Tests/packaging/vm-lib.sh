# shellcheck shell=bash
# Shared by the walks run inside the VM of scripts/systemd-vm (vm-walk.sh, vm-update.sh):
# how they say what they do, wait, check, and drive the totem and the hub there. Sourced
# with SHARE (the checkout as the guest sees it) set; never run on a development machine.
HUB_PORT=${HUB_PORT:-8443}
JOBS=/var/spool/clup-capture
STEP=0
export DEBIAN_FRONTEND=noninteractive

step() { STEP=$((STEP + 1)); printf '\n== %d. %s\n' "$STEP" "$*"; }
report() { echo "report: $*"; }
fail() {
  echo "FAIL (step $STEP): $*"
  echo "--- systemctl status clupd clup-hub"; systemctl --no-pager status clupd clup-hub 2>&1 | tail -n 30 || true
  echo "--- journal, last 60 lines"; journalctl --no-pager -n 60 2>&1 || true
  exit 1
}
assert_eq() { [ "$1" = "$2" ] || fail "${3:-}: expected [$2], got [$1]"; }
assert_contains() { case "$1" in *"$2"*) ;; *) fail "${3:-} [$2] not in: $1" ;; esac; }
# Waits up to SECONDS until CONDITION holds: a command with its arguments, or one string of
# shell code run again at each try (for pipes, and a $(…) that must run again each time).
within() {
  local seconds=$1; shift
  for _ in $(seq 1 $((seconds * 5))); do
    if [ $# -eq 1 ]; then eval "$1" && return 0; else "$@" && return 0; fi
    sleep 0.2
  done
  fail "not within $seconds s: $*"
}

totem_sql() { sqlite3 -cmd ".timeout 5000" /var/lib/clup/clup.sqlite "$1"; }
hub_sql() { runuser -u postgres -- psql -X -Atq -d clup-hub -c "$1"; }
# The hub's administrator commands, as the user PostgreSQL knows (peer authentication).
hub() { runuser -u clup-hub -- clup-hub "$@"; }
main_pid() { systemctl show -p MainPID --value clupd; }
n_restarts() { systemctl show -p NRestarts --value clupd; }
is_active() { [ "$(systemctl is-active "$1")" = active ]; }
answers() { clupctl status >/dev/null 2>&1; }
# Whether clupd runs again, under another PID than PID, and answers.
restarted_from() { [ "$(main_pid)" != "$1" ] && [ "$(main_pid)" != 0 ] && answers; }

# The number of the newest ticket.
newest_ticket() { clupctl tickets --json | sed -n 's/^ *"number" : "\(.*\)",*$/\1/p' | tail -n 1; }
ticket_state() {
  clupctl tickets --json | python3 -c "
import json, sys
for t in json.load(sys.stdin)['tickets']:
    if t['number'] == '$1': print(t['state'])"
}
# Whether ticket NUMBER has left the printing state.
printed() { [ "$(ticket_state "$1")" != printing ]; }
# A customer takes a ticket (two taps) and it prints; prints its number.
take_ticket() {
  clupctl sim approach >/dev/null
  within 60 'clupctl status | grep -q "^screen  *welcome$"'
  clupctl sim press get-ticket >/dev/null
  local number; number=$(newest_ticket)
  within 60 printed "$number"
  echo "$number"
}
# The QR code printed on ticket NUMBER, read back from the job the VM's cupsd captured.
printed_qr() {
  local title
  for title in "$JOBS"/job-*.title; do
    case "$(cat "$title")" in "$1"-*)
      pdftoppm -r 203 -gray -singlefile -png "${title%.title}.prn" /tmp/ticket
      zbarimg --quiet --raw /tmp/ticket.png
      return ;;
    esac
  done
  fail "no print job for $1 in $JOBS"
}
totem_last_seq() { totem_sql "SELECT COALESCE(MAX(seq), 0) FROM event"; }
hub_acknowledged() {
  hub_sql "SELECT acknowledged FROM device_cursor WHERE device_id = '$(totem_sql "SELECT device_id FROM event LIMIT 1")'"
}
synced() { [ "$(hub_acknowledged)" = "$(totem_last_seq)" ]; }
# What was written before the upgrade: tickets with their states, ledger corrections,
# the event log (seq, type, payload), as one digest per table.
digest() { totem_sql "$1" | sha256sum | cut -c1-16; }

# The machine: systemd as PID 1, the devices the totem drives for real here (a framebuffer
# and a sound card), and a ticket printer queue of the system's cupsd that keeps each job.
# SYSTEM: the state the boot must reach (default running; degraded where a unit is meant
# to fail, as on a disk moved to another machine).
vm_machine() {
  local expected=${1:-running}
  step "The machine: systemd as PID 1"
  assert_eq "$(ps -p 1 -o comm=)" systemd "PID 1"
  state=$(systemctl is-system-running --wait || true)
  report "systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p'), kernel $(uname -r), system $state"
  [ "$state" = "$expected" ] || { systemctl --failed --no-pager; fail "the system is $state, not $expected"; }

  step "Devices the totem drives for real here: the framebuffer (vfb) and a sound card (snd-aloop)"
  modprobe vfb vfb_enable=1 videomemorysize=8388608
  modprobe snd-aloop
  within 20 '[ -e /dev/fb0 ] && [ -e /dev/snd/pcmC0D0p ]'
  udevadm settle
  for console in /sys/class/vtconsole/vtcon*; do grep -q "frame buffer" "$console/name" && echo 0 > "$console/bind"; done
  fbset -fb /dev/fb0 -depth 32
  report "$(stat -c '%n %G %a' /dev/fb0), $(stat -c '%n %G' /dev/snd/pcmC0D0p)"

  step "The ticket printer: a queue of the system's cupsd that keeps each job"
  install -o root -g root -m 755 "$SHARE/scripts/lib/clupcapture" /usr/lib/cups/backend/clupcapture
  install -d -o lp -g lp -m 755 "$JOBS"
  lpstat -p clup-ticket >/dev/null 2>&1 || lpadmin -p clup-ticket -E -v "clupcapture://$JOBS" -m raw -o printer-error-policy=abort-job 2>/dev/null
  assert_contains "$(lpstat -p clup-ticket)" "enabled"
}

# The hub's package from folder $1: PostgreSQL, install, init (its CA and release key),
# store 7 open round the clock.
vm_hub() {
  apt-get install -y "$1"/clup-hub_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-hub from $1"; }
  is_active postgresql || systemctl start postgresql
  runuser -u postgres -- createuser clup-hub
  runuser -u postgres -- createdb -O clup-hub clup-hub
  printf '[hub]\nhost = "127.0.0.1"\nport = %s\nnames = ["localhost", "127.0.0.1"]\n[database]\n%s\n%s\n%s\n' "$HUB_PORT" \
    'socket_directory = "/var/run/postgresql"' 'user = "clup-hub"' 'name = "clup-hub"' > /etc/clup/clup-hub.toml
  runuser -u clup-hub -- clup-hub init | sed 's/^/      /'
  systemctl enable --now clup-hub
  within 60 curl -sf -o /dev/null --cacert /var/lib/clup-hub/ca.pem "https://127.0.0.1:$HUB_PORT/v1/health"
  hub store create 7 --name "CLup Market" --capacity 20 >/dev/null
  hub store hours 7 --opens 00:00 --closes 24:00 >/dev/null
}

# The totem's configuration: the framebuffer, the sound card, the technicians' group.
vm_totem_config() {
  printf '[control]\ngroup = "clup"\n[screen]\nidle_timeout_seconds = 30\n[hardware]\ndisplay = "/dev/fb0"\nspeaker = "plughw:Loopback,0,0"\n' \
    > /etc/clup/clupd.toml
}

# Enrols the installed totem at the hub as store 7's totem A at its north door: as root,
# as README says (its keys are sealed to the machine), or with `--as-clup` as clupd's user
# (a release from before sealed keys, whose enrol left what it wrote to whoever ran it).
# Other options go to clupd enrol (--again).
vm_enrol() {
  local code run=()
  if [ "${1:-}" = --as-clup ]; then run=(runuser -u clup --); shift; fi
  code=$(hub enrolment-code --store 7 --letter A --door north)
  install -m 644 /var/lib/clup-hub/ca.pem /tmp/hub-ca.pem
  ${run[@]+"${run[@]}"} clupd enrol "$@" --hub "https://127.0.0.1:$HUB_PORT" --code "$code" --ca /tmp/hub-ca.pem --state-dir /var/lib/clup \
    | sed 's/^/      /'
}
