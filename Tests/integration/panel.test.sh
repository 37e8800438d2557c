#!/usr/bin/env bash
# The managers' web panel of the hub, in a real browser (Debian's headless Chromium through
# chromedriver) and with curl for what a browser would not send: a private PostgreSQL,
# clup-hub over HTTPS, a totem enrolled at store 7.
# Needs ROOT and BIN (set by scripts/test). Screenshots go to $CLUP_SCREENSHOTS/panel
# (default: test-screenshots/panel in the checkout), kept after the run to be looked at.
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"
source "$ROOT/scripts/lib/kiosk.sh"
source "$ROOT/scripts/lib/hub.sh"

SHOTS="${CLUP_SCREENSHOTS:-$ROOT/test-screenshots}/panel"
ADA_PASSWORD="walk-in-places-ada-7"
ROOT_PASSWORD="chain-admin-secret-1"

stop_everything() {
  kiosk_stop
  if [ -n "${A_WORK:-}" ]; then WORK=$A_WORK kiosk_stop; fi
  hub_stop_all
}

# A hub with stores 7 and 8, Ada managing store 7, an administrator for the chain, and the
# totem of store 7 enrolled and running.
panel_up() {
  trap stop_everything EXIT
  hub_start
  clup_hub store create 7 --name "CLup Market" --capacity 30 >/dev/null
  clup_hub store create 8 --name "CLup Corner" --capacity 12 >/dev/null
  # Open round the clock, so the totem takes tickets whatever the hour the test runs.
  clup_hub store hours 7 --opens 00:00 --closes 24:00 >/dev/null
  printf '%s\n' "$ADA_PASSWORD" | clup_hub manager add ada --role store-manager --store 7 >/dev/null
  printf '%s\n' "$ROOT_PASSWORD" | clup_hub manager add root --role chain-admin >/dev/null
}

# curl with a cookie jar of its own, as a browser on the panel's pages (its forms carry the
# panel's origin): panel_curl JAR [curl options…] URL-PATH
panel_curl() {
  local jar=$1; shift
  curl -s --cacert "$WORK/hub/ca.pem" -b "$WORK/$jar" -c "$WORK/$jar" -H "Origin: $HUB_URL" "$@"
}
status_of() { panel_curl "$@" -o /dev/null -w '%{http_code}'; }
login_as() {  # login_as JAR NAME PASSWORD: prints the status
  status_of "$1" --data-urlencode "name=$2" --data-urlencode "password=$3" "$HUB_URL/panel/login"
}
csrf_of() {  # the CSRF token on a page of JAR's session
  panel_curl "$1" "$HUB_URL/panel/stores/7" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -n 1
}

test_a_manager_changes_the_split_in_a_browser_and_the_totem_shows_it() {
  panel_up
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  kiosk_start
  # Something for the statistics: a ticket taken, called and used, one person still in,
  # and a booking in the next hour's first slot.
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  clupctl sim tap 360 640 >/dev/null
  wait_for_print A-001 >/dev/null
  # shellcheck disable=SC2016 # read and scanned again at each try
  wait_until 60 'clupctl sim scan "$(printed_qr_text A-001)" >/dev/null 2>&1'
  clupctl sim pass in >/dev/null; clupctl sim pass in >/dev/null
  # A-001's holder leaves: the code scanned on the way out, then the exit pulse.
  clupctl sim scan "$(printed_qr_text A-001)" >/dev/null || fail "A-001 scanned on the way out"
  clupctl sim pass out >/dev/null
  slot=$(python3 -c 'import datetime, time; print(datetime.datetime.fromtimestamp((int(time.time()) // 3600 + 1) * 3600, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))')
  # The same slot as the panel shows it, on the store's clock (UTC here).
  shown_slot="${slot:0:10} ${slot:11:5}"
  clup_hub store hours 7 --opens 00:00 --closes 24:00 >/dev/null
  curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_APP_TOKEN" -H 'Content-Type: application/json' \
    --data "{\"slotStart\": \"$slot\", \"customerRef\": \"app-customer-1\"}" "$HUB_URL/v1/stores/7/bookings" >/dev/null \
    || fail "booking the slot at $slot"
  wait_until_prints 60 1 hub_psql -c "SELECT count(left_at) FROM ticket WHERE store_id = '7'"
  assert_contains "$(clupctl status)" "booking share 0.3"
  rm -rf "$SHOTS"
  # 25 walk-in places of 30 leave 5 for bookings: a booking share of 5/30.
  seen=$(PANEL_SAVED_CHECK="CLUP_SOCKET='$WORK/control.sock' '$BIN/clupctl' status | grep -q 'booking share 0.1666'" \
    python3 "$ROOT/Tests/integration/tools/panel-walk.py" "$HUB_URL" ada "$ADA_PASSWORD" 7 25 8 "$SHOTS") \
    || fail "the browser walk failed: $seen"
  field() { python3 -c "import json, sys; print(json.loads(sys.argv[1])$2)" "$seen"; }
  assert_eq "$(field "" "['after_login']")" "$HUB_URL/panel" "where the login leads"
  assert_eq "$(field "" "['cookie']")" "{'secure': True, 'httpOnly': True, 'sameSite': 'Strict', 'path': '/panel'}" "the session cookie"
  assert_eq "$(field "" "['booking_places_before']")" 9 "booking places of 30 at a share of 0.3"
  assert_eq "$(field "" "['booking_places_after']")" 5 "booking places once walk-in places are 25"
  assert_contains "$(field "" "['store_page']")" "Saved."
  assert_contains "$(field "" "['store_page']")" "People inside at the end of each hour"
  # The lane table: A-001 issued, called and admitted; the booked slot: 1 of 5 taken.
  assert_contains "$(field "" "['store_page']")" "regular 1 1 1 0 0"
  assert_contains "$(field "" "['store_page']")" "average wait predicted at issue, of those called (min)"
  assert_contains "$(field "" "['store_page']")" "$shown_slot 1 4"
  assert_contains "$(field "" "['store_page']")" "min, from 1 ticket scanned on the way in and again on the way out"
  assert_contains "$(field "" "['fleet_page']")" "store-7-totem-A-"
  # The devices and the printer as the totem reported them with its uploads.
  assert_contains "$(field "" "['fleet_page']")" "all 7 ok ready:"
  assert_contains "$(field "" "['other_store_page']")" "ada manages store 7 only"
  assert_eq "$(field "" "['after_logout_store']")" "$HUB_URL/panel/login" "the store page after logging out"
  # The totem has the new split: 5 booking places of 30.
  after=$(field "" ".get('split_at_the_totem_after')")
  [ "$after" != None ] || fail "the totem did not show the new split within 60 s of the save"
  echo "report: the totem's clupctl status showed the new split $after s after the click on Save"
  echo "report: $(clupctl status | grep '^settings')"
  # Audited with where it came from and how it ended, as `clup-hub audit` lists it.
  assert_contains "$(hub_psql -c "SELECT who, source, action, result, before, after FROM audit WHERE store_id = '7' AND who = 'ada'")" \
    "ada|panel from 127.0.0.1|store settings changed|ok|capacity 30, walk-in 21, booking 9"
  trail=$(clup_hub audit --store 7)
  assert_contains "$trail" "ada (panel from 127.0.0.1)  store 7  store settings changed  ok  [capacity 30, walk-in 21, booking 9"
  echo "report: clup-hub audit --store 7: $(grep -m1 'ada (panel' <<<"$trail")"
  for png in "$SHOTS"/*.png; do
    [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] || fail "$png is not a PNG"
  done
  echo "report: screenshots: $(cd "$SHOTS" && printf '%s ' *) in $SHOTS"
}

test_a_store_manager_cannot_see_or_change_another_store() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  assert_eq "$(status_of ada "$HUB_URL/panel/stores/7")" 200 "Ada's own store"
  assert_eq "$(status_of ada "$HUB_URL/panel/stores/8")" 403 "another store's page"
  assert_eq "$(status_of ada "$HUB_URL/panel/stores/8/days.csv")" 403 "another store's figures"
  csrf=$(csrf_of ada)
  [ -n "$csrf" ] || fail "no CSRF token on Ada's page"
  assert_eq "$(status_of ada --data "csrf=$csrf&capacity=99" "$HUB_URL/panel/stores/8/settings")" 403 "changing another store"
  assert_eq "$(hub_psql -c "SELECT capacity FROM store WHERE store_id = '8'")" 12 "store 8's capacity"
  # The attempt is audited as refused, with who and from where.
  assert_eq "$(hub_psql -c "SELECT who, source, store_id, action, result FROM audit WHERE store_id = '8'")" \
    "ada|panel from 127.0.0.1|8|store settings changed|refused: E-HUB-022 ada manages store 7 only"
  # The chain's administrator sees both.
  assert_eq "$(login_as root root "$ROOT_PASSWORD")" 303 "the administrator's login"
  assert_eq "$(status_of root "$HUB_URL/panel/stores/8")" 200 "the administrator at store 8"
  stores=$(panel_curl ada "$HUB_URL/panel")
  assert_contains "$stores" "Store 7"
  case "$stores" in *"Store 8"*) fail "Ada's list of stores shows store 8" ;; esac
  # The bookings API is not the panel: a session cookie opens nothing there.
  assert_eq "$(status_of ada "$HUB_URL/v1/stores/8/slots")" 401 "the bookings API with a panel session"
}

test_csrf_and_session_fixation_fail() {
  panel_up
  # Fixation: a token planted in the browser before the login is not the session after it.
  printf '127.0.0.1\tFALSE\t/panel\tTRUE\t0\tclup_panel\tplanted-token-0123456789abcdef\n' > "$WORK/victim"
  assert_eq "$(login_as victim ada "$ADA_PASSWORD")" 303 "Ada's login"
  token=$(awk '$6 == "clup_panel" { print $7 }' "$WORK/victim")
  [[ -n $token && $token != "planted-token-0123456789abcdef" ]] || fail "the login kept the planted token: $token"
  printf '127.0.0.1\tFALSE\t/panel\tTRUE\t0\tclup_panel\tplanted-token-0123456789abcdef\n' > "$WORK/attacker"
  assert_eq "$(status_of attacker "$HUB_URL/panel/stores/7")" 303 "the attacker with the planted token"
  # CSRF: a form posted without the page's token, or with another session's, changes nothing.
  assert_eq "$(status_of victim --data "capacity=99" "$HUB_URL/panel/stores/7/settings")" 403 "a post without the CSRF token"
  assert_eq "$(login_as other ada "$ADA_PASSWORD")" 303 "a second session"
  assert_eq "$(status_of victim --data "csrf=$(csrf_of other)&capacity=99" "$HUB_URL/panel/stores/7/settings")" 403 \
    "a post with another session's token"
  assert_eq "$(hub_psql -c "SELECT capacity FROM store WHERE store_id = '7'")" 30 "store 7's capacity"
  assert_eq "$(status_of victim --data "csrf=$(csrf_of victim)&capacity=40" "$HUB_URL/panel/stores/7/settings")" 303 \
    "the page's own form"
  assert_eq "$(hub_psql -c "SELECT capacity FROM store WHERE store_id = '7'")" 40 "store 7's capacity"
  # The page's own token, but posted from another origin (another port of this host): refused first.
  assert_eq "$(curl -s --cacert "$WORK/hub/ca.pem" -b "$WORK/victim" -H "Origin: https://127.0.0.1:$(free_port)" -o /dev/null -w '%{http_code}' \
    --data "csrf=$(csrf_of victim)&capacity=41" "$HUB_URL/panel/stores/7/settings")" 403 "the page's form posted from another origin"
  assert_eq "$(hub_psql -c "SELECT capacity FROM store WHERE store_id = '7'")" 40 "store 7's capacity"
  out=$(panel_curl victim -D - "$HUB_URL/panel/stores/7" -o /dev/null)
  assert_contains "$out" "Content-Security-Policy: default-src 'none'"
}

test_wrong_passwords_lock_the_name_and_no_password_is_stored_or_logged() {
  panel_up
  for n in 1 2 3 4; do assert_eq "$(login_as x ada "wrong-password-$n")" 401 "wrong password $n"; done
  assert_eq "$(login_as x nobody "wrong-password-0")" 401 "an unknown name"
  assert_eq "$(login_as x ada "wrong-password-5")" 429 "the fifth wrong password"
  out=$(panel_curl x --data-urlencode "name=ada" --data-urlencode "password=$ADA_PASSWORD" "$HUB_URL/panel/login")
  assert_contains "$out" "this name is locked for 15 minutes."
  assert_eq "$(status_of x "$HUB_URL/panel")" 303 "the panel after a refused login"
  assert_contains "$(hub_psql -c "SELECT source, action, result FROM audit WHERE who = 'ada'")" \
    "panel from 127.0.0.1|log in|refused: locked after 5 wrong passwords"
  # The right password of the other manager still works: the lock is per name.
  assert_eq "$(login_as y root "$ROOT_PASSWORD")" 303 "the administrator during Ada's lockout"
  # Only bcrypt hashes are kept; no password is in the database or the hub's log.
  # shellcheck disable=SC2016 # a bcrypt hash's prefix, not variables
  assert_contains "$(hub_psql -c "SELECT password_hash FROM manager WHERE name = 'ada'")" '$2b$11$'
  pg_dump -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" "$PGDATABASE" > "$WORK/dump.sql" || fail "pg_dump failed"
  for secret in "$ADA_PASSWORD" "$ROOT_PASSWORD" wrong-password-3; do
    grep -q -- "$secret" "$WORK/dump.sql" "$WORK/hub.log" && fail "a password is in the database or the log"
  done
  true
}

# The settings form of Ada's store, with the page's own CSRF token: post_settings JAR FIELDS…
# (each FIELD name=value, sent encoded); prints the page the hub answers with, then its status.
post_settings() {
  local jar=$1 field fields=(); shift
  for field in "$@"; do fields+=(--data-urlencode "$field"); done
  panel_curl "$jar" -w '\n%{http_code}' --data-urlencode "csrf=$(csrf_of "$jar")" "${fields[@]}" "$HUB_URL/panel/stores/7/settings"
}

test_a_silent_totem_is_flagged_red_in_the_fleet() {
  panel_up
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  hub_psql -c "UPDATE totem SET last_contact = now() - interval '10 minutes' WHERE store_id = '7'"
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  fleet=$(panel_curl ada "$HUB_URL/panel/fleet")
  assert_contains "$fleet" '<td class="flag">SILENT for over 120 s</td>' "the silent totem's state, in the red flag style"
  # Heard from again: the same totem is "ok", in the green style.
  hub_psql -c "UPDATE totem SET last_contact = now() WHERE store_id = '7'"
  assert_contains "$(panel_curl ada "$HUB_URL/panel/fleet")" '<td class="ok">ok</td>' "the totem's state once heard from"
}

test_a_refused_value_keeps_what_the_manager_typed() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  # 45 walk-in places of 30 are refused; the other fields typed with it stay as typed,
  # a hostile one escaped.
  page=$(post_settings ada capacity=30 walkIn=45 priorityPercent=17 'slotMinutes=15"><b id=typed>x</b>')
  assert_eq "${page##*$'\n'}" 422 "the refused form's status"
  assert_contains "$page" "45 walk-in places are more than the capacity, 30"
  assert_contains "$page" 'id="walkIn" type="number" min="0" max="100000" value="45"' "the walk-in places typed"
  assert_contains "$page" 'value="17"' "the priority share typed"
  assert_contains "$page" 'value="15&quot;&gt;&lt;b id=typed&gt;x&lt;/b&gt;"' "the slot length typed, escaped"
  case "$page" in *'<b id=typed>'*) fail "the typed markup reached the page unescaped" ;; esac
  assert_eq "$(hub_psql -c "SELECT capacity FROM store WHERE store_id = '7'")" 30 "store 7's capacity"
  # Loaded again, the page shows the saved settings, not the refused ones.
  case "$(panel_curl ada "$HUB_URL/panel/stores/7")" in *'value="45"'*) fail "the refused value was kept after the error" ;; esac
}

# What a store's customers with a booking are told (R10, R11, reminders) is set in the same
# form: saved and audited, shown as saved; an absurd value is refused with nothing saved.
test_a_manager_sets_the_stores_notice_rules() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  assert_contains "$(panel_curl ada "$HUB_URL/panel/stores/7")" 'id="majorDelayMinutes" type="number" min="0" max="600" value="0"' \
    "no major delay at first"
  page=$(post_settings ada capacity=30 delayNoticeMinutes=20 majorDelayMinutes=45 reminderMinutes=0)
  assert_eq "${page##*$'\n'}" 303 "the rules saved"
  assert_eq "$(hub_psql -c "SELECT delay_notice_minutes, major_delay_minutes, reminder_minutes FROM store WHERE store_id = '7'")" "20|45|0"
  assert_eq "$(hub_psql -c "SELECT who, after FROM audit WHERE action = 'notice rules changed'")" \
    "ada|delay notice 20 min ahead, major delay after 45 min full, reminder none"
  page=$(panel_curl ada "$HUB_URL/panel/stores/7")
  assert_contains "$page" 'id="majorDelayMinutes" type="number" min="0" max="600" value="45"'
  assert_contains "$page" 'id="reminderMinutes" type="number" min="0" max="1440" value="0"'
  # Saved again as they are: no new audit line.
  post_settings ada capacity=30 delayNoticeMinutes=20 majorDelayMinutes=45 reminderMinutes=0 >/dev/null
  assert_eq "$(hub_psql -c "SELECT count(*) FROM audit WHERE action = 'notice rules changed'")" 1
  # A major delay of 601 minutes is refused, and the capacity typed with it is not saved either.
  page=$(post_settings ada capacity=31 majorDelayMinutes=601)
  assert_eq "${page##*$'\n'}" 422 "the refused rules' status"
  assert_contains "$page" "601"
  assert_eq "$(hub_psql -c "SELECT capacity, major_delay_minutes FROM store WHERE store_id = '7'")" "30|45"
}

# When the store's staff are alerted (the wait, the line's length) is set in the same form:
# saved and audited, shown as saved and given to Prometheus in the hub's metrics, where the
# shipped rules read it; an absurd value is refused with nothing saved.
test_a_manager_sets_when_the_stores_staff_are_alerted() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  assert_contains "$(panel_curl ada "$HUB_URL/panel/stores/7")" 'id="alertWaitMinutes" type="number" min="0" max="600" value="0"' \
    "no alert at first"
  page=$(post_settings ada capacity=30 alertWaitMinutes=15 alertWaiting=40)
  assert_eq "${page##*$'\n'}" 303 "the alerts saved"
  assert_eq "$(hub_psql -c "SELECT alert_wait_minutes, alert_waiting FROM store WHERE store_id = '7'")" "15|40"
  assert_eq "$(hub_psql -c "SELECT who, source, after FROM audit WHERE action = 'staff alerts changed'")" \
    "ada|panel from 127.0.0.1|staff alerted past a 15 min wait and 40 waiting"
  page=$(panel_curl ada "$HUB_URL/panel/stores/7")
  assert_contains "$page" 'id="alertWaitMinutes" type="number" min="0" max="600" value="15"'
  assert_contains "$page" 'id="alertWaiting" type="number" min="0" max="100000" value="40"'
  metrics=$(curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics")
  assert_contains "$metrics" 'clup_hub_store_alert_wait_seconds{store="7"} 900'
  assert_contains "$metrics" 'clup_hub_store_alert_waiting{store="7"} 40'
  # 601 minutes is refused, and the capacity typed with it is not saved either.
  page=$(post_settings ada capacity=31 alertWaitMinutes=601)
  assert_eq "${page##*$'\n'}" 422 "the refused alert's status"
  assert_contains "$page" "601"
  assert_eq "$(hub_psql -c "SELECT capacity, alert_wait_minutes FROM store WHERE store_id = '7'")" "30|15"
}

test_a_chart_without_figures_says_no_data() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  # No totem has ever reported at store 7: neither chart has a figure to draw.
  page=$(panel_curl ada "$HUB_URL/panel/stores/7")
  assert_contains "$page" "People inside at the end of each hour"
  [ "$(grep -o '>no data</text>' <<<"$page" | wc -l)" -eq 2 ] || fail "both empty charts say \"no data\": $page"
}

# A totem's screen from the fleet page, in Chromium: the hub asks the totem on its line, the
# totem sends one frame, the page shows it with its time, the same pixels as `clupctl
# screenshot` at the totem; each look audited at the hub and at the totem; a manager of
# another store cannot; the frame is gone after 10 minutes.
test_a_totems_screen_is_seen_from_the_fleet_page_as_the_totem_shows_it() {
  panel_up
  printf '%s\n' "bob-manages-store-8" | clup_hub manager add bob --role store-manager --store 8 >/dev/null
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  kiosk_start
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  device=$(sqlite3 "$WORK/state/clup.sqlite" "SELECT device_id FROM event LIMIT 1")
  wait_until_prints 60 t hub_psql -c "SELECT follows_line FROM totem WHERE device_id = '$device'"
  seen=$(python3 "$ROOT/Tests/integration/tools/panel-walk.py" --screen "$HUB_URL" root "$ROOT_PASSWORD" "$device" "$SHOTS") \
    || fail "the browser's look failed: $seen"
  clupctl screenshot "$WORK/totem-now.png" >/dev/null
  field() { python3 -c "import json, sys; print(json.loads(sys.argv[1])$2)" "$seen"; }
  assert_contains "$(field "" "['page']")" "Screen of $device"
  assert_contains "$(field "" "['page']")" "As the screen was at "
  assert_contains "$(field "" "['page']")" "Asked by root at "
  id=$(field "" "['look_url']" | sed 's|.*/panel/screens/||')
  # The frame as served, and as Chromium drew it, against the totem's own screenshot.
  assert_eq "$(login_as root root "$ROOT_PASSWORD")" 303 "the administrator's login"
  panel_curl root -o "$WORK/served.png" "$HUB_URL/panel/screens/$id/frame.png"
  served=$(python3 "$ROOT/Tests/integration/tools/png-same.py" "$WORK/served.png" "$WORK/totem-now.png") || fail "the frame served: $served"
  drawn=$(python3 "$ROOT/Tests/integration/tools/png-same.py" "$SHOTS/screen-drawn.png" "$WORK/totem-now.png") || fail "the frame drawn: $drawn"
  echo "report: the totem's screen reached the fleet page $(field "" "['frame_after']") s after the click; served: $served; as Chromium drew it: $drawn"
  # Audited at the hub (who asked, which totem) and at the totem (who looked, sent).
  assert_eq "$(hub_psql -c "SELECT who || ' ' || after || ' ' || result FROM audit WHERE action = 'totem screen asked'")" "root $device ok"
  assert_contains "$(hub_psql -c "SELECT who || ' ' || after FROM audit WHERE action = 'totem screen seen'")" "root $device, look $id"
  assert_contains "$(clupctl audit)" "root (hub panel)"
  assert_contains "$(clupctl audit)" "screen-seen"
  # A manager of another store: neither asks nor looks, and the refusal is audited.
  assert_eq "$(login_as bob bob "bob-manages-store-8")" 303 "Bob's login"
  token=$(panel_curl bob "$HUB_URL/panel/fleet" | sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -n 1)
  assert_eq "$(status_of bob --data-urlencode "csrf=$token" --data-urlencode "device=$device" "$HUB_URL/panel/fleet/screen")" 403 \
    "another store's manager asking"
  assert_eq "$(hub_psql -c "SELECT after FROM audit WHERE action = 'totem screen asked' AND who = 'bob' AND result LIKE 'refused: E-HUB-022%'")" \
    "$device"
  assert_eq "$(status_of bob "$HUB_URL/panel/screens/$id")" 403 "another store's manager looking"
  assert_eq "$(status_of bob "$HUB_URL/panel/screens/$id/frame.png")" 403 "another store's manager fetching the frame"
  # Ten minutes on, the frame is gone.
  hub_psql -c "UPDATE screen_request SET asked_at = now() - interval '11 minutes'"
  assert_eq "$(status_of root "$HUB_URL/panel/screens/$id/frame.png")" 404 "a frame past 10 minutes"
  assert_eq "$(hub_psql -c "SELECT count(*) FROM screen_request")" 0
}

# Counting you can trust: a door's entries with no release, releases nobody used and exits
# while released, from the totem's events to the hub, shown in the store's days beside
# in - out +- corrections at the end of each day; a closed day left off by more than the
# chain's tolerance is flagged; the metrics give them.
test_a_doors_counting_figures_reach_the_panel_and_a_day_past_the_tolerance_is_flagged() {
  panel_up
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  kiosk_start
  for number in A-001 A-002; do
    clupctl sim approach >/dev/null
    wait_for_screen welcome
    clupctl sim tap 360 640 >/dev/null
    wait_for_print "$number" >/dev/null
  done
  # A-001 released and through; one more through with no release; A-002 released, and the
  # turnstile turns out before its holder comes in.
  # shellcheck disable=SC2016 # read and scanned again at each try
  wait_until 60 'clupctl sim scan "$(printed_qr_text A-001)" >/dev/null 2>&1'
  clupctl sim pass in >/dev/null
  clupctl sim pass in >/dev/null
  clupctl sim scan "$(printed_qr_text A-002)" >/dev/null || fail "A-002 scanned"
  clupctl sim pass out >/dev/null
  clupctl sim pass in >/dev/null
  metrics=$(clupctl metrics)
  assert_contains "$metrics" 'clup_totem_passages_without_release{door="main"} 1'
  assert_contains "$metrics" 'clup_totem_passages_wrong_way{door="main"} 1'
  # The totem's business day, the latest it reports (it starts at 05:00: before, it is
  # yesterday's date).
  wait_until_prints 60 "1 0 1" hub_psql -c "SELECT without_release || ' ' || releases_unused || ' ' || wrong_way FROM door_counting
    WHERE store_id = '7' AND business_day = (SELECT max(business_day) FROM door_counting WHERE store_id = '7')"
  today=$(hub_psql -c "SELECT max(business_day)::text FROM door_counting WHERE store_id = '7'")
  # The day before, as counted: 20 in, 15 out, 5 left inside at closing.
  hub_psql -c "INSERT INTO occupancy (store_id, business_day, door, carried, entries, exits, corrections)
               VALUES ('7', date '$today' - 1, 'main', 0, 20, 15, 0)"
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  page=$(panel_curl ada "$HUB_URL/panel/stores/7")
  assert_contains "$page" "<th>inside at the end</th><th>entries without release</th><th>releases unused</th><th>exits while released</th>"
  # Today: 3 in, 1 out, 2 inside; not closed, not flagged.
  assert_contains "$page" ">$today</a></td><td>3</td><td>1</td><td>0</td><td>2</td><td>1</td><td>0</td><td>1</td></tr>"
  assert_contains "$page" "<td>15</td><td>0</td><td class=\"flag\">5</td><td>0</td><td>0</td><td>0</td></tr>"
  assert_contains "$page" "A closed day is flagged when more than 2 people, either way, were left inside"
  metrics=$(curl -sf --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics")
  assert_contains "$metrics" 'clup_hub_door_entries_without_release{store="7",door="main"} 1'
  assert_contains "$metrics" 'clup_hub_door_exits_while_released{store="7",door="main"} 1'
  assert_contains "$metrics" 'clup_hub_store_left_inside_at_close{store="7"} 5'
  # The chain tolerates 5: not flagged any more; audited.
  assert_eq "$(clup_hub counting tolerance 5)" "counting tolerance: 5 people (was 2)"
  assert_eq "$(hub_psql -c "SELECT before || ' -> ' || after FROM audit WHERE action = 'counting tolerance'")" "2 people -> 5 people"
  assert_contains "$(panel_curl ada "$HUB_URL/panel/stores/7")" "<td>15</td><td>0</td><td>5</td>"
  rc=0; out=$(clup_hub counting tolerance 5000 2>&1) || rc=$?
  assert_status $rc 1 "a tolerance of 5000: $out"
  assert_contains "$out" "0 to 1000 people"
}

# A totem replaced at its door, the old one switched off and never revoked: the places it
# was granted wait for it, so the new one calls nobody. The new one's status and the fleet
# page say why and what to do, and `clup-hub totem replace` hands the door over in one
# step, audited: the new one then has the door's places.
test_a_totem_replaced_at_its_door_is_shown_and_handed_over_in_one_step() {
  panel_up
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  kiosk_start
  wait_until 30 "clupctl status | grep -q \"this door's places 30 \""
  old=$(sqlite3 "$WORK/state/clup.sqlite" "SELECT device_id FROM event LIMIT 1")
  # Taken away two hours ago, still enrolled.
  kiosk_stop
  hub_psql -c "UPDATE totem SET last_contact = now() - interval '2 hours' WHERE device_id = '$old'"
  code=$(clup_hub enrolment-code --store 7 --letter B --door main)
  A_WORK=$WORK
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/b/state" >/dev/null
  WORK="$A_WORK/b"
  kiosk_start
  new=$(sqlite3 "$WORK/state/clup.sqlite" "SELECT device_id FROM event LIMIT 1")
  (wait_until 60 "clupctl status | grep -q 'are held by $old, not heard for 2 h'") || fail "no word of $old: $(clupctl status)"
  status=$(clupctl status)
  assert_contains "$status" "if it was replaced, hand the door over at the hub: clup-hub totem replace $old $new"
  assert_contains "$status" "this door's places 0 "
  WORK=$A_WORK
  assert_eq "$(login_as root root "$ROOT_PASSWORD")" 303 "the administrator's login"
  fleet=$(panel_curl root "$HUB_URL/panel/fleet")
  assert_contains "$fleet" "holds 30 places of door main, not heard for 2 h "
  assert_contains "$fleet" ", while $new serves it: revoke it? (clup-hub totem replace)"
  assert_contains "$fleet" "door&#39;s places held by $old, not heard for 2 h "
  # The two the wrong way round: the one serving the door was just heard, so it is not the one taken away.
  rc=0; out=$(clup_hub totem replace "$new" "$old" 2>&1) || rc=$?
  assert_status $rc 1 "replacing the totem that serves the door: $out"
  assert_contains "$out" "$new was heard "
  assert_contains "$(hub_psql -c "SELECT store_id || ' ' || result FROM audit WHERE action = 'totem replaced'")" "7 refused: "
  # Handed over: audited, the old one revoked, the new one has the door's places.
  assert_eq "$(clup_hub totem replace "$old" "$new")" "$new serves the door of $old, which is revoked"
  assert_eq "$(hub_psql -c "SELECT who || ' | ' || action || ' | ' || before || ' -> ' || after FROM audit WHERE action = 'totem replaced' AND result = 'ok'")" \
    "clup-hub (shell) | totem replaced | $old at door main -> $new at door main, $old revoked"
  rc=0; out=$(clup_hub totem replace "$old" "$new" 2>&1) || rc=$?
  assert_status $rc 1 "replacing a revoked totem again: $out"
  assert_contains "$out" "is revoked already"
  WORK="$A_WORK/b"
  wait_until 60 "clupctl status | grep -q \"this door's places 30 \""
  case "$(clupctl status)" in *"are held by"*) fail "the status still says the places are held: $(clupctl status)" ;; esac
  WORK=$A_WORK
  case "$(panel_curl root "$HUB_URL/panel/fleet")" in *"revoke it?"*) fail "the fleet page still asks to revoke" ;; esac
}

test_the_slot_under_way_is_listed_without_bookings() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  # Store 7 is open round the clock in UTC, in 30-minute slots; nobody has booked. The page
  # is read again if a slot ended while it was asked for.
  now_slot() { python3 -c 'import datetime, time; print(datetime.datetime.fromtimestamp(int(time.time()) // 1800 * 1800, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))'; }
  for _ in 1 2 3; do
    before=$(now_slot); page=$(panel_curl ada "$HUB_URL/panel/stores/7"); after=$(now_slot)
    [ "$before" = "$after" ] && break
  done
  assert_contains "$page" "<tr><td>$before</td><td>0</td><td>" "the slot under way, $before, with no booking"
}

test_a_store_in_rome_shows_its_slots_and_hours_on_romes_clock() {
  panel_up
  assert_eq "$(login_as ada ada "$ADA_PASSWORD")" 303 "Ada's login"
  clup_hub store hours 7 --opens 00:00 --closes 24:00 --time-zone Europe/Rome >/dev/null
  # The slot under way as a clock in Rome reads it (python's zoneinfo: the system's tz data).
  now_slot() { python3 -c 'import datetime, time, zoneinfo; print(datetime.datetime.fromtimestamp(int(time.time()) // 1800 * 1800, zoneinfo.ZoneInfo("Europe/Rome")).strftime("%Y-%m-%d %H:%M"))'; }
  for _ in 1 2 3; do
    before=$(now_slot); page=$(panel_curl ada "$HUB_URL/panel/stores/7"); after=$(now_slot)
    [ "$before" = "$after" ] && break
  done
  assert_contains "$page" "on the store's clock (Europe/Rome)"
  assert_contains "$page" "<tr><td>$before</td><td>0</td><td>" "the slot under way in Rome, $before"
  echo "report: the slot under way read $before on Rome's clock"
}

# 25 October 2026 in Rome: at 03:00 CEST (01:00 UTC) the clocks went back to 02:00 CET. A
# totem's passages at 01:30 CEST, 02:30 CEST, 02:30 CET (the hour that came twice) and 03:30
# CET reach the hub signed as clupd signs them. Ada chooses Italiano in Chromium, logs in,
# and opens that day from her store's table of days.
test_a_manager_in_rome_reads_the_day_the_clocks_went_back_in_italian() {
  panel_up
  clup_hub store hours 7 --opens 00:00 --closes 24:00 --time-zone Europe/Rome >/dev/null
  python3 "$ROOT/scripts/lib/hub-load.py" totem 7 "$WORK/totem-keys.json" | hub_psql >/dev/null
  python3 "$ROOT/scripts/lib/hub-load.py" passages "$HUB_URL" "$WORK/hub/ca.pem" "$WORK/totem-keys.json" 2026-10-25 \
    in@2026-10-24T23:30:00Z in@2026-10-25T00:30:00Z in@2026-10-25T01:30:00Z out@2026-10-25T02:30:00Z >/dev/null \
    || fail "the totem's passages of the 25th reach the hub"
  seen=$(python3 "$ROOT/Tests/integration/tools/panel-walk.py" --italian "$HUB_URL" ada "$ADA_PASSWORD" 7 2026-10-25 "$SHOTS") \
    || fail "the browser walk in Italian failed: $seen"
  field() { python3 -c "import json, sys; print(json.loads(sys.argv[1])$2)" "$seen"; }
  assert_contains "$(field "" "['login_page']")" "CLup — pannello dei responsabili"
  assert_contains "$(field "" "['stores_page']")" "Negozio 7 — CLup Market"
  assert_eq "$(field "" "['lang']")" it "the page's language"
  # The days' table in the Italian way of writing a day: three in, one out, two inside at the end.
  assert_contains "$(field "" "['today_page']")" "25/10/2026 3 1 0 2"
  # The booking slots of today, on Rome's clock, written the Italian way.
  today=$(python3 -c 'import datetime, zoneinfo; print(datetime.datetime.now(zoneinfo.ZoneInfo("Europe/Rome")).strftime("%d/%m/%Y"))')
  assert_contains "$(field "" "['today_page']")" "fascia prenotati liberi"
  page=$(field "" "['store_page']")
  assert_contains "$page" "Statistiche del 25/10/2026"
  assert_contains "$page" "Ore e orari secondo l'orologio del negozio (Europe/Rome)."
  assert_contains "$page" "Persone dentro alla fine di ogni ora della giornata del negozio"
  # All 25 hours of the day on Rome's clock: 02 twice, the second time in CET.
  hours="['00', '01', '02', '02', $(seq -f "'%02g'" 3 23 | paste -sd, | sed "s/,/, /g")]"
  assert_eq "$(field "" "['hour_labels']")" "$hours" "the hours of the 25th on Rome's clock"
  assert_eq "$(field "" "['hour_values']")" "['0', '1', '2', '3', $(printf "'2', %.0s" $(seq 1 20))'2']" \
    "people inside at the end of each"
  echo "report: Rome's 25 October in Italian, $(python3 -c "import json, sys; print(len(json.loads(sys.argv[1])['hour_labels']))" "$seen") hours: $(field "" "['hour_labels']" | cut -c1-60)…"
  case "$(field "" "['today_page']")" in *"$today"*) ;; *) fail "today's slots are written $today" ;; esac
}

run_tests
