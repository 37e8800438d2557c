#!/usr/bin/env bash
# The people at the totem, walked through clupctl as they would use it: screens named and
# pressed by their buttons (`clupctl screen`, `clupctl sim press`), in their language.
# Needs ROOT and BIN (set by scripts/test).
set -uo pipefail
source "$ROOT/Tests/integration/harness.sh"

# The label of button NAME on the screen shown.
button_label() {
  clupctl screen --json | python3 -c "
import json, sys
print(*[b['label'] for b in json.load(sys.stdin)['buttons'] if b['name'] == '$1'])"
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

run_tests
