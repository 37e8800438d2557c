#!/usr/bin/env bash
# The alerts a chain's people get, end to end with the real servers: a totem's events reach
# the hub, Prometheus (Debian's) scrapes the hub's /metrics and evaluates the rules shipped
# with clup-hub (prometheus/clup-hub.rules.yml), Alertmanager (Debian's) routes what fires
# with the example configuration shipped beside them, and a webhook receiver
# (tools/alert-receiver.py) stands for the chain's chat or paging service.
#
# The rules are the shipped ones, with their waits shortened so that the test takes
# seconds, not minutes (each change is checked to have happened once): what the rules
# decide at those times is promtool's unit tests' (scripts/check-prometheus).
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"
source "$ROOT/scripts/lib/kiosk.sh"
source "$ROOT/scripts/lib/hub.sh"

BUTTON_X=360 BUTTON_Y=640
# The store of these tests: the example Alertmanager configuration sends its staff's
# alerts to its own webhook (`store-8`).
STORE=8
# The rules' times in this test (Prometheus scrapes every 2 s and evaluates every 1 s): the store's long wait is alerted after WAIT_FOR, a door
# after SILENT_AFTER seconds without a batch and SILENT_FOR more.
WAIT_FOR=10 SILENT_AFTER=15 SILENT_FOR=5

stop_everything() {
  kiosk_stop
  for pid in ${SERVER_PIDS[@]+"${SERVER_PIDS[@]}"}; do stop_pid "$pid"; done
  hub_stop_all
}

# Starts COMMAND… in the background, its output in $WORK/NAME.log, and keeps its pid.
serve() {
  local name=$1; shift
  "$@" >>"$WORK/$name.log" 2>&1 &
  SERVER_PIDS+=("$!")
}

# The shipped rules with the test's times: each replacement must match once in its alert.
shortened_rules() {
  python3 - "$ROOT/prometheus/clup-hub.rules.yml" "$WAIT_FOR" "$SILENT_AFTER" "$SILENT_FOR" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
wait_for, silent_after, silent_for = sys.argv[2:5]
def change(alert, old, new):
    global text
    start = text.index("- alert: " + alert + "\n")
    end = text.find("- alert: ", start + 1)
    end = len(text) if end < 0 else end
    block = text[start:end]
    if block.count(old) != 1:
        sys.exit(f"the rule {alert} no longer holds [{old}] once: the test's times need changing")
    text = text[:start] + block.replace(old, new) + text[end:]
change("ClupStoreWaitLong", "for: 2m", f"for: {wait_for}s")
change("ClupDoorSilent", "> 300)", f"> {silent_after})")
change("ClupDoorSilent", "for: 1m", f"for: {silent_for}s")
# Quiet for a while after the hub or its database was down: 20 s here, not 5 minutes.
change("ClupDoorSilent", "(min_over_time(clup_hub_database_up[5m]) == 0)", "(min_over_time(clup_hub_database_up[20s]) == 0)")
change("ClupDoorSilent", "(min_over_time(up{job=\"clup-hub\"}[5m]) == 0)", "(min_over_time(up{job=\"clup-hub\"}[20s]) == 0)")
sys.stdout.write(text)
PY
}

# Prometheus (scraping every 2 s, evaluating every 1 s) and Alertmanager (the example
# configuration, sending at once to the receiver on RECEIVER_PORT) on free ports.
start_alerting() {
  RECEIVER_PORT=$(free_port) AM_PORT=$(free_port) PROM_PORT=$(free_port)
  serve receiver python3 "$ROOT/Tests/integration/tools/alert-receiver.py" "$RECEIVER_PORT" "$WORK/alerts.jsonl"
  sed -e "s|127.0.0.1:9095|127.0.0.1:$RECEIVER_PORT|" -e 's/group_wait: 30s/group_wait: 1s/' -e 's/group_interval: 5m/group_interval: 1s/' \
    "$ROOT/prometheus/alertmanager.example.yml" > "$WORK/alertmanager.yml"
  grep -q "127.0.0.1:$RECEIVER_PORT/hook/store-$STORE" "$WORK/alertmanager.yml" || fail "the example sends store $STORE nowhere"
  # No cluster: a lone Alertmanager, on no port but its own.
  serve alertmanager prometheus-alertmanager --config.file="$WORK/alertmanager.yml" --storage.path="$WORK/am" \
    --web.listen-address="127.0.0.1:$AM_PORT" --cluster.listen-address=
  shortened_rules > "$WORK/rules.yml" || fail "the shipped rules could not be shortened"
  cat > "$WORK/prometheus.yml" <<YAML
global: {scrape_interval: 2s, scrape_timeout: 2s, evaluation_interval: 1s}
rule_files: ["$WORK/rules.yml"]
alerting:
  alertmanagers: [{static_configs: [{targets: ["127.0.0.1:$AM_PORT"]}]}]
scrape_configs:
  - job_name: clup-hub
    scheme: https
    authorization: {type: Bearer, credentials: "$HUB_METRICS_TOKEN"}
    tls_config: {ca_file: "$WORK/hub/ca.pem"}
    static_configs: [{targets: ["127.0.0.1:$HUB_PORT"]}]
YAML
  serve prometheus prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
    --web.listen-address="127.0.0.1:$PROM_PORT"
  # Up when Prometheus has scraped the hub and has an Alertmanager to send to.
  # shellcheck disable=SC2016 # run again at each try
  (wait_until 60 '[ "$(prom_query "up{job=\"clup-hub\"}")" = 1 ]') || fail "Prometheus never scraped the hub: $(tail -n 5 "$WORK/prometheus.log")"
  # shellcheck disable=SC2016
  (wait_until 60 'curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/alertmanagers" | grep -q "$AM_PORT"') \
    || fail "Prometheus found no Alertmanager: $(tail -n 5 "$WORK/alertmanager.log")"
}

# The value of a PromQL query's first sample (empty if none).
prom_query() {
  curl -sf --get "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" \
    | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}

# Waits up to SECONDS for the hub's figure SERIES to be VALUE, asking once a second (each
# ask is a whole scrape's work for the hub).
wait_hub_metric() {
  local seconds=$1 series=$2 value=$3 got=""
  for _ in $(seq 1 "$seconds"); do
    got=$(hub_metric "$series") || true
    [ "$got" = "$value" ] && return 0
    sleep 1  # not a wait: the pause between polls
  done
  fail "not within $seconds s: the hub's $series is [$got], not [$value]"
}

# The hub's figure NAME{LABELS} from its /metrics (empty if absent).
hub_metric() {
  curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics" \
    | awk -v series="$1" '$1 == series { print $2 }'
}

# The first alert the receiver got with STATUS (firing, resolved) and ALERTNAME, as
# "seconds receiver labels-and-annotations-json"; empty if none yet.
received() {
  [ -f "$WORK/alerts.jsonl" ] || return 0
  python3 - "$WORK/alerts.jsonl" "$1" "$2" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    alert = json.loads(line)
    if alert.get("status") == sys.argv[2] and alert.get("labels", {}).get("alertname") == sys.argv[3]:
        print(f'{alert["at"]:.1f} {alert["receiver"]} {json.dumps({**alert["labels"], **alert["annotations"]}, sort_keys=True)}')
        break
PY
}

# Waits up to SECONDS for the receiver to get STATUS ALERTNAME; prints what came.
wait_received() {
  local seconds=$1 status=$2 name=$3 got=""
  for _ in $(seq 1 $((seconds * 10))); do
    got=$(received "$status" "$name")
    [ -n "$got" ] && { echo "$got"; return 0; }
    sleep 0.1  # not a wait: the pause between polls
  done
  fail "the receiver got no $status $name within $seconds s; Prometheus says $(curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/alerts")"
}

# A JSON field of what `received` printed.
field() { python3 -c 'import json, sys; print(json.loads(sys.argv[1].split(" ", 2)[2]).get(sys.argv[2], ""))' "$1" "$2"; }

# Seconds from Unix time $1 to $2, one decimal.
seconds_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

test_a_long_line_and_a_silent_door_reach_the_chains_receivers_through_alertmanager_and_resolve() {
  trap stop_everything EXIT
  SERVER_PIDS=()
  hub_start
  clup_hub store create "$STORE" --name "CLup Corso" --capacity 2 >/dev/null
  # Open round the clock: the door alert is for opening hours.
  clup_hub store hours "$STORE" --opens 00:00 --closes 24:00 >/dev/null
  assert_eq "$(clup_hub store alerts "$STORE" --wait-minutes 5)" "store $STORE: staff alerted past a 5 min wait and no line length"
  code=$(clup_hub enrolment-code --store "$STORE" --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  kiosk_start
  start_alerting
  assert_eq "$(hub_metric "clup_hub_store_alert_wait_seconds{store=\"$STORE\"}")" 300

  # Two in (the store is full), then two tickets: they wait, and a new place would wait
  # (2 + 1) × 3 minutes, the hub's estimate before it has seen calls.
  clupctl sim pass in >/dev/null
  clupctl sim pass in >/dev/null
  for number in A-001 A-002; do
    clupctl sim approach >/dev/null
    wait_for_screen '\(welcome\|store-full\)'
    clupctl sim tap $BUTTON_X $BUTTON_Y >/dev/null
    wait_for_print "$number" >/dev/null
  done
  wait_hub_metric 60 "clup_hub_store_estimated_wait_seconds{store=\"$STORE\"}" 540
  over=$(date +%s.%N)
  got=$(wait_received $((WAIT_FOR + 60)) firing ClupStoreWaitLong)
  took=$(seconds_between "$over" "${got%% *}")
  echo "report: the long wait reached the store's webhook $took s after the hub showed it (the rule waits $WAIT_FOR s; scrapes every 2 s, evaluations every 1 s)"
  # Not before the rule's time: it waited, as it will for 2 minutes in a chain.
  awk -v t="$took" -v f="$WAIT_FOR" 'BEGIN { exit !(t >= f - 1) }' || fail "fired after $took s, before the rule's $WAIT_FOR s"
  receiver=$(echo "$got" | cut -d' ' -f2)
  assert_eq "$receiver" "store-$STORE" "the store's alert goes to the store's receiver"
  assert_eq "$(field "$got" store)" "$STORE"
  assert_eq "$(field "$got" audience)" store
  assert_eq "$(field "$got" summary)" "Store $STORE: the wait is 9 minutes, over the 5 set"
  runbook=$(field "$got" runbook_url)
  assert_eq "$runbook" "https://127.0.0.1:$HUB_PORT/runbooks#clupstorewaitlong"
  page=$(curl -sf --cacert "$WORK/hub/ca.pem" "${runbook%%#*}") || fail "the runbook link does not answer"
  assert_contains "$page" '<h2 id="clupstorewaitlong">ClupStoreWaitLong</h2>'

  # The line shortens: the two leave, the waiting are called, the wait is none.
  clupctl sim pass out >/dev/null
  clupctl sim pass out >/dev/null
  wait_hub_metric 60 "clup_hub_store_estimated_wait_seconds{store=\"$STORE\"}" 0
  short=$(date +%s.%N)
  got=$(wait_received 60 resolved ClupStoreWaitLong)
  echo "report: resolved at the store's webhook $(seconds_between "$short" "${got%% *}") s after the line shortened"
  assert_eq "$(echo "$got" | cut -d' ' -f2)" "store-$STORE"

  # The door cut off: clupd stops; the hub hears nothing more from it.
  device=$(sqlite3 "$WORK/state/clup.sqlite" "SELECT device_id FROM event LIMIT 1")
  kill -TERM "$CLUPD_PID"; wait "$CLUPD_PID" 2>/dev/null || true; CLUPD_PID=
  last=$(hub_metric "clup_hub_totem_last_contact_timestamp_seconds{device=\"$device\",store=\"$STORE\"}")
  [ -n "$last" ] || fail "the hub gives no last contact for $device"
  got=$(wait_received $((SILENT_AFTER + SILENT_FOR + 90)) firing ClupDoorSilent)
  took=$(seconds_between "$last" "${got%% *}")
  echo "report: the silent door reached the support webhook $took s after its last batch (the rule: $SILENT_AFTER s silent, then $SILENT_FOR s)"
  awk -v t="$took" -v f="$((SILENT_AFTER + SILENT_FOR))" 'BEGIN { exit !(t >= f - 1) }' || fail "fired $took s after the last batch"
  assert_eq "$(echo "$got" | cut -d' ' -f2)" chat "a door's silence goes to support's chat, not the store"
  assert_eq "$(field "$got" device)" "$device"
  assert_contains "$(field "$got" summary)" "Door $device of store $STORE not heard for "
  # Back on the network: the next batch resolves it.
  kiosk_start_daemon
  got=$(wait_received 90 resolved ClupDoorSilent)
  assert_eq "$(field "$got" device)" "$device"
  # Nothing fired that should not have: the printer, the devices, the disk were fine.
  others=$(python3 -c 'import json, sys; print(sorted({json.loads(l)["labels"]["alertname"] for l in open(sys.argv[1])}))' "$WORK/alerts.jsonl")
  assert_eq "$others" "['ClupDoorSilent', 'ClupStoreWaitLong']"
}

run_tests
