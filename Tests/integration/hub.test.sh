#!/usr/bin/env bash
# The chain's hub with real processes: a private PostgreSQL, clup-hub over HTTPS, totems
# (clupd --simulate) enrolled with one-time codes, and faults: processes killed mid-batch,
# PostgreSQL crashed mid-ingest, forged, replayed and revoked requests.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"
source "$ROOT/scripts/lib/kiosk.sh"
source "$ROOT/scripts/lib/hub.sh"

BUTTON_X=360 BUTTON_Y=640

# Stops the kiosk (as the harness does), a second totem, the hubs and PostgreSQL.
stop_everything() {
  if [ -n "${A_WORK:-}" ]; then WORK=$A_WORK CLUPD_PID=$A_PID; fi
  kiosk_stop
  if [ -n "${NS_PID:-}" ]; then kill "$NS_PID" 2>/dev/null || true; wait "$NS_PID" 2>/dev/null || true; fi
  if [ -n "${VETH:-}" ]; then ip link del "$VETH" 2>/dev/null || true; fi
  if [ -n "${SECOND_PID:-}" ]; then kill -TERM "$SECOND_PID" 2>/dev/null || true; wait "$SECOND_PID" 2>/dev/null || true; fi
  for pid in ${PROXY_PIDS[@]+"${PROXY_PIDS[@]}"}; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  hub_stop_all
}

# A private PostgreSQL, the hub's CA and schema, hub "hub" serving on HUB_PORT, store 7.
hub_up() {
  trap stop_everything EXIT
  hub_start
  clup_hub store create 7 --name "CLup Market" --capacity 30 >/dev/null
  # Open round the clock, so the totems take tickets whatever the hour the test runs.
  clup_hub store hours 7 --opens 00:00 --closes 24:00 >/dev/null
}

# Enrols the totem whose state is $WORK/state as LETTER at DOOR of store 7.
enrol() {
  local letter=$1 door=$2 code
  code=$(clup_hub enrolment-code --store 7 --letter "$letter" --door "$door")
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state"
}

# A field of `clupctl sync --json`.
sync_field() {
  clupctl sync --json | python3 -c "import json, sys; v = json.load(sys.stdin).get('$1'); print('' if v is None else v)"
}

# This totem's last event and device id, and how far the hub holds its log without a gap
# (its answer to every batch), read from the two databases, so that asking never moves
# what is asked (a command that changes something, `sync now` among them, is audited).
totem_sql() { sqlite3 -cmd ".timeout 5000" "$WORK/state/clup.sqlite" "$1"; }
totem_last_seq() { totem_sql "SELECT COALESCE(MAX(seq), 0) FROM event"; }
totem_device() { totem_sql "SELECT device_id FROM event LIMIT 1"; }
hub_acknowledged() { hub_psql -c "SELECT acknowledged FROM device_cursor WHERE device_id = '$(totem_device)'"; }
# The hub settings version the totem last put in force.
totem_settings_version() {
  totem_sql "SELECT json_extract(payload, '$.storeSettingsApplied._0.version') FROM event
             WHERE type = 'store.settings-applied' ORDER BY seq DESC LIMIT 1"
}

# Whether the hub holds every event the totem recorded.
synced() {
  local last ack
  last=$(totem_last_seq); ack=$(hub_acknowledged)
  [ -n "$ack" ] && [ "$ack" = "$last" ] && [ "$last" -gt 0 ]
}
# Waits until it does (up to TIMEOUT s, default 60); says how far each side got if not.
wait_synced() {
  (wait_until "${1:-60}" synced) && return 0
  local ack; ack=$(hub_acknowledged) || true
  echo "not synced: the totem is at $(totem_last_seq), the hub at ${ack:-nothing}; $(clupctl sync)" >&2
  return 1
}

# wait_synced within $1 seconds, asking for a sync every 5 s meanwhile (as a technician
# would): with half the requests failing, the totem's back-off (up to a minute after a few
# failures in a row) could outlast any fixed wait without anything being wrong.
wait_synced_asking() {
  local seconds=$1
  for _ in $(seq 1 $((seconds / 5))); do
    wait_synced 5 2>/dev/null && return 0
    clupctl sync now >/dev/null
  done
  wait_synced 1
}

# Fails unless $1 is a Unix timestamp of the last two minutes (what $2 says happened).
assert_recent() {
  awk -v t="$1" -v now="$(date +%s)" 'BEGIN { exit !(t != "" && t > now - 120 && t < now + 5) }' \
    || fail "$2: [$1] is not a timestamp of the last two minutes"
}

# Takes a ticket at the totem (open, or full: a ticket still joins the queue) and waits for it to print.
take_ticket() {
  clupctl sim approach >/dev/null
  wait_for_screen '\(welcome\|store-full\)'
  clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
  wait_for_print "$1" >/dev/null
}

test_a_totem_enrols_and_every_event_reaches_the_hub_exactly_once() {
  hub_up
  out=$(enrol A north)
  assert_contains "$out" "store 7, totem A, door north"
  kiosk_start
  assert_contains "$(clupctl status)" "store-7-totem-A-"
  take_ticket A-001
  clupctl sim pass in >/dev/null
  clupctl sim pass in >/dev/null
  clupctl sim pass out >/dev/null
  clupctl ledger correct --delta -1 --reason "counted at the door" >/dev/null
  wait_synced
  out=$(clupctl sync)
  assert_contains "$out" "state        online ($HUB_URL)"
  assert_contains "$out" "0 events waiting"
  assert_contains "$out" "clock skew"
  wait_synced
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$WORK/state/clup.sqlite") || fail "$figures"
  report_lines "$figures"
  # The door's ledger arrived as the totem keeps it: 2 in, 1 out, corrected by -1.
  assert_eq "$(hub_psql -c "SELECT door, entries, exits, corrections FROM occupancy WHERE store_id = '7'")" "north|2|1|-1"
  assert_contains "$(clup_hub totems --store 7)" "totem A door north  enrolled"
  # Metrics: the totem's from clupctl, the hub's with its bearer token (and not without).
  metrics=$(clupctl metrics)
  assert_contains "$metrics" 'clup_totem_sync_state{state="online"} 1'
  assert_contains "$metrics" 'clup_totem_events_total{type="occupancy.passage"} 3'
  assert_contains "$metrics" 'clup_totem_outbox_depth 0'
  assert_promtool_clean "$metrics" "clupd's metrics"
  assert_recent "$(echo "$metrics" | sed -n 's/^clup_totem_sync_last_success_timestamp_seconds //p')" "the totem's last sync"
  device=$(totem_device)
  wait_synced
  metrics=$(curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics") \
    || fail "the hub's /metrics did not answer with the token"
  assert_contains "$metrics" "clup_hub_totem_outbox_depth{device=\"$device\",store=\"7\"} 0"
  assert_contains "$metrics" 'clup_hub_store_inside{store="7"} 0'
  assert_contains "$metrics" 'clup_hub_batches_total{result="stored"}'
  assert_promtool_clean "$metrics" "the hub's metrics"
  assert_recent "$(echo "$metrics" | sed -n "s/^clup_hub_totem_last_contact_timestamp_seconds{device=\"$device\",store=\"7\"} //p")" \
    "the hub's last contact with the totem"
  events=$(echo "$metrics" | sed -n 's/^clup_hub_events_received_total \([0-9]*\)$/\1/p')
  assert_eq "$events" "$(totem_last_seq)" "events the hub counts as received"
  status=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer wrong-token-0123456789" "$HUB_URL/metrics")
  assert_eq "$status" 401 "/metrics with a wrong token"
}

# As the package has it: /var/lib/clup is clupd's user's, root enrols, and clupd (that
# user) must then read the keys and the enrolment root wrote.
test_what_root_enrols_belongs_to_the_state_folders_owner() {
  hub_up
  mkdir -p "$WORK/state"
  chown nobody:nogroup "$WORK/state"
  enrol A north >/dev/null
  for file in enrolment.json hub-ca.pem device.key totem.key; do
    assert_eq "$(stat -c '%U:%G %a' "$WORK/state/$file")" "nobody:nogroup 600" "$file"
  done
}

# What systemd does for clupd's unit (LoadCredentialEncrypted=): the sealed keys opened
# into a folder only clupd reads; clupd then runs with CREDENTIALS_DIRECTORY pointing there.
open_credentials() {
  rm -rf "$WORK/credentials"; install -d -m 700 "$WORK/credentials"
  for key in totem.key device.key; do
    systemd-creds decrypt --name="$key" "$WORK/state/$key.cred" "$WORK/credentials/$key" || return 1
  done
}

# The installed totem's keys are sealed to its machine (systemd credentials; here the
# "machine" is the host secret SYSTEMD_CREDENTIAL_SECRET names, as a TPM would be in the
# VM walk): no key in clear in the state folder, clupd signs with what systemd opens, a
# copy on another machine is refused naming the key, and re-enrolment recovers it.
test_sealed_keys_work_and_a_copy_elsewhere_is_refused_until_the_totem_is_enrolled_again() {
  hub_up
  export SYSTEMD_CREDENTIAL_SECRET=$WORK/first-machine.secret
  code=$(clup_hub enrolment-code --store 7 --letter A --door north)
  out=$("$BIN/clupd" enrol --keys sealed --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state")
  assert_contains "$out" "sealed to this machine"
  [ -e "$WORK/state/totem.key" ] || [ -e "$WORK/state/device.key" ] && fail "a key in clear in the state folder: $(ls "$WORK/state")"
  assert_eq "$(stat -c %a "$WORK/state/device.key.cred")" 600 "the sealed device key's mode"
  assert_contains "$("$BIN/clupd" keys check --state-dir "$WORK/state")" "device.key: sealed, opens on this machine"
  # Started by hand on the state folder, without systemd's credentials, clupd refuses:
  # a new plain key beside the sealed one would void it.
  kiosk_write_config; kiosk_start_cups
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/control.sock" --config "$WORK/clupd.toml" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "clupd started without its sealed keys"
  assert_contains "$out" "E-KEY-007 device.key is sealed in $WORK/state/device.key.cred but systemd did not open it"
  open_credentials
  KIOSK_WRAP="env CREDENTIALS_DIRECTORY=$WORK/credentials" kiosk_start_daemon
  take_ticket A-001
  wait_synced
  first_device=$(totem_device)
  # The ticket is signed with the sealed ticket key: the door admits it.
  clupctl sim scan "$(printed_qr_text A-001)" >/dev/null || fail "the ticket signed by the sealed key is refused"
  kiosk_stop

  # The same disk on another machine: the keys do not open, named in the error.
  export SYSTEMD_CREDENTIAL_SECRET=$WORK/second-machine.secret
  "$BIN/clupd" keys seal --state-dir "$WORK/elsewhere" >/dev/null  # makes the second machine's secret
  rc=0; out=$("$BIN/clupd" keys check --state-dir "$WORK/state" 2>&1) || rc=$?
  assert_eq "$rc" 1 "clupd keys check on another machine"
  assert_contains "$out" "E-KEY-006 the sealed key totem.key ($WORK/state/totem.key.cred) cannot be opened on this machine"
  assert_contains "$out" "clupd enrol --again"
  open_credentials 2>/dev/null && fail "systemd-creds opened the first machine's keys on the second"

  # A technician enrols it again: the old device is revoked at the hub (its keys are
  # lost with the other machine), the old enrolment, keys and database are set aside, and
  # the totem becomes a new device whose events reach the hub.
  clup_hub revoke "$first_device" >/dev/null
  code=$(clup_hub enrolment-code --store 7 --letter A --door north)
  rc=0; out=$("$BIN/clupd" enrol --keys sealed --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" 2>&1) || rc=$?
  assert_eq "$rc" 1 "enrol without --again on an enrolled totem"
  assert_contains "$out" "clupd enrol --again"
  out=$("$BIN/clupd" enrol --again --keys sealed --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state")
  assert_contains "$out" "store 7, totem A, door north"
  aside=$(ls -d "$WORK"/state/replaced-*)
  for file in enrolment.json totem.key.cred device.key.cred clup.sqlite; do
    [ -e "$aside/$file" ] || fail "$file was not set aside in $aside: $(ls "$aside")"
  done
  assert_contains "$("$BIN/clupd" keys check --state-dir "$WORK/state")" "totem.key: sealed, opens on this machine"
  open_credentials
  KIOSK_WRAP="env CREDENTIALS_DIRECTORY=$WORK/credentials" kiosk_start_daemon
  take_ticket A-001
  wait_synced
  [ "$(totem_device)" != "$first_device" ] || fail "the totem enrolled again under its old device id"
  unset SYSTEMD_CREDENTIAL_SECRET
}

# The hub's secrets sealed to its machine (clup-hub seal, as root): the TLS key, the CA's
# key, the Web Push key, the database password and the webhook secret leave the disk in
# clear, and the hub reads them from the credentials systemd opens for its unit (here, as
# its unit would have them: opened into a folder named by CREDENTIALS_DIRECTORY).
test_the_hubs_secrets_sealed_are_read_from_systemds_credentials_and_none_is_left_in_clear() {
  hub_up
  gateway_up
  echo "not-used-on-the-socket" > "$WORK/db.password"
  sed -i "s|^\[database\]$|[database]\npassword_file = \"$WORK/db.password\"|" "$WORK/hub.toml"
  export SYSTEMD_CREDENTIAL_SECRET=$WORK/hub-machine.secret
  grep -rlq "PRIVATE KEY" "$WORK/hub" || fail "the hub's state holds no private key to seal"
  out=$("$BIN/clup-hub" seal --config "$WORK/hub.toml" --credential-store "$WORK/credstore")
  for secret in server-key ca-key push-key db-password webhook-secret; do
    assert_contains "$out" "seal: clup-hub.$secret: sealed in $WORK/credstore/clup-hub.$secret, the file"
  done
  for file in "$WORK/hub/server.key" "$WORK/hub/ca.key" "$WORK/hub/push-key.pem" "$WORK/db.password" "$WORK/webhook.key"; do
    [ -e "$file" ] && fail "$file is still there after clup-hub seal"
  done
  if grep -rl "PRIVATE KEY" "$WORK/hub" "$WORK/credstore"; then fail "a private key in clear after clup-hub seal"; fi
  # Without its credentials the hub cannot start; with them (systemd's part) it serves.
  hub_kill hub
  rc=0; out=$(timeout 60 "$BIN/clup-hub" serve --config "$WORK/hub.toml" 2>&1) || rc=$?
  if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then fail "the hub served without its secrets (exit $rc): $out"; fi
  assert_contains "$out" "$WORK/webhook.key cannot be read"
  install -d -m 700 "$WORK/hub-credentials"
  for secret in server-key push-key db-password webhook-secret; do
    systemd-creds decrypt --name="clup-hub.$secret" "$WORK/credstore/clup-hub.$secret" "$WORK/hub-credentials/clup-hub.$secret"
  done
  HUB_WRAP="env CREDENTIALS_DIRECTORY=$WORK/hub-credentials" hub_serve hub "$HUB_PORT"
  # An administrator's command reads the sealed password as the unit does (README:
  # systemd-run -p LoadCredentialEncrypted=clup-hub.db-password …); a totem enrols over TLS.
  rc=0; out=$(clup_hub enrolment-code --store 7 --letter A --door north 2>&1) || rc=$?
  assert_contains "$out" "cannot read the password file $WORK/db.password"
  code=$(CREDENTIALS_DIRECTORY=$WORK/hub-credentials clup_hub enrolment-code --store 7 --letter A --door north)
  out=$("$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state")
  assert_contains "$out" "store 7, totem A, door north"
  # Sealing again finds nothing in clear and opens what is sealed.
  out=$("$BIN/clup-hub" seal --config "$WORK/hub.toml" --credential-store "$WORK/credstore")
  assert_contains "$out" "seal: clup-hub.server-key: sealed in $WORK/credstore/clup-hub.server-key, opens on this machine"
  unset SYSTEMD_CREDENTIAL_SECRET
}

# A dpkg database of its own under $1, holding clup-totem 0.12.0 as installed there: the
# totem's two binaries and its configuration file (a conffile), with their MD5 sums.
make_installed_root() {
  local root=$1
  mkdir -p "$root/usr/bin" "$root/etc/clup" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
  cp "$BIN/clupd" "$root/usr/bin/"
  # As the package installs it: clupctl a link to clupd, which dpkg keeps no sum of.
  ln -s clupd "$root/usr/bin/clupctl"
  cp "$WORK/clupd.toml" "$root/etc/clup/clupd.toml"
  (cd "$root" && md5sum usr/bin/clupd) >"$root/var/lib/dpkg/info/clup-totem.md5sums"
  printf '/usr\n/usr/bin\n/usr/bin/clupd\n/usr/bin/clupctl\n/etc/clup\n/etc/clup/clupd.toml\n' >"$root/var/lib/dpkg/info/clup-totem.list"
  cat >"$root/var/lib/dpkg/status" <<STATUS
Package: clup-totem
Status: install ok installed
Architecture: amd64
Version: 0.12.0
Maintainer: CLup <clup@example.org>
Description: the totem
Conffiles:
 /etc/clup/clupd.toml $(md5sum <"$root/etc/clup/clupd.toml" | cut -c1-32)

STATUS
}

# A sync asked for, whose attempt reached the hub; then every event is there.
sync_now_online() {
  local out
  out=$(clupctl sync now)
  case $out in *"state        online"*) ;; *) fail "sync now: $out" ;; esac
  wait_synced
}

# The hub's audit records of integrity checks; its metric of this totem's changed files.
integrity_audits() { hub_psql -c "SELECT count(*) FROM audit WHERE action = 'integrity check'"; }
hub_files_changed() {
  curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics" \
    | sed -n "s/^clup_hub_totem_files_changed{device=\"$(totem_device)\",store=\"7\"} //p"
}

test_a_binary_changed_outside_an_update_raises_an_alert_at_the_hub() {
  hub_up
  enrol A north >/dev/null
  kiosk_start
  make_installed_root "$WORK/root"
  verify() { "$BIN/clupd" verify --root "$WORK/root" --state-dir "$WORK/state" --work-dir "$WORK/update"; }
  mkdir -p "$WORK/update"
  # A technician's edit of the configuration is not a change of the software.
  echo "# edited on site" >>"$WORK/root/etc/clup/clupd.toml"
  assert_eq "$(verify)" "verify: ok: 3 files of clup-totem 0.12.0 as installed"
  # A sync asked for carries the totem's health as it is at the ask, with the check's report:
  # once it has answered, the hub has the clean report (its metric says 0 files changed),
  # and no alert was raised.
  sync_now_online
  # shellcheck disable=SC2016 # run again at each try
  (wait_until 10 '[ "$(hub_files_changed)" = 0 ]') || fail "the hub's metric of changed files: [$(hub_files_changed)], not 0"
  assert_eq "$(integrity_audits)" 0 "a clean check raises nothing"
  # clupctl replaced by hand: a program of its own in the link's place.
  cp --remove-destination "$BIN/clupctl" "$WORK/root/usr/bin/clupctl"
  rc=0; out=$(verify) || rc=$?
  assert_eq "$rc" 1 "clupd verify with a file changed"
  assert_eq "$out" "verify: 1 file of clup-totem 0.12.0 changed outside an update: /usr/bin/clupctl changed"
  # The totem says so: status, metrics, its log.
  assert_contains "$(clupctl status)" "1 file of clup-totem 0.12.0 changed outside an update: /usr/bin/clupctl changed"
  assert_contains "$(clupctl metrics)" "clup_totem_files_changed 1"
  # The hub raises it once, however many uploads carry the same report.
  sync_now_online
  # shellcheck disable=SC2016 # run again at each try
  (wait_until 10 '[ "$(integrity_audits)" = 1 ]') || fail "audit records once a sync asked for carried the report: $(integrity_audits)"
  for _ in 1 2 3; do clupctl sync now >/dev/null; wait_synced; done
  assert_eq "$(integrity_audits)" 1 "audit records of the same report sent with four batches"
  assert_eq "$(hub_psql -c "SELECT who, source, store_id, result FROM audit WHERE action = 'integrity check'")" \
    "clup-hub|report of totem $(totem_device)|7|1 file of clup-totem 0.12.0 changed outside an update: /usr/bin/clupctl changed"
  assert_contains "$(clup_hub totems --store 7)" "ALERT integrity check 1 file of clup-totem 0.12.0 changed outside an update: /usr/bin/clupctl changed"
  assert_contains "$(clup_hub audit --store 7)" "clup-hub (report of totem $(totem_device))  store 7  integrity check  1 file of clup-totem"
  metrics=$(curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics")
  assert_contains "$metrics" "clup_hub_totem_files_changed{device=\"$(totem_device)\",store=\"7\"} 1"
  assert_promtool_clean "$metrics" "the hub's metrics"
  grep -q "integrity check: 1 file of clup-totem 0.12.0 changed outside an update" "$WORK/clupd.log" || fail "clupd did not log the change"
  echo "report: $(clup_hub audit --store 7 | grep 'integrity check')"
  # Put back, the next check clears the alert (and adds no record).
  ln -sf clupd "$WORK/root/usr/bin/clupctl"
  assert_eq "$(verify)" "verify: ok: 3 files of clup-totem 0.12.0 as installed"
  case $(clupctl status) in *"changed outside an update"*) fail "the status still shows the change after a clean check" ;; esac
  sync_now_online
  # shellcheck disable=SC2016 # run again at each try
  (wait_until 10 '[ "$(hub_files_changed)" = 0 ]') || fail "the hub's metric after the clean check: [$(hub_files_changed)], not 0"
  assert_eq "$(integrity_audits)" 1 "audit records after the clean check"
}

test_enrolment_codes_are_single_use_expire_and_unknown_ones_are_refused() {
  HUB_CODE_HOURS=0.0005 hub_up   # codes last 1.8 s
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  sleep 2.5  # not a wait: the code's 1.8 s running out is what is tested (the hub has no clock to move)
  rc=0; out=$("$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" 2>&1) || rc=$?
  assert_status $rc 1 "an expired code"
  assert_contains "$out" "E-HUB-003"
  rc=0; out=$("$BIN/clupd" enrol --hub "$HUB_URL" --code ABCD-EFGH-JKMN --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" 2>&1) || rc=$?
  assert_status $rc 1 "an unknown code"
  assert_contains "$out" "E-HUB-001"
  rc=0; out=$(clup_hub enrolment-code --store 8 --letter A 2>&1) || rc=$?
  assert_status $rc 1 "a code for a store the hub does not have"
  assert_contains "$out" "E-HUB-011"
  # A code used once cannot enrol a second totem, and a totem enrols once.
  sed -i 's/^enrolment_code_hours = .*/enrolment_code_hours = 1/' "$WORK/hub.toml"
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  rc=0; out=$("$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/other" 2>&1) || rc=$?
  assert_status $rc 1 "a used code"
  assert_contains "$out" "E-HUB-002"
  rc=0; out=$("$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" 2>&1) || rc=$?
  assert_contains "$out" "E-SYNC-007"
  # A hub whose certificate is not signed by the CA given is not talked to. (The other
  # hub's init makes its CA, then finds no database: it says so within seconds.)
  "$ROOT/scripts/private-postgres" stop "$WORK/pg" >/dev/null
  mkdir -p "$WORK/other-hub"
  sed "s#state_directory = .*#state_directory = \"$WORK/other-hub\"#" "$WORK/hub.toml" > "$WORK/other.toml"
  started=$SECONDS
  rc=0; out=$("$BIN/clup-hub" init --config "$WORK/other.toml" 2>&1) || rc=$?
  assert_status $rc 1 "clup-hub init without its database"
  assert_contains "$out" "E-HUB-010 the hub's database cannot be reached"
  [ $((SECONDS - started)) -lt 30 ] || fail "clup-hub init took $((SECONDS - started)) s to say its database cannot be reached"
  rc=0; out=$("$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/other-hub/ca.pem" --state-dir "$WORK/third" 2>&1) || rc=$?
  assert_status $rc 1 "a hub the CA does not vouch for"
  assert_contains "$out" "E-SYNC-001"
}

test_forged_replayed_stale_unknown_and_revoked_requests_are_refused() {
  hub_up
  enrol A main >/dev/null
  device=$(python3 -c "import json; print(json.load(open('$WORK/state/enrolment.json'))['deviceID'])")
  signed() { python3 "$ROOT/Tests/integration/tools/signed-request.py" "$HUB_URL" "$WORK/hub/ca.pem" "$@"; }
  key="$WORK/state/device.key"
  assert_eq "$(signed "$key" "$device" ok)" "200 acknowledged=0"
  assert_eq "$(signed "$key" "$device" replay)" "200 then 409 E-HUB-007"
  assert_eq "$(signed "$key" "$device" stale)" "401 E-HUB-008"
  assert_eq "$(signed "$key" "$device" tampered)" "401 E-HUB-006"
  assert_eq "$(signed "$WORK/state/totem.key" "$device" ok)" "401 E-HUB-006"
  assert_eq "$(signed "$key" store-7-totem-Z-00000000 ok)" "401 E-HUB-004"
  assert_eq "$(signed "$key" "$device" unsigned)" "401 E-HUB-006"
  clup_hub revoke "$device" >/dev/null
  assert_eq "$(signed "$key" "$device" ok)" "403 E-HUB-005"
  # The revoked totem's clupd says so and keeps serving.
  kiosk_start
  wait_until_prints 10 refused sync_field state
  assert_contains "$(clupctl sync)" "E-HUB-005"
  take_ticket A-001
}

# Whether the psql session named lock-holder holds its row in an open transaction; whether a
# transaction waits on a row lock.
lock_held() {
  [ "$(hub_psql -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'lock-holder' AND state = 'idle in transaction'")" = 1 ]
}
a_batch_waits_on_a_lock() { [ "$(hub_psql -c "SELECT count(*) FROM pg_locks WHERE NOT granted")" -gt 0 ]; }

test_kill_9_of_the_hub_and_of_clupd_mid_upload_and_a_postgres_crash_lose_and_duplicate_nothing() {
  hub_up
  enrol A main >/dev/null
  kiosk_start
  # The hub is away while the store works: 600 passages pile up in the outbox.
  hub_kill hub KILL
  for _ in $(seq 1 300); do clupctl sim pass in >/dev/null; clupctl sim pass out >/dev/null; done
  take_ticket A-001
  last=$(sync_field lastSeq)
  [ "$last" -gt 600 ] || fail "expected more than 600 events, got $last"
  assert_contains "$(clupctl sync)" "E-SYNC-001"
  # Back; killed with SIGKILL in the middle of a batch, twice. A second session holds a row
  # the batch's transaction must lock, so the kill lands while that transaction is open:
  # first the store's row (the first lock a batch takes, before anything is stored), then
  # the totem's row (updated after the batch's events and projections are written, before
  # the commit).
  kills=""
  for row in "store WHERE store_id = '7'" "totem WHERE store_id = '7'"; do
    hub_serve hub "$HUB_PORT"
    rm -f "$WORK/lock.fifo"; mkfifo "$WORK/lock.fifo"
    PGAPPNAME=lock-holder psql -X -q <"$WORK/lock.fifo" >/dev/null 2>&1 &
    holder=$!
    exec 7>"$WORK/lock.fifo"
    echo "BEGIN; SELECT 1 FROM $row FOR UPDATE;" >&7
    wait_until 30 lock_held
    # A sync asked for (in the background: it answers once its attempt ends, which the row held holds up).
    clupctl sync now >/dev/null &
    wait_until 30 a_batch_waits_on_a_lock
    held=$(hub_psql -c "SELECT count(*) FROM event")
    hub_kill hub KILL
    echo "ROLLBACK;" >&7; exec 7>&-; wait "$holder" 2>/dev/null || true
    kills="$kills, with a batch waiting on the ${row%% *} row ($held events held)"
  done
  hub_serve hub "$HUB_PORT"
  # clupd killed with SIGKILL during the upload, and started again.
  clupctl sync now >/dev/null
  kill -KILL "$CLUPD_PID"; wait "$CLUPD_PID" 2>/dev/null || true
  kiosk_start_daemon
  # PostgreSQL crashes (immediate shutdown) while the store goes on, and comes back: the
  # hub answers 503 meanwhile and the totem keeps its outbox.
  "$ROOT/scripts/private-postgres" crash "$WORK/pg"
  for _ in $(seq 1 200); do clupctl sim pass in >/dev/null; done
  clupctl sync now >/dev/null
  # The hub answers 503 once its pool has waited 8 s for PostgreSQL.
  wait_until 30 'clupctl sync | grep -q E-HUB-010'
  error=$(clupctl sync | sed -n 's/^last error *//p')
  assert_contains "$error" "E-HUB-010"
  "$ROOT/scripts/private-postgres" start "$WORK/pg" >/dev/null
  clupctl sync now >/dev/null
  wait_synced 120
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$WORK/state/clup.sqlite") || fail "$figures"
  report_lines "$figures"
  echo "report: hub killed with SIGKILL mid-batch${kills}; clupd killed once; PostgreSQL crashed once (the totem saw: ${error:0:60})"
}

# Whether hub "hub" has ended.
hub_gone() { ! kill -0 "$HUB_PID_hub" 2>/dev/null; }

test_the_hub_stops_within_seconds_of_sigterm_while_its_postgres_stops_too() {
  hub_up
  enrol A main >/dev/null
  kiosk_start
  clupctl sim pass in >/dev/null
  wait_synced
  # A long poll for settings is under way (the totem always has one); PostgreSQL is told
  # to stop at the moment the hub is.
  "$ROOT/scripts/private-postgres" stop "$WORK/pg" &
  stopping=$!
  started=$(date +%s%N)
  kill -TERM "$HUB_PID_hub"
  wait_until 15 hub_gone
  took=$(( ($(date +%s%N) - started) / 1000000 ))
  wait "$HUB_PID_hub" 2>/dev/null || true
  HUB_PID_hub=
  wait "$stopping" || true
  # Draining waits 2 s at most, then what is left is cancelled (it was 8 to 25 s).
  [ "$took" -lt 5000 ] || fail "clup-hub took ${took} ms to stop on SIGTERM"
  echo "report: clup-hub stopped ${took} ms after SIGTERM, its PostgreSQL stopping at the same time"
}

test_a_hub_answering_500s_timing_out_and_dropping_connections_loses_and_duplicates_nothing() {
  hub_up
  PROXY_PIDS=()
  fault_proxy faults.json 0.5
  HUB_URL="https://127.0.0.1:$FAULT_PROXY_PORT" enrol A main >/dev/null
  kiosk_start
  # Twelve rounds of passages, each synced before the next, so that many requests meet the proxy.
  for _ in $(seq 1 12); do
    for _ in $(seq 1 5); do clupctl sim pass in >/dev/null; clupctl sim pass out >/dev/null; done
    clupctl sync now >/dev/null
    wait_synced_asking 120
  done
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$WORK/state/clup.sqlite") || fail "$figures"
  report_lines "$figures"
  echo "report: requests through the fault proxy: $(cat "$WORK/faults.json")"
  faults=$(python3 -c "import json; c = json.load(open('$WORK/faults.json')); print(sum(v for k, v in c.items() if k != 'passed'))")
  [ "$faults" -gt 3 ] || fail "too few faults were injected ($faults) for the test to mean anything"
}

test_two_hub_processes_serve_one_database() {
  hub_up
  second=$(free_port)
  hub_write_config hub2 "$second"
  hub_serve hub2 "$second"
  # Totem A syncs with the first hub, totem B with the second.
  enrol A north >/dev/null
  code=$(clup_hub enrolment-code --store 7 --letter B --door south)
  "$BIN/clupd" enrol --hub "https://127.0.0.1:$second" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/b/state" >/dev/null
  kiosk_start
  clupctl sim pass in >/dev/null
  A_WORK=$WORK A_PID=$CLUPD_PID
  WORK="$WORK/b"
  cp "$A_WORK/clupd.toml" "$WORK/clupd.toml"
  kiosk_start_daemon
  SECOND_PID=$CLUPD_PID
  clupctl sim pass in >/dev/null
  clupctl sim pass in >/dev/null
  # The two doors share the store's places: settings versions follow their reports, so
  # wait until both hold the last one and have uploaded everything.
  wait_quiet
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$WORK/state/clup.sqlite" "$WORK/b/state/clup.sqlite") \
    || fail "$figures"
  report_lines "$figures"
  assert_eq "$(hub_psql -c "SELECT sum(entries) FROM occupancy WHERE store_id = '7'")" 3
}

test_store_settings_changed_at_the_hub_reach_the_totem_and_stay_in_force_offline() {
  hub_up
  enrol A main >/dev/null
  kiosk_start
  # The store's only door gets the whole capacity.
  wait_until 30 "clupctl status | grep -q \"^settings   hub version [0-9]*: capacity 30, .*this door's places 30 \""
  start=$(date +%s%N)
  assert_contains "$(clup_hub store set 7 --capacity 45 --priority-share 0.2)" ": capacity 45"
  wait_until 30 'clupctl status | grep -q "inside of 45"'
  elapsed=$((($(date +%s%N) - start) / 1000000))
  assert_contains "$(clupctl status)" "0 inside of 45"
  assert_contains "$(clupctl status)" "capacity 45, priority share 0.2"
  echo "report: capacity changed at the hub was in force at the totem after $elapsed ms (the run of \`clup-hub store set\` included)"
  # The windows and the slot length too.
  assert_contains "$(clup_hub store set 7 --presentation-minutes 2 --slot-minutes 15)" "presentation window 2.0 min"
  wait_until 30 "clupctl config show | grep -q '^presentation_window_minutes = 2\b'"
  assert_contains "$(clupctl config show)" "slot_minutes = 15"
  # Applied as an event, uploaded like any other; the door's part follows the capacity.
  wait_until 30 "clupctl status | grep -q \"this door's places 45 \""
  wait_synced
  version=$(hub_psql -c "SELECT config_version FROM store WHERE store_id = '7'")
  wait_until 30 "[ \"\$(hub_psql -c 'SELECT applied_settings_version FROM totem')\" = $version ]"
  # Offline, and restarted: the hub's last settings stay in force.
  hub_kill hub KILL
  kiosk_stop
  kiosk_start_cups
  kiosk_start_daemon
  assert_contains "$(clupctl status)" "settings   hub version $version: capacity 45"
  assert_contains "$(clupctl status)" "inside of 45"
  # The door's part, which came on its line, read back from its log; its last settings carry
  # it too, for the release before this one, which reads only them (an update undone).
  assert_contains "$(clupctl status)" "this door's places 45 "
  assert_eq "$(totem_sql "SELECT count(*) > 0 FROM event WHERE type = 'store.door-limit-applied'")" 1 "the part recorded as an event"
  assert_eq "$(totem_sql "SELECT json_extract(payload, '$.storeSettingsApplied._0.doorLimit') FROM event
                          WHERE type = 'store.settings-applied' ORDER BY seq DESC LIMIT 1")" 45 "the part in the last settings"
  # An enrolled totem's file may not set what the hub manages.
  kiosk_stop
  printf '[queue]\ncapacity = 10\n' >> "$WORK/clupd.toml"
  rc=0; out=$("$BIN/clupd" --simulate --state-dir "$WORK/state" --socket "$WORK/control.sock" --config "$WORK/clupd.toml" 2>&1) || rc=$?
  assert_status $rc 78 "a file setting a key the hub manages"
  assert_contains "$out" "queue.capacity: this totem is enrolled at $HUB_URL, which manages queue.capacity"
}


test_an_employee_added_at_the_hub_logs_in_at_the_totem_and_the_audit_reaches_the_hub() {
  hub_up
  enrol A main >/dev/null
  kiosk_start
  echo 2580 | clup_hub employee add 7 104 >/dev/null
  rc=0; out=$(echo 2580 | clup_hub employee add 7 104 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "an employee added twice"
  assert_contains "$out" "E-HUB-024"
  assert_contains "$(clup_hub employee list 7)" "104  PIN set"
  assert_eq "$(hub_psql -c "SELECT count(*) FROM audit WHERE action = 'employee added' AND after = 'staff number 104'")" 1
  # The list reaches the totem with the next settings version: hashes only.
  wait_until 30 "clupctl employee list | grep -q '104 .*managed at the hub'"
  rc=0; out=$(clupctl employee remove 104 2>&1) || rc=$?
  assert_status $rc 1 "removing at the totem an employee the hub manages"
  assert_contains "$out" "managed at the hub"
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "SELECT count(*) FROM event WHERE payload LIKE '%pin_hash%' OR payload LIKE '%\"employees\"%'")" 0 \
    "no PIN hash in the event log"
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  clupctl sim press staff-corner --hold 3 >/dev/null
  for key in digit-1 digit-0 digit-4 ok digit-2 digit-5 digit-8 digit-0 ok; do clupctl sim press "$key" >/dev/null; done
  wait_for_screen priority-reason
  assert_contains "$(clupctl sim press reason-disability)" "[ticket: AP-001]"
  wait_for_print AP-001 >/dev/null
  wait_synced
  assert_eq "$(hub_psql -c "SELECT count(*) FROM event WHERE type = 'staff.audit' AND payload LIKE '%\"who\":\"104\"%'")" 3 \
    "login, priority ticket and logout, at the hub"
  # Removed at the hub: the PIN no longer opens a session anywhere.
  clup_hub employee remove 7 104 >/dev/null
  wait_until 30 "! clupctl employee list | grep -q 104"
  echo "report: employee 104 added at the hub logged in at the totem, issued AP-001; removed at the hub, gone from the totem"
}

# This door's places and what it holds, from `clupctl status`: "LIMIT HELD".
door_places() {
  clupctl status | sed -n "s/.*this door's places \(-\{0,1\}[0-9]*\) (holding \(-\{0,1\}[0-9]*\)).*/\1 \2/p"
}

# "N waiting, M called" of this door's queue.
door_queue() {
  clupctl status | sed -n 's/^queue *\([0-9]*\) waiting, \([0-9]*\) called or at the door.*/\1 waiting, \2 called/p'
}

# A fault proxy in front of the hub, faulting RATE of the event uploads (default none),
# counting what it did in $WORK/NAME, and cutting the link off while $WORK/NAME.cut exists;
# its port (PORT, else a free one) goes in FAULT_PROXY_PORT.
fault_proxy() {
  local name=$1 rate=${2:-0}
  FAULT_PROXY_PORT=${3:-$(free_port)}
  python3 "$ROOT/Tests/integration/tools/fault-proxy.py" "$FAULT_PROXY_PORT" "$HUB_URL" "$WORK/hub/server.pem" \
    "$WORK/hub/server.key" "$WORK/hub/ca.pem" "$rate" "$WORK/$name" >"$WORK/proxy-$name.log" 2>&1 &
  PROXY_PIDS+=($!)
  wait_until 10 grep -q ready "$WORK/proxy-$name.log"
}

# The settings version this door is to hold: the store's configuration version where the
# door takes its part of the capacity from its line, else the store's settings version.
hub_settings_version() {
  hub_psql -c "SELECT CASE WHEN t.limit_on_line THEN s.config_version ELSE s.settings_version END
    FROM store s JOIN totem t ON t.store_id = s.store_id WHERE t.device_id = '$(totem_device)'"
}
# This door's line version at the hub, and the one it last took.
hub_line_version() { hub_psql -c "SELECT line_version FROM totem WHERE device_id = '$(totem_device)'"; }
totem_line_version() { clupctl status | sed -n "s/.*door's line version \([0-9]*\).*/\1/p"; }

# Whether both doors hold the store's current settings and their lines' last versions, and
# the hub holds all their events, with no new version meanwhile.
doors_settled_and_uploaded() {
  local versions=() quiet=1 door
  for door in as_a as_b; do
    $door
    versions+=("$(hub_settings_version) $(hub_line_version)")
    [ "$(totem_settings_version) $(totem_line_version)" = "${versions[-1]}" ] || quiet=0
    [ "$(totem_last_seq)" = "$(hub_acknowledged)" ] || quiet=0
  done
  as_a
  [ $quiet = 1 ] && [ "$(hub_settings_version) $(hub_line_version)" = "${versions[0]}" ]
}

# Waits until the doors have settled on the store's settings and their lines with everything
# uploaded.
wait_quiet() { wait_until 120 doors_settled_and_uploaded; }

as_a() { WORK=$A_WORK CLUPD_PID=$A_PID; }
as_b() { WORK=$A_WORK/b CLUPD_PID=$SECOND_PID; }

# Both doors' places and holdings: "A: LIMIT HELD, B: LIMIT HELD".
both_doors() {
  local a b
  as_a; a=$(door_places); as_b; b=$(door_places); as_a
  echo "A: $a, B: $b"
}

# The capacity bound, checked at both doors: what they hold together is at most 6.
assert_within_capacity() {
  local a b
  as_a; a=$(door_places); as_b; b=$(door_places); as_a
  [ $(( ${a#* } + ${b#* } )) -le 6 ] || fail "the doors hold more than the capacity of 6: A $a, B $b"
  [ "${a#* }" -le "${a% *}" ] || fail "door A holds more than its places: $a"
  [ "${b#* }" -le "${b% *}" ] || fail "door B holds more than its places: $b"
}

test_two_doors_share_one_capacity_through_an_outage_and_admit_each_others_tickets() {
  hub_up
  PROXY_PIDS=()
  clup_hub store set 7 --capacity 6 --priority-share 0 >/dev/null
  fault_proxy A; port_a=$FAULT_PROXY_PORT
  fault_proxy B; port_b=$FAULT_PROXY_PORT
  HUB_URL="https://127.0.0.1:$port_a" enrol A north >/dev/null
  code=$(clup_hub enrolment-code --store 7 --letter B --door south)
  "$BIN/clupd" enrol --hub "https://127.0.0.1:$port_b" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/b/state" >/dev/null
  kiosk_start
  A_WORK=$WORK A_PID=$CLUPD_PID
  mkdir -p "$WORK/b"
  cp "$WORK/clupd.toml" "$WORK/b/clupd.toml"
  WORK="$A_WORK/b"
  kiosk_start_daemon
  SECOND_PID=$CLUPD_PID
  as_a
  # Nobody waiting: the six places are shared evenly.
  wait_until_prints 60 "A: 3 0, B: 3 0" both_doors
  echo "report: online, nobody waiting: $(both_doors)"

  # Four customers at door A: three are called at once, and the hub moves places from B
  # (where nobody waits) to A for the fourth, in two steps (B confirms first).
  for n in 1 2 3 4; do take_ticket "A-00$n"; done
  wait_until_prints 60 "0 waiting, 4 called" door_queue
  assert_within_capacity
  echo "report: four waiting at A: $(both_doors)"

  # Both doors cut off from the hub.
  touch "$A_WORK/A.cut" "$A_WORK/B.cut"
  as_b; wait_until_prints 60 offline sync_field state
  as_a; wait_until_prints 60 offline sync_field state
  # Each door keeps serving within its places: two more at A, two at B.
  take_ticket A-005; take_ticket A-006
  as_b; take_ticket B-001; take_ticket B-002; as_a
  assert_within_capacity
  echo "report: cut off, two more at each door: $(both_doors); A $(door_queue); B $(as_b; door_queue; as_a)"
  # Three of A's called customers go in at A; two people leave by B, which frees places at B.
  for n in 1 2 3; do
    clupctl sim scan "$(printed_qr_text "A-00$n")" >/dev/null || fail "A-00$n refused at door A"
    clupctl sim pass in >/dev/null
  done
  as_b
  clupctl sim pass out >/dev/null
  clupctl sim pass out >/dev/null
  wait_until_prints 30 "0 waiting, 2 called" door_queue
  as_a
  assert_within_capacity
  echo "report: cut off, three in by A, two out by B: $(both_doors)"

  # Back in touch. The last customer waiting at A is called once B's spare place has moved.
  rm "$A_WORK/A.cut" "$A_WORK/B.cut"
  wait_until_prints 120 "0 waiting, 3 called" door_queue
  assert_within_capacity
  echo "report: back online: $(both_doors)"
  # Once both doors hold the hub's last settings and have uploaded everything, every event
  # of both is at the hub once, and the totals agree.
  wait_quiet
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$A_WORK/state/clup.sqlite" "$A_WORK/b/state/clup.sqlite") \
    || fail "$figures"
  report_lines "$figures"
  inside=$(hub_psql -c "SELECT sum(carried + entries - exits + corrections) FROM occupancy WHERE store_id = '7'")
  assert_eq "$inside" 1 "people inside by the hub's count (3 in, 2 out)"

  # A ticket A called is admitted at door B, once B has heard it is called; then it is
  # used at A too. First a place at B. A place freed at B goes to A while a ticket waits
  # there, so: one leaves by B and A calls its last waiting ticket with that place; then
  # one more leaves by B, and that place stays at B (nobody waits anywhere).
  as_b
  clupctl sim pass out >/dev/null
  as_a; wait_until 60 'door_queue | grep -q "^0 waiting"'; as_b
  clupctl sim pass out >/dev/null
  code=$(WORK=$A_WORK printed_qr_text A-004)
  # shellcheck disable=SC2016 # scanned again at each try
  wait_until 60 'clupctl sim scan "$code" >/dev/null 2>&1'
  clupctl sim pass in >/dev/null
  wait_synced
  as_a
  # A hears of it on its line (the store's settings do not change for it).
  device_a=$(clupctl status | sed -n 's/.* — \(store-7-totem-A-[0-9a-f]*\) — .*/\1/p')
  line=$(hub_psql -c "SELECT line_version FROM totem WHERE device_id = '$device_a'")
  wait_until 30 "clupctl status | grep -qE \"door's line version $line(,|\$)\""
  rc=0; out=$(clupctl sim scan "$code" 2>&1) || rc=$?
  assert_status $rc 1 "A-004 scanned at A after it was used at B"
  assert_contains "$out" "A-004 (at another door)"
  echo "report: A-004, called at A, went in at B; scanned again at A: $out"

  # Totem B is revoked: its ticket key is withdrawn from A, which refuses B's tickets.
  as_b; device_b=$(clupctl status | sed -n 's/.* — \(store-7-totem-B-[0-9a-f]*\) — .*/\1/p'); as_a
  clup_hub revoke "$device_b" >/dev/null
  wait_until 30 "clupctl status | grep -qE 'keys of totems A(,|\$)'"
  rc=0; out=$(clupctl sim scan "$(printed_qr_text B-001)" 2>&1) || rc=$?
  assert_status $rc 1 "a ticket of a revoked totem"
  assert_contains "$out" "issued by totem B, whose key this totem does not know"
  echo "report: B revoked; B-001 scanned at A: $out"
  echo "report: requests dropped while cut off: A $(cat "$A_WORK/A"), B $(cat "$A_WORK/B")"
}

# The store's business day starts while a ticket of door A is called: A carries it into the
# new day, and door B takes it in there, admits it, and its holder goes in. The hub keeps
# the ticket once, under the new day, with the day it was issued, as the totems have it (it
# once kept the old day's row too, "called" for good, and refused B's taking-in). The day
# starts at the clocks' next whole minute with 40 s to spare: the one wait on the clock.
test_a_ticket_called_as_the_business_day_starts_is_carried_over_and_kept_once_at_the_hub() {
  hub_up
  enrol A north >/dev/null
  code=$(clup_hub enrolment-code --store 7 --letter B --door south)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/b/state" >/dev/null
  starts=$(( ($(date +%s) + 40) / 60 * 60 + 60 ))
  KIOSK_DAY_START=$(date -u -d "@$starts" +%H:%M) kiosk_start
  A_WORK=$WORK A_PID=$CLUPD_PID
  mkdir -p "$WORK/b"
  cp "$WORK/clupd.toml" "$WORK/b/clupd.toml"
  WORK="$A_WORK/b"
  kiosk_start_daemon
  SECOND_PID=$CLUPD_PID
  as_a
  take_ticket A-001
  wait_until_prints 60 "0 waiting, 1 called" door_queue
  [ "$(date +%s)" -lt "$starts" ] || fail "A-001 was called only after the day started (at $(date -u -d "@$starts" +%T)): the machine was too slow for the test's margin"
  first=$(totem_sql "SELECT business_day FROM ticket WHERE number = 'A-001'")
  # shellcheck disable=SC2016 # read again at each try
  wait_until 150 '[ -n "$(totem_sql "SELECT carried_into FROM ticket WHERE number = '\''A-001'\''")" ]' \
    || fail "A-001 was not carried into the day that starts at $(date -u -d "@$starts" +%T)"
  next=$(totem_sql "SELECT carried_into FROM ticket WHERE number = 'A-001'")
  echo "report: the business day $next started at $(date -u -d "@$starts" +%T) UTC; A-001 of $first carried into it, called"
  code=$(printed_qr_text A-001)
  as_b
  # shellcheck disable=SC2016 # scanned again at each try, once B has heard A-001 is called
  wait_until 60 'clupctl sim scan "$code" >/dev/null 2>&1' || fail "A-001 refused at door B: $(clupctl sim scan "$code" 2>&1)"
  clupctl sim pass in >/dev/null
  as_a
  wait_quiet
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$A_WORK/state/clup.sqlite" "$A_WORK/b/state/clup.sqlite") \
    || fail "$figures"
  report_lines "$figures"
  assert_eq "$(hub_psql -c "SELECT business_day || ' ' || issued_day || ' ' || state FROM ticket WHERE number = 'A-001'")" \
    "$next $first entered" "the hub's one row of A-001"
  assert_eq "$(hub_psql -c "SELECT count(*) FROM dead_letter")" 0 "dead letters"
}

# The phone app's call to the bookings API: app METHOD PATH [JSON]; prints the body, then
# the status on a line of its own.
app() {
  local method=$1 path=$2 body=${3:-}
  curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -H 'Content-Type: application/json' \
    -X "$method" ${body:+--data "$body"} -w '\n%{http_code}' "$HUB_URL/v1/stores/7$path"
}
json_field() { python3 -c "import json, sys; print(json.loads(sys.stdin.read().strip().rsplit('\n', 1)[0])$1)"; }
# Prints Python expressions of the answer's first store (s).
json_print() { python3 -c "import json, sys; s = json.loads(sys.stdin.read().strip().rsplit('\n', 1)[0])['stores'][0]; print($1)"; }
status_of() { tail -n 1 | tr -d "\n"; echo; }
# The start of the next slot of MINUTES, in Unix seconds.
next_slot() { local step=$(($1 * 60)); echo $(( ($(date +%s) / step + 1) * step )); }
# Unix second T as the hub writes a time (2026-03-01T09:30:00Z).
iso_time() { date -u -d "@$1" +%FT%TZ; }

test_bookings_made_in_the_app_are_admitted_at_the_door_within_their_window_only() {
  hub_up
  # One booking place per slot (4 × 0.25); slots of 5 minutes, admitted from 10 minutes
  # before to 5 after their start; open all day, so that the test runs at any hour.
  clup_hub store set 7 --capacity 4 --booking-share 0.25 --priority-share 0 --slot-minutes 5 \
    --booking-early-minutes 10 --booking-late-minutes 5 >/dev/null
  clup_hub store hours 7 --opens 00:00 --closes 24:00 --time-zone UTC >/dev/null
  rc=0; out=$(clup_hub enrolment-code --store 7 --letter Z 2>&1) || rc=$?
  assert_status $rc 1 "a totem enrolled as Z"
  assert_contains "$out" "numbers the bookings made through the hub"
  enrol A main >/dev/null
  kiosk_start

  # The next slot (its window is open now) and one two hours later (not yet).
  start=$(next_slot 5)
  next=$(iso_time "$start") later=$(iso_time $((start + 7200))) next_day=${next:0:10}
  slots=$(app GET "/slots?day=$next_day")
  assert_eq "$(echo "$slots" | status_of)" 200 "GET slots"
  free=$(echo "$slots" | python3 "$ROOT/Tests/integration/tools/slot-free.py" "$next")
  assert_eq "$free" 1 "free places of the slot at $next"
  assert_eq "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/hub/ca.pem" "$HUB_URL/v1/stores/7/slots")" 401 "slots without the app's token"

  # Two customers race for the slot's one place: exactly one gets it.
  app POST /bookings "{\"slotStart\": \"$next\", \"customerRef\": \"cust-0001\"}" > "$WORK/race1" & racer1=$!
  app POST /bookings "{\"slotStart\": \"$next\", \"customerRef\": \"cust-0002\"}" > "$WORK/race2" & racer2=$!
  wait $racer1 $racer2
  statuses=$(for f in race1 race2; do status_of < "$WORK/$f"; done | sort | tr '\n' ' ')
  assert_eq "$statuses" "201 409 " "the two racing bookings"
  loser=$(grep -l '^409$' "$WORK/race1" "$WORK/race2")
  assert_contains "$(cat "$loser")" "E-HUB-019"
  winner=$(grep -l '^201$' "$WORK/race1" "$WORK/race2")
  first=$(json_field "['number']" < "$winner"); first_code=$(json_field "['code']" < "$winner")
  first_ref=$(grep -q race1 <<<"$winner" && echo cust-0001 || echo cust-0002)
  echo "report: two racing for the last place of $next: $statuses($first went to $first_ref)"

  # Cancelled: its place is free again and a notice waits for the SMS gateway.
  out=$(app POST "/bookings/$first/cancel" '{"customerRef": "cust-9999"}')
  assert_eq "$(echo "$out" | status_of)" 404 "a cancellation with another customer's reference"
  out=$(app POST "/bookings/$first/cancel" "{\"customerRef\": \"$first_ref\"}")
  assert_eq "$(echo "$out" | status_of)" 200 "the cancellation"
  assert_eq "$(hub_psql -c "SELECT kind, booking_number FROM notice WHERE store_id = '7'")" "cancelled|$first"
  out=$(app POST /bookings "{\"slotStart\": \"$next\", \"customerRef\": \"cust-0003\"}")
  assert_eq "$(echo "$out" | status_of)" 201 "booking the place the cancellation freed"
  second=$(echo "$out" | json_field "['number']"); second_code=$(echo "$out" | json_field "['code']")
  out=$(app POST /bookings "{\"slotStart\": \"$later\", \"customerRef\": \"cust-0004\", \"forSomeoneElse\": true}")
  assert_eq "$(echo "$out" | status_of)" 201 "a booking for someone else, two hours later"
  later_code=$(echo "$out" | json_field "['code']")
  out=$(app POST /bookings "{\"slotStart\": \"${next%:00Z}:07Z\", \"customerRef\": \"cust-0005\"}")
  assert_eq "$(echo "$out" | status_of)" 422 "a booking at a time that starts no slot"
  assert_contains "$out" "E-HUB-020"

  # The door hears the hub's booking key and the cancellation with the next settings.
  version=$(hub_psql -c "SELECT config_version FROM store WHERE store_id = '7'")
  wait_until 60 "clupctl status | grep -q \"^settings   hub version $version:.*keys of totems AZ\""
  rc=0; out=$(clupctl sim scan "$first_code" 2>&1) || rc=$?
  assert_status $rc 1 "the cancelled booking at the door"
  assert_contains "$out" "booking $first was cancelled"
  echo "report: at the door, the cancelled booking: $out"
  rc=0; out=$(clupctl sim scan "$later_code" 2>&1) || rc=$?
  assert_status $rc 1 "a booking two hours early"
  assert_contains "$out" "outside its window"
  echo "report: at the door, the booking two hours early: $out"
  forged=$(python3 "$ROOT/Tests/integration/tools/forge-code.py" "$second_code")
  rc=0; out=$(clupctl sim scan "$forged" 2>&1) || rc=$?
  assert_status $rc 1 "an altered booking code"
  assert_contains "$out" "forged"
  clupctl sim scan "$second_code" >/dev/null || fail "booking $second refused within its window: $(clupctl sim scan "$second_code" 2>&1)"
  clupctl sim pass in >/dev/null
  # On the way out the booking's code is scanned again: its time in store reaches the hub.
  assert_contains "$(clupctl sim scan "$second_code")" "goodbye: $second leaves after"
  clupctl sim pass out >/dev/null
  rc=0; out=$(clupctl sim scan "$second_code" 2>&1) || rc=$?
  assert_status $rc 1 "a booking scanned a third time"
  assert_contains "$out" "already used"
  wait_synced
  assert_eq "$(hub_psql -c "SELECT state, left_at IS NOT NULL FROM ticket WHERE store_id = '7' AND number = '$second'")" "entered|t" \
    "the booking at the hub"
  # Used now: it cannot be cancelled any more.
  out=$(app POST "/bookings/$second/cancel" '{"customerRef": "cust-0003"}')
  assert_eq "$(echo "$out" | status_of)" 422 "cancelling a booking already used"
}

# The app books, and its answer is lost on the way back (the proxy drops it after the hub
# committed); it sends the same request again with the same Idempotency-Key and hears what
# the first one did: one booking. The same for a place in the line. (Issue 40: a retried
# booking could be made twice.)
test_an_app_request_whose_answer_was_lost_is_done_once_when_sent_again() {
  hub_up
  PROXY_PIDS=()
  clup_hub store set 7 --capacity 4 --booking-share 0.5 --priority-share 0 --slot-minutes 30 >/dev/null
  enrol A main >/dev/null
  kiosk_start
  wait_synced
  fault_proxy app
  local direct=$HUB_URL slot first again
  slot=$(iso_time "$(next_slot 30)")
  HUB_URL="https://127.0.0.1:$FAULT_PROXY_PORT"
  touch "$WORK/app.lose-answers"
  rc=0; first=$(curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -H 'Content-Type: application/json' \
    -H 'Idempotency-Key: "booking-retry-1"' --data "{\"slotStart\": \"$slot\", \"customerRef\": \"cust-0001\"}" \
    "$HUB_URL/v1/stores/7/bookings") || rc=$?
  [ "$rc" -ne 0 ] || fail "the first answer was not lost: $first"
  assert_eq "$(hub_psql -c "SELECT count(*) FROM booking")" 1 "the booking the hub made, its answer lost"
  rm "$WORK/app.lose-answers"
  again=$(curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -H 'Content-Type: application/json' \
    -H 'Idempotency-Key: "booking-retry-1"' --data "{\"slotStart\": \"$slot\", \"customerRef\": \"cust-0001\"}" \
    -w '\n%{http_code}' "$HUB_URL/v1/stores/7/bookings")
  assert_eq "$(echo "$again" | status_of)" 201 "the booking sent again: $again"
  assert_eq "$(echo "$again" | json_field "['number']")" "$(hub_psql -c "SELECT number FROM booking")" "the answer names the one booking"
  assert_eq "$(hub_psql -c "SELECT count(*) FROM booking")" 1 "bookings after the request was sent again"
  # A place in the line, the same way.
  touch "$WORK/app.lose-answers"
  rc=0; curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -H 'Content-Type: application/json' \
    -H 'Idempotency-Key: join-retry-1' --data '{"customerRef": "phone-0001"}' "$HUB_URL/v1/stores/7/line" >/dev/null || rc=$?
  [ "$rc" -ne 0 ] || fail "the join's answer was not lost"
  rm "$WORK/app.lose-answers"
  again=$(curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -H 'Content-Type: application/json' \
    -H 'Idempotency-Key: join-retry-1' --data '{"customerRef": "phone-0001"}' -w '\n%{http_code}' "$HUB_URL/v1/stores/7/line")
  assert_eq "$(echo "$again" | status_of)" 201 "the join sent again (not 409, holding a place already): $again"
  assert_eq "$(hub_psql -c "SELECT count(*) FROM remote_ticket")" 1 "places after the join was sent again"
  echo "report: through the proxy that lost the answers: $(cat "$WORK/app")"
  HUB_URL=$direct
}

# What the notification gateway and the push service logged (tools/notices-seen.py).
notices_seen() { python3 "$ROOT/Tests/integration/tools/notices-seen.py" "$@"; }

# The chain's notification gateway (tools/notice-gateway.py) on a port of its own, logging
# to $WORK/gateway.log, and the hub serving again with it as its webhook; with PUSH_PORT set
# (push_service_up), Web Push to that push service too.
gateway_up() {
  local gateway_port
  PROXY_PIDS=(${PROXY_PIDS[@]+"${PROXY_PIDS[@]}"})
  gateway_port=$(free_port)
  head -c 48 /dev/urandom | base64 -w 0 > "$WORK/webhook.key"
  : > "$WORK/gateway-statuses"; : > "$WORK/gateway.log"
  python3 "$ROOT/Tests/integration/tools/notice-gateway.py" "$gateway_port" "$WORK/webhook.key" "$WORK/gateway-statuses" \
    "$WORK/gateway.log" &
  PROXY_PIDS+=($!)
  cat >> "$WORK/hub.toml" <<TOML
[notices]
webhook_url = "http://127.0.0.1:$gateway_port/hook"
webhook_secret_file = "$WORK/webhook.key"
TOML
  if [ -n "${PUSH_PORT:-}" ]; then
    printf 'push_subject = "mailto:ops@chain.example"\npush_services = ["127.0.0.1"]\n' >> "$WORK/hub.toml"
  fi
  hub_kill hub
  hub_serve hub "$HUB_PORT"
}

# A browser's push service (tools/push-service.py, with the browser's keys in it) on
# PUSH_PORT, answering STATUS… in turn then 201; its subscription is $WORK/push-subscription.json,
# what it received and decrypted $WORK/push.log.
push_service_up() {
  PROXY_PIDS=(${PROXY_PIDS[@]+"${PROXY_PIDS[@]}"})
  PUSH_PORT=$(free_port)
  : > "$WORK/push.log"
  "$ROOT/.venv-tools/bin/python" "$ROOT/Tests/integration/tools/push-service.py" "$PUSH_PORT" "$WORK/push-subscription.json" \
    "$WORK/push.log" "$@" >"$WORK/push-service.out" 2>&1 &
  PROXY_PIDS+=($!)
  (wait_until 10 grep -q ready "$WORK/push-service.out") || fail "the push service did not start: $(cat "$WORK/push-service.out")"
}

# The totem's events of ticket NUMBER of type TYPE (ticket.called …), counted.
totem_events_of() { totem_sql "SELECT count(*) FROM event WHERE type = '$1' AND payload LIKE '%\"$2\"%'"; }

# A person with a phone takes a place in the line of store 7 from the app: the door's totem
# has it within a second and puts it between the printed tickets by the time each was taken;
# the call reaches the hub, and the gateway gets a signed "called" notice within 2 s; the
# code on the phone is admitted at the door once. Another place left from the phone is
# voided at the totem. With the hub gone, a place the totem holds is still called and admitted.
test_a_place_taken_from_a_phone_is_called_in_its_turn_notified_and_admitted_at_the_door() {
  hub_up
  clup_hub store set 7 --capacity 2 --booking-share 0 --priority-share 0 >/dev/null
  gateway_up
  enrol A main >/dev/null
  kiosk_start
  wait_synced
  # A store full of people who came in without tickets, and a printed ticket waiting.
  clupctl sim pass in >/dev/null; clupctl sim pass in >/dev/null
  take_ticket A-001
  local joined took code
  wait_synced  # the hub has A-001 before the phone's place is taken
  out=$(app POST /line '{"customerRef": "phone-0001"}')
  joined=$EPOCHREALTIME
  assert_eq "$(echo "$out" | status_of)" 201 "joining store 7's line from the app: $out"
  assert_eq "$(echo "$out" | json_field "['number']")" AR-001 "the place's number"
  assert_eq "$(echo "$out" | json_field "['ahead']")" 1 "places before it (the printed A-001)"
  code=$(echo "$out" | json_field "['code']")
  wait_until_prints 30 1 totem_events_of ticket.issued AR-001
  took=$(python3 -c "import time; print('%.2f' % (time.time() - $joined))")
  take_ticket A-002
  assert_eq "$(clupctl queue --json | python3 -c 'import json, sys; print(*[l["number"] for l in json.load(sys.stdin)["waiting"]])')" \
    "A-001 AR-001 A-002" "the line at the totem"
  # The app's stores nearby: store 7 on the map, full, its line as the totem holds it.
  assert_eq "$(clup_hub store locate 7 --latitude 45.4642 --longitude 9.19)" "store 7 is at 45.4642, 9.19"
  wait_synced
  out=$(curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -w '\n%{http_code}' \
    "$HUB_URL/v1/nearby?latitude=45.466&longitude=9.19&radiusKm=1")
  assert_eq "$(echo "$out" | status_of)" 200 "the stores nearby: $out"
  assert_eq "$(echo "$out" | json_print "s['store'], s['distanceKm'], s['inside'], s['waiting'], s['suggestions']['why']")" \
    "7 0.2 2 3 full" "store 7 as the app sees it nearby: 200 m away, full, three waiting"
  rc=0; out=$(clup_hub store notices 7 --major-delay-minutes 601 2>&1) || rc=$?
  assert_status $rc 1 "an absurd major delay"
  assert_contains "$out" "1 to 600 minutes"
  assert_eq "$(clup_hub store notices 7 --major-delay-minutes 20)" \
    "store 7: delay notice 30 min ahead, major delay after 20 min full, reminder 60 min ahead"
  # Another place, left from the phone: voided at the totem.
  second=$(app POST /line '{"customerRef": "phone-0002"}' | json_field "['number']")
  assert_eq "$second" AR-002 "the second place"
  wait_until_prints 30 1 totem_events_of ticket.issued AR-002
  assert_eq "$(app POST "/line/$second/leave" '{"customerRef": "phone-0001"}' | status_of)" 404 "leaving another's place"
  assert_eq "$(app POST "/line/$second/leave" '{"customerRef": "phone-0002"}' | status_of)" 200 "leaving one's own place"
  wait_until_prints 30 1 totem_events_of ticket.voided AR-002
  assert_eq "$(app POST /line '{"customerRef": "phone-0001"}' | status_of)" 409 "the same reference joining twice"

  # People leave: the line is called in its order; AR-001's call brings the notice.
  clupctl sim pass out >/dev/null
  wait_until_prints 30 1 totem_events_of ticket.called A-001
  wait_synced
  assert_eq "$(app GET "/line/AR-001?customerRef=phone-0001" | json_field "['ahead']")" 0 "places before it once A-001 is called"
  clupctl sim pass out >/dev/null
  wait_until_prints 30 1 totem_events_of ticket.called AR-001
  # shellcheck disable=SC2016 # counted again at each try
  wait_until 60 '[ "$(wc -l < "$WORK/gateway.log")" -ge 1 ]'
  got=$(head -n 1 "$WORK/gateway.log")
  assert_eq "$(notices_seen called "$got")" \
    "True 200 called AR-001 phone-0001 False" "the called notice as the gateway received and checked it"
  reached=$(hub_psql -c "SELECT extract(epoch FROM received_at) FROM event WHERE type = 'ticket.called' AND payload LIKE '%\"AR-001\"%'")
  notified=$(notices_seen after "$got" "$reached")
  awk -v t="$notified" 'BEGIN { exit !(t >= 0 && t < 2) }' || fail "the called notice left the hub $notified s after the call reached it"
  assert_eq "$(app GET "/line/AR-001?customerRef=phone-0001" | json_field "['state']")" called "the place as the app sees it"
  # The code on the phone, at the door: admitted once.
  clupctl sim scan "$code" >/dev/null || fail "AR-001 refused at the door: $(clupctl sim scan "$code" 2>&1)"
  rc=0; out=$(clupctl sim scan "$code" 2>&1) || rc=$?
  assert_status $rc 1 "AR-001 scanned twice before the turnstile turned"
  assert_contains "$out" "already used"
  clupctl sim pass in >/dev/null
  wait_synced
  assert_eq "$(hub_psql -c "SELECT state FROM ticket WHERE number = 'AR-001'")" entered "AR-001 at the hub"
  assert_eq "$(app GET "/line/AR-001?customerRef=phone-0001" | json_field "['state']")" entered "the place as the app sees it after"

  # A place the totem holds, called and admitted with the hub gone.
  third=$(app POST /line '{"customerRef": "phone-0003"}')
  third_code=$(echo "$third" | json_field "['code']")
  wait_until_prints 30 1 totem_events_of ticket.issued AR-003
  hub_kill hub
  clupctl sim pass out >/dev/null
  wait_until_prints 30 1 totem_events_of ticket.called A-002
  clupctl sim pass out >/dev/null
  wait_until_prints 30 1 totem_events_of ticket.called AR-003
  clupctl sim scan "$third_code" >/dev/null || fail "AR-003 refused offline: $(clupctl sim scan "$third_code" 2>&1)"
  order=$(totem_sql "SELECT json_extract(payload, '$.ticketCalled._0') FROM event WHERE type = 'ticket.called' ORDER BY seq" | tr '\n' ' ')
  assert_eq "$order" "A-001 AR-001 A-002 AR-003 " "the called order"
  echo "report: joined from the app to the totem holding the place: $took s"
  echo "report: the call reaching the hub to the gateway's receipt of the signed notice: $notified s"
  echo "report: called in order: $order"
}

# A person with a phone joins store 7's line on the website (Chromium, in German), asks to be
# told by Web Push, watches their place move in place (no reload) as the totem calls the
# people before them, is called (the push service gets the call, encrypted for their browser
# alone and signed as the chain's, both checked by http_ece and cryptography), and walks in
# with the code on their screen, read back from a screenshot; another stops the page
# updating and leaves from the website, and the totem voids their place (screenshots in
# test-screenshots/line). axe-core finds nothing on the store's and a place's page in any of
# the five languages. A form from another origin joins nobody.
test_a_person_with_a_phone_joins_on_the_website_is_called_told_by_web_push_and_walks_in() {
  hub_up
  clup_hub store set 7 --capacity 3 --booking-share 0 --priority-share 0 >/dev/null
  push_service_up 500
  gateway_up
  enrol A main >/dev/null
  kiosk_start
  wait_synced
  for _ in 1 2 3; do clupctl sim pass in >/dev/null; done
  take_ticket A-001
  take_ticket A-002
  export LINE_NEXT="CLUP_SOCKET='$WORK/control.sock' CLUP_SESSION_FILE='$WORK/session' '$BIN/clupctl' sim pass out"
  export PUSH_SUBSCRIPTION="$WORK/push-subscription.json" AXE="$ROOT/.venv-tools/axe/axe.min.js"
  seen=$(python3 "$ROOT/Tests/integration/tools/line-walk.py" "$HUB_URL" 7 de "${CLUP_SCREENSHOTS:-$ROOT/test-screenshots}/line") || fail "the walk on the website failed"
  field() { python3 -c 'import json, sys; v = json.loads(sys.argv[1])[sys.argv[2]]; print(v if isinstance(v, str) else json.dumps(v))' "$seen" "$1"; }
  assert_eq "$(field lang)" de "the page's language"
  assert_contains "$(field store_page)" "Anstellen" "the store page in German"
  assert_eq "$(field cookie_before_join)" '[]' "cookies before joining"
  assert_eq "$(field cookie)" '{"secure": true, "httpOnly": true, "sameSite": "Strict", "path": "/line/7"}' "the place's cookie"
  assert_eq "$(field number)" AR-001 "the place's number"
  assert_eq "$(field refreshes) $(field push_offered) $(field push_answer)" "false true 204" "no meta refresh; Web Push offered and subscribed"
  assert_eq "$(field positions)" "[2, 1, 0]" "the places before them, as the page showed them"
  assert_eq "$(field reloaded)" false "the page reloaded while it followed the place"
  assert_contains "$(field announced)" "1 vor Ihnen" "what the live region said"
  assert_eq "$(field state)" called "the place's state once the totem called it"
  assert_contains "$(field called_text)" "Sie sind dran: gehen Sie jetzt zum Eingang main"
  code=$(field code_read)
  [ -n "$code" ] || fail "zbarimg read no QR code from the called page's screenshot"
  # The push service's receipt: refused once (500), then taken, and decrypted as the browser would.
  wait_until 60 grep -q '"answered": 201' "$WORK/push.log"
  assert_eq "$(notices_seen push "$WORK/push.log")" \
    "2; (500, True, 'aes128gcm', 'high', 'called', 'AR-001', 'Sie sind dran: AR-001', True); (201, True, 'aes128gcm', 'high', 'called', 'AR-001', 'Sie sind dran: AR-001', True)" \
    "the called notice at the push service: VAPID verified, decrypted, sent again under the same topic after the 500"
  reached=$(hub_psql -c "SELECT extract(epoch FROM received_at) FROM event WHERE type = 'ticket.called' AND payload LIKE '%\"AR-001\"%'")
  notified=$(notices_seen after "$(head -n 1 "$WORK/push.log")" "$reached")
  assert_eq "$(grep -c . "$WORK/gateway.log")" 0 "notices of the website's visitors at the app's gateway"
  # The code read off the screen, at the door: admitted once.
  clupctl sim scan "$code" >/dev/null || fail "the code from the phone's screen was refused: $(clupctl sim scan "$code" 2>&1)"
  rc=0; out=$(clupctl sim scan "$code" 2>&1) || rc=$?
  assert_status $rc 1 "the same code scanned again"
  assert_contains "$out" "already used"
  # The other person stopped the page updating, then left from the website: voided at the totem.
  assert_eq "$(field second_number)" AR-002 "the second place"
  assert_eq "$(field second_updating) $(field stopped)" "yes no" "the page updating itself, then asked not to"
  assert_contains "$(field stopped_text)" "Diese Seite aktualisiert sich nicht selbst."
  assert_eq "$(field second_state)" left "the second place after leaving"
  wait_until_prints 30 1 totem_events_of ticket.voided AR-002
  order=$(totem_sql "SELECT json_extract(payload, '$.ticketCalled._0') FROM event WHERE type = 'ticket.called' ORDER BY seq" | tr '\n' ' ')
  assert_eq "$order" "A-001 A-002 AR-001 " "the called order"
  axe=$(python3 "$ROOT/Tests/integration/tools/axe-summary.py" "$seen")
  assert_eq "${axe%% *}" 10 "pages axe-core checked"
  assert_eq "$(echo "$axe" | cut -d" " -f2)" 0 "axe-core's violations: $axe"
  # A form posted from another origin (another port of the same host), or with none, joins nobody.
  for origin in "https://127.0.0.1:$(free_port)" ""; do
    assert_eq "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/hub/ca.pem" ${origin:+-H "Origin: $origin"} -X POST "$HUB_URL/line/7/join")" 403 \
      "a join from [$origin]"
  done
  echo "report: positions seen on the phone: $(field positions), updated in place; the call reaching the hub to the push service's first receipt: $notified s"
  echo "report: axe-core on the store's and a place's page in 5 languages: $(echo "$axe" | cut -d" " -f2) violations"
}

# 25 joins at once from one address (behind the chain's proxy, which names it in
# X-Forwarded-For), each without a cookie, then a customer from another address: the one
# address takes at most what one network may take in a minute, and the other still joins
# (issue 40: 25 such posts took all 20 places).
test_a_bot_on_one_address_takes_at_most_its_share_of_the_website_line() {
  hub_up
  sed -i 's/^\[database\]/trusted_proxies = ["127.0.0.1"]\n[database]/' "$WORK/hub.toml"
  hub_kill hub
  hub_serve hub "$HUB_PORT"
  enrol A main >/dev/null
  kiosk_start
  wait_synced
  local bots=() i
  for i in $(seq 1 25); do
    curl -s -o /dev/null -w '%{http_code}\n' --cacert "$WORK/hub/ca.pem" -H "Origin: $HUB_URL" -H "X-Forwarded-For: 203.0.113.9" \
      -X POST "$HUB_URL/line/7/join" > "$WORK/bot-$i" &
    bots+=($!)
  done
  wait "${bots[@]}"
  taken=$(cat "$WORK"/bot-* | grep -c '^303$' || true)
  refused=$(cat "$WORK"/bot-* | grep -c '^429$' || true)
  assert_eq "$taken $refused" "5 20" "the bot's 25 joins: taken, refused"
  assert_eq "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/hub/ca.pem" -H "Origin: $HUB_URL" -H "X-Forwarded-For: 198.51.100.20" \
    -X POST "$HUB_URL/line/7/join")" 303 "a customer from another address"
  assert_eq "$(hub_psql -c "SELECT count(*), count(DISTINCT client_net) FROM remote_ticket")" "6|2" "places and networks at the hub"
  echo "report: 25 parallel joins from one address took $taken places ($refused refused); another address then joined"
}

# the gateway refuses is kept with why, for `clup-hub notices` and the panel's fleet page.
test_a_cancelled_booking_reaches_the_gateway_signed_and_a_refused_notice_is_kept_with_why() {
  hub_up
  clup_hub store set 7 --capacity 4 --booking-share 0.5 --priority-share 0 --slot-minutes 5 >/dev/null
  clup_hub store hours 7 --opens 00:00 --closes 24:00 --time-zone UTC >/dev/null
  # Reminders off until the end: the notices below are the cancellations.
  clup_hub store notices 7 --reminder-minutes 0 >/dev/null
  local log=$WORK/gateway.log
  gateway_up
  next=$(iso_time "$(next_slot 5)")
  first=$(app POST /bookings "{\"slotStart\": \"$next\", \"customerRef\": \"cust-0001\"}" | json_field "['number']")
  second=$(app POST /bookings "{\"slotStart\": \"$next\", \"customerRef\": \"cust-0002\"}" | json_field "['number']")

  cancelled=$EPOCHREALTIME
  assert_eq "$(app POST "/bookings/$first/cancel" '{"customerRef": "cust-0001"}' | status_of)" 200 "the first cancellation"
  # shellcheck disable=SC2016 # counted again at each try
  wait_until 30 '[ "$(wc -l < "$log")" -ge 1 ]'
  got=$(head -n 1 "$log")
  assert_eq "$(notices_seen cancelled "$got")" \
    "True 200 True cancelled $first cust-0001 1" "the notice as the gateway received and checked it"
  took=$(notices_seen after "$got" "$cancelled")
  wait_until_prints 10 1 hub_psql -c "SELECT count(*) FROM notice WHERE sent_at IS NOT NULL"

  # The gateway refuses the next one (a 400): given up at once, with why.
  printf '200\n400\n' > "$WORK/gateway-statuses"
  cancelled=$EPOCHREALTIME
  assert_eq "$(app POST "/bookings/$second/cancel" '{"customerRef": "cust-0002"}' | status_of)" 200 "the second cancellation"
  wait_until_prints 30 1 hub_psql -c "SELECT count(*) FROM notice WHERE dead_at IS NOT NULL"
  took_second=$(notices_seen after "$(sed -n 2p "$log")" "$cancelled")
  listed=$(clup_hub notices)
  assert_contains "$listed" "booking $second" "clup-hub notices"
  assert_contains "$listed" "the gateway refused it: 400"
  printf '%s\n' "chain-admin-secret-1" | clup_hub manager add root --role chain-admin >/dev/null
  curl -s --cacert "$WORK/hub/ca.pem" -c "$WORK/panel-jar" -H "Origin: $HUB_URL" --data-urlencode name=root \
    --data-urlencode password=chain-admin-secret-1 -o /dev/null "$HUB_URL/panel/login"
  fleet=$(curl -s --cacert "$WORK/hub/ca.pem" -b "$WORK/panel-jar" "$HUB_URL/panel/fleet")
  assert_contains "$fleet" '<h2 id="notices">Notices not delivered</h2>' "the fleet page's dead letters"
  assert_contains "$fleet" "<td>$second</td>"
  assert_contains "$fleet" "<td>the gateway refused it: 400</td>"
  assert_eq "$(notices_seen fresh "$log")" 1 \
    "notices the gateway took (each idempotency key once)"
  # Reminders an hour ahead: a booking made in the app for the next slot hears one, once.
  clup_hub store notices 7 --reminder-minutes 60 >/dev/null
  # (The slot after the next: not begun yet, whatever the time this test took.)
  later=$(date -u -d "$next 5 minutes" +%FT%TZ)
  third=$(app POST /bookings "{\"slotStart\": \"$later\", \"customerRef\": \"cust-0003\"}" | json_field "['number']")
  wait_until 60 grep -q '"reminder"' "$log"
  assert_eq "$(grep '"reminder"' "$log" | notices_seen reminders)" \
    "True $third cust-0003 $later" "the reminder as the gateway received and checked it"
  echo "report: cancelled to the gateway's receipt of the signed notice: $took s (the hub started just before), $took_second s for the next"
  echo "report: the refused one: $(clup_hub notices | head -n 1)"
}

# The buttons of the simulated 720 × 1280 screen: "Book a later time", the first time offered.
BOOK_LATER_Y=806 SLOT1_Y=390

# Books the first time offered at the totem; prints what the tap answered.
book_later() {
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  clupctl sim tap $BUTTON_X $BOOK_LATER_Y >/dev/null
  wait_for_screen choosing-slot
  clupctl sim tap $BUTTON_X $SLOT1_Y
}

# The free places the app sees in the slot starting at Unix second START.
app_free() {
  local day
  day=$(TZ=$ZONE date -d "@$1" +%F)
  app GET "/slots?day=$day" | python3 "$ROOT/Tests/integration/tools/slot-free.py" "$(iso_time "$1")"
}

# The start of ticket NUMBER's slot at the hub, in Unix seconds.
hub_slot_start() { hub_psql -c "SELECT extract(epoch FROM slot_start)::bigint FROM ticket WHERE number = '$1'"; }

test_a_customer_at_the_totem_books_a_later_time_through_the_hub_and_offline_from_its_own_share() {
  hub_up
  # A time zone where it is day now, so that the store's day has slots left at any hour the test runs.
  ZONE=$(python3 "$ROOT/Tests/integration/tools/daytime-zone.py")
  # 4 booking places per slot (8 × 0.5), of which 1 is kept for the totem's own bookings.
  clup_hub store set 7 --capacity 8 --booking-share 0.5 --priority-share 0 --slot-minutes 30 --totem-booking-places 1 >/dev/null
  clup_hub store hours 7 --opens 00:00 --closes 24:00 --time-zone "$ZONE" >/dev/null
  enrol A main >/dev/null
  KIOSK_TIMEZONE=$ZONE kiosk_start
  wait_until 30 "clupctl status | grep -q 'open 00:00–24:00, 1 own bookings per slot'"

  # Online: the place is booked through the hub, printed with its time and the hub's code.
  out=$(book_later)
  assert_contains "$out" "asking the hub for a place at"
  wait_until 30 "[ -n \"\$(ticket_field ZB-001 state)\" ]"
  assert_eq "$(wait_for_print ZB-001)" waiting "the booking printed at the totem"
  read -r start ref code < <(hub_psql -F ' ' -c "SELECT extract(epoch FROM slot_start)::bigint, customer_ref, code FROM booking WHERE number = 'ZB-001'")
  assert_contains "$ref" "totem-store-7-totem-A-"
  assert_eq "$(printed_qr_text ZB-001)" "$code" "the QR code printed is the hub's booking code"
  time=$(TZ=$ZONE date -d "@$start" +%H:%M)
  assert_contains "$(pdftotext "$WORK/ZB-001.pdf" - | tr '\n' ' ')" "Your time: $time"
  assert_eq "$(app_free "$start")" 2 "the app's free places at $time: 4, less 1 kept for the totem, less ZB-001"
  echo "report: booked at the totem through the hub: ZB-001 for $time ($ZONE), printed with the hub's code"

  # Offline: the hub does not answer; the totem books from its own share of a slot, once.
  hub_kill hub KILL
  out=$(book_later)
  number=$(newest_ticket)
  assert_eq "$number" AB-001 "the booking from the totem's own share ($out)"
  assert_eq "$(wait_for_print AB-001)" waiting
  assert_eq "$(printed_qr_text AB-001)" "$(ticket_field AB-001 code)" "the QR code printed is the totem's own code"
  book_later >/dev/null
  assert_eq "$(wait_for_print AB-002)" waiting

  # Back online: the hub hears of them; a totem's own booking counts even once its share is withdrawn.
  hub_serve hub "$HUB_PORT"
  clupctl sync now >/dev/null
  wait_synced
  own1=$(hub_slot_start AB-001) own2=$(hub_slot_start AB-002)
  # The first time offered then (the slot of ZB-001, or the next one if it began meanwhile),
  # and for AB-002 the one after: the totem's one place in AB-001's slot was taken.
  assert_eq "$((own2 - own1))" 1800 "AB-002's slot after AB-001's"
  assert_contains "$(pdftotext "$WORK/AB-001.pdf" - | tr '\n' ' ')" "Your time: $(TZ=$ZONE date -d "@$own1" +%H:%M)"
  assert_contains "$(pdftotext "$(printed_job_file AB-002)" - | tr '\n' ' ')" "Your time: $(TZ=$ZONE date -d "@$own2" +%H:%M)"
  echo "report: offline, from the totem's share of one place per slot: AB-001 at $(TZ=$ZONE date -d "@$own1" +%H:%M), then AB-002 at $(TZ=$ZONE date -d "@$own2" +%H:%M)"
  clup_hub store set 7 --totem-booking-places 0 >/dev/null
  for slot in $(printf '%s\n' "$start" "$own1" "$own2" | sort -u); do
    taken=$(printf '%s\n' "$start" "$own1" "$own2" | grep -c "^$slot$")
    assert_eq "$(app_free "$slot")" "$((4 - taken))" "the app's free places at $(TZ=$ZONE date -d "@$slot" +%H:%M): 4 less the bookings there"
  done

  # The fleet sees the totem's devices and printer; the wait told at issue reaches the hub.
  take_ticket A-001
  wait_synced
  assert_eq "$(hub_psql -c "SELECT promised_wait_minutes FROM ticket WHERE number = 'A-001'")" 0 "an empty store: no wait told"
  # The health rides on each batch: the one that carried A-001 may have been read while
  # cupsd was still finishing the job. A sync asked for (an audited event) sends a new one.
  for _ in $(seq 1 20); do
    health=$(hub_psql -c "SELECT last_health FROM totem")
    case $health in *'"printer":"ready: idle'*) break ;; esac
    clupctl sync now >/dev/null
    wait_synced
  done
  assert_contains "$health" '"printer":"ready: idle'
  assert_contains "$health" '"role":"touchscreen"'
  echo "report: the fleet's last health of the totem: $health"

  # The store fills while an app booking's slot is near: a delay notice waits for the SMS
  # gateway, once; the booking made at the totem has nobody to tell.
  out=$(app POST /bookings "{\"slotStart\": \"$(date -u -d "@$start" +%FT%TZ)\", \"customerRef\": \"cust-late-01\"}")
  assert_eq "$(echo "$out" | status_of)" 201 "an app booking at $time"
  clupctl ledger correct --set 8 --reason "counted at the door" >/dev/null
  wait_synced
  take_ticket A-002
  wait_synced
  assert_eq "$(hub_psql -c "SELECT kind, booking_number, customer_ref FROM notice WHERE kind <> 'reminder' ORDER BY notice_id")" \
    "delayed|ZB-002|cust-late-01" "the notices with the store full (a reminder aside)"
}

# Makes the totem's link lossy and slow, cut, or clean again: LINK_FAULT lossy|cut|none.
# With the kernel's netem (sch_netem): 20 % loss and 100 ± 50 ms delay each way, or 100 %
# loss. A kernel without it (this project's CI VM has none): nftables drops 20 % of the
# namespace's packets each way at random (numgen) and tc tbf holds the link to 256 kbit/s,
# or drops everything. Which one ran is in LINK_SHAPER.
link_fault() {
  local fault=$1
  nsenter -t "$NS_PID" -n tc qdisc del dev "$VETH_NS" root 2>/dev/null || true
  tc qdisc del dev "$VETH" root 2>/dev/null || true
  nsenter -t "$NS_PID" -n nft delete table inet clupfault 2>/dev/null || true
  [ "$fault" = none ] && return 0
  if [ -z "${LINK_SHAPER:-}" ]; then
    if nsenter -t "$NS_PID" -n tc qdisc add dev "$VETH_NS" root netem delay 1ms 2>/dev/null; then
      LINK_SHAPER=netem
      nsenter -t "$NS_PID" -n tc qdisc del dev "$VETH_NS" root
    else
      LINK_SHAPER="nftables+tbf"
    fi
  fi
  if [ "$LINK_SHAPER" = netem ]; then
    local spec=(delay 100ms 50ms loss 20%)
    [ "$fault" = cut ] && spec=(loss 100%)
    nsenter -t "$NS_PID" -n tc qdisc add dev "$VETH_NS" root netem "${spec[@]}"
    tc qdisc add dev "$VETH" root netem "${spec[@]}"
  else
    local drop="numgen random mod 100 < 20 drop"
    [ "$fault" = cut ] && drop="drop"
    nsenter -t "$NS_PID" -n nft -f - <<NFT
table inet clupfault {
  chain in { type filter hook input priority 0; policy accept; iifname "$VETH_NS" $drop; }
  chain out { type filter hook output priority 0; policy accept; oifname "$VETH_NS" $drop; }
}
NFT
    nsenter -t "$NS_PID" -n tc qdisc add dev "$VETH_NS" root tbf rate 256kbit burst 4kb latency 400ms
    tc qdisc add dev "$VETH" root tbf rate 256kbit burst 4kb latency 400ms
  fi
}

# The hub gone for 40 to 90 s (connections refused: the proxy in front of it is gone too),
# then back: `clupctl sync now` answers with the attempt it started, and that attempt finds
# the hub, every time (issue 40: after a cut of 40 s or more the HTTP client's own pool kept
# waiting out a pause of up to a minute, and sync now answered with the cut's stale error).
# RECONNECT_CUTS cuts (2 here; the closing note's figure is 10).
test_sync_now_after_a_long_cut_reaches_the_hub_at_once() {
  hub_up
  PROXY_PIDS=()
  fault_proxy link
  local port=$FAULT_PROXY_PORT cuts=${RECONNECT_CUTS:-2} online=0 cut seconds started took took_all=""
  HUB_URL="https://127.0.0.1:$port" enrol A main >/dev/null
  kiosk_start
  wait_synced
  for cut in $(seq 1 "$cuts"); do
    kill -TERM "${PROXY_PIDS[-1]}"; wait "${PROXY_PIDS[-1]}" 2>/dev/null || true
    seconds=$((40 + RANDOM % 51))
    clupctl sim pass in >/dev/null
    sleep "$seconds"  # not a wait: the cut's length is the fault itself
    fault_proxy link 0 "$port"
    started=$EPOCHREALTIME
    out=$(clupctl sync now)
    took=$(python3 -c "print('%.2f' % ($EPOCHREALTIME - $started))")
    took_all="$took_all ${seconds}s:${took}s"
    case "$out" in *"state        online"*"0 events waiting"*) online=$((online + 1)) ;; *) echo "cut $cut of $seconds s: $out" >&2 ;; esac
  done
  echo "report: sync now after each cut (cut length: answered online in):$took_all"
  assert_eq "$online" "$cuts" "cuts after which sync now's own attempt reached the hub"
}

test_a_lossy_slow_link_and_then_a_partition_lose_and_duplicate_nothing() {
  # The totem in a network namespace of its own; a veth pair to the hub, on a /30 of its own.
  local net="10.$((RANDOM % 200 + 20)).$((RANDOM % 250)).$((RANDOM % 60 * 4))"
  local base=${net%.*} last=${net##*.}
  VETH="clh$$" VETH_NS="cln$$"
  unshare -n sleep 100000 &  # not a wait: a process that holds the namespace, killed at the end
  NS_PID=$!
  ip link add "$VETH" type veth peer name "$VETH_NS" || fail "cannot make a veth pair (needs root and iproute2)"
  ip link set "$VETH_NS" netns "$NS_PID"
  ip addr add "$base.$((last + 1))/30" dev "$VETH"
  ip link set "$VETH" up
  nsenter -t "$NS_PID" -n ip addr add "$base.$((last + 2))/30" dev "$VETH_NS"
  nsenter -t "$NS_PID" -n ip link set "$VETH_NS" up
  nsenter -t "$NS_PID" -n ip link set lo up
  HUB_HOST="$base.$((last + 1))" hub_up
  HUB_URL="https://$base.$((last + 1)):$HUB_PORT"
  code=$(clup_hub enrolment-code --store 7 --letter A --door north)
  nsenter -t "$NS_PID" -n "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  KIOSK_WRAP="nsenter -t $NS_PID -n" kiosk_start
  wait_synced 60

  # A slow, lossy link: 20 % of packets lost each way.
  link_fault lossy
  for _ in $(seq 1 5); do
    for _ in $(seq 1 6); do clupctl sim pass in >/dev/null; clupctl sim pass out >/dev/null; done
    clupctl sync now >/dev/null
  done
  take_ticket A-001
  wait_synced 240
  echo "report: through a lossy, slow link ($LINK_SHAPER, 20 % loss each way): $(clupctl sync | sed -n 's/^events *//p')"

  # A full partition: the totem carries on, its outbox grows, the sync says offline.
  link_fault cut
  for _ in $(seq 1 10); do clupctl sim pass in >/dev/null; done
  clupctl sync now >/dev/null
  wait_until_prints 120 offline sync_field state
  depth=$(sync_field outboxDepth)
  echo "report: partitioned: $(clupctl sync | sed -n 's/^\(state\|events\|last error\) *//p' | tr '\n' ';')"
  [ "${depth:-0}" -gt 0 ] || fail "nothing waiting in the outbox while partitioned"

  # Healed: everything reaches the hub once.
  link_fault none
  clupctl sync now >/dev/null
  wait_synced 240
  figures=$(python3 "$ROOT/Tests/integration/tools/sync-figures.py" 7 "$WORK/state/clup.sqlite") || fail "$figures"
  report_lines "$figures"
  assert_eq "$(hub_psql -c "SELECT sum(entries) FROM occupancy WHERE store_id = '7'")" 40 "entries the hub counts"
}

test_the_hub_answers_as_its_openapi_document_says_under_schemathesis() {
  hub_up
  st="$ROOT/.venv-tools/bin/st"
  [ -x "$st" ] || fail "schemathesis is not installed (scripts/setup installs it into .venv-tools)"
  rc=0
  # Run from the work folder: schemathesis keeps a .schemathesis/ folder where it runs.
  # The app's token goes with every request: the bookings API is fuzzed past its door (the
  # totems' endpoints ignore it and refuse the unsigned requests). One worker: with two
  # threads, Python 3.11's ast module (which Hypothesis uses to describe its strategies) can
  # lose count of its recursion depth and crash the run ("AST constructor recursion depth
  # mismatch"), a fault of the tool that says nothing of the hub.
  (cd "$WORK" && "$st" run "$ROOT/docs/hub-openapi.yaml" --url "$HUB_URL" --tls-verify "$WORK/hub/ca.pem" \
    -H "Authorization: Bearer $HUB_APP_TOKEN" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,negative_data_rejection \
    --max-examples 40 --generation-deterministic --workers 1 --suppress-health-check all \
    >"$WORK/schemathesis.txt" 2>&1) || rc=$?
  [ $rc -eq 0 ] || { tail -n 60 "$WORK/schemathesis.txt"; fail "schemathesis found problems (exit $rc)"; }
  echo "report: schemathesis: $(grep -E "test cases|passed|Test cases" "$WORK/schemathesis.txt" | tail -n 2 | tr -s ' ' | tr '\n' ' ')"
  # Nothing schemathesis sent may have left a 5xx in the hub's log either.
  grep -q "request failed" "$WORK/hub.log" && fail "the hub logged a failed request: $(grep "request failed" "$WORK/hub.log" | head -n 3)"
  true
}

test_the_hub_unit_verifies_and_is_hardened() {
  assert_unit_hardened clup-hub 1.2
}

run_tests
