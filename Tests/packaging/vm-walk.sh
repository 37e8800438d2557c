#!/usr/bin/env bash
# The packages on a real Debian 12 with systemd as PID 1: run inside the VM of
# scripts/systemd-vm by scripts/test-packages, as root, never on a development machine.
#
# The hub and the totem are installed at the OLDER release, used for a day's start
# (a ticket printed through the VM's cupsd and read back, a passage, a ledger correction,
# a sync), then upgraded to the NEW packages: the hub migrates, the totem's database is
# copied with SQLite's backup API before the new clupd migrates it, and every ticket,
# correction and event written before is checked after. Then, on the new version: reload
# with a good and a bad configuration, journald priorities, `clupctl logs` from the
# journal, the watchdog, the syscall filter (any denial kills clupd for the whole walk),
# `systemd-analyze security`, remove and install again (clupd starts again), purge.
#
# Reads $CLUP_SHARE/out/vm/walk.env (written by scripts/test-packages): OLD_DIR, NEW_DIR
# (folders of .deb files, relative to the share), OLD_VERSION, NEW_VERSION.
set -euo pipefail
SHARE=${CLUP_SHARE:?the checkout as the guest sees it}
# shellcheck source=/dev/null # written by scripts/test-packages at run time
source "$SHARE/out/vm/walk.env"
OLD=$SHARE/$OLD_DIR NEW=$SHARE/$NEW_DIR
source "$SHARE/Tests/packaging/vm-lib.sh"
# The technician the walk adds once the new version needs one.
KIOSK_SECRET=correct-horse-2026

vm_machine

step "Every syscall clupd makes is one its filter allows: for this walk a denied one kills it"
mkdir -p /etc/systemd/system/clupd.service.d
cat > /etc/systemd/system/clupd.service.d/50-walk.conf <<'EOF'
[Service]
SystemCallErrorNumber=kill
EOF
systemctl daemon-reload
report "drop-in: SystemCallErrorNumber=$(systemctl show -p SystemCallErrorNumber --value clupd)"

step "The hub at $OLD_VERSION: PostgreSQL, install, init, a store"
vm_hub "$OLD"
assert_eq "$(dpkg-query -W -f '${Version}' clup-hub)" "$OLD_VERSION"
report "hub migrations before the upgrade: $(hub_sql 'SELECT max(version) FROM schema_migration')"

step "The totem at $OLD_VERSION: install, enrol, start"
vm_totem_config
apt-get install -y "$OLD"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-totem $OLD_VERSION"; }
# Enabled, not started: a totem is enrolled before clupd first runs.
assert_eq "$(systemctl is-enabled clupd) $(systemctl is-active clupd || true)" "enabled inactive" "clupd after the first install"
# As clupd's user: $OLD_VERSION's enrol leaves what it writes to whoever runs it.
vm_enrol --as-clup
systemctl start clupd
is_active clupd || fail "systemctl start returned with clupd $(systemctl is-active clupd)"
within 60 answers
assert_eq "$(systemctl show -p Type,NotifyAccess --value clupd | tr '\n' ' ')" "notify main " "the unit"
report "clupd $OLD_VERSION active (READY=1) as $(ps -o user= -p "$(main_pid)"), status: $(systemctl show -p StatusText --value clupd)"

step "A day starts at $OLD_VERSION: a ticket printed and read back, a passage, a correction, a sync"
first=$(take_ticket)
assert_eq "$(ticket_state "$first")" called "ticket $first after printing"
qr=$(printed_qr "$first")
[ -n "$qr" ] || fail "no QR code read on the printed ticket $first"
assert_contains "$(clupctl sim scan "$qr")" "admitted $first: the turnstile is released" "the printed ticket at the door"
clupctl sim pass in >/dev/null
clupctl ledger correct --delta 1 --reason "one came in with the delivery" >/dev/null
clupctl sync now >/dev/null
within 120 synced
tickets_before=$(digest "SELECT number, state FROM ticket ORDER BY number")
ledger_before=$(digest "SELECT * FROM ledger ORDER BY rowid")
events_before=$(totem_last_seq)
log_before=$(digest "SELECT seq, type, payload FROM event ORDER BY seq")
corrections_before=$(clupctl ledger | grep -c "correction .*one came in with the delivery")
report "before the upgrade: ticket $first $(ticket_state "$first"), QR read back (${#qr} characters), $corrections_before correction, $events_before events, all at the hub"

step "The hub upgraded to $NEW_VERSION: clup-hub migrate runs, the hub comes back"
apt-get install -y "$NEW"/clup-hub_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-hub $NEW_VERSION"; }
sed -n 's/^/      /; /migrat/p' /tmp/apt.log
assert_eq "$(dpkg-query -W -f '${Version}' clup-hub)" "$NEW_VERSION"
within 60 curl -sf -o /dev/null --cacert /var/lib/clup-hub/ca.pem "https://127.0.0.1:$HUB_PORT/v1/health"
report "hub migrations after the upgrade: $(hub_sql 'SELECT max(version) FROM schema_migration')"
# The customers' website, new in this version: the store's page, with its QR-drawing
# library (libqrencode, now a dependency of the hub too) loaded by the installed binary.
page=$(curl -sf --cacert /var/lib/clup-hub/ca.pem "https://127.0.0.1:$HUB_PORT/line/7?lang=it")
assert_contains "$page" "<h1>CLup Market</h1>" "the store's page on the website"
assert_contains "$page" "Mettiti in coda" "the page in Italian"
report "the website's page of store 7 served by the installed hub ($(printf '%s' "$page" | wc -c) bytes)"

step "The totem upgraded to $NEW_VERSION: a backup first, then the new clupd migrates"
old_pid=$(main_pid)
apt-get install -y "$NEW"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-totem $NEW_VERSION"; }
grep -i "backup\|copied\|copy" /tmp/apt.log | sed 's/^/      /' || true
assert_eq "$(dpkg-query -W -f '${Version}' clup-totem)" "$NEW_VERSION"
within 60 restarted_from "$old_pid"
# Two copies: the package's (taken while the old clupd served) and the new clupd's own, taken
# before it migrated (which a power cut in the middle of the upgrade would not skip).
mapfile -t backups < <(find /var/lib/clup/backups -maxdepth 1 -name 'clupd-*.sqlite' -printf '%T@ %p\n' | sort -n | cut -d ' ' -f 2-)
assert_eq "${#backups[@]}" 2 "copies in /var/lib/clup/backups (the package's, then clupd's before migrating): ${backups[*]}"
for backup in "${backups[@]}"; do
  assert_eq "$(sqlite3 "$backup" 'PRAGMA integrity_check')" ok "the integrity of $backup"
  assert_eq "$(sqlite3 "$backup" "SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v8:%'")" 0 "$backup is of the old schema"
done
journalctl -u clupd -o cat | grep "the database was copied before this version migrated it" >/dev/null \
  || fail "clupd did not log its copy before migrating: $(journalctl -u clupd -o cat | tail -n 20)"
backup=${backups[0]}
assert_eq "$(totem_sql "SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v8:%'")" 1 "the new clupd migrated"
assert_eq "$(sqlite3 "$backup" 'SELECT COALESCE(MAX(seq), 0) FROM event')" "$events_before" "the backup holds every event"
report "backup $(basename "$backup"), $(stat -c '%s bytes, %U:%G %a' "$backup"); schema $(sqlite3 "$backup" 'SELECT count(*) FROM grdb_migrations') -> $(totem_sql 'SELECT count(*) FROM grdb_migrations') migrations"

step "Everything written before the upgrade is there after it"
printf "%s\n" "$KIOSK_SECRET" | clupctl technician add tess >/dev/null
printf '%s\n' "$KIOSK_SECRET" | clupctl login tess >/dev/null
assert_eq "$(digest "SELECT number, state FROM ticket ORDER BY number")" "$tickets_before" "tickets"
assert_eq "$(digest "SELECT * FROM ledger ORDER BY rowid")" "$ledger_before" "the ledger"
assert_eq "$(totem_sql "SELECT seq, type, payload FROM event WHERE seq <= $events_before ORDER BY seq" | sha256sum | cut -c1-16)" "$log_before" "the event log"
assert_eq "$(ticket_state "$first")" entered "ticket $first"
# The ticket printed before the upgrade, scanned on the way out, is still this totem's.
assert_contains "$(clupctl sim scan "$qr")" "goodbye: $first leaves" "the ticket printed before the upgrade, on the way out"
clupctl sim pass out >/dev/null
assert_eq "$(clupctl ledger | grep -c "correction .*one came in with the delivery")" 1 "the correction"
second=$(take_ticket)
clupctl sync now >/dev/null
within 120 synced
report "after the upgrade: ticket $first entered then out, the correction kept, events 1-$events_before unchanged, now $(totem_last_seq) events, all at the hub; ticket $second printed"

step "The keys $OLD_VERSION left in clear are sealed to this machine by the upgrade, and still the same keys"
# The ticket printed before the upgrade opened the door above (the ticket key), and the
# events after it reached the hub (the device key): the keys did not change, only where
# they are.
for key in totem.key device.key; do
  [ -e "/var/lib/clup/$key" ] && fail "/var/lib/clup/$key is still in clear after the upgrade"
  assert_eq "$(stat -c '%U %a' "/var/lib/clup/$key.cred")" "root 600" "the sealed $key"
done
assert_eq "$(systemctl is-active clup-keys)" active "clup-keys.service"
journalctl -u clup-keys --no-pager -o cat | grep "overwritten and removed" | sed 's/^/      /'
assert_contains "$(journalctl -u clup-keys --no-pager -o cat)" "device.key: sealed in /var/lib/clup/device.key.cred, the file /var/lib/clup/device.key overwritten and removed"
report "both keys sealed as systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p') credentials, to the host key ($([ -e /dev/tpmrm0 ] && echo 'and the TPM2' || echo 'no TPM2 in this VM'))"

step "A technician in the group clup (a supplementary group) uses clupctl, under ProtectProc=invisible"
useradd --create-home --groups clup tessa
assert_contains "$(runuser -u tessa -- clupctl status)" "screen" "clupctl status as tessa"
useradd --create-home outsider
rc=0; out=$(runuser -u outsider -- clupctl status 2>&1) || rc=$?
assert_eq "$rc" 77 "clupctl as a user outside the group: $out"
report "tessa (groups: $(id -Gn tessa)) is let in; outsider gets exit 77"

step "systemctl reload: a good configuration is put in force, a bad one is refused and the good one stays"
sed -i 's/^idle_timeout_seconds = 30/idle_timeout_seconds = 45/' /etc/clup/clupd.toml
systemctl reload clupd
within 30 'clupctl config show | grep -q "^idle_timeout_seconds = 45"'
printf '[screen]\nidle_timeout_seconds = "soon"\n' >> /etc/clup/clupd.toml
systemctl reload clupd
within 30 'systemctl show -p StatusText --value clupd | grep -q "configuration not reloaded"'
assert_contains "$(clupctl config show)" "idle_timeout_seconds = 45" "after the bad reload"
is_active clupd || fail "clupd stopped on a bad configuration"
report "bad reload: $(systemctl show -p StatusText --value clupd | cut -c1-120)"
sed -i '$d' /etc/clup/clupd.toml; sed -i '$d' /etc/clup/clupd.toml

step "journald: each line at its priority"
since=$(date -d '-10 min' '+%Y-%m-%d %H:%M:%S')
priorities=$(journalctl -u clupd --since "$since" -o json --output-fields=PRIORITY,_PID | python3 -c "
import json, sys
seen = {}
for line in sys.stdin:
    entry = json.loads(line)
    if '_PID' in entry and entry['_PID'] != '1':
        seen[entry['PRIORITY']] = seen.get(entry['PRIORITY'], 0) + 1
print(' '.join(f'{k}:{v}' for k, v in sorted(seen.items())))")
# journald took the priority from each line's <N> prefix: the refused reload (an error) is
# among the warnings, the reload that worked (a notice) is not, and no message kept its
# prefix as text.
warnings=$(journalctl -u clupd --since "$since" -p warning --no-pager -o cat)
assert_contains "$warnings" "configuration not reloaded" "journalctl -p warning"
case $warnings in *"configuration reloaded"*) fail "a notice (configuration reloaded) is listed with -p warning" ;; esac
if journalctl -u clupd --since "$since" -o cat --no-pager | grep -q '^<[0-7]>'; then
  fail "a line kept its priority prefix as text: $(journalctl -u clupd --since "$since" -o cat | grep '^<[0-7]>' | head -n 2)"
fi
assert_contains "$priorities" "6:" "info lines"
report "clupd's lines by priority: $priorities; -p warning lists $(grep -c . <<< "$warnings"): $(head -n 1 <<< "$warnings" | cut -c1-100)"

step "clupctl logs reads the journal"
logs=$(clupctl logs --since 5m)
assert_contains "$logs" "configuration not reloaded"
assert_contains "$logs" "configuration reloaded"
report "clupctl logs --since 5m: $(printf '%s\n' "$logs" | wc -l) lines"

step "The watchdog: a stopped loop is restarted within WatchdogSec, no acknowledged ticket lost"
third=$(take_ticket)
restarts=$(n_restarts)
stopped=$(main_pid)
watchdog=$(( $(systemctl show -p WatchdogUSec --value clupd | sed 's/s$//;s/min/*60/') ))
started=$(date +%s)
kill -STOP "$stopped"
within $((watchdog + 30)) restarted_from "$stopped"
took=$(( $(date +%s) - started ))
assert_eq "$(n_restarts)" $((restarts + 1)) "restarts"
assert_contains "$(journalctl -u clupd --since "-2min" --no-pager)" "Watchdog timeout"
printf '%s\n' "$KIOSK_SECRET" | clupctl login tess >/dev/null
for number in "$first" "$second" "$third"; do
  [ -n "$(ticket_state "$number")" ] || fail "ticket $number lost after the watchdog's restart"
done
report "WatchdogSec=${watchdog}s: restarted after ${took}s; tickets $first $second $third all there"

step "The syscall filter denied nothing in the whole walk"
denials=$(journalctl -k --no-pager | grep -c 'type=1326' || true)
assert_eq "$denials" 0 "seccomp denials in the kernel log: $(journalctl -k --no-pager | grep 'type=1326' | head -n 3)"
assert_eq "$(n_restarts)" $((restarts + 1)) "restarts other than the watchdog's"
if journalctl -u clupd --no-pager | grep -qi "operation not permitted"; then
  fail "EPERM in clupd's log: $(journalctl -u clupd --no-pager | grep -i 'operation not permitted' | head -n 3)"
fi
report "SystemCallErrorNumber=kill for the walk: 0 denials, 0 unexpected restarts"

step "systemd-analyze security, on the installed units"
totem_exposure=$(systemd-analyze security clupd --no-pager | sed -n 's/.*exposure level for clupd.service: \([0-9.]*\).*/\1/p')
hub_exposure=$(systemd-analyze security clup-hub --no-pager | sed -n 's/.*exposure level for clup-hub.service: \([0-9.]*\).*/\1/p')
awk -v t="$totem_exposure" -v h="$hub_exposure" 'BEGIN { exit !(t != "" && h != "" && t <= 1.5 && h <= 1.2) }' \
  || fail "exposure clupd $totem_exposure (at most 1.5), clup-hub $hub_exposure (at most 1.2)"
report "exposure: clupd $totem_exposure, clup-hub $hub_exposure"

step "Remove keeps the data, and installing the package again starts clupd again"
rm -rf /etc/systemd/system/clupd.service.d; systemctl daemon-reload
tickets_kept=$(digest "SELECT number, state FROM ticket ORDER BY number")
apt-get remove -y clup-totem >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt remove clup-totem"; }
is_active clupd && fail "clupd still runs after remove"
[ -f /var/lib/clup/clup.sqlite ] || fail "remove deleted the database"
[ -e /var/lib/clup/clupd-ran-before-remove ] || fail "remove left no mark that clupd was running"
apt-get install -y "$NEW"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-totem again"; }
is_active clupd || fail "clupd is $(systemctl is-active clupd || true) after the package was installed again"
within 60 answers
assert_eq "$(digest "SELECT number, state FROM ticket ORDER BY number")" "$tickets_kept" "the tickets after remove and install"
[ -e /var/lib/clup/clupd-ran-before-remove ] && fail "the mark left by remove is still there after the install"
report "removed and installed again: clupd $(systemctl is-active clupd), $(systemctl show -p StatusText --value clupd | cut -c1-60)"

step "Purge removes the data, and nothing else"
apt-get remove -y clup-totem >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt remove clup-totem"; }
apt-get purge -y clup-totem >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt purge clup-totem"; }
[ -e /var/lib/clup ] && fail "purge left /var/lib/clup: $(ls -la /var/lib/clup)"
[ -f /etc/clup/clupd.toml ] || fail "purge removed the technician's /etc/clup/clupd.toml"
apt-get purge -y clup-hub >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt purge clup-hub"; }
[ -e /var/lib/clup-hub ] && fail "purge left /var/lib/clup-hub"
assert_eq "$(runuser -u postgres -- psql -Atq -c "SELECT count(*) FROM pg_database WHERE datname = 'clup-hub'")" 1 "the chain's database (never the package's to drop)"
report "after purge: no /var/lib/clup, no /var/lib/clup-hub; /etc/clup/clupd.toml and the hub's database kept"

echo
echo "walk: all passed"
