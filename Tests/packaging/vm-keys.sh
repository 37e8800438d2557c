#!/usr/bin/env bash
# Keys sealed to their machine, on a real Debian 12 with systemd as PID 1 and a TPM 2.0
# (swtpm behind qemu's tpm-tis): run inside the VM of scripts/systemd-vm by
# scripts/test-packages, as root, twice on the same disk, never on a development machine.
#
# First boot, with the first TPM: the hub and the totem installed, the totem enrolled by
# root with its keys sealed to this TPM and host key; a ticket printed, admitted, at the
# hub; then the whole disk searched for the keys in clear (none).
#
# Second boot, the same disk with another TPM (a stolen disk in another machine, or a
# mainboard changed): clup-keys.service refuses, naming the key, clupd does not start, and
# the hub hears nothing from the totem. A technician revokes the old device and enrols the
# totem again: it runs, prints, syncs as a new device. Then the hub's own secrets are sealed
# (`clup-hub seal`), the hub restarts from them, and the disk is searched again for every
# key, the totem's and the hub's. Last, a binary changed by hand: the update helper's daily
# integrity check (dpkg --verify) names it, the hub audits the alert; reinstalled, it clears.
#
# Reads $CLUP_SHARE/out/vm/keys.env (written by scripts/test-packages): NEW_DIR,
# NEW_VERSION. Which boot this is, the disk says (/var/lib/clup-walk/).
set -euo pipefail
SHARE=${CLUP_SHARE:?the checkout as the guest sees it}
# shellcheck source=/dev/null # written by scripts/test-packages at run time
source "$SHARE/out/vm/keys.env"
NEW=$SHARE/$NEW_DIR
source "$SHARE/Tests/packaging/vm-lib.sh"
KIOSK_SECRET=correct-horse-2026
WALK=/var/lib/clup-walk

# Searches the whole disk, free blocks included, for each secret FILE in clear (raw,
# base64, and for a PEM its body's lines and DER), and for a canary written in clear on
# purpose, which it must find: a search that finds nothing proves nothing otherwise.
# Fails on any find but the canary; the search's summary in SEARCHED.
search_disk_for() {
  local out
  head -c 32 /dev/urandom > /var/tmp/canary.key
  sync
  echo 3 > /proc/sys/vm/drop_caches
  out=$(python3 "$SHARE/Tests/packaging/tools/find-secrets.py" /dev/vda "$@" /var/tmp/canary.key) \
    && fail "the search did not find the canary written in clear: $out"
  if grep '^found' <<< "$out" | grep -v '^found canary.key '; then fail "a key in clear on the disk"; fi
  grep -q '^found canary.key (raw)' <<< "$out" || fail "the canary was not found raw: $out"
  SEARCHED="$(tail -n 1 <<< "$out"), all of them the canary written in clear for the check"
  rm -f /var/tmp/canary.key
}
device_id() { python3 -c 'import json; print(json.load(open("/var/lib/clup/enrolment.json"))["deviceID"])'; }
# clupd started by systemd (clup-keys first), a technician logged in, a ticket printed and
# admitted at the door, the log at the hub; the ticket's number in SERVED (not printed: a
# failure inside $(…) would say nothing).
start_and_serve() {
  timeout 180 systemctl start clupd || fail "systemctl start clupd"
  within 60 answers
  printf '%s\n' "$KIOSK_SECRET" | clupctl technician add tess >/dev/null
  printf '%s\n' "$KIOSK_SECRET" | clupctl login tess >/dev/null
  local number; number=$(take_ticket)
  assert_contains "$(clupctl sim scan "$(printed_qr "$number")")" "admitted $number" "the ticket signed by the sealed key"
  clupctl sync now >/dev/null
  within 120 synced
  SERVED=$number
}
contact() { hub_sql "SELECT COALESCE(last_contact::text, 'never') || ' ' || COALESCE((SELECT acknowledged FROM device_cursor WHERE device_id = '$1'), 0) FROM totem WHERE device_id = '$1'"; }

if [ ! -e "$WALK/first-boot" ]; then
  vm_machine
  tpm=$(systemd-creds has-tpm2 2>/dev/null | head -n 1 || true)
  [ -e /dev/tpmrm0 ] || fail "no TPM in this VM (/dev/tpmrm0)"
  report "TPM: /dev/tpmrm0, systemd-creds has-tpm2: $tpm"

  step "The hub at $NEW_VERSION"
  vm_hub "$NEW"

  step "The totem at $NEW_VERSION: installed, enrolled by root with its keys sealed to this machine"
  vm_totem_config
  # The "take your ticket" screen back to welcome within a second: 30 tickets follow each other.
  sed -i 's/^\[screen\]$/[screen]\nresult_seconds = 1/' /etc/clup/clupd.toml
  apt-get install -y "$NEW"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-totem $NEW_VERSION"; }
  out=$(vm_enrol)
  echo "$out"
  assert_contains "$out" "its keys are sealed to this machine (systemd credentials, host+tpm2)"
  for key in totem.key device.key; do
    [ -e "/var/lib/clup/$key" ] && fail "/var/lib/clup/$key is in clear"
    assert_eq "$(stat -c '%U %a' "/var/lib/clup/$key.cred")" "root 600" "the sealed $key"
  done
  start_and_serve
  first=$SERVED
  assert_eq "$(systemctl is-active clup-keys)" active "clup-keys.service"
  journalctl -u clup-keys --no-pager -o cat | grep '\.key' | sed 's/^/      /'
  device=$(device_id)
  report "clupd as $(ps -o user= -p "$(main_pid)") with its keys from systemd's credentials; ticket $first admitted; $device synced"

  step "clupd's resident memory after 30 tickets, on a totem's kernel (Debian 12's)"
  # The package's clupd with a real framebuffer and sound card: what the host's bench
  # measures with simulated ones, under the kernel a totem runs (whose page cache maps
  # an executable's pages 64 KB at a time around each fault).
  for _ in $(seq 2 30); do take_ticket >/dev/null; done
  pid=$(main_pid)
  memory=$(awk '
    /^[0-9a-f]+-[0-9a-f]+ / { name = $6; next }
    /^Rss:/ { if (name == "/usr/bin/clupd") own += $2; else if (name == "" || name ~ /^\[/) anon += $2
              else if (name ~ /\.so/) libs += $2; else other += $2 }
    END { printf "of it clupd'"'"'s own file %.1f MB, anonymous %.1f MB, libraries %.1f MB, other %.1f MB", own / 1024, anon / 1024, libs / 1024, other / 1024 }' \
    "/proc/$pid/smaps")
  report "clupd's resident memory after 30 tickets: $(awk '/^VmRSS/ { printf "%.1f MB", $2 / 1024 }' "/proc/$pid/status") ($memory)"

  step "The disk holds neither key in clear (all of /dev/vda, free blocks included)"
  install -d -m 700 /run/walk-keys
  for key in totem.key device.key; do systemd-creds decrypt --name="$key" "/var/lib/clup/$key.cred" "/run/walk-keys/$key"; done
  search_disk_for /run/walk-keys/totem.key /run/walk-keys/device.key
  report "$SEARCHED"

  step "Power off, for the second boot on another TPM"
  # clupd stopped first: its heartbeat would move the hub's last contact after the record.
  systemctl stop clupd
  mkdir -p "$WALK"
  printf 'DEVICE=%s\nCONTACT="%s"\nFIRST=%s\n' "$device" "$(contact "$device")" "$first" > "$WALK/first-boot"
  report "the hub's last contact with $device and its acknowledged event: $(contact "$device")"
  exit 0
fi

# shellcheck source=/dev/null # written by the first boot
source "$WALK/first-boot"
OLD_DEVICE=${DEVICE:?the first boot wrote no device} OLD_CONTACT=${CONTACT:?the first boot wrote no contact}
OLD_TICKET=${FIRST:?the first boot wrote no ticket}
vm_machine degraded

step "The same disk on another TPM: clup-keys refuses, naming the key; clupd does not start"
assert_eq "$(systemctl is-failed clup-keys)" failed "clup-keys.service"
said=$(journalctl -b -u clup-keys --no-pager -o cat)
echo "$said" | grep E-KEY | sed 's/^/      /'
assert_contains "$said" "E-KEY-006 the sealed key totem.key (/var/lib/clup/totem.key.cred) cannot be opened on this machine"
assert_contains "$said" "clupd enrol --again"
assert_eq "$(systemctl is-active clupd || true)" inactive "clupd at boot"
rc=0; timeout 180 systemctl start clupd 2>/tmp/start.err || rc=$?
[ "$rc" -ne 0 ] || fail "systemctl start clupd succeeded on another TPM"
assert_contains "$(cat /tmp/start.err)" "dependency" "systemctl start clupd"
answers && fail "clupd answers on another TPM"
# The hub heard nothing from the totem since the first boot.
is_active clup-hub || systemctl start clup-hub
within 60 curl -sf -o /dev/null --cacert /var/lib/clup-hub/ca.pem "https://127.0.0.1:$HUB_PORT/v1/health"
assert_eq "$(contact "$OLD_DEVICE")" "$OLD_CONTACT" "the hub's last contact with $OLD_DEVICE"
report "systemctl start clupd: $(head -n 1 /tmp/start.err); the hub's last contact with $OLD_DEVICE unchanged ($OLD_CONTACT)"

step "A technician revokes the old device and enrols the totem again: it runs as a new device"
# The first boot's printed jobs put aside (the new device numbers from A-001 again); its
# ticket's code kept, to show it void at the door from now on.
old_qr=$(printed_qr "$OLD_TICKET")
mkdir -p /var/spool/clup-capture-first
mv "$JOBS"/job-* /var/spool/clup-capture-first/
hub revoke "$OLD_DEVICE" | sed 's/^/      /'
started=$(date +%s.%N)
out=$(vm_enrol --again)
echo "$out"
assert_contains "$out" "its keys are sealed to this machine (systemd credentials, host+tpm2)"
aside=$(ls -d /var/lib/clup/replaced-*)
for file in enrolment.json totem.key.cred device.key.cred clup.sqlite; do
  [ -e "$aside/$file" ] || fail "$file not set aside in $aside"
done
start_and_serve
second=$SERVED
recovered=$(date +%s.%N)
rc=0; out=$(clupctl sim scan "$old_qr" 2>&1) || rc=$?
assert_contains "$out" "E-DOOR-002" "ticket $OLD_TICKET, signed by the key of the old device, at the door"
device=$(device_id)
[ "$device" != "$OLD_DEVICE" ] || fail "the totem enrolled again under its old device id"
assert_contains "$(hub totems --store 7)" "revoked"
report "enrolled again as $device: ticket $OLD_TICKET of the old device refused (E-DOOR-002), ticket $second admitted and at the hub $(awk -v a="$started" -v b="$recovered" 'BEGIN { printf "%.1f", b - a }') s after clupd enrol --again; the old state kept in $aside"

step "The hub's secrets sealed to this machine: clup-hub seal, and the hub restarts from them"
clup-hub seal --config /etc/clup/clup-hub.toml > /tmp/seal.out || fail "clup-hub seal: $(cat /tmp/seal.out)"
sed 's/^/      /' /tmp/seal.out
out=$(cat /tmp/seal.out)
assert_contains "$out" "seal: clup-hub.server-key: sealed in /etc/credstore.encrypted/clup-hub.server-key, the file /var/lib/clup-hub/server.key overwritten and removed"
for file in server.key ca.key push-key.pem; do [ -e "/var/lib/clup-hub/$file" ] && fail "/var/lib/clup-hub/$file is in clear"; done
timeout 180 systemctl restart clup-hub || fail "systemctl restart clup-hub with its sealed secrets"
within 60 curl -sf -o /dev/null --cacert /var/lib/clup-hub/ca.pem "https://127.0.0.1:$HUB_PORT/v1/health"
clupctl sim pass in >/dev/null
clupctl sync now >/dev/null
within 120 synced
report "the hub serves TLS with its key from systemd's credentials; the totem syncs ($(totem_last_seq) events)"

step "The disk holds no key in clear: the totem's new keys, and the hub's TLS, CA and Web Push keys"
install -d -m 700 /run/walk-keys
for key in totem.key device.key; do systemd-creds decrypt --name="$key" "/var/lib/clup/$key.cred" "/run/walk-keys/$key"; done
for secret in server-key ca-key push-key; do
  systemd-creds decrypt --name="clup-hub.$secret" "/etc/credstore.encrypted/clup-hub.$secret" "/run/walk-keys/clup-hub.$secret"
done
search_disk_for /run/walk-keys/*
report "$SEARCHED"

step "A binary changed outside an update: the daily integrity check raises an alert at the hub"
# The update helper's check, due now (the time of the last one forgotten): its line in SAID
# (waited for in the journal, which may lag behind the unit's end).
helper_said() { SAID=$(journalctl -u clup-update --since "$1" --no-pager -o cat | grep '^update: integrity check: ' | tail -n 1 || true); [ -n "$SAID" ]; }
helper_checks() {
  local since; since=$(date '+%F %T')
  rm -f /var/lib/clup-update/integrity-checked
  timeout 600 systemctl start clup-update.service || fail "the update helper: $(journalctl -u clup-update --since "$since" --no-pager -o cat | tail -n 3)"
  within 30 helper_said "$since"
}
integrity_audits() { hub_sql "SELECT count(*) FROM audit WHERE action = 'integrity check' AND source = 'report of totem $1'"; }
alert_reached() { clupctl sync now >/dev/null; [ "$(integrity_audits "$1")" = 1 ]; }
# The timer's own runs stopped meanwhile: a run already under way would answer for ours.
systemctl stop clup-update.timer clup-update.service
helper_checks
# The configuration the walk wrote into /etc/clup/clupd.toml is a conffile: not counted.
assert_contains "$SAID" "update: integrity check: ok: " "the helper's check of the package as installed"
assert_contains "$SAID" "files of clup-totem $NEW_VERSION as installed"
report "$SAID"
# clupctl replaced by hand: a program of its own (a copy of clupd, so that clupctl still
# works) in place of the package's link, which dpkg keeps no sum of.
cp --remove-destination /usr/bin/clupd /usr/bin/clupctl
changed_at=$(date +%s.%N)
helper_checks
assert_eq "$SAID" "update: integrity check: 1 file of clup-totem $NEW_VERSION changed outside an update: /usr/bin/clupctl changed"
assert_contains "$(clupctl status)" "changed outside an update: /usr/bin/clupctl changed" "clupctl status"
device=$(device_id)
within 120 alert_reached "$device"
alerted=$(date +%s.%N)
assert_eq "$(hub_sql "SELECT store_id || ' ' || result FROM audit WHERE action = 'integrity check'")" \
  "7 1 file of clup-totem $NEW_VERSION changed outside an update: /usr/bin/clupctl changed" "the hub's audit"
assert_contains "$(hub totems --store 7)" "ALERT integrity check 1 file of clup-totem $NEW_VERSION changed outside an update"
journalctl -u clup-hub --no-pager -o cat | grep -q "integrity check found its files changed" || fail "the hub did not log the alert"
report "changed /usr/bin/clupctl: the helper's check said so and the hub's audit held it $(awk -v a="$changed_at" -v b="$alerted" 'BEGIN { printf "%.1f", b - a }') s later: $(hub audit --store 7 | grep 'integrity check')"
# The package installed again, the files are as installed and the alert no longer holds.
apt-get install --reinstall -y "$NEW"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install --reinstall clup-totem"; }
within 120 answers
helper_checks
assert_contains "$SAID" "update: integrity check: ok: " "the check after the package was installed again"
case $(clupctl status) in *"changed outside an update"*) fail "clupctl status still shows the change" ;; esac
report "reinstalled: $SAID"
systemctl start clup-update.timer

step "The audit names who called clupd's socket, from under its unit"
# clupd's unit hides other users' /proc and maps their uids to nobody: the kernel's pid and
# uid, then what clupctl says of itself.
trail=$(clupctl audit --who tess | grep ' login  ' | tail -n 1)
grep -Eq 'login            ok  from pid [0-9]+, uid 0 \(root\); says clupctl' <<<"$trail" || fail "the technician's login does not say where it came from: $trail"
report "$trail"
