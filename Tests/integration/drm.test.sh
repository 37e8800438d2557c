#!/usr/bin/env bash
# clupd's screens through the kernel's mode setting (DRM/KMS), in a VM booting Debian's
# kernel (scripts/kernel-vm) with two emulated graphics cards: qemu's bochs-display (the
# kernel's bochs driver, card0) and a virtio-gpu with two heads (virtio_gpu, card1; its
# second head forced on from the kernel's command line, as a panel without hotplug
# detection is). What reached each head is read back by qemu's screendump
# (tools/vm-host.py) and compared with what clupd drew (`clupctl screenshot`).
# Needs ROOT and BIN (set by scripts/test); runs itself inside the VM.
set -uo pipefail

if [ -z "${CLUP_IN_VM:-}" ]; then
  export CLUP_VM_DEVICES="-device bochs-display,id=bochs,xres=1280,yres=720 -device virtio-gpu-pci,id=virtio,max_outputs=2,xres=1280,yres=720"
  # Connectors are numbered across cards in the order they come: bochs' Virtual-1, then
  # virtio-gpu's Virtual-2 (head 0) and Virtual-3 (head 1, which qemu leaves disconnected
  # without a display window: forced on, as a panel without hotplug detection would be).
  export CLUP_VM_APPEND="video=Virtual-3:1280x720@60e"
  exec "$ROOT/scripts/kernel-vm" "$0"
fi
export ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
export BIN=${BIN:-$ROOT/.build/debug}
source "$ROOT/Tests/integration/harness.sh"

# The guest's CPUs are emulated, and slower still while the host's other core is busy: the
# bounds (2 minutes of the clock, harness.sh's wait_status) are only for a kiosk that never
# gets there.
STATUS_WAIT=120

# What qemu shows on DEVICE's HEAD, against `clupctl screenshot [--door-screen]` turned by
# ROTATION degrees: succeeds when no pixel differs; the answer is kept in $WORK/compared.
screen_shows_what_clupd_drew() {
  local device=$1 head=$2 rotation=$3 shot
  shift 3
  shot=$(mktemp "$CLUP_VM_EXCHANGE/shot.XXXXXX.png")
  clupctl screenshot "$@" "$shot" >/dev/null || return 1
  timeout 120 python3 "$ROOT/Tests/integration/tools/vm-ask.py" \
    "{\"clup\": \"screen\", \"device\": \"$device\", \"head\": $head, \"png\": \"$shot\", \"rotation\": $rotation}" \
    > "$WORK/compared" 2>&1
  rm -f "$shot"
  grep -q '"differing": 0' "$WORK/compared"
}
# Waits until it does (a frame is drawn on a worker, then flipped to).
wait_screen() {
  (wait_within 120 screen_shows_what_clupd_drew "$@") || fail "the head $1/$2 never showed what clupd drew: $(cat "$WORK/compared")"
}
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/compared" "$1"; }
dpms() { cat "/sys/class/drm/$1/dpms"; }

test_the_screen_on_a_drm_card_shows_every_pixel_drawn_flips_and_sleeps_with_dpms() {
  local started frames flips elapsed languages changes button
  kiosk_start '[hardware]' 'display = "/dev/dri/card0"'
  wait_status "display      drm        ok       /dev/dri/card0 Virtual-1 1280x720@"
  assert_contains "$(clupctl status)" "bochs-drm, asleep"
  clupctl sim approach >/dev/null
  wait_status "bochs-drm, awake"
  wait_screen bochs 0 0
  echo "report: bochs-display through the bochs driver: $(clupctl status | sed -n 's/^ *display *drm *ok *//p'); $(field width)x$(field height) read back by screendump, $(field lit) pixels lit, $(field differing) differing from clupctl screenshot"
  # Screen changes in a row (the welcome screen in each language, and back): each a frame
  # drawn into the buffer not on screen and flipped to at the next vblank.
  frames=$(clupctl status | sed -n 's/.* \([0-9]*\) frames, \([0-9]*\) flips.*/\1/p')
  flips=$(clupctl status | sed -n 's/.* \([0-9]*\) frames, \([0-9]*\) flips.*/\2/p')
  started=$(date +%s%N)
  languages=$(clupctl screen --json | sed -n 's/.*"name" : "\(language-[a-z]*\)".*/\1/p')
  [ -n "$languages" ] || fail "no language buttons on the welcome screen"
  changes=0
  for _ in 1 2; do
    for button in $languages; do
      clupctl sim press "$button" >/dev/null
      changes=$((changes + 1))
    done
  done
  wait_screen bochs 0 0
  elapsed=$(milliseconds_since "$started")
  frames=$(( $(clupctl status | sed -n 's/.* \([0-9]*\) frames, \([0-9]*\) flips.*/\1/p') - frames ))
  flips=$(( $(clupctl status | sed -n 's/.* \([0-9]*\) frames, \([0-9]*\) flips.*/\2/p') - flips ))
  [ "$frames" -ge 2 ] || fail "$frames frames shown for $changes screen changes"
  # Every frame shown after the first is a flip, waited for before the next one is drawn.
  if [ "$flips" -lt 1 ] || [ "$flips" -lt $((frames - 1)) ]; then fail "$frames frames, only $flips flips"; fi
  echo "report: $changes language changes (clupctl sim press, $elapsed ms with its round trips under emulation): $frames frames, $flips page flips ($(clupctl status | sed -n 's/.*flips (\([^)]*\)).*/\1/p')); each drawn into the buffer not on screen; the last matched pixel for pixel"
  # Nobody in front: DPMS off (the kernel turns the CRTC off); back: on, the screen again.
  clupctl sim leave >/dev/null
  wait_status "bochs-drm, asleep"
  assert_eq "$(dpms card0-Virtual-1)" Off "DPMS while asleep"
  clupctl sim approach >/dev/null
  wait_status "bochs-drm, awake"
  assert_eq "$(dpms card0-Virtual-1)" On "DPMS once someone is in front"
  wait_screen bochs 0 0
  echo "report: asleep: DPMS Off in /sys/class/drm/card0-Virtual-1/dpms; awake: On, and every pixel shown again"
  # clupd stops (an update, a restart): it lets go of the card, the kernel shows its
  # console's framebuffer again, which clupd left holding "out of order", not a console.
  for console in /sys/class/vtconsole/vtcon*; do
    grep -q "frame buffer" "$console/name" && echo 0 > "$console/bind"
  done
  kiosk_stop
  ask_screen() { timeout 120 python3 "$ROOT/Tests/integration/tools/vm-ask.py" '{"clup": "screen", "device": "bochs", "head": 0}' > "$WORK/compared"; }
  ask_screen
  [ "$(field lit)" -gt 100000 ] || fail "the screen after clupd stopped: $(cat "$WORK/compared")"
  echo "report: clupd stopped: the head shows the frame it left on the card's framebuffer, $(field lit) pixels lit"
}

test_a_portrait_screen_on_a_turned_panel_and_the_calling_board_on_the_second_head() {
  local size
  kiosk_start '[hardware]' 'display = "/dev/dri/card1:Virtual-2"' 'display_rotation = 90' 'calling_display = "/dev/dri/card1:Virtual-3"'
  wait_status "display      drm        ok       /dev/dri/card1 Virtual-2 1280x720@[0-9]*, turned 90°, virtio_gpu"
  wait_status "door-screen  drm        ok       /dev/dri/card1 Virtual-3 "
  size=$(clupctl screen --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(str(d["width"]) + "x" + str(d["height"]))')
  assert_eq "$size" 720x1280 "the screens are laid out upright on the turned panel"
  clupctl sim approach >/dev/null
  wait_status "virtio_gpu, awake"
  wait_screen virtio 0 90
  echo "report: virtio-gpu head 0 (1280x720, turned 90°): the 720x1280 screen, $(field lit) pixels lit, $(field differing) differing once turned"
  clupctl sim press get-ticket >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  wait_status "Virtual-3 [0-9x@]*, virtio_gpu, awake"
  wait_screen virtio 1 0 --door-screen
  echo "report: the calling board on head 1 ($(field width)x$(field height), forced on by video=Virtual-3:1280x720@60e) shows A-001: $(field differing) pixels differing from clupctl screenshot --door-screen"
  assert_eq "$(dpms card1-Virtual-3)" On
  clupctl sim scan "$(ticket_field A-001 code)" >/dev/null
  wait_status "Virtual-3 [0-9x@]*, virtio_gpu, asleep"
  assert_eq "$(dpms card1-Virtual-3)" Off "the board's DPMS once nobody is called"
  assert_eq "$(dpms card1-Virtual-2)" On "the customer's screen stays lit"
  echo "report: A-001 admitted: the board's head DPMS Off, the customer's On"
}

test_a_screen_unplugged_is_missing_and_plugged_again_shows_the_screen() {
  local started
  kiosk_start '[hardware]' 'display = "/dev/dri/card0"'
  clupctl sim approach >/dev/null
  wait_status "bochs-drm, awake"
  wait_screen bochs 0 0
  # The connector disconnected as the kernel sees it (its sysfs status forced off: the
  # driver's hotplug path, and a uevent, as when a cable is pulled).
  # clupd notices by itself, not from someone asking its status. bochs has no hotplug
  # detection: the kernel changes the connector but sends no uevent for it, so the uevent a
  # driver with it sends (drm_sysfs_hotplug_event: "change" of the card, HOTPLUG=1) is
  # asked of the kernel here; without one clupd would see it at its next look (30 s).
  started=$(date +%s%N)
  trap 'echo detect > /sys/class/drm/card0-Virtual-1/status; kiosk_stop' EXIT
  echo off > /sys/class/drm/card0-Virtual-1/status
  echo change > /sys/class/drm/card0/uevent
  (wait_within 120 grep -q "the display is gone" "$WORK/clupd.log") || fail "clupd never noticed: $(tail -n 5 "$WORK/clupd.log")"
  echo "report: unplugged: clupd logged the display gone after $(milliseconds_since "$started") ms"
  wait_status "display      drm        missing  /dev/dri/card0: no connected screen (Virtual-1 was unplugged)"
  started=$(date +%s%N)
  echo detect > /sys/class/drm/card0-Virtual-1/status
  echo change > /sys/class/drm/card0/uevent
  (wait_within 120 grep -q "the display is back" "$WORK/clupd.log") || fail "clupd never saw it back: $(tail -n 5 "$WORK/clupd.log")"
  echo "report: plugged again: clupd logged the display back after $(milliseconds_since "$started") ms"
  wait_screen bochs 0 0
  echo "report: and every pixel of the screen was on it again $(milliseconds_since "$started") ms after the plug (a screendump and a comparison included)"
}

run_tests
