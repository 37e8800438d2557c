#!/usr/bin/env bash
# The hub on a replicated PostgreSQL (two servers under Patroni, etcd holding the leader
# key, synchronous replication): the primary's machine dies mid-ingest; the replica takes
# over, the hub finds it by itself, the totems see a pause, and every event the hub
# acknowledged is there afterwards.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"
source "$ROOT/scripts/lib/kiosk.sh"
source "$ROOT/scripts/lib/hub.sh"
source "$ROOT/scripts/lib/patroni.sh"

test_the_primary_killed_mid_ingest_the_replica_takes_over_and_nothing_acknowledged_is_lost() {
  trap 'hub_stop_all; patroni_stop_all' EXIT
  local began
  began=$EPOCHREALTIME
  patroni_start
  echo "report: etcd and two PostgreSQL under Patroni up in $(echo "$began $EPOCHREALTIME" | awk '{ printf "%.0f", $2 - $1 }') s"
  assert_eq "$(patroni_primary)" 1 "node 1 is the primary"
  HUB_PORT=$(free_port)
  patroni_write_hub_config hub "$HUB_PORT"
  hub_init
  hub_serve hub "$HUB_PORT"

  # Twenty totems, one per store, upload batches one after the other until told to stop
  # (three minutes at most).
  python3 "$ROOT/scripts/lib/hub-load.py" setup 20 "$WORK/keys.json" 500000 > "$WORK/setup.sql"
  patroni_psql 1 -f "$WORK/setup.sql"
  python3 "$ROOT/scripts/lib/hub-load.py" steady "https://127.0.0.1:$HUB_PORT" "$WORK/hub/ca.pem" "$WORK/keys.json" 180 \
    "$WORK/load.json" "$WORK/stop" &
  local load=$!
  # Once the hub has taken some batches, the primary's machine dies.
  wait_until 30 "[ \"\$(patroni_psql 1 -c 'SELECT count(*) FROM event' 2>/dev/null || echo 0)\" -ge 2000 ]"
  local killed=$EPOCHREALTIME
  patroni_kill 1
  wait_until_prints 60 2 patroni_primary
  local promoted=$EPOCHREALTIME
  # The hub takes batches again, into the new primary; then the totems stop.
  local at_promotion
  at_promotion=$(patroni_psql 2 -c 'SELECT count(*) FROM event')
  wait_until 60 "[ \"\$(patroni_psql 2 -c 'SELECT count(*) FROM event')\" -ge $((at_promotion + 2000)) ]"
  touch "$WORK/stop"
  wait "$load" || fail "the load generator failed"

  # What each totem was told is held is on the new primary, every seq of it.
  local report
  report=$(python3 "$ROOT/Tests/integration/tools/load-answers.py" "$WORK/load.json" "$killed" "$promoted") \
    || fail "the load's answers: $report"
  local again promotion batches failures total pause
  read -r again promotion batches failures total pause <<<"$(head -n 1 <<<"$report")"
  local device held found missing=0
  while read -r device held; do
    found=$(patroni_psql 2 -c "SELECT count(DISTINCT seq) FROM event WHERE device_id = '$device' AND seq <= $held")
    [ "$found" = "$held" ] || { echo "    $device: acknowledged $held, found $found" >&2; missing=$((missing + 1)); }
  done < <(tail -n +2 <<<"$report")
  assert_eq "$missing" 0 "totems missing acknowledged events"
  assert_contains "$(cat "$WORK/hub.log")" "the database's primary is now 127.0.0.1:$PATRONI_PG_2"
  echo "report: primary SIGKILLed mid-ingest: replica promoted after $promotion s; the hub answered again $again s after the kill (no batch answered for $pause s)"
  echo "report: $total events acknowledged to 20 totems in $batches batches ($failures attempts failed and were sent again), all $total found on the new primary"
}

run_tests
