#!/usr/bin/env bash
# The people at the totem, walked through clupctl as they would use it: screens named and
# pressed by their buttons (`clupctl screen`, `clupctl sim press`), in their language.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

# The label of button NAME on the screen shown.
button_label() {
  clupctl screen --json | python3 "$ROOT/Tests/integration/tools/screen-button.py" label "$1"
}

# What the voice said last (clupctl devices).
last_said() {
  clupctl devices | sed -n 's/.*last said "\(.*\)"$/\1/p'
}

test_pino_chooses_italian_and_gets_his_ticket_in_italian() {
  kiosk_start
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  assert_eq "$(clupctl screen --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["language"])')" en
  assert_eq "$(button_label language-it)" Italiano "the Italian button, named in Italian"
  assert_contains "$(clupctl sim press language-it)" "[screen: welcome]"
  assert_contains "$(clupctl screen)" "screen welcome (it)"
  assert_eq "$(button_label get-ticket)" "Prendi un biglietto"
  wait_until 10 "[ \"\$(last_said)\" = 'Benvenuti. Toccate il pulsante sullo schermo per prendere un biglietto.' ]"
  assert_contains "$(clupctl sim press get-ticket)" "[ticket: A-001]"
  assert_eq "$(wait_for_print A-001)" called "printed, and the store is empty"
  assert_eq "$(printed_qr_text A-001)" "$(ticket_field A-001 code)"
  printed=$(pdftotext "$WORK/A-001.pdf" - | tr '\n' ' ')
  assert_contains "$printed" "Biglietto di coda"
  assert_contains "$printed" "Attesa stimata: nessuna attesa"
  # Called at once (the store is empty), aloud in his language, and again until he reaches the door.
  wait_until 10 "[ \"\$(last_said)\" = \"Numero A 1, si prega di andare all'ingresso.\" ]"
  echo "report: Pino's ticket, as printed: $printed"
  echo "report: then the totem said: $(last_said)"
  # He leaves; the next customer starts in the store's language.
  clupctl sim leave >/dev/null
  wait_for_screen asleep
  clupctl sim approach >/dev/null
  assert_contains "$(clupctl screen)" "screen welcome (en)"
}

test_a_button_that_is_not_on_the_screen_is_named_in_the_refusal() {
  kiosk_start
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  rc=0; out=$(clupctl sim press slot-1 2>&1) || rc=$?
  assert_status $rc 1 "pressing a button of another screen"
  assert_contains "$out" "E-CTL-016"
  assert_contains "$out" "it has: language-it, language-en, language-fr, language-de, language-es, get-ticket, book-later"
}

test_a_customer_who_walks_away_mid_choice_is_let_go_and_the_next_starts_afresh() {
  kiosk_start
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  clupctl sim press language-fr >/dev/null
  clupctl sim press large-text >/dev/null
  clupctl sim press languages >/dev/null
  wait_for_screen choosing-language
  # He walks away in the middle of choosing: once nobody is there, the totem goes back to sleep.
  clupctl sim leave >/dev/null
  wait_for_screen asleep
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  assert_contains "$(clupctl screen)" "screen welcome (en)" "the next customer starts in the store's language"
  assert_eq "$(button_label large-text)" "Larger text" "and in normal text"
  assert_eq "$(newest_ticket)" "" "nothing was issued"
}

test_a_full_store_says_so_and_still_gives_a_ticket_that_waits_for_room() {
  kiosk_start '[queue]' 'capacity = 2' 'priority_share = 0'
  clupctl ledger correct --set 2 --reason "counted at the door" >/dev/null
  clupctl sim approach >/dev/null
  wait_for_screen store-full
  assert_eq "$(last_said)" "The store is full. Take a ticket, and we will call your number when there is room."
  assert_contains "$(clupctl sim press get-ticket)" "[ticket: A-001]"
  assert_eq "$(wait_for_print A-001)" waiting "not called: the store is full"
  clupctl ledger correct --delta -1 --reason "one left by the emergency exit" >/dev/null
  wait_until 10 "[ \"\$(ticket_field A-001 state)\" = called ]"
  echo "report: full store: A-001 waited, then was called when one left"
}

test_an_employee_mistypes_the_pin_five_times_is_locked_out_then_issues_a_priority_ticket() {
  kiosk_start 'pin_lock_seconds = 10'
  echo 2580 | clupctl employee add 104 >/dev/null
  assert_contains "$(clupctl employee list)" "104"
  rc=0; out=$(echo 1234 | clupctl employee add 105 2>&1) || rc=$?
  assert_status $rc 1 "a PIN of consecutive digits"
  assert_contains "$out" "E-CTL-017"
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  # A short press in the staff corner does nothing; held 3 s it opens the PIN pad.
  assert_contains "$(clupctl sim press staff-corner --hold 1)" "after 3 s"
  assert_contains "$(clupctl sim press staff-corner --hold 3)" "[screen: pin-pad]"
  for digit in 1 0 4; do clupctl sim press "digit-$digit" >/dev/null; done
  clupctl sim press ok >/dev/null
  for attempt in 1 2 3 4 5; do
    for digit in 1 3 5 7; do clupctl sim press "digit-$digit" >/dev/null; done
    clupctl sim press ok >/dev/null
    # The PIN is checked off the loop (scrypt): the pad comes back, refused, or locks.
    if [ "$attempt" -lt 5 ]; then wait_for_screen pin-pad; fi
  done
  wait_for_screen pad-locked
  assert_contains "$(clupctl employee list)" "LOCKED"
  # Locked: even the right PIN cannot be tried until the lock ends.
  wait_for_screen welcome
  assert_contains "$(clupctl sim press staff-corner --hold 3)" "[screen: pad-locked]"
  wait_until 30 "! clupctl employee list | grep -q LOCKED"
  wait_for_screen welcome
  clupctl sim press staff-corner --hold 3 >/dev/null
  for digit in 1 0 4; do clupctl sim press "digit-$digit" >/dev/null; done
  clupctl sim press ok >/dev/null
  for digit in 2 5 8 0; do clupctl sim press "digit-$digit" >/dev/null; done
  clupctl sim press ok >/dev/null
  wait_for_screen priority-reason
  out=$(clupctl sim press reason-elderly)
  assert_contains "$out" "[ticket: AP-001]"
  assert_eq "$(wait_for_print AP-001)" called
  assert_eq "$(printed_qr_text AP-001)" "$(ticket_field AP-001 code)"
  printed=$(pdftotext "$WORK/AP-001.pdf" - | tr '\n' ' ')
  assert_contains "$printed" "Priority ticket"
  trail=$(clupctl audit)
  report_lines "$trail" "audit: "
  assert_eq "$(echo "$trail" | grep -c 'employee   104        pin-refused')" 5 "five wrong PINs, each audited"
  assert_contains "$trail" "pad-locked       5 wrong PINs; locked until"
  assert_contains "$trail" "employee   104        login            ok  from touchscreen"
  assert_contains "$trail" "priority-ticket  AP-001 (elderly)"
  assert_contains "$trail" "logout           ticket issued"
  assert_contains "$trail" "employee-added   staff number 104"
  # The PIN is kept only as a salted scrypt hash.
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "SELECT kdf, length(salt), length(pin_hash) FROM employee")" "scrypt:15:8:1|16|32"
  assert_eq "$(sqlite3 "$WORK/state/clup.sqlite" "SELECT count(*) FROM event WHERE payload LIKE '%2580%'")" 0 "no PIN in the event log"
}

test_a_blind_customer_plugs_in_a_headset_explores_by_touch_and_gets_a_ticket() {
  kiosk_start
  assert_contains "$(clupctl sim headset in)" "speech goes to it, explore by touch is on"
  wait_for_screen welcome
  wait_until 10 "clupctl status | grep -q 'voice        simulated  ok       1 utterance (to the headset)'"
  [ -s "$WORK/state/headset.wav" ] || fail "nothing was said into the headset"
  [ ! -e "$WORK/state/voice.wav" ] || fail "the speaker said something too"
  assert_contains "$(last_said)" "Headphones connected."
  # The first touch on a button says it; the second presses it.
  assert_contains "$(clupctl sim press get-ticket)" 'said "Get a ticket"; touch it again to press it'
  assert_eq "$(last_said)" "Get a ticket. Touch again to choose."
  assert_eq "$(newest_ticket)" "" "nothing pressed yet"
  assert_contains "$(clupctl sim press get-ticket)" "[ticket: A-001]"
  assert_eq "$(wait_for_print A-001)" called
  wait_until 10 "[ \"\$(last_said)\" = 'Number A 1, please go to the door.' ]"
  clupctl sim headset out >/dev/null
  assert_contains "$(clupctl status)" "headset      simulated  ok       no headset"
}

test_the_customer_sets_the_voice_slower_and_it_is_heard_slower() {
  kiosk_start
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  wait_until 10 "[ -s '$WORK/state/voice.wav' ]"
  clupctl sim press voice >/dev/null
  wait_for_screen speech-settings
  wait_until 10 "clupctl status | grep -q 'voice .*2 utterances'"
  usual=$(wc -c < "$WORK/state/voice.wav")
  # Each press heard before the next: a touch stops what is being said, so a second press
  # while the first's words are still being made would leave one utterance, not two.
  clupctl sim press slower >/dev/null
  wait_until 10 "clupctl status | grep -q 'voice .*3 utterances'"
  clupctl sim press slower >/dev/null
  wait_until 10 "clupctl status | grep -q 'voice .*4 utterances'"
  assert_eq "$(last_said)" "Speed: 1 of 5. Volume: 3 of 4."
  clupctl sim press repeat >/dev/null
  wait_until 10 "clupctl status | grep -q 'voice .*5 utterances'"
  slow=$(wc -c < "$WORK/state/voice.wav")
  echo "report: the voice's settings screen said at the usual speed: $usual bytes of WAV; said again two steps slower: $slow bytes"
  [ "$slow" -gt "$usual" ] || fail "two steps slower is not longer: $slow bytes against $usual"
}

test_the_calling_board_above_the_door_shows_the_number_called() {
  kiosk_start '[hardware]' 'calling_display = "simulated"'
  # Dark while nobody is called.
  wait_until 10 "clupctl status | grep -q 'door-screen  simulated  ok       1280x720 asleep'"
  clupctl sim approach >/dev/null
  wait_for_screen welcome
  clupctl sim press get-ticket >/dev/null
  assert_eq "$(wait_for_print A-001)" called
  wait_until 10 "clupctl status | grep -q 'door-screen .*1280x720 awake'"
  assert_eq "$(python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print(*struct.unpack('>II', d[16:24]))" \
    "$WORK/state/calling-board/screen.png")" "1280 720"
  # What a technician saves of it is what the board shows.
  clupctl screenshot --door-screen "$WORK/board.png" >/dev/null
  # shellcheck disable=SC2016 # read again at each try (the board writes its PNG on a queue of its own)
  (wait_until 10 'python3 "$ROOT/Tests/integration/tools/png-same.py" "$WORK/board.png" "$WORK/state/calling-board/screen.png" >/dev/null') \
    || fail "clupctl screenshot --door-screen is not the board: $(python3 "$ROOT/Tests/integration/tools/png-same.py" "$WORK/board.png" "$WORK/state/calling-board/screen.png")"
  clupctl sim scan "$(ticket_field A-001 code)" >/dev/null
  wait_until 10 "clupctl status | grep -q 'door-screen .*1280x720 asleep'"
  echo "report: the calling board (1280x720) lit for A-001 (clupctl screenshot --door-screen: the same pixels), dark once it was admitted: $WORK/state/calling-board/screen.png"
}

run_tests
