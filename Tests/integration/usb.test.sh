#!/usr/bin/env bash
# The door's scanner and the touch panel as USB devices, through the kernel's own drivers,
# in a VM booting Debian's kernel (scripts/kernel-vm) with qemu's USB host controller
# (qemu-xhci, the kernel's xhci_hcd): a keyboard-wedge scanner (usb-kbd: usbhid and
# hid-generic) typing a ticket's code as a real scanner set to the shop's layout does, a
# touch panel (usb-tablet: absolute coordinates, hid-generic) tapped, and a serial scanner
# (usb-serial, an FTDI chip: ftdi_sio) that the host writes codes to. Each is unplugged and
# plugged again through QMP (device_del, device_add), as a technician pulls a cable.
# And the ticket printer on USB: the kernel's printer gadget (f_printer through configfs, on
# dummy_hcd) with a real model's IDs, usblp bound to it, the system's CUPS finding it
# through its own usb backend and printing to it, the gadget's side reading the ESC/POS
# bytes and setting its status lines (paper out, cover open) as the printer would.
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

STATUS_WAIT=120
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
# Pulls device ID (qemu's DRIVER, with more device_add ARGUMENTS) out, waits for the status
# line STATUS (ROLE and BACKEND, as `clupctl status` columns them) to say missing, plugs it
# back, runs AFTER_PLUG (linking its new node, as udev would) and waits for ok; reports both times.
unplug_and_plug() {
  local id=$1 driver=$2 arguments=$3 line=$4 after_plug=$5 started
  started=$(date +%s%N)
  unplug "$id"
  wait_status "$line missing"
  echo "report: $driver unplugged: ${line%% *} missing after $(milliseconds_since "$started") ms"
  started=$(date +%s%N)
  plug "$driver" "$id" "$arguments"
  $after_plug
  wait_status "$line ok"
  echo "report: plugged again: ${line%% *} ok after $(milliseconds_since "$started") ms"
}

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
  unplug_and_plug scanner usb-kbd "" "door-reader  evdev     " link_reader
}
link_reader() { link_device "$KEYBOARD" "$WORK/reader"; }
link_panel() { link_device "$TABLET" "$WORK/touch"; }

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
  link_panel
  wait_status "touchscreen  evdev      ok"
  echo "report: plugged again: touchscreen ok after $(milliseconds_since "$started") ms"
  (wait_within 120 '! clupctl status | grep -q "screen     out-of-order"') || fail "still out of order: $(clupctl status)"
}

test_a_usb_serial_scanner_opens_the_door_and_is_missed_when_unplugged() {
  local code
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
  unplug_and_plug serialreader usb-serial ", \"chardev\": \"serialscanner\"" "door-reader  serial    " true
}

# The ticket printer as a shop has it: a USB printer (the kernel's printer gadget, an Epson
# TM-T20II's IDs and device ID) that usblp binds, added to the system's CUPS as the README
# says (lpinfo -v, lpadmin … -m raw), with clupd reading its port's status lines.
test_a_usb_printer_through_usblp_and_cups_prints_tickets_and_its_paper_out_stops_them() {
  local kernel module uri started status count serving gadget=$WORK/gadget
  kernel=$ROOT/.build-vm/kernel
  for module in configfs dummy_hcd usb_f_printer usblp; do
    modprobe -d "$kernel" -S "$(uname -r)" "$module" || fail "modprobe $module"
  done
  mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
  python3 "$TOOLS/printer-gadget.py" make tm 0x04b8 0x0e15 EPSON TM-T20II \
    "MFG:EPSON;CMD:ESC/POS;MDL:TM-T20II;CLS:PRINTER;DES:EPSON TM-T20II Receipt;"
  (wait_within 60 '[ -c /dev/usb/lp0 ] && [ -c /dev/g_printer0 ]') || fail "no usblp port: $(dmesg | tail -n 5)"
  mkdir -p "$gadget"
  echo 18 > "$gadget/status"
  python3 "$TOOLS/printer-gadget.py" serve "$gadget" 2>"$gadget/serve.log" &
  serving=$!
  # shellcheck disable=SC2064 # this test's processes, stopped when it ends
  trap "kiosk_stop; kill $serving 2>/dev/null; pkill -x -f cupsd 2>/dev/null || true" EXIT
  (wait_within 30 "[ -e $gadget/serving ]") || fail "the gadget's side did not start: $(cat "$gadget/serve.log")"
  # The system's CUPS, as installed (its own configuration, socket and backends).
  mkdir -p /run/cups
  cupsd || fail "cupsd did not start"
  unset CUPS_SERVER
  # shellcheck disable=SC2016 # read again at each try
  (wait_within 60 '[ "$(lpstat -r 2>/dev/null)" = "scheduler is running" ]') || fail "the system's cupsd does not answer"
  started=$(date +%s%N)
  uri=$(lpinfo -v | awk '$1 == "direct" && $2 ~ /^usb:/ { print $2; exit }')
  [ -n "$uri" ] || fail "CUPS's usb backend found no printer: $(lpinfo -v)"
  echo "report: lpinfo -v (CUPS's usb backend) found $uri in $(milliseconds_since "$started") ms"
  # lpadmin warns that raw queues are deprecated (they still work in CUPS 2.4).
  lpadmin -p clup-ticket -E -v "$uri" -m raw 2>"$WORK/lpadmin.err" || fail "lpadmin: $(cat "$WORK/lpadmin.err")"
  ln -sfn /dev/usb/lp0 "$WORK/printer"
  KIOSK_IDLE_SECONDS=600 kiosk_write_config '[printer]' "profile = \"$ROOT/hardware/printers/escpos-80mm-raster.json\"" \
    '[hardware]' "printer_port = \"$WORK/printer\""
  kiosk_start_daemon
  wait_status "printer      usblp      ok       $WORK/printer: paper in, on line, no error"

  clupctl sim approach >/dev/null
  wait_for_screen welcome
  clupctl sim press get-ticket >/dev/null
  assert_eq "$(wait_for_print A-001)" called "A-001 printed through CUPS's usb backend"
  check_printed 1 A-001

  # Paper out, as the printer's lines say it: tickets stop, the screen and the voice say why.
  started=$(date +%s%N)
  echo 30 > "$gadget/status"
  wait_status "screen     no-paper"
  echo "report: paper out at the gadget: the screen said no paper after $(milliseconds_since "$started") ms"
  status=$(clupctl status)
  assert_contains "$status" "NOT READY"
  assert_contains "$status" "media-empty-error"
  assert_contains "$status" "printer      usblp      fault    $WORK/printer: NO PAPER, ERROR"
  assert_contains "$status" 'last said "No paper for tickets. Please ask a member of staff for a ticket."'
  ! clupctl sim press get-ticket >/dev/null 2>&1 || fail "a ticket button was there without paper: $(clupctl screen)"
  assert_eq "$(newest_ticket)" A-001 "no ticket issued without paper"
  started=$(date +%s%N)
  echo 18 > "$gadget/status"
  wait_status "screen     welcome"
  echo "report: paper back: the welcome screen after $(milliseconds_since "$started") ms"

  # The cover open: the printer off line with its error line.
  started=$(date +%s%N)
  echo 00 > "$gadget/status"
  wait_status "screen     printer-down"
  echo "report: cover open (off line, error): the screen said the printer is not ready after $(milliseconds_since "$started") ms"
  assert_contains "$(clupctl status)" "offline-report, other-error"
  echo 18 > "$gadget/status"
  wait_status "screen     welcome"
  clupctl sim press get-ticket >/dev/null
  assert_eq "$(wait_for_print A-002)" called "A-002 printed once the cover was shut"
  # Each ticket on paper once: nothing lost, nothing twice.
  check_printed 2 A-002
  count=$(clupctl tickets --json | grep -c '"number"')
  assert_eq "$count" 2 "tickets recorded"
  echo "report: $(python3 "$TOOLS/escpos-tickets.py" "$gadget/printed.bin" "$WORK/paper" | wc -l) tickets on paper (A-001, A-002), $(wc -c < "$gadget/printed.bin") bytes through CUPS's usb backend; each number once"
}

# Reads what the gadget was sent: COUNT tickets, the last one NUMBER in big print, cut, and
# its QR code read back by zbarimg equal to the ticket's code.
check_printed() {
  local count=$1 number=$2 read
  read=$(python3 "$TOOLS/escpos-tickets.py" "$WORK/gadget/printed.bin" "$WORK/paper") || fail "the printed bytes do not read: $read"
  assert_eq "$(printf '%s\n' "$read" | wc -l)" "$count" "tickets on paper"
  printf '%s\n' "$read" | tail -n 1 | python3 -c '
import json, subprocess, sys
ticket, number, code = json.loads(sys.stdin.read()), sys.argv[1], sys.argv[2]
lines = ticket["lines"]
assert number in lines, f"{number} not among the lines printed: {lines}"
assert ticket["cut"], "not cut"
read = [subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True).stdout.strip() for path in ticket["bitmaps"]]
assert code in read, f"the QR codes printed read {read}, not the ticket code"
' "$number" "$(ticket_field "$number" code)" || fail "ticket $number on paper"
  echo "report: $number on paper: its number, its QR code read back by zbarimg equal to its code, cut"
}

run_tests
