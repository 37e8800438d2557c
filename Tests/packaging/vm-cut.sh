#!/usr/bin/env bash
# A power cut in the middle of an upgrade, on a real Debian 12 with systemd as PID 1: run
# inside the VM of scripts/systemd-vm by scripts/test-packages, as root, twice on the same
# disk, never on a development machine.
#
# First boot: the hub and the totem at the OLDER release, the totem enrolled, a ticket
# printed and admitted at the door. Then `apt-get install` of the NEW package, and the
# power cut while dpkg unpacks it: every new file in place, the package half-installed,
# its postinst (the package's copy of the database, the restart) never run. The cut is
# placed by stopping dpkg in the old package's `postrm upgrade` (run once the new files
# are renamed into place, before the package is marked unpacked), then the disk is synced
# and the machine switched off as by sysrq, nothing stopped. The second boot loads no
# framebuffer nor sound card (vm_machine is the first boot's): clupd answers and admits without them.
#
# Second boot: systemd starts the new clupd, which copies the database before it migrates
# it (the one copy there is), and serves the ticket printed before. A technician then does
# what README's "Installing on a totem" says after a cut: `dpkg -i` of the same package
# again, and the package is installed, clupd restarted, nothing lost.
#
# Reads $CLUP_SHARE/out/vm/walk.env (written by scripts/test-packages): OLD_DIR, NEW_DIR,
# OLD_VERSION, NEW_VERSION. Which boot this is, the disk says (/var/lib/clup-walk/).
set -euo pipefail
SHARE=${CLUP_SHARE:?the checkout as the guest sees it}
# shellcheck source=/dev/null # written by scripts/test-packages at run time
source "$SHARE/out/vm/walk.env"
OLD=$SHARE/$OLD_DIR NEW=$SHARE/$NEW_DIR
source "$SHARE/Tests/packaging/vm-lib.sh"
WALK=/var/lib/clup-walk
# The technician the new version needs for clupctl sim.
KIOSK_SECRET=correct-horse-2026
POSTRM=/var/lib/dpkg/info/clup-totem.postrm

package_state() { dpkg-query -W -f '${db:Status-Abbrev}' clup-totem | tr -d ' '; }
schema_8() { sqlite3 "$1" "SELECT count(*) FROM grdb_migrations WHERE identifier LIKE 'v8:%'"; }

if [ ! -e "$WALK/first-boot" ]; then
  vm_machine

  step "The hub and the totem at $OLD_VERSION: installed, enrolled, a ticket printed and admitted"
  vm_hub "$OLD"
  vm_totem_config
  apt-get install -y "$OLD"/clup-totem_*.deb >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; fail "apt install clup-totem $OLD_VERSION"; }
  vm_enrol --as-clup
  systemctl start clupd
  within 60 answers
  first=$(take_ticket)
  qr=$(printed_qr "$first")
  [ -n "$qr" ] || fail "no QR code read on the printed ticket $first"
  assert_contains "$(clupctl sim scan "$qr")" "admitted $first" "the printed ticket at the door"
  clupctl sim pass in >/dev/null
  mkdir -p "$WALK"
  printf 'FIRST=%s\nQR=%q\nEVENTS=%s\nTICKETS=%s\nLEDGER=%s\n' "$first" "$qr" "$(totem_last_seq)" \
    "$(digest "SELECT number, state FROM ticket ORDER BY number")" "$(digest "SELECT * FROM ledger ORDER BY rowid")" > "$WALK/first-boot"
  report "clupd $OLD_VERSION: ticket $first admitted, $(totem_last_seq) events"

  step "apt-get install of $NEW_VERSION, and the power cut while dpkg unpacks it"
  # The old package's postrm, run by dpkg after the new files are in place and before the
  # package is marked unpacked, stops there the first time (and puts itself back).
  mv "$POSTRM" "$POSTRM.walk"
  cat > "$POSTRM" <<EOF
#!/bin/sh
mv "$POSTRM.walk" "$POSTRM"
touch /run/walk-cut-here
exec sleep infinity
EOF
  chmod 755 "$POSTRM"
  sync
  old_inode=$(stat -c %i /usr/bin/clupd)
  setsid apt-get install -y "$NEW"/clup-totem_*.deb >/var/tmp/apt-cut.log 2>&1 < /dev/null &
  apt_pid=$!
  within 600 "[ -e /run/walk-cut-here ] || ! kill -0 $apt_pid 2>/dev/null"
  [ -e /run/walk-cut-here ] || { cat /var/tmp/apt-cut.log; fail "apt-get install ended before the unpacking's last step"; }
  assert_eq "$(package_state)" iHR "dpkg's state of clup-totem at the cut (half-installed, reinstall required)"
  [ "$(stat -c %i /usr/bin/clupd)" != "$old_inode" ] || fail "/usr/bin/clupd is still $OLD_VERSION's at the cut"
  [ -z "$(find /var/lib/clup/backups -name 'clupd-*.sqlite' 2>/dev/null)" ] || fail "a copy of the database before the cut"
  is_active clupd || fail "the old clupd stopped before the cut"
  report "at the cut: clup-totem $(package_state) (half-installed, reinstall required), /usr/bin/clupd $NEW_VERSION's, $OLD_VERSION's clupd still serving, no copy of the database"
  # scripts/systemd-vm's runner syncs the disk (ext4 commits every 5 s anyway) and switches
  # the machine off at once (sysrq o): no unit is stopped, dpkg is never resumed.
  exit 0
fi

# shellcheck source=/dev/null # written by the first boot
source "$WALK/first-boot"
if [ -z "${FIRST:-}" ] || [ -z "${QR:-}" ]; then fail "the first boot wrote no ticket"; fi
step "The boot after the cut: systemd as PID 1 starts the new clupd"
assert_eq "$(ps -p 1 -o comm=)" systemd "PID 1"
state=$(systemctl is-system-running --wait || true)
report "system $state; clup-totem $(package_state); $(dpkg --audit | head -n 1)"
assert_eq "$(package_state)" iHR "dpkg's state of clup-totem after the cut"
within 120 answers
is_active clupd || fail "clupd is $(systemctl is-active clupd || true) after the cut"

step "The new clupd copied the database before it migrated it: the one way back"
mapfile -t backups < <(find /var/lib/clup/backups -maxdepth 1 -name 'clupd-*.sqlite' -printf '%T@ %p\n' | sort -n | cut -d ' ' -f 2-)
assert_eq "${#backups[@]}" 1 "copies in /var/lib/clup/backups (clupd's own; the postinst never ran): ${backups[*]}"
backup=${backups[0]}
assert_eq "$(sqlite3 "$backup" 'PRAGMA integrity_check')" ok "the integrity of $backup"
assert_eq "$(schema_8 "$backup")" 0 "$backup is of $OLD_VERSION's schema"
assert_eq "$(sqlite3 "$backup" 'SELECT COALESCE(MAX(seq), 0) FROM event')" "$EVENTS" "the events in the copy"
assert_eq "$(schema_8 /var/lib/clup/clup.sqlite)" 1 "the new clupd migrated"
journalctl -b -u clupd -o cat | grep "the database was copied before this version migrated it" >/dev/null \
  || fail "clupd did not log its copy before migrating: $(journalctl -b -u clupd -o cat | tail -n 20)"
assert_eq "$(digest "SELECT number, state FROM ticket ORDER BY number")" "$TICKETS" "the tickets"
assert_eq "$(digest "SELECT * FROM ledger ORDER BY rowid")" "$LEDGER" "the ledger"
report "$(basename "$backup"): $(stat -c '%s bytes, %U:%G' "$backup"), events 1-$EVENTS; the database migrated, tickets and ledger unchanged"

step "A technician recovers as README says: dpkg -i of the same package again"
# What a technician tries first mends nothing, as README says.
rc=0; out=$(dpkg --configure -a 2>&1) || rc=$?
report "dpkg --configure -a: exit $rc, $(wc -l <<< "$out") lines: $(head -n 1 <<< "$out" | cut -c1-140)"
rc=0; out=$(dpkg --configure clup-totem 2>&1) || rc=$?
report "dpkg --configure clup-totem: exit $rc: $(grep -m 1 -i 'clup-totem' <<< "$out" | cut -c1-160)"
[ "$rc" -ne 0 ] || fail "dpkg --configure clup-totem succeeded on a half-installed package: $out"
rc=0; out=$(apt-get -f install -y 2>&1) || rc=$?
report "apt-get -f install: exit $rc: $(grep -m 1 '^E:' <<< "$out" | cut -c1-160)"
assert_contains "$out" "needs to be reinstalled, but I can't find an archive for it" "apt-get -f install"
assert_eq "$(package_state)" iHR "dpkg's state of clup-totem after dpkg --configure and apt-get -f install"
dpkg -i "$NEW"/clup-totem_*.deb >/tmp/dpkg.log 2>&1 || { cat /tmp/dpkg.log; fail "dpkg -i clup-totem $NEW_VERSION after the cut"; }
assert_eq "$(package_state)" ii "dpkg's state of clup-totem after dpkg -i"
assert_eq "$(dpkg-query -W -f '${Version}' clup-totem)" "$NEW_VERSION"
[ -z "$(dpkg --audit)" ] || fail "dpkg --audit after the recovery: $(dpkg --audit)"
within 60 answers
assert_eq "$(digest "SELECT number, state FROM ticket ORDER BY number")" "$TICKETS" "the tickets after the recovery"
printf '%s\n' "$KIOSK_SECRET" | clupctl technician add tess >/dev/null
printf '%s\n' "$KIOSK_SECRET" | clupctl login tess >/dev/null
assert_contains "$(clupctl sim scan "$QR")" "goodbye: $FIRST leaves" "the ticket printed before the cut, on the way out"
assert_eq "$(schema_8 "$backup")" 0 "the copy from before the cut, kept"
report "clup-totem $(package_state) $NEW_VERSION, clupd $(systemctl is-active clupd); ticket $FIRST printed before the cut left by the door; $(find /var/lib/clup/backups -name 'clupd-*.sqlite' | wc -l) copies kept"

echo
echo "walk: all passed"
