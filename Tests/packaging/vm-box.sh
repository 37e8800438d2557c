#!/usr/bin/env bash
# A totem in a box: the installed clup-totem under systemd with hardware.mode = "linux" and
# nothing simulated, every device reached through its kernel driver, found where the
# package's udev rules put it. Run inside the VM of scripts/systemd-vm by
# scripts/test-packages, as root, never on a development machine, with qemu's devices
# (CLUP_VM_DEVICES): the screen on virtio-gpu (virtio_gpu, DRM), the touch panel on
# usb-tablet (usbhid, hid-generic), the door's scanner on a usb-kbd, the turnstile's
# contacts board on a second usb-kbd (F12 in, F11 out); in the guest, the ticket printer as
# the kernel's USB printer gadget (f_printer on dummy_hcd: usblp binds it, the system's
# CUPS prints to it through its usb backend) and the sound card snd-aloop (what is played
# is recorded on its other side). The host acts as the customer through QMP
# (Tests/integration/tools/vm-host.py): taps, the scanner typing the ticket's code, the
# turnstile's contact.
#
# The box has no GPIO (Debian's kernel has no gpio-sim): the turnstile's release line is a
# value file clupd pulses, and no presence sensor is plugged in (the first tap wakes it).
#
# A whole visit: a tap wakes the screen, a tap on "Get a ticket" prints it (the bytes read
# at the printer and decoded: the number, the QR read back), it is called aloud (recorded),
# scanned at the door, the turnstile released and the passage counted, the hub told. Then
# the printer's paper runs out and comes back.
#
# Reads $CLUP_SHARE/out/vm/box.env (written by scripts/test-packages): NEW_DIR.
set -euo pipefail
SHARE=${CLUP_SHARE:?the checkout as the guest sees it}
# shellcheck source=/dev/null # written by scripts/test-packages at run time
source "$SHARE/out/vm/box.env"
NEW=$SHARE/$NEW_DIR
source "$SHARE/Tests/packaging/vm-lib.sh"
TOOLS=$SHARE/Tests/integration/tools
KIOSK_SECRET=correct-horse-2026
GADGET=/var/tmp/printer-gadget

ask() { timeout 120 python3 "$TOOLS/vm-ask.py" "$1"; }
milliseconds_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
status_shows() { clupctl status | grep -q -- "$1"; }
# A tap at (X, Y) of the screen, on the tablet (0…32767 on each axis), the finger resting
# HOLD seconds (default 0.3). Under emulation the guest may stall longer than a real tap's
# tenth of a second, and then receive the press and the release in one go, a contact of a
# millisecond, which the panel's ghost filter (10 ms) rightly drops: a touch that only wakes
# the screen rests a second (any gesture wakes it), one on a button 0.3 s (a long press is 0.6 s).
tap() {
  local width height
  read -r width height < <(clupctl screen --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["width"], d["height"])')
  ask "{\"clup\": \"tap\", \"device\": \"gpu\", \"x\": $(( $1 * 32767 / (width - 1) )), \"y\": $(( $2 * 32767 / (height - 1) )), \"hold\": ${3:-0.3}}" >/dev/null
}
# The middle of button NAME on the screen shown.
button() {
  clupctl screen --json | python3 -c '
import json, sys
for b in json.load(sys.stdin)["buttons"]:
    if b["name"] == sys.argv[1]: print(b["x"] + b["width"] // 2, b["y"] + b["height"] // 2)' "$1"
}
# The turnstile's board closes contact KEY (F12: someone went in) for a moment. qemu sends
# input to a console's devices, not to a device: the scanner and the tablet are bound to the
# screen's (display=gpu), so keys sent to no console go to the board, the one keyboard left
# unbound.
contact() { ask "{\"clup\": \"keys\", \"keys\": [[$1, true], [$1, false]], \"pause\": 0.2}" >/dev/null; }
awake() { clupctl status | grep -q "^screen  *welcome$"; }
count_loud() { tail -c +45 "$1" | od -An -v -t d2 -w2 | awk '$1 > 1000 || $1 < -1000 { n++ } END { print n + 0 }'; }

step "The machine: systemd as PID 1"
assert_eq "$(ps -p 1 -o comm=)" systemd "PID 1"
state=$(systemctl is-system-running --wait || true)
report "systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p'), kernel $(uname -r), system $state"
[ "$state" = running ] || { systemctl --failed --no-pager; fail "the system is $state"; }
exchange=$(sed -n 's/.*clup\.exchange=\([^ ]*\).*/\1/p' /proc/cmdline)
mkdir -p "$exchange"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288 clupexchange "$exchange"

step "The hub: PostgreSQL, install, init, store 7"
vm_hub "$NEW"

step "The totem's package: its udev rules name the devices"
apt-get install -y "$NEW"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-totem"; }
report "clup-totem $(dpkg-query -W -f '${Version}' clup-totem) installed: $(dpkg -L clup-totem | grep rules.d)"

step "The devices, through their kernel drivers: qemu's, the printer gadget, snd-aloop"
modprobe snd-aloop
modprobe dummy_hcd
modprobe libcomposite
modprobe usb_f_printer
python3 "$TOOLS/printer-gadget.py" make tm 0x04b8 0x0e15 EPSON TM-T20II \
  "MFG:EPSON;CMD:ESC/POS;MDL:TM-T20II;CLS:PRINTER;DES:EPSON TM-T20II Receipt;"
# As the README says after installing: the rules applied to the devices already there.
udevadm trigger --action=add
udevadm settle
within 60 '[ -e /dev/clup/printer ] && [ -e /dev/clup/touch ] && [ -e /dev/clup/reader ] && [ -e /dev/clup/turnstile ] && [ -e /dev/dri/card0 ] && [ -e /dev/snd/pcmC0D0p ] && [ -e /dev/g_printer0 ]'
for node in /dev/clup/touch /dev/clup/reader /dev/clup/turnstile /dev/clup/printer /dev/dri/card0 /dev/snd/pcmC0D0p; do
  real=$(readlink -f "$node")
  report "$node -> $real ($(stat -c '%G %a' "$real")): $(udevadm info -q property -n "$real" | sed -n 's/^ID_MODEL=//p; s/^ID_PATH=//p' | head -n 1)"
done
report "drivers: $(for d in virtio_gpu usbhid hid_generic usblp dummy_hcd usb_f_printer snd_aloop xhci_hcd; do lsmod | grep -q "^$d " && printf '%s ' "$d"; done)"
mkdir -p "$GADGET"
echo 18 > "$GADGET/status"
python3 "$TOOLS/printer-gadget.py" serve "$GADGET" 2>"$GADGET/serve.log" &
within 30 "[ -e $GADGET/serving ]"

step "The printer in the system's CUPS, as the README tells a technician"
uri=$(lpinfo -v | awk '$1 == "direct" && $2 ~ /^usb:/ { print $2; exit }')
[ -n "$uri" ] || fail "CUPS's usb backend found no printer: $(lpinfo -v)"
# lpadmin warns that raw queues are deprecated (they still work in CUPS 2.4).
lpadmin -p clup-ticket -E -v "$uri" -m raw 2>/tmp/lpadmin.err || fail "lpadmin: $(cat /tmp/lpadmin.err)"
report "lpinfo -v: direct $uri; queue clup-ticket: $(lpstat -p clup-ticket | head -n 1)"

step "The totem: hardware.mode = \"linux\", enrol, start"
cat > /etc/clup/clupd.toml <<'EOF'
[control]
group = "clup"
[screen]
idle_timeout_seconds = 120
[printer]
profile = "/usr/share/clup/printers/escpos-80mm-raster.json"
[hardware]
mode = "linux"
reader_layout = "us"
turnstile_entry_key = 88
turnstile_exit_key = 87
turnstile_release = "/var/lib/clup/turnstile-release"
printer_port = "/dev/clup/printer"
EOF
vm_enrol
# The box has no GPIO: the turnstile's release line is a value file clupd pulses.
install -o clup -g clup -m 600 /dev/null /var/lib/clup/turnstile-release
systemctl start clupd
within 120 answers
printf "%s\n" "$KIOSK_SECRET" | clupctl technician add tess >/dev/null
printf '%s\n' "$KIOSK_SECRET" | clupctl login tess >/dev/null
report "clupd $(dpkg-query -W -f '${Version}' clup-totem) active as $(ps -o user= -p "$(main_pid)"): $(systemctl show -p StatusText --value clupd)"

step "Every device where the udev rules put it, through its driver; none simulated"
for line in "display      drm        ok" "touchscreen  evdev      ok       /dev/clup/touch" \
            "door-reader  evdev      ok       /dev/clup/reader" "turnstile    evdev      ok       /dev/clup/turnstile" \
            "printer      usblp      ok       /dev/clup/printer: paper in, on line, no error" "voice        alsa       ok       default"; do
  within 60 status_shows "$line"
done
devices=$(clupctl status | sed -n '/^devices/,$p')
! grep -q simulated <<< "$devices" || fail "a simulated device: $devices"
printf '%s\n' "$devices" | sed 's/^/      /'

step "A visit: a tap wakes the screen, a tap on Get a ticket prints it"
rm -f /tmp/heard.wav
arecord -q -D plughw:Loopback,1,0 -f S16_LE -r 22050 -c 1 -d 900 /tmp/heard.wav &
recorder=$!
read -r width height < <(clupctl screen --json | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["width"], d["height"])')
tap $((width / 2)) $((height / 2)) 1.0
# shellcheck disable=SC2016 # read again at each try
within 60 'awake || { clupctl status | grep "^screen\|touchscreen" >&2; false; }'
clupctl screenshot "$exchange/welcome.png" >/dev/null
shown=$(ask "{\"clup\": \"screen\", \"device\": \"gpu\", \"head\": 0, \"png\": \"$exchange/welcome.png\"}")
assert_contains "$shown" '"differing": 0' "qemu's screendump of virtio-gpu against clupctl screenshot"
report "woken by a tap; the welcome screen on virtio-gpu: $shown"
read -r x y < <(button get-ticket)
started=$(date +%s%N)
tap "$x" "$y"
# shellcheck disable=SC2016 # read again at each try
within 60 '[ -n "$(newest_ticket)" ]'
number=$(newest_ticket)
within 120 printed "$number"
assert_eq "$(ticket_state "$number")" called "$number after printing (an empty store calls it at once)"
report "$number printed through CUPS's usb backend $(milliseconds_since "$started") ms after the tap"
tickets=$(python3 "$TOOLS/escpos-tickets.py" "$GADGET/printed.bin" /tmp/paper) || fail "the printed bytes: $tickets"
code=$(clupctl tickets --json | python3 -c '
import json, sys
print(next(t["code"] for t in json.load(sys.stdin)["tickets"] if t["number"] == sys.argv[1]))' "$number")
printf '%s\n' "$tickets" | python3 -c '
import json, subprocess, sys
tickets, number, code = [json.loads(line) for line in sys.stdin], sys.argv[1], sys.argv[2]
assert len(tickets) == 1, f"{len(tickets)} tickets on paper"
lines = tickets[0]["lines"]
assert number in lines, f"{number} not among the lines printed: {lines}"
read = [subprocess.run(["zbarimg", "--quiet", "--raw", p], capture_output=True, text=True).stdout.strip() for p in tickets[0]["bitmaps"]]
assert code in read, f"the QR codes printed read {read}"
' "$number" "$code" || fail "ticket $number on paper"
report "on paper: $number, its QR code read back by zbarimg equal to its code ($(wc -c < "$GADGET/printed.bin") bytes of ESC/POS)"

step "Called aloud"
# Recorded until the voice has played the call to its end (its line says "speaking" meanwhile).
within 120 "clupctl status | grep '^  voice' | grep -v ', speaking' | grep -q 'last said \"Number '"
kill -INT "$recorder"; wait "$recorder" || true
loud=$(count_loud /tmp/heard.wav)
[ "$loud" -gt 22050 ] || fail "the sound card heard $loud loud samples"
report "the sound card (snd-aloop) recorded $loud loud samples ($((loud * 100 / 22050)) cs of speech); $(clupctl status | sed -n 's/.*\(last said .*\)/\1/p')"

step "Scanned at the door: the scanner (usb-kbd) types the code"
started=$(date +%s%N)
clupd scanner-keys --layout us "$code" | timeout 300 python3 "$TOOLS/vm-keys.py" 0.008 gpu 0 >/dev/null
within 120 "[ \"\$(ticket_state $number)\" = admitted ]"
within 30 'clupctl status | grep -q "turnstile .* 1 release"'
report "$number admitted $(milliseconds_since "$started") ms after the first key; $(clupctl status | grep '^  turnstile')"

step "The passage: the turnstile's board (a second usb-kbd) closes its entry contact"
contact 88
within 60 'clupctl status | grep -q "^occupancy  1 inside"'
report "$(clupctl status | grep '^occupancy')"

step "The hub told"
clupctl sync now >/dev/null
within 120 synced
report "the hub acknowledged the totem's $(totem_last_seq) events; at the hub: $(hub_sql "SELECT count(*) FROM ticket") ticket(s)"

step "The printer out of paper, as its status lines say: tickets stop, the screen says why; paper back"
# Someone at the screen (no presence sensor here: a tap wakes it, where the welcome screen has
# no button, for it may still be awake from the visit).
awake || tap $((width / 2)) $((height * 3 / 10)) 1.0
# shellcheck disable=SC2016 # read again at each try
within 60 'awake || { clupctl status | grep "^screen\|touchscreen" >&2; false; }'
started=$(date +%s%N)
echo 30 > "$GADGET/status"
within 60 'clupctl status | grep -q "^screen  *no-paper$"'
report "paper out at the gadget: the screen said no paper after $(milliseconds_since "$started") ms; $(clupctl status | grep '^printer')"
started=$(date +%s%N)
echo 18 > "$GADGET/status"
within 60 'clupctl status | grep -q "^screen  *welcome$"'
report "paper back: the welcome screen after $(milliseconds_since "$started") ms"
is_active clupd || fail "clupd is $(systemctl is-active clupd)"
echo
echo "the totem in a box: passed"
