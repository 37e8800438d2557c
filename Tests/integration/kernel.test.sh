#!/usr/bin/env bash
# clupd against real kernel devices, in a virtual machine booting Debian's kernel
# (scripts/kernel-vm), because this machine has none: the framebuffer of vfb at 32 and
# 16 bits per pixel, the sound card snd-aloop (what is played on one side is recorded on
# the other), and a touch panel made by uinput from a real panel's description
# (evemu-device), which the kernel then serves through evdev like any other.
# Needs ROOT and BIN (set by scripts/test); runs itself inside the VM.
set -uo pipefail

if [ -z "${CLUP_IN_VM:-}" ]; then
  exec "$ROOT/scripts/kernel-vm" "$0"
fi
# Inside the VM: the same files as the host, read-only under a memory overlay.
export ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
export BIN=${BIN:-$ROOT/.build/debug}
source "$ROOT/Tests/integration/harness.sh"
FIXTURES=$ROOT/Tests/Fixtures/evemu

# The guest's CPUs are emulated, and slower still while the host's other core is busy: the
# waits for a status line are bounded at 2 minutes of the clock (harness.sh's wait_status).
STATUS_WAIT=120

# Counts the bytes of FILE that are not zero.
lit_bytes() { tr -d '\000' < "$1" | wc -c; }

# Compares /dev/fb0 with the screen clupd drew (`clupctl screenshot`), pixel by pixel, in
# the layout the kernel reports; prints how many pixels differ.
framebuffer_matches_screenshot() {
  local bpp rgba stride rl ro gl go bl bo rest
  clupctl screenshot "$WORK/screen.png" >/dev/null
  bpp=$(fbset -fb /dev/fb0 -i | awk '$1 == "geometry" { print $6 }')
  rgba=$(fbset -fb /dev/fb0 -i | awk '$1 == "rgba" { print $2 }')
  IFS=',/' read -r rl ro gl go bl bo rest <<< "$rgba"
  stride=$(cat /sys/class/graphics/fb0/stride)
  python3 "$ROOT/Tests/integration/tools/fb-matches-png.py" /dev/fb0 "$WORK/screen.png" 640 480 "$bpp" "$stride" \
    "$ro" "$rl" "$go" "$gl" "$bo" "$bl"
}

test_the_kernels_framebuffer_shows_the_screen_at_32_and_16_bits_per_pixel() {
  local size
  # The kernel's text console draws on the framebuffer too (its cursor blinks over the
  # screen): unbound, as on a totem (hardware/WIRING.md).
  for console in /sys/class/vtconsole/vtcon*; do
    grep -q "frame buffer" "$console/name" && echo 0 > "$console/bind"
  done
  fbset -fb /dev/fb0 -depth 32
  kiosk_start '[hardware]' 'display = "/dev/fb0"'
  # The second depth is set while clupd runs: its next frame follows the driver's new mode.
  for depth in 32 16; do
    fbset -fb /dev/fb0 -depth "$depth"
    size=$((640 * 480 * depth / 8))
    clupctl sim approach >/dev/null
    wait_status "display      fbdev      ok       /dev/fb0 640x480, $depth bpp"
    layout=$(clupctl status | sed -n 's/.*\/dev\/fb0 \(640x480, [^)]*)\).*/\1/p')
    rc=0; differing=$(framebuffer_matches_screenshot) || rc=$?
    assert_status $rc 0 "$differing pixels of /dev/fb0 differ from the screen at $depth bpp"
    lit=$(head -c "$size" /dev/fb0 | tr -d '\000' | wc -c)
    echo "report: $layout (as the kernel set it): every pixel of the welcome screen in /dev/fb0, $lit of $size bytes lit"
    clupctl sim leave >/dev/null
    wait_status "screen     asleep"
    assert_eq "$(head -c "$size" /dev/fb0 | tr -d '\000' | wc -c)" 0
  done
}

# Whether FILE exists and has more than N bytes.
has_more_bytes_than() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ]; }

test_the_greeting_is_heard_on_a_real_sound_card() {
  kiosk_start '[hardware]' 'speaker = "plughw:Loopback,0,0"'
  wait_status "voice        alsa       ok       plughw:Loopback,0,0, 0 utterances"
  # What the loopback card's capture side hears while the totem greets someone: recorded
  # from before the greeting until the voice says it has played all of it.
  arecord -q -D plughw:Loopback,1,0 -f S16_LE -r 22050 -c 1 -d 600 "$WORK/heard.wav" &
  recorder=$!
  wait_until 120 has_more_bytes_than "$WORK/heard.wav" 4410
  clupctl sim approach >/dev/null
  wait_status 'voice        alsa       ok       plughw:Loopback,0,0, 1 utterance; last said "Welcome.'
  kill -INT "$recorder"
  wait "$recorder" || true
  # Samples louder than a whisper (|x| > 1000 of 32767), after the 44-byte header.
  loud=$(tail -c +45 "$WORK/heard.wav" | od -An -v -t d2 -w2 | awk '$1 > 1000 || $1 < -1000 { n++ } END { print n + 0 }')
  total=$(( ($(stat -c %s "$WORK/heard.wav") - 44) / 2 ))
  [ "$loud" -gt 22050 ] || fail "the card heard only $loud loud samples of $total"
  echo "report: the sound card recorded $loud loud samples ($((loud * 100 / 22050)) cs of speech) of $total"
}

# Two taps in the middle of the 800x480 panel, 0.5 s apart from START seconds, as evemu events.
two_taps() {
  local down up
  for down in "$1" "$(awk -v t="$1" 'BEGIN { printf "%.1f", t + 0.5 }')"; do
    up=$(awk -v t="$down" 'BEGIN { printf "%.1f", t + 0.1 }')
    printf 'E: %s 0003 0039 7\nE: %s 0003 0035 400\nE: %s 0003 0036 240\nE: %s 0000 0000 0\n' "$down" "$down" "$down" "$down"
    printf 'E: %s 0003 0039 -1\nE: %s 0000 0000 0\n' "$up" "$up"
  done
}

# Plugs in a touch panel made through uinput from the Atmel maXTouch's description, which
# runs the STEPs of tools/uinput-device.py (play:EVENTS, wait-for:FILE) and is then
# unplugged. Its event node gets linked at $WORK/touch, as udev links /dev/clup/touch.
plug_panel() {
  rm -f "$WORK/panel.out"
  python3 "$ROOT/Tests/integration/tools/uinput-device.py" "$FIXTURES/Atmel_maXTouch_Touchscreen.desc" "$@" \
    > "$WORK/panel.out" 2>&1 &
  PANEL_PID=$!
  for _ in $(seq 1 1200); do
    node=$(grep -m1 '^/dev/input/event' "$WORK/panel.out" || true)
    [ -n "$node" ] && { ln -sfn "$node" "$WORK/touch"; return 0; }
    kill -0 "$PANEL_PID" 2>/dev/null || break
    sleep 0.1  # not a wait: the pause between this helper's polls (it stops when the panel's tool ends)
  done
  fail "no panel: $(cat "$WORK/panel.out")"
}

test_a_uinput_panel_is_grabbed_and_its_taps_print_a_ticket_and_unplugging_it_is_survived() {
  # Someone taps the panel before clupd runs; once clupd has the panel, two taps at the
  # same spot, which the kernel sends without a position (it sends only changes): clupd
  # must have read where the last finger was when it opened the panel.
  two_taps 0.0 > "$WORK/taps.events"
  head -n 6 "$WORK/taps.events" > "$WORK/first.events"
  plug_panel "play:$WORK/first.events" "wait-for:$WORK/clupd-has-the-panel" "play:$WORK/taps.events" \
    "wait-for:$WORK/unplug"
  kiosk_start '[hardware]' "touchscreen = \"$WORK/touch\""
  # The axis ranges come from the kernel (EVIOCGABS), not from a description file.
  wait_status "touchscreen  evdev      ok"
  # Grabbed: another reader of the node is refused it (evemu-record tries a grab of its
  # own first, and says so when the kernel answers that someone holds one).
  rc=0; timeout 60 evemu-record "$WORK/touch" > "$WORK/others-see.txt" 2>&1 || rc=$?
  assert_contains "$(cat "$WORK/others-see.txt")" "this device is grabbed" "evemu-record (exit $rc)"
  touch "$WORK/clupd-has-the-panel"
  # shellcheck disable=SC2016 # read again at each try
  (wait_until 120 '[ -n "$(newest_ticket)" ]') || fail "no ticket after two taps: $(clupctl status) $(tail -5 "$WORK/clupd.log")"
  assert_eq "$(newest_ticket)" A-001
  echo "report: two taps through uinput and evdev printed $(newest_ticket), $(wait_for_print A-001)"
  # Unplugged: out of order; plugged back: working again.
  touch "$WORK/unplug"
  wait "$PANEL_PID"
  wait_status "touchscreen  evdev      missing"
  wait_status "screen     out-of-order"
  rm -f "$WORK/unplug"
  plugged=$(date +%s%N)
  plug_panel "wait-for:$WORK/unplug"
  wait_status "touchscreen  evdev      ok"
  echo "report: the panel was back $(( ($(date +%s%N) - plugged) / 1000000 )) ms after being plugged in again (emulated CPU)"
  wait_status "screen     asleep"
  touch "$WORK/unplug"
  wait "$PANEL_PID" 2>/dev/null || true
}

run_tests
