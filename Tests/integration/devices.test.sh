#!/usr/bin/env bash
# clupd reading real device protocols: the touch panel and the door reader as evdev nodes,
# stood in for by FIFOs fed binary struct input_event records (no input devices here).
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

FIXTURES=$ROOT/Tests/Fixtures/evemu

# An evemu recording of two taps in the middle of an 800x480 panel, 0.5 s apart.
two_taps() {
  local down up
  for down in 1.0 1.5; do
    up=$(awk -v t="$down" 'BEGIN { printf "%.1f", t + 0.1 }')
    printf 'E: %s 0003 0039 7\nE: %s 0003 0035 400\nE: %s 0003 0036 240\nE: %s 0000 0000 0\n' "$down" "$down" "$down" "$down"
    printf 'E: %s 0003 0039 -1\nE: %s 0000 0000 0\n' "$up" "$up"
  done
}

start_with_devices() {
  mkfifo "$WORK/touch" "$WORK/reader"
  kiosk_start '[hardware]' "touchscreen = \"$WORK/touch\"" \
              "touchscreen_axes = \"$FIXTURES/Atmel_maXTouch_Touchscreen.desc\"" "reader = \"$WORK/reader\""
}

test_a_tap_on_the_panel_prints_a_ticket_and_its_scan_at_the_reader_opens_the_turnstile() {
  start_with_devices
  wait_status "touchscreen  evdev      ok"
  wait_status "door-reader  evdev      ok"
  two_taps > "$WORK/taps.events"
  # The first touch wakes the screen, the second presses "Get a ticket".
  "$BIN/clupd" encode-events "$WORK/taps.events" > "$WORK/touch"
  # shellcheck disable=SC2016 # read again at each try
  wait_until 60 '[ -n "$(newest_ticket)" ]'
  assert_eq "$(wait_for_print A-001)" called
  code=$(printed_qr_text A-001)
  # Scanned at the real reader.
  "$BIN/clupd" scanner-keys "$code" > "$WORK/reader"
  wait_until_prints 60 admitted ticket_field A-001 state
  assert_contains "$(clupctl status)" "turnstile    simulated  ok       1 releases"
  rc=0; out=$(clupctl sim scan "$code" 2>&1) || rc=$?
  assert_contains "$out" "E-CTL-006 the door reader is a real one"
}

# How many scans the door refused, by clupd's log; whether more than N.
refusals() { grep -c "scan refused at the door\|unreadable scan at the door" "$WORK/clupd.log" || true; }
refusals_above() { [ "$(refusals)" -gt "$1" ]; }

# A scanner set to the shop's keyboard layout (Italian, French AZERTY, Spanish) types a
# ticket's code as that keyboard would; clupd, told the layout, reads the code back and opens
# the door. A scanner left in another layout (AZERTY beside QWERTY: digits shifted, A and Q
# swapped) types keys that read as garbage there, and the ticket stays waiting.
test_a_scanner_in_the_shops_keyboard_layout_opens_the_door() {
  local layout wrong number=0 code before
  for layout in it fr es; do
    kiosk_stop
    # A new totem each time: a new day's A-001, printed by a new cupsd.
    rm -rf "$WORK/state" "$WORK/cups" "$WORK/reader"
    mkfifo "$WORK/reader"
    kiosk_start '[hardware]' "reader = \"$WORK/reader\"" "reader_layout = \"$layout\""
    wait_status "door-reader  evdev      ok"
    clupctl sim approach >/dev/null
    wait_for_screen '\(welcome\|store-full\)'
    clupctl sim press get-ticket >/dev/null
    assert_eq "$(wait_for_print A-001)" called "$layout"
    code=$(printed_qr_text A-001)
    # Typed by a scanner set to another layout: not a ticket.
    wrong=fr; [ "$layout" = fr ] && wrong=us
    before=$(refusals)
    "$BIN/clupd" scanner-keys --layout "$wrong" "$code" > "$WORK/reader"
    wait_until 60 refusals_above "$before"
    assert_eq "$(ticket_field A-001 state)" called "a garbled code admits nobody ($layout)"
    "$BIN/clupd" scanner-keys --layout "$layout" "$code" > "$WORK/reader"
    wait_until_prints 60 admitted ticket_field A-001 state
    number=$((number + 1))
  done
  echo "report: $number scanners (it, fr, es) opened the door; a scanner in another layout was refused at each"
}

test_an_unplugged_reader_shows_missing_and_recovers_when_plugged_back() {
  start_with_devices
  wait_status "door-reader  evdev      ok"
  # Unplugging: the node disappears and the open stream ends (here: the last writer closes).
  exec 5>"$WORK/reader"
  rm "$WORK/reader"
  exec 5>&-
  wait_status "door-reader  evdev      missing  $WORK/reader: No such file or directory"
  kill -0 "$CLUPD_PID" || fail "clupd died when the reader went away"
  mkfifo "$WORK/reader"
  start=$(date +%s%N)
  wait_status "door-reader  evdev      ok"
  echo "report: the reader was back $(( ($(date +%s%N) - start) / 1000000 )) ms after being plugged in again"
}

test_a_gone_touchscreen_puts_the_totem_out_of_order_until_it_is_back() {
  start_with_devices
  wait_status "touchscreen  evdev      ok"
  exec 5>"$WORK/touch"
  rm "$WORK/touch"
  exec 5>&-
  wait_status "screen     out-of-order"
  clupctl screenshot "$WORK/out-of-order.png" >/dev/null
  mkfifo "$WORK/touch"
  wait_status "touchscreen  evdev      ok"
  wait_status "screen     asleep"
}

test_devices_lists_the_usb_bus_against_the_known_models() {
  kiosk_start '[hardware]' "usb_profiles = \"$ROOT/hardware/usb-devices.json\""
  out=$(clupctl devices)
  assert_contains "$out" "known devices from $ROOT/hardware/usb-devices.json"
  assert_contains "$out" "door-reader  simulated  ok"
  echo "report: $(echo "$out" | head -n 1)"
}

test_every_device_missing_leaves_clupd_running_and_says_which() {
  kiosk_start '[hardware]' "touchscreen = \"$WORK/none-touch\"" "proximity = \"$WORK/none-proximity\"" \
              "turnstile = \"$WORK/none-turnstile\"" "serial_reader = \"$WORK/none-serial\""
  out=$(clupctl status)
  assert_contains "$out" "touchscreen  evdev      missing  $WORK/none-touch: No such file or directory"
  assert_contains "$out" "turnstile    evdev      missing  $WORK/none-turnstile: No such file or directory"
  assert_contains "$out" "door-reader  serial     missing  $WORK/none-serial: No such file or directory"
  wait_status "presence     iio        missing  $WORK/none-proximity: No such file or directory"
  rc=0; out=$(clupctl sim pass in 2>&1) || rc=$?
  assert_status $rc 1
  assert_contains "$out" "E-CTL-006 the turnstile is a real one"
  # Without its touch panel the totem is out of order, whoever comes near.
  wait_status "screen     out-of-order"
  echo 300 > "$WORK/none-proximity"
  wait_status "presence     iio        ok       someone present, reading 300"
  assert_contains "$(clupctl status)" "screen     out-of-order"
}

test_gpio_devices_on_a_chip_this_machine_lacks_show_missing_with_the_reason() {
  # No gpiochip exists here: the PIR and the turnstile's lines are requested through
  # libgpiod, fail, and are asked for again; the shell says which line and why.
  kiosk_start '[hardware]' 'pir = "gpiochip7:PIR"' 'turnstile_entry_line = "gpiochip7:5"' \
              'turnstile_exit_line = "gpiochip7:6"' 'turnstile_release = "gpiochip7:23"'
  out=$(clupctl status)
  assert_contains "$out" 'presence     gpio       missing  PIR gpiochip7:PIR: no GPIO chip "gpiochip7" (No such file or directory)'
  assert_contains "$out" 'turnstile    gpio       missing  entry gpiochip7:5: no GPIO chip "gpiochip7"'
  assert_contains "$(clupctl config show)" 'turnstile_release = "gpiochip7:23"'
}

# Counts the bytes of FILE that are not zero (a black framebuffer has none).
lit_bytes() { tr -d '\000' < "$1" | wc -c; }

test_the_screen_is_drawn_on_a_framebuffer_and_the_voice_greets_who_approaches() {
  # A file standing in for /dev/fb0 (none here), in the layout of an 800x480 HDMI panel
  # turned to portrait.
  mkdir -p "$WORK"; : > "$WORK/fb0"
  kiosk_start '[hardware]' "display = \"$WORK/fb0\"" \
              'display_format = "480x800 xrgb8888"'
  wait_status "display      fbdev      ok       $WORK/fb0 480x800, 32 bpp"
  assert_eq "$(stat -c %s "$WORK/fb0")" $((480 * 800 * 4))
  assert_eq "$(lit_bytes "$WORK/fb0")" 0
  clupctl sim approach >/dev/null
  wait_status "display      fbdev      ok       $WORK/fb0 480x800, 32 bpp (R 8@16 G 8@8 B 8@0), awake"
  lit=$(lit_bytes "$WORK/fb0")
  [ "$lit" -gt 100000 ] || fail "the welcome screen lit only $lit bytes of the framebuffer"
  echo "report: welcome screen: $lit of $((480 * 800 * 4)) framebuffer bytes lit"
  wait_status 'voice        simulated  ok       1 utterance; last said "Welcome. Touch the button on the screen to take a ticket."'
  size=$(stat -c %s "$WORK/state/voice.wav")
  [ "$size" -gt 20000 ] || fail "voice.wav has only $size bytes"
  echo "report: the greeting: $(( (size - 44) / 2 )) samples at 22050 Hz in voice.wav"
  # Once they leave, the screen sleeps after the idle timeout: black, and the voice stops.
  clupctl sim leave >/dev/null
  wait_status "screen     asleep"
  assert_eq "$(lit_bytes "$WORK/fb0")" 0
}

test_linux_mode_looks_for_every_device_where_the_udev_rules_put_it() {
  # Nothing is named: mode "linux" looks for the standard names, none of which exist here.
  KIOSK_MODE=config kiosk_start '[hardware]' 'mode = "linux"'
  out=$(clupctl status)
  assert_contains "$out" "display      fbdev      missing  /dev/fb0: No such file or directory"
  assert_contains "$out" "touchscreen  evdev      missing  /dev/clup/touch: No such file or directory"
  assert_contains "$out" "presence     evdev      missing  /dev/clup/presence: No such file or directory"
  assert_contains "$out" "turnstile    evdev      missing  /dev/clup/turnstile: No such file or directory"
  assert_contains "$out" "door-reader  evdev      missing  /dev/clup/reader: No such file or directory"
  wait_status "voice        alsa       missing  default, 0 utterances: E-HW-044 cannot open the speaker"
  rc=0; out=$(clupctl sim approach 2>&1) || rc=$?
  assert_status $rc 1
  assert_contains "$out" "E-CTL-006 the presence sensor is a real one"
  wait_status "screen     out-of-order"
}

test_garbage_from_a_device_is_survived() {
  start_with_devices
  wait_status "touchscreen  evdev      ok"
  head -c 100000 /dev/urandom > "$WORK/touch"
  head -c 100000 /dev/urandom > "$WORK/reader"
  clupctl status >/dev/null || fail "clupd stopped answering after garbage"
  kill -0 "$CLUPD_PID" || fail "clupd died"
}

test_replay_touch_prints_the_gestures_of_a_recording() {
  out=$("$BIN/clupd" replay-touch "$FIXTURES/Atmel_maXTouch_Touchscreen.desc" \
        "$FIXTURES/Atmel_maXTouch_Touchscreen.2-fingers-touch-release.events")
  assert_eq "$(echo "$out" | wc -l)" 2
  assert_contains "$out" '{"gesture":"long-press","x0":0.2778,"y0":0.6388,'
}

run_tests
