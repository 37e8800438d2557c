#!/usr/bin/env bash
# The door's scanner and the touch panel as USB devices, through the kernel's own drivers,
# in a VM booting Debian's kernel (scripts/kernel-vm) with qemu's USB host controller
# (qemu-xhci, the kernel's xhci_hcd): a keyboard-wedge scanner (usb-kbd: usbhid and
# hid-generic) typing a ticket's code as a real scanner set to the shop's layout does, a
# touch panel (usb-tablet: absolute coordinates, hid-generic) tapped, and a serial scanner
# (usb-serial, an FTDI chip: ftdi_sio) that the host writes codes to. Each is unplugged and
# plugged again through QMP (device_del, device_add), as a technician pulls a cable.
# Needs ROOT and BIN (set by scripts/test); runs itself inside the VM.
set -uo pipefail

if [ -z "${CLUP_IN_VM:-}" ]; then
  export CLUP_VM_DEVICES="-device qemu-xhci,id=xhci -device usb-kbd,id=scanner,bus=xhci.0 -device usb-tablet,id=panel,bus=xhci.0 -chardev socket,id=serialscanner,path=@TALK@/serial-scanner.sock,server=on,wait=off -device usb-serial,id=serialreader,chardev=serialscanner,bus=xhci.0"
  exec "$ROOT/scripts/kernel-vm" "$0"
fi
export ROOT=${ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
export BIN=${BIN:-$ROOT/.build/debug}
source "$ROOT/Tests/integration/harness.sh"
TOOLS=$ROOT/Tests/integration/tools

status_shows() { clupctl status | grep -q -- "$1"; }
wait_status() { (wait_within 120 status_shows "$1") || fail "status never showed [$1]: $(clupctl status)"; }
milliseconds_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
ask() { timeout 120 python3 "$TOOLS/vm-ask.py" "$1"; }

# The event node of the input device NAME (as the kernel names it), or nothing. There is no
# udev in this VM: the tests link the node where udev's rules would (hardware/udev).
event_node() {
  local name
  for name in /sys/class/input/event*/device/name; do
    [ "$(cat "$name")" = "$1" ] && { echo "/dev/input/$(basename "$(dirname "$(dirname "$name")")")"; return 0; }
  done
  return 1
}
# Waits for device NAME's node and links it at LINK (as udev links /dev/clup/…).
link_device() {
  (wait_within 120 event_node "$1" >/dev/null) || fail "no input device [$1]: $(cat /sys/class/input/event*/device/name)"
  ln -sfn "$(event_node "$1")" "$2"
}
unplug() { ask "{\"execute\": \"device_del\", \"arguments\": {\"id\": \"$1\"}}" >/dev/null; }
plug() { ask "{\"execute\": \"device_add\", \"arguments\": {\"driver\": \"$1\", \"id\": \"$2\", \"bus\": \"xhci.0\"$3}}" >/dev/null; }

KEYBOARD="QEMU QEMU USB Keyboard" TABLET="QEMU QEMU USB Tablet"

# A ticket called at this kiosk (the first of the day): its code.
called_ticket_code() {
  clupctl sim approach >/dev/null
  wait_for_screen '\(welcome\|store-full\)'
  clupctl sim press get-ticket >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  ticket_field A-001 code
}
releases() { clupctl status | sed -n 's/^ *turnstile .* \([0-9]*\) releases*.*/\1/p'; }

test_a_usb_wedge_scanner_in_the_shops_layout_opens_the_door_once_and_is_missed_when_unplugged() {
  local layout code started
  for layout in it fr; do
    kiosk_stop
    rm -rf "$WORK/state" "$WORK/cups"
    link_device "$KEYBOARD" "$WORK/reader"
    kiosk_start '[hardware]' "reader = \"$WORK/reader\"" "reader_layout = \"$layout\""
    wait_status "door-reader  evdev      ok"
    code=$(called_ticket_code)
    # The scanner, set to the shop's layout, types the code and Enter at a scanner's pace.
    started=$(date +%s%N)
    "$BIN/clupd" scanner-keys --layout "$layout" "$code" | timeout 300 python3 "$TOOLS/vm-keys.py" >/dev/null
    # shellcheck disable=SC2016 # read again at each try
    (wait_within 120 '[ "$(ticket_field A-001 state)" = admitted ]') || fail "A-001 not admitted ($layout): $(tail -n 5 "$WORK/clupd.log")"
    assert_eq "$(releases)" 1 "the door opened once ($layout)"
    echo "report: usb-kbd typing A-001's code (${#code} characters) in the $layout layout: admitted, 1 release, $(milliseconds_since "$started") ms from the first key"
  done
  # Unplugged: missing; plugged again (a new event node, linked as udev would): working.
  started=$(date +%s%N)
  unplug scanner
  wait_status "door-reader  evdev      missing"
  echo "report: usb-kbd unplugged: door-reader missing after $(milliseconds_since "$started") ms"
  started=$(date +%s%N)
  plug usb-kbd scanner ""
  link_device "$KEYBOARD" "$WORK/reader"
  wait_status "door-reader  evdev      ok"
  echo "report: plugged again: door-reader ok after $(milliseconds_since "$started") ms"
}

# A tap at (X, Y) of a screen of WIDTH x HEIGHT on the tablet (0…32767 on each axis).
tap() {
  local x=$(( $1 * 32767 / ($3 - 1) )) y=$(( $2 * 32767 / ($4 - 1) ))
  ask "{\"clup\": \"tap\", \"x\": $x, \"y\": $y, \"hold\": 0.1}" >/dev/null
}

test_two_taps_on_a_usb_touch_panel_print_a_ticket_and_unplugging_it_puts_the_totem_out_of_order() {
  local started size width height button x y
  link_device "$TABLET" "$WORK/touch"
  # Time for the emulated CPU between the two taps (the screen sleeps after this long idle).
  KIOSK_IDLE_SECONDS=30 kiosk_start '[hardware]' "touchscreen = \"$WORK/touch\""
  wait_status "touchscreen  evdev      ok"
  size=$(clupctl screen --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["width"], d["height"])')
  read -r width height <<< "$size"
  # Two taps: the first wakes the screen, the second is on its button for a ticket.
  tap $((width / 2)) $((height / 2)) "$width" "$height"
  wait_for_screen welcome
  button=$(clupctl screen --json | python3 -c '
import json, sys
for b in json.load(sys.stdin)["buttons"]:
    if b["name"] == "get-ticket": print(b["x"] + b["width"] // 2, b["y"] + b["height"] // 2)')
  [ -n "$button" ] || fail "no get-ticket button on the welcome screen: $(clupctl screen)"
  read -r x y <<< "$button"
  tap "$x" "$y" "$width" "$height"
  # shellcheck disable=SC2016 # read again at each try
  (wait_within 120 '[ -n "$(newest_ticket)" ]') || fail "no ticket after two taps: $(clupctl status) $(tail -5 "$WORK/clupd.log")"
  echo "report: two taps on usb-tablet (hid-generic, absolute) printed $(newest_ticket), $(wait_for_print "$(newest_ticket)")"
  started=$(date +%s%N)
  unplug panel
  wait_status "touchscreen  evdev      missing"
  wait_status "screen     out-of-order"
  echo "report: usb-tablet unplugged: touchscreen missing and the screen out of order after $(milliseconds_since "$started") ms"
  started=$(date +%s%N)
  plug usb-tablet panel ""
  link_device "$TABLET" "$WORK/touch"
  wait_status "touchscreen  evdev      ok"
  echo "report: plugged again: touchscreen ok after $(milliseconds_since "$started") ms"
  (wait_within 120 '! clupctl status | grep -q "screen     out-of-order"') || fail "still out of order: $(clupctl status)"
}

test_a_usb_serial_scanner_opens_the_door_and_is_missed_when_unplugged() {
  local code started
  # qemu's usb-serial is attached once something holds its chardev's other end: the host.
  ask '{"clup": "serial", "socket": "serial-scanner.sock", "text": ""}' >/dev/null
  (wait_within 120 '[ -c /dev/ttyUSB0 ]') || fail "no /dev/ttyUSB0: $(ls /dev/tty[A-Z]* 2>&1)"
  kiosk_start '[hardware]' 'serial_reader = "/dev/ttyUSB0"'
  wait_status "door-reader  serial     ok"
  code=$(called_ticket_code)
  ask "$(python3 -c 'import json, sys; print(json.dumps({"clup": "serial", "socket": "serial-scanner.sock", "text": sys.argv[1] + "\r\n"}))' "$code")" >/dev/null
  # shellcheck disable=SC2016 # read again at each try
  (wait_within 120 '[ "$(ticket_field A-001 state)" = admitted ]') || fail "A-001 not admitted: $(tail -n 5 "$WORK/clupd.log")"
  assert_eq "$(releases)" 1 "the door opened once"
  echo "report: usb-serial (ftdi_sio, /dev/ttyUSB0) read A-001's code: admitted, 1 release"
  started=$(date +%s%N)
  unplug serialreader
  wait_status "door-reader  serial     missing"
  echo "report: usb-serial unplugged: door-reader missing after $(milliseconds_since "$started") ms"
  started=$(date +%s%N)
  plug usb-serial serialreader ", \"chardev\": \"serialscanner\""
  wait_status "door-reader  serial     ok"
  echo "report: plugged again: door-reader ok after $(milliseconds_since "$started") ms"
}

run_tests
