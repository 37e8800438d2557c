#!/usr/bin/env bash
# clupd's Prometheus text (`clupctl metrics`) as Prometheus itself reads it: its own linter,
# `promtool check metrics`, finds nothing, and the event counters agree with the event log.
# The hub's /metrics is checked the same way in hub.test.sh, against its running hub.
# Needs ROOT and BIN (set by scripts/test), and promtool (Debian's prometheus, scripts/setup).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

test_the_totems_metrics_pass_promtool_and_count_every_event_audit_lines_included() {
  kiosk_start
  # cupsd's answer to the few printer attributes clupd asks for says the queue is ready.
  wait_until 20 "clupctl metrics | grep -Eqx 'clup_totem_printer_ready 1(\\.0)?'"
  clupctl sim pass in >/dev/null
  clupctl ledger correct --delta -1 --reason "counted at the door" >/dev/null
  # The log of this fresh totem, by type: all of it recorded since this clupd started.
  counts=$(sqlite3 -cmd ".timeout 5000" "$WORK/state/clup.sqlite" "SELECT type, count(*) FROM event GROUP BY type")
  assert_contains "$counts" "staff.audit|"   # the technician added and logged in, at least
  metrics=$(clupctl metrics)
  assert_promtool_clean "$metrics" "clupd's metrics"
  while IFS='|' read -r type count; do
    assert_contains "$metrics" "clup_totem_events_total{type=\"$type\"} $count" "the counter of $type events"
  done <<<"$counts"
  # Not enrolled: never synced, said as a timestamp of 0, not as an age.
  echo "$metrics" | grep -Eqx 'clup_totem_sync_last_success_timestamp_seconds 0(\.0)?' || fail "no last success of 0 in [$metrics]"
  case "$metrics" in *seconds_since*) fail "an age is still exported: $metrics" ;; esac
}

run_tests
