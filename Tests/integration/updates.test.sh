#!/usr/bin/env bash
# The chain's software updates: the hub's signed apt repository (aptly, the chain's release
# key), a totem enrolled with that key, and Debian's own apt fetching from the hub over
# HTTPS in a private apt tree (nothing of this machine's apt is touched).
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"
source "$ROOT/scripts/lib/kiosk.sh"
source "$ROOT/scripts/lib/hub.sh"

stop_everything() {
  kiosk_stop
  hub_stop_all
}

# A hub (its release key made by clup-hub init), store 7, and a totem enrolled there whose
# apt source is written into the private apt tree $WORK/apt.
updates_up() {
  trap stop_everything EXIT
  hub_start
  clup_hub store create 7 --name "CLup Market" --capacity 30 >/dev/null
  local code
  code=$(clup_hub enrolment-code --store 7 --letter A --door main)
  "$BIN/clupd" enrol --hub "$HUB_URL" --code "$code" --ca "$WORK/hub/ca.pem" --state-dir "$WORK/state" >/dev/null
  apt_tree
}

# A private apt: its own configuration, sources, lists and cache under $WORK/apt; apt reads
# nothing of this machine's /etc/apt (APT_CONFIG, Dir).
apt_tree() {
  mkdir -p "$WORK/apt/etc/apt/apt.conf.d" "$WORK/apt/etc/apt/sources.list.d" "$WORK/apt/etc/apt/preferences.d" \
    "$WORK/apt/var/lib/apt/lists/partial" "$WORK/apt/var/cache/apt/archives/partial" "$WORK/apt/var/lib/dpkg" "$WORK/download"
  touch "$WORK/apt/var/lib/dpkg/status" "$WORK/apt/etc/apt/sources.list"
  cat > "$WORK/apt/etc/apt/apt.conf" <<EOF
Dir "$WORK/apt/";
Dir::State::status "$WORK/apt/var/lib/dpkg/status";
Dir::Etc::TrustedParts "$WORK/apt/etc/apt/trusted.gpg.d/";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
EOF
  chmod -R a+rX "$WORK/apt"
}
apt_private() { APT_CONFIG="$WORK/apt/etc/apt/apt.conf" "$@"; }
# apt as the update helper runs it: without the pin that keeps apt from installing anything
# from the hub by itself (its own empty preferences).
apt_helper() {
  mkdir -p "$WORK/no-preferences"
  APT_CONFIG="$WORK/apt/etc/apt/apt.conf" "$1" -o Dir::Etc::Preferences=/dev/null -o "Dir::Etc::PreferencesParts=$WORK/no-preferences" "${@:2}"
}
# Fails if apt would install any clup-totem (a package it does not know has no candidate).
no_candidate() {
  case "$(apt_helper apt-cache policy clup-totem)" in *"Candidate: 0"*|*"Candidate: 9"*) fail "apt offers clup-totem: $1" ;; esac
}

# A clup-totem package of VERSION built here (a file of its own inside, WORDS in it; with
# SBOM set, an SBOM where scripts/package puts it).
build_package() {
  local version=$1 words=${2:-release $1} dir="$WORK/pkg-$1-$RANDOM"
  mkdir -p "$dir/DEBIAN" "$dir/usr/share/clup-totem-test"
  if [ -n "${SBOM:-}" ]; then
    mkdir -p "$dir/usr/share/doc/clup-totem"
    printf '{"spdxVersion": "SPDX-2.3", "name": "clup-totem_%s_amd64"}\n' "$version" > "$dir/usr/share/doc/clup-totem/clup-totem.spdx.json"
  fi
  printf 'Package: clup-totem\nVersion: %s\nArchitecture: amd64\nMaintainer: CLup <dev@clup.example>\nDescription: test release %s\n' \
    "$version" "$version" > "$dir/DEBIAN/control"
  printf '%s\n' "$words" > "$dir/usr/share/clup-totem-test/marker"
  dpkg-deb --root-owner-group -Zxz --build "$dir" "$WORK/clup-totem_${version}_amd64-$RANDOM.deb" | sed -n "s/.*in '\(.*\)'\./\1/p"
}

test_a_release_added_at_the_hub_is_fetched_by_apt_on_the_enrolled_totem() {
  updates_up
  python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); assert e["releaseKey"] and e["repository"].endswith("/repo"), e' \
    "$WORK/state/enrolment.json" || fail "the enrolment holds the chain's release key and repository"
  deb=$(SBOM=1 build_package 0.99.0)
  out=$(clup_hub release add "$deb") || fail "release add: $out"
  assert_contains "$out" "clup-totem 0.99.0 (amd64) published at /repo"
  # Its SBOM, published beside it.
  sbom=$(curl -sf --cacert "$WORK/hub/ca.pem" "$HUB_URL/repo/sbom/clup-totem_0.99.0_amd64.spdx.json") || fail "no SBOM at /repo/sbom"
  assert_eq "$sbom" '{"spdxVersion": "SPDX-2.3", "name": "clup-totem_0.99.0_amd64"}' "the SBOM the hub serves"
  assert_eq "$(clup_hub release list)" "$(printf 'clup-totem\t0.99.0\tamd64\tno signed manifest')" "the repository's packages"
  out=$("$BIN/clupd" apt-source --state-dir "$WORK/state" --apt-directory "$WORK/apt/etc/apt") || fail "apt-source: $out"
  assert_contains "$(cat "$WORK/apt/etc/apt/sources.list.d/clup.sources")" "Signed-By: $WORK/apt/etc/apt/keyrings/clup-chain.gpg"
  out=$(apt_private apt-get update 2>&1) || fail "apt-get update: $out"
  # apt by itself takes nothing from the hub (the pin apt-source wrote): no upgrade, no dependency.
  assert_contains "$(cat "$WORK/apt/etc/apt/preferences.d/clup-hub.pref")" "Pin-Priority: -1"
  policy=$(apt_private apt-cache policy clup-totem)
  assert_contains "$policy" "Candidate: (none)"
  assert_contains "$policy" "-1 $HUB_URL/repo stable/main amd64 Packages"
  policy=$(apt_helper apt-cache policy clup-totem)
  assert_contains "$policy" "Candidate: 0.99.0"
  assert_contains "$policy" "$HUB_URL/repo stable/main amd64 Packages"
  (cd "$WORK/download" && apt_helper apt-get download clup-totem=0.99.0 >/dev/null 2>&1) || fail "apt-get download"
  assert_eq "$(sha256sum < "$WORK/download/clup-totem_0.99.0_amd64.deb")" "$(sha256sum < "$deb")" "the package apt fetched"
  # A second release: apt offers the newer one, and the repository keeps the first.
  clup_hub release add "$(build_package 0.100.0)" >/dev/null || fail "the second release"
  apt_private apt-get update >/dev/null 2>&1 || fail "apt-get update after the second release"
  policy=$(apt_helper apt-cache policy clup-totem)
  assert_contains "$policy" "Candidate: 0.100.0"
  assert_contains "$policy" "0.99.0 500"
  echo "report: apt on the totem's tree, as the helper runs it: $(apt_helper apt-cache policy clup-totem | sed -n 's/^ *Candidate: /candidate /p'), 0.99.0 still offered; by itself: $(apt_private apt-cache policy clup-totem | sed -n 's/^ *Candidate: /candidate /p')"
}

test_apt_refuses_a_repository_signed_by_another_key_or_altered_on_the_way() {
  updates_up
  clup_hub release add "$(build_package 0.99.0)" >/dev/null || fail "release add"
  "$BIN/clupd" apt-source --state-dir "$WORK/state" --apt-directory "$WORK/apt/etc/apt" >/dev/null || fail "apt-source"
  apt_private apt-get update >/dev/null 2>&1 || fail "apt-get update with the chain's key"
  # Another chain's key where the totem's is: the hub's index is not signed by it.
  mkdir -m 700 "$WORK/other-gnupg"
  GNUPGHOME="$WORK/other-gnupg" gpg --batch --quiet --passphrase '' --quick-gen-key "another chain" ed25519 sign never 2>/dev/null
  cp "$WORK/apt/etc/apt/keyrings/clup-chain.gpg" "$WORK/chain-key.gpg"
  GNUPGHOME="$WORK/other-gnupg" gpg --batch --export > "$WORK/apt/etc/apt/keyrings/clup-chain.gpg"
  GNUPGHOME="$WORK/other-gnupg" gpgconf --kill gpg-agent
  rm -rf "$WORK/apt/var/lib/apt/lists" && mkdir -p "$WORK/apt/var/lib/apt/lists/partial"
  rc=0; out=$(apt_private apt-get update 2>&1) || rc=$?
  assert_contains "$out" "NO_PUBKEY"
  no_candidate "signed by another key"
  echo "report: signed by another key: $(grep -m1 -o 'The following signatures.*' <<<"$out")"
  cp "$WORK/chain-key.gpg" "$WORK/apt/etc/apt/keyrings/clup-chain.gpg"
  # The packages' list altered at the hub, after it was signed: a version slipped in.
  packages="$WORK/hub/releases/aptly/public/dists/stable/main/binary-amd64/Packages"
  rm -f "$packages.gz" "$packages.bz2"
  sed -i 's/^Version: 0.99.0$/Version: 9.9.9/' "$packages"
  rm -rf "$WORK/apt/var/lib/apt/lists" && mkdir -p "$WORK/apt/var/lib/apt/lists/partial"
  rc=0; out=$(apt_private apt-get update 2>&1) || rc=$?
  case "$out" in *"Hash Sum mismatch"*|*"unexpected size"*|*"Failed to fetch"*) ;; *) fail "an altered Packages list was taken: $out" ;; esac
  no_candidate "an altered Packages list"
  echo "report: altered Packages: $(grep -m1 -o -e 'Hash Sum mismatch' -e 'File has unexpected size[^.]*' <<<"$out")"
  # The signed index itself altered: its signature no longer holds.
  inrelease="$WORK/hub/releases/aptly/public/dists/stable/InRelease"
  sed -i 's/^Suite: stable$/Suite: stable-altered/' "$inrelease"
  rm -f "$WORK/hub/releases/aptly/public/dists/stable/Release.gpg"
  rm -rf "$WORK/apt/var/lib/apt/lists" && mkdir -p "$WORK/apt/var/lib/apt/lists/partial"
  rc=0; out=$(apt_private apt-get update 2>&1) || rc=$?
  case "$out" in *"BADSIG"*|*"not signed"*|*"invalid"*) ;; *) fail "an altered InRelease was taken: $out" ;; esac
  no_candidate "an altered InRelease"
  echo "report: altered InRelease: $(grep -m1 -o -e 'BADSIG[^ ]*' -e 'is not signed' <<<"$out")"
}

test_the_repository_takes_only_totem_packages_and_never_replaces_a_version() {
  updates_up
  printf 'not a package\n' > "$WORK/notes.deb"
  rc=0; out=$(clup_hub release add "$WORK/notes.deb" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "E-HUB-025"; assert_contains "$out" "is not a Debian package"
  mkdir -p "$WORK/other/DEBIAN"
  printf 'Package: clup-hub\nVersion: 1.0\nArchitecture: amd64\nMaintainer: x <x@example>\nDescription: x\n' > "$WORK/other/DEBIAN/control"
  dpkg-deb --root-owner-group --build "$WORK/other" "$WORK/clup-hub_1.0_amd64.deb" >/dev/null
  rc=0; out=$(clup_hub release add "$WORK/clup-hub_1.0_amd64.deb" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "the repository holds clup-totem only"
  first=$(build_package 0.99.0 "the first build")
  clup_hub release add "$first" >/dev/null || fail "the first build"
  out=$(clup_hub release add "$first" 2>&1) || fail "the same file again is taken: $out"
  rc=0; out=$(clup_hub release add "$(build_package 0.99.0 "another build")" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "E-HUB-025"; assert_contains "$out" "a new build needs a new version"
  assert_eq "$(clup_hub release list | wc -l)" 1 "one package in the repository"
  # Two releases added at once both land (aptly takes one writer; the hub queues them).
  a=$(build_package 0.101.0); b=$(build_package 0.102.0)
  clup_hub release add "$a" >"$WORK/a.out" 2>&1 & pa=$!
  clup_hub release add "$b" >"$WORK/b.out" 2>&1 & pb=$!
  wait $pa || fail "the first of two at once: $(cat "$WORK/a.out")"
  wait $pb || fail "the second of two at once: $(cat "$WORK/b.out")"
  assert_eq "$(clup_hub release list | cut -f2 | paste -sd' ')" "0.99.0 0.101.0 0.102.0" "the versions, oldest first"
}

test_a_totem_keeps_the_key_it_was_first_given() {
  updates_up
  "$BIN/clupd" apt-source --state-dir "$WORK/state" --apt-directory "$WORK/apt/etc/apt" >/dev/null || fail "apt-source"
  # The enrolment file is clupd's: a key changed there is refused, not trusted.
  python3 "$ROOT/Tests/integration/tools/alter-enrolment.py" "$WORK/state/enrolment.json" forged-release-key
  before=$(sha256sum < "$WORK/apt/etc/apt/keyrings/clup-chain.gpg")
  rc=0; out=$("$BIN/clupd" apt-source --state-dir "$WORK/state" --apt-directory "$WORK/apt/etc/apt" 2>&1) || rc=$?
  assert_status $rc 1 "$out"
  assert_contains "$out" "E-UPD-002"
  assert_eq "$(sha256sum < "$WORK/apt/etc/apt/keyrings/clup-chain.gpg")" "$before" "the key apt trusts"
  # A totem enrolled where the hub has no release key is told so.
  python3 "$ROOT/Tests/integration/tools/alter-enrolment.py" "$WORK/state/enrolment.json" no-release-key
  rc=0; out=$("$BIN/clupd" apt-source --state-dir "$WORK/state" --apt-directory "$WORK/apt2" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "E-UPD-001"
  [ ! -e "$WORK/apt2/sources.list.d/clup.sources" ] || fail "a source without a key was written"
}

# A rollout started from the hub's shell, seen by a running clupd (its settings name the
# version to install), by `clup-hub totems`, by the panel's fleet page and by /metrics; a
# canary's report that the update was undone pauses it, and the panel resumes and aborts it.
test_a_rollout_reaches_the_totem_with_its_settings_and_a_failed_canary_pauses_it() {
  updates_up
  clup_hub store hours 7 --opens 00:00 --closes 24:00 >/dev/null
  printf '%s\n' "chain-admin-secret-1" | clup_hub manager add root --role chain-admin >/dev/null
  device=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["deviceID"])' "$WORK/state/enrolment.json")
  kiosk_start
  # clupd reports the version it runs with every upload.
  wait_until 60 "clup_hub totems | grep -q 'version $(clupd_version)'"
  deb=$(build_package 0.99.0)
  clup_hub release add "$deb" >/dev/null || fail "release add"
  rc=0; out=$(clup_hub rollout start 0.98.0 --canary "$device" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "clup-hub release add it first"
  # Published, but no manifest signed by the release manager vouches for it yet.
  rc=0; out=$(clup_hub rollout start 0.99.0 --canary "$device" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "E-UPD-005 no signed release manifest vouches for clup-totem 0.99.0"
  # The hub's refusal is in its audit: who, from where, and the refusal as the result.
  assert_eq "$(hub_psql -c "SELECT who || ' | ' || result FROM audit WHERE action = 'rollout of 0.99.0 started'")" \
    "clup-hub (shell) | refused: E-UPD-005 no signed release manifest vouches for clup-totem 0.99.0: the release manager signs one (clup-release sign) and it is added with clup-hub release vouch"
  assert_contains "$(hub_psql -c "SELECT source FROM audit WHERE action = 'rollout of 0.99.0 started'")" "shell, user $(id -un) (uid $(id -u))"
  release_key
  sign_release "$WORK/0.99.0.manifest.json" "$deb" >/dev/null || fail "clup-release sign"
  out=$(clup_hub release vouch "$WORK/0.99.0.manifest.json") || fail "release vouch: $out"
  assert_contains "$out" "release: 0.99.0 vouched for, 1 package(s), expires"
  assert_contains "$(clup_hub release list)" "$(printf 'clup-totem\t0.99.0\tamd64\tvouched, expires ')"
  out=$(clup_hub rollout start 0.99.0 --canary "$device" --stages 50 --healthy-minutes 1) || fail "rollout start: $out"
  assert_contains "$out" "running, stage 0 canaries ($device); 0 of 1 taken in run it"
  # The totem learns it with its settings (the long poll answers within a second or so).
  wait_until 30 'clupctl status | grep -q "clup-totem 0.99.0 to install"'
  assert_contains "$(clupctl status)" "idle: nobody in front, nothing printing, no called ticket"
  echo "report: $(clupctl status | grep -o 'clup-totem 0.99.0 to install.*called ticket')"
  # Someone in front: not the moment (the update helper waits).
  clupctl sim approach >/dev/null
  wait_until 30 'clupctl status | grep -q "not now: someone is in front (the screen shows welcome)"'
  # The helper's run here: it writes the chain's apt source from the enrolment, asks clupd,
  # and finds no clup-totem installed from a package on this machine (in the VM walk it is).
  out=$("$BIN/clupd" update --state-dir "$WORK/state" --work-dir "$WORK/update" --socket "$WORK/control.sock" \
    --apt-directory "$WORK/apt/etc/apt") || fail "clupd update: $out"
  assert_contains "$out" "update: the chain's apt source written into $WORK/apt/etc/apt"
  assert_contains "$out" "update: nothing to do: clup-totem is not installed from a package"
  [ -f "$WORK/apt/etc/apt/sources.list.d/clup.sources" ] || fail "the helper wrote no apt source"
  # Its update helper reports the version undone; the rollout pauses for every totem.
  python3 "$ROOT/scripts/lib/hub-load.py" report-update "$HUB_URL" "$WORK/hub/ca.pem" "$WORK/state" 0.99.0 rolled-back \
    "no READY within 120 s" >/dev/null || fail "the update's report"
  out=$(clup_hub rollout status)
  assert_contains "$out" "paused, stage 0"
  assert_contains "$out" "paused: $device rolled-back: no READY within 120 s"
  assert_contains "$(clup_hub totems)" "last update 0.99.0 rolled-back at"
  wait_until 30 '! clupctl status | grep -q "to install"'
  # The fleet page shows where it stands; the chain administrator resumes and aborts it there.
  jar="$WORK/root-jar"
  curl -s --cacert "$WORK/hub/ca.pem" -c "$jar" -H "Origin: $HUB_URL" --data-urlencode "name=root" --data-urlencode "password=chain-admin-secret-1" \
    "$HUB_URL/panel/login" -o /dev/null
  fleet=$(curl -s --cacert "$WORK/hub/ca.pem" -b "$jar" "$HUB_URL/panel/fleet")
  assert_contains "$fleet" "Rollout 1 of clup-totem 0.99.0"
  assert_contains "$fleet" "Paused, stage 0: the canaries ($device)."
  assert_contains "$fleet" '<td class="flag">0.99.0 rolled-back at'
  assert_contains "$fleet" 'id="rollout-resume"'
  csrf=$(sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' <<<"$fleet" | head -n 1)
  status=$(curl -s --cacert "$WORK/hub/ca.pem" -b "$jar" -H "Origin: $HUB_URL" -o /dev/null -w '%{http_code}' --data-urlencode "csrf=$csrf" \
    "$HUB_URL/panel/fleet/rollout/resume")
  assert_eq "$status" 303 "resume on the panel"
  assert_contains "$(clup_hub rollout status)" "running, stage 0"
  wait_until 30 'clupctl status | grep -q "clup-totem 0.99.0 to install"'
  curl -s --cacert "$WORK/hub/ca.pem" -b "$jar" -H "Origin: $HUB_URL" -o /dev/null --data-urlencode "csrf=$csrf" "$HUB_URL/panel/fleet/rollout/abort"
  assert_contains "$(clup_hub rollout status)" "aborted"
  # With none live, the fleet page offers to start one: the published versions a signed
  # manifest vouches for (not 0.98.0, published without one), the totems as canaries.
  clup_hub release add "$(build_package 0.98.0)" >/dev/null || fail "release add 0.98.0"
  fleet=$(curl -s --cacert "$WORK/hub/ca.pem" -b "$jar" "$HUB_URL/panel/fleet")
  assert_contains "$fleet" '<option value="0.99.0">0.99.0</option>'
  case $fleet in *'<option value="0.98.0">'*) fail "the fleet page offers 0.98.0, which no signed manifest vouches for" ;; esac
  assert_contains "$fleet" "name=\"canary-$device\""
  status=$(curl -s --cacert "$WORK/hub/ca.pem" -b "$jar" -H "Origin: $HUB_URL" -o /dev/null -w '%{http_code}' --data-urlencode "csrf=$csrf" \
    --data-urlencode "version=0.99.0" --data-urlencode "canary-$device=on" --data-urlencode "stages=50" \
    --data-urlencode "healthyMinutes=5" "$HUB_URL/panel/fleet/rollout/start")
  assert_eq "$status" 303 "a rollout started on the panel"
  assert_contains "$(clup_hub rollout status)" "rollout 2 of 0.99.0: running, stage 0 canaries ($device)"
  assert_contains "$(hub_psql -c "SELECT who || ': ' || action FROM audit WHERE action LIKE 'rollout 2%'")" "root: rollout 2 of 0.99.0 started"
  clup_hub rollout abort >/dev/null
  metrics=$(curl -s --cacert "$WORK/hub/ca.pem" -H "Authorization: Bearer $HUB_METRICS_TOKEN" "$HUB_URL/metrics")
  assert_contains "$metrics" "clup_hub_totem_software_info{device=\"$device\",store=\"7\",version=\"$(clupd_version)\"} 1"
  assert_contains "$metrics" "clup_hub_rollout_stage{version=\"0.99.0\",state=\"aborted\"} 0"
  assert_contains "$(hub_psql -c "SELECT who || ': ' || action FROM audit WHERE action LIKE 'rollout%' ORDER BY at, action")" \
    "root: rollout 1 aborted"
}

# The update helper's units: they verify, and the helper (root, as apt and dpkg are) is
# still fenced in: no kernel tunables or modules, a syscall filter, a short capability set.
test_the_update_helpers_units_verify_and_are_hardened() {
  mkdir -p "$WORK/unit"
  sed "s|/usr/bin/clupd|$BIN/clupd|" "$ROOT/systemd/clup-update.service" > "$WORK/unit/clup-update.service"
  cp "$ROOT/systemd/clup-update.timer" "$WORK/unit/"
  rc=0; out=$(systemd-analyze verify --man=no "$WORK/unit/clup-update.service" "$WORK/unit/clup-update.timer" 2>&1) || rc=$?
  assert_status $rc 0 "systemd-analyze verify: $out"
  systemd-analyze security --offline=true --threshold=35 "$WORK/unit/clup-update.service" >"$WORK/security.txt" 2>&1 \
    || fail "exposure above 3.5: $(tail -n 1 "$WORK/security.txt")"
  echo "report: $(tail -n 1 "$WORK/security.txt" | sed 's/→ //')"
}

# The mark the prerm leaves on `apt remove` when clupd ran: the package's own preinst and
# postinst, run as dpkg runs them for a system under DPKG_ROOT (the scripts then touch only
# that root). A reinstall after remove starts clupd again and takes the mark away; an
# upgrade drops a stale one (left across a downgrade) before the postinst could read it.
test_the_mark_of_a_running_clupd_serves_a_reinstall_only_and_stays_in_its_root() {
  local root="$WORK/dpkg-root" out rc
  local mark="$root/var/lib/clup/clupd-ran-before-remove"
  mkdir -p "$root/var/lib/clup"
  # A database there too: the postinst's copy is the host's clupd's business only on a running system.
  : > "$root/var/lib/clup/clup.sqlite"
  touch "$mark"
  out=$(DPKG_ROOT=$root sh "$ROOT/debian/clup-totem.preinst" install 0.12.0 2>&1) || fail "preinst install: $out"
  [ -e "$mark" ] || fail "preinst install took the mark a reinstall needs"
  rc=0; out=$(DPKG_ROOT=$root sh "$ROOT/debian/clup-totem.postinst" configure 0.12.0 2>&1) || rc=$?
  assert_status $rc 0 "postinst configure under DPKG_ROOT: $out"
  [ ! -e "$mark" ] || fail "postinst left the mark in $root"
  touch "$mark"
  out=$(DPKG_ROOT=$root sh "$ROOT/debian/clup-totem.preinst" upgrade 0.11.0 2>&1) || fail "preinst upgrade: $out"
  [ ! -e "$mark" ] || fail "preinst upgrade kept a stale mark"
  rc=0; out=$(DPKG_ROOT=$root sh "$ROOT/debian/clup-totem.postinst" configure 0.11.0 2>&1) || rc=$?
  assert_status $rc 0 "postinst configure after the upgrade: $out"
  assert_eq "$(ls -A "$root/var/lib/clup")" "clup.sqlite" "what the scripts left in the root"
}

# The release manager's key, made on "their machine" ($WORK/release-key, sealed with a
# passphrase), its public half trusted at the hub.
release_key() {
  printf 'the release manager keeps this passphrase\n' > "$WORK/passphrase"
  "$BIN/clup-release" keygen --out "$WORK/release-key" --passphrase-file "$WORK/passphrase" >/dev/null || fail "clup-release keygen"
  clup_hub release trust "$WORK/release-key/release-key.pub" >/dev/null || fail "release trust"
}
# sign_release OUT DEB [options]: the release manager signs a manifest of DEB.
sign_release() {
  local out=$1 deb=$2; shift 2
  "$BIN/clup-release" sign --key "$WORK/release-key/release-key.sealed" --passphrase-file "$WORK/passphrase" --out "$out" "$@" "$deb"
}

# Issue 45: deltas between releases. The release manager makes them (clup-release sign
# --delta-from, debdelta) and lists their SHA-256 in the signed manifest; the hub serves
# those that match it, beside the repository; apt's own https on the totem's tree fetches
# one, and debpatch rebuilds from it and the release before the very package signed (here
# from the earlier .deb; a totem rebuilds from its installed files, in the VM update walk).
test_signed_deltas_are_served_by_the_hub_and_rebuild_the_release() {
  updates_up
  release_key
  "$BIN/clupd" apt-source --state-dir "$WORK/state" --apt-directory "$WORK/apt/etc/apt" >/dev/null || fail "apt-source"
  # Releases of 1 MiB that compress badly, each the same with its last line changed.
  head -c 1048576 /dev/urandom | base64 > "$WORK/payload"
  local old new older name
  old=$(build_package 0.99.0 "$(cat "$WORK/payload")
release 0.99.0")
  new=$(build_package 0.100.0 "$(cat "$WORK/payload")
release 0.100.0")
  older=$(build_package 0.98.0 "another payload")
  for deb in "$older" "$old" "$new"; do clup_hub release add "$deb" >/dev/null || fail "release add $deb"; done
  mkdir -p "$WORK/signed"
  out=$(sign_release "$WORK/signed/m.json" "$new" --delta-from "$old" --delta-from "$older") || fail "sign with deltas: $out"
  assert_contains "$out" "delta from 0.99.0 (amd64): "
  name=clup-totem_0.99.0_0.100.0_amd64.debdelta
  [ -s "$WORK/signed/$name" ] || fail "no delta beside the manifest"
  # A delta the release manager did not make is not taken: the hub refuses a file that is
  # not the one the manifest lists, and serves only what matches.
  printf 'x' >> "$WORK/signed/clup-totem_0.98.0_0.100.0_amd64.debdelta"
  out=$(clup_hub release vouch "$WORK/signed/m.json") || fail "vouch: $out"
  assert_contains "$out" "delta from 0.99.0 (amd64) served, $(stat -c %s "$WORK/signed/$name") bytes"
  assert_contains "$out" "delta from 0.98.0 (amd64) refused: clup-totem_0.98.0_0.100.0_amd64.debdelta is not the file the manifest lists"
  apt_helper_get() { APT_CONFIG="$WORK/apt/etc/apt/apt.conf" /usr/lib/apt/apt-helper -c "$WORK/apt/etc/apt/apt.conf.d/60clup-hub" \
    download-file "$HUB_URL/repo/deltas/$1" "$2"; }
  apt_helper_get "$name" "$WORK/download/$name" >/dev/null 2>&1 || fail "apt's https did not fetch the delta"
  rc=0; apt_helper_get clup-totem_0.98.0_0.100.0_amd64.debdelta "$WORK/download/none" >"$WORK/none.out" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || fail "the refused delta was served"
  assert_contains "$(cat "$WORK/none.out")" "404"
  cmp -s "$WORK/download/$name" "$WORK/signed/$name" || fail "the delta served is not the one signed"
  debpatch -A "$WORK/download/$name" "$old" "$WORK/rebuilt.deb" >/dev/null 2>&1 || fail "debpatch could not rebuild 0.100.0"
  assert_eq "$(sha256sum < "$WORK/rebuilt.deb")" "$(sha256sum < "$new")" "the package rebuilt from 0.99.0 and the delta"
  local delta whole
  delta=$(stat -c %s "$WORK/download/$name") whole=$(stat -c %s "$new")
  [ $((delta * 10)) -lt "$whole" ] || fail "the delta ($delta bytes) is not a tenth of the package ($whole bytes)"
  # A delta from a package that is not an earlier clup-totem is refused at signing.
  rc=0; out=$(sign_release "$WORK/signed/n.json" "$new" --delta-from "$new" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "is not an earlier clup-totem"
  echo "report: a one-line change to a release of $whole bytes: a signed delta of $delta bytes ($((delta * 100 / whole)) %), rebuilt to the same SHA-256"
}

# The release manager's tool and the hub's checks of what it signs: a key sealed with a
# passphrase (the wrong one opens nothing, and the file holds no key in clear), a manifest
# the hub refuses when the hub does not trust its key, when its package is not the one the
# repository holds, or when it has expired.
test_release_manifests_are_signed_away_from_the_hub_and_checked_there() {
  updates_up
  release_key
  sealed="$WORK/release-key/release-key.sealed"
  [ "$(stat -c %a "$sealed")" = 600 ] || fail "the sealed key is not 0600"
  # The private key is not in the file in clear: its 32 bytes are sealed (ChaChaPoly under scrypt).
  python3 - "$sealed" <<'PY' || fail "the sealed key file is not sealed"
import json, sys, base64
f = json.load(open(sys.argv[1]))
assert f["kdf"] == "scrypt" and f["logN"] >= 17, f
assert len(base64.b64decode(f["sealed"])) == 12 + 32 + 16, "nonce, sealed key, tag"
PY
  rc=0; out=$("$BIN/clup-release" keygen --out "$WORK/release-key" --passphrase-file "$WORK/passphrase" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "a release key is made once, and kept"
  deb=$(build_package 0.99.0)
  printf 'not the passphrase\n' > "$WORK/wrong"
  rc=0; out=$("$BIN/clup-release" sign --key "$sealed" --passphrase-file "$WORK/wrong" --out "$WORK/m.json" "$deb" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "E-UPD-008 the passphrase does not open the sealed release key"
  [ ! -e "$WORK/m.json" ] || fail "a manifest was written with the wrong passphrase"
  sign_release "$WORK/m.json" "$deb" --days 30 >/dev/null || fail "sign"
  out=$("$BIN/clup-release" show --key "$WORK/release-key/release-key.pub" "$WORK/m.json") || fail "show: $out"
  assert_contains "$out" "clup-totem 0.99.0 amd64 $(sha256sum < "$deb" | cut -d' ' -f1)"
  # The hub: the package is not in its repository yet.
  rc=0; out=$(clup_hub release vouch "$WORK/m.json" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "clup-hub release add the package first"
  # Another build of 0.99.0 in the repository than the one signed.
  clup_hub release add "$(build_package 0.99.0 "a build the release manager never saw")" >/dev/null || fail "release add"
  rc=0; out=$(clup_hub release vouch "$WORK/m.json" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "is not the package the manifest vouches for"
  echo "report: another build: $(tail -n 1 <<<"$out")"
  # Signed by a key the hub was never given (the hub's operator's own).
  deb2=$(build_package 0.100.0)
  clup_hub release add "$deb2" >/dev/null || fail "release add 0.100.0"
  "$BIN/clup-release" keygen --out "$WORK/operator-key" --passphrase-file "$WORK/passphrase" >/dev/null || fail "keygen"
  "$BIN/clup-release" sign --key "$WORK/operator-key/release-key.sealed" --passphrase-file "$WORK/passphrase" --out "$WORK/op.json" "$deb2" \
    >/dev/null || fail "sign with the operator's key"
  rc=0; out=$(clup_hub release vouch "$WORK/op.json" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "not by a release key trusted here"
  # A manifest altered after signing (its expiry pushed out): the signature no longer holds.
  sign_release "$WORK/good.json" "$deb2" >/dev/null || fail "sign 0.100.0"
  python3 - "$WORK/good.json" "$WORK/altered.json" <<'PY' || fail "altering the manifest"
import json, sys, base64
e = json.load(open(sys.argv[1]))
m = base64.b64decode(e["payload"]).decode().replace('"expires" : "20', '"expires" : "21')
e["payload"] = base64.b64encode(m.encode()).decode()
json.dump(e, open(sys.argv[2], "w"))
PY
  rc=0; out=$(clup_hub release vouch "$WORK/altered.json" 2>&1) || rc=$?
  assert_status $rc 1 "$out"; assert_contains "$out" "does not verify: the manifest was altered after signing"
  out=$(clup_hub release vouch "$WORK/good.json") || fail "vouch: $out"
  assert_contains "$(hub_psql -c "SELECT who || ': ' || action FROM audit WHERE action LIKE 'release%' ORDER BY at, action")" \
    "clup-hub (shell): release 0.100.0 vouched for"
  echo "report: $out"
}

# The version clupd says it runs (ClupVersion.current).
clupd_version() { sed -n 's/.*current = "\(.*\)".*/\1/p' "$ROOT/Sources/CLupProtocol/Control/ClupVersion.swift"; }

run_tests
