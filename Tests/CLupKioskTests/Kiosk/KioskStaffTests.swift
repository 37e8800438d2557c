import CLupDrawing
import CLupCore
import CLupHardware
@testable import CLupKiosk
import CLupProtocol
import CLupStore
import Crypto
import XCTest

/// The employee at the totem, in process: the staff corner held 3 s (or a badge) opens the
/// PIN pad; the PIN is checked against its scrypt hash; five wrong ones lock the pad for
/// five minutes, across a restart too; the right one lets the employee print a priority
/// ticket that names them; each step is in the audit trail.
final class KioskStaffTests: XCTestCase {
    func employ(_ staffNumber: String, pin: String, at totem: KioskHarness) throws {
        let hash = try PinHash.make(pin: pin)
        try totem.kiosk.desk.audit([AuditEntry(role: .technician, who: "test", action: .employeeAdded, result: staffNumber, from: "a test")],
                                   changing: .put(EmployeeRecord(staffNumber: staffNumber, kdf: hash.kdf, salt: hash.salt,
                                                                 pinHash: hash.hash, changedAt: totem.clock.now())))
    }

    @discardableResult
    func hold(_ milliseconds: Int, on totem: KioskHarness) throws -> KioskOutcome {
        let corner = try XCTUnwrap(totem.kiosk.screens.geometry.staffCorner(on: totem.kiosk.screens.flow.screen), "no staff corner here")
        let outcome = totem.kiosk.touched(try totem.touchscreen.touch(x: Int(corner.x + corner.width / 2),
                                                                      y: Int(corner.y + corner.height / 2), milliseconds: milliseconds))
        totem.settle()
        return outcome
    }


    /// Types `digits` on the pad, then OK; waits for the PIN check.
    @discardableResult
    func type(_ digits: String, on totem: KioskHarness) throws -> KioskOutcome {
        for digit in digits { try totem.press(.digit(Int(String(digit))!)) }
        return try totem.press(.confirm)
    }

    func trail(_ totem: KioskHarness) throws -> [String] {
        try totem.kiosk.desk.store.events(ofTypes: ["staff.audit"]).compactMap { stored -> String? in
            guard case let .audited(entry, _, _) = try stored.decoded(), entry.role == .employee else { return nil }
            return "\(entry.who) \(entry.action.rawValue): \(entry.result)"
        }
    }

    /// The trail's fill, counted as entries are kept, warns at 80 % of its bound (what the
    /// status, the metrics and the hub show), and no sooner; every employee entry says it
    /// came from the touchscreen.
    func test_theAuditTrailWarnsAtEightyPercentOfItsBound() throws {
        let totem = try KioskHarness()
        totem.kiosk.desk.auditTrailBound = 10
        for number in 1...7 { try employ(String(100 + number), pin: "2580", at: totem) }
        XCTAssertEqual(totem.kiosk.desk.auditTrailFill, AuditTrailFill(entries: 7, bound: 10))
        XCTAssertNil(totem.kiosk.desk.auditTrailFill.warning, "70 %: no warning yet")
        try employ("108", pin: "2580", at: totem)
        XCTAssertEqual(totem.kiosk.desk.auditTrailFill.warning,
                       "the audit trail holds 8 entries, 80 % of the 10 this totem keeps: past that the oldest the hub holds are deleted here "
                           + "(see what fills it with clupctl audit)")
        totem.approach()
        try hold(3000, on: totem)
        try type("108", on: totem)
        try type("0000", on: totem)
        XCTAssertEqual(totem.kiosk.desk.auditTrailFill.entries, 9, "the pad's entries are counted as kept")
        XCTAssertEqual(try totem.kiosk.desk.store.auditTrailCount(), 9, "the count is the store's")
        let froms = try totem.kiosk.desk.store.events(ofTypes: ["staff.audit"]).compactMap { stored -> String? in
            guard case let .audited(entry, _, _) = try stored.decoded(), entry.role == .employee else { return nil }
            return entry.from
        }
        XCTAssertEqual(Set(froms), [AuditEntry.touchscreen])
    }

    func test_anEmployeeLogsInAndPrintsAPriorityTicketThatNamesThem() throws {
        let totem = try KioskHarness()
        try employ("104", pin: "2580", at: totem)
        totem.approach()
        XCTAssertEqual(try hold(1500, on: totem).sentence, "the staff corner opens the PIN pad after 3 s (held 1500 ms)")
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        try hold(3000, on: totem)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .pinPad(PinEntry()))
        XCTAssertEqual(totem.voice.lastUtterance, "Type your staff number, then OK.")
        try type("104", on: totem)
        try type("2580", on: totem)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .priorityReason)
        XCTAssertFalse(totem.voice.said.contains { $0.contains("2580") || $0.contains("2 5 8 0") }, "a PIN is never spoken")
        let outcome = try totem.press(.reason(.pregnant))
        let number = try XCTUnwrap(outcome.ticket, outcome.sentence)
        XCTAssertEqual(number.lane, .priority)
        XCTAssertEqual(totem.ticket(number)?.issuedBy, "104")
        XCTAssertEqual(totem.ticket(number)?.priorityReason, .pregnant)
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.kiosk.screens.flow.screen.name, "ticket-ready")
        XCTAssertEqual(try trail(totem), ["104 login: ok", "104 priority-ticket: \(number) (pregnant)", "104 logout: ticket issued"])
    }

    func test_fiveWrongPinsLockThePadForFiveMinutesEvenAcrossARestart() throws {
        let totem = try KioskHarness()
        try employ("104", pin: "2580", at: totem)
        totem.approach()
        try hold(3000, on: totem)
        try type("104", on: totem)
        for attempt in 1...4 {
            try type("1357", on: totem)
            XCTAssertEqual(totem.kiosk.screens.flow.screen, .pinPad(PinEntry(staffNumber: "104", typingPin: true, refused: true)), "attempt \(attempt)")
        }
        XCTAssertEqual(totem.voice.lastUtterance, "Wrong staff number or PIN. Try again.")
        try type("1357", on: totem)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .padLocked(until: "11:35"))
        XCTAssertEqual(totem.voice.lastUtterance, "The PIN pad is locked after too many wrong PINs. Try again at 11:35.")
        XCTAssertEqual(try trail(totem), Array(repeating: "104 pin-refused: wrong staff number or PIN", count: 5)
            + ["104 pad-locked: 5 wrong PINs; locked until 11:35"])

        totem.pass(totem.kiosk.config.screen.resultSeconds)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        XCTAssertEqual(try hold(3000, on: totem).sentence, "the PIN pad is locked until 11:35", "even the right PIN cannot be tried")
        // clupd restarted meanwhile: the lock is rebuilt from the trail.
        let restarted = Kiosk.padLock(from: totem.kiosk.desk.store, lockSeconds: 300, now: totem.clock.now())
        XCTAssertTrue(restarted.isLocked(at: totem.clock.now()))
        XCTAssertFalse(restarted.isLocked(at: totem.clock.now().addingTimeInterval(300)))

        totem.pass(300)
        totem.approach()
        try hold(3000, on: totem)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .pinPad(PinEntry()), "five minutes later the pad opens")
        try type("104", on: totem)
        try type("2580", on: totem)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .priorityReason)
        XCTAssertEqual(try trail(totem).last, "104 login: ok")
    }

    func test_aStaffBadgeOpensThePadWithItsNumberAndAnUnknownNumberIsRefusedLikeAWrongPin() throws {
        let totem = try KioskHarness()
        try employ("104", pin: "2580", at: totem)
        let outcome = totem.reader.scan("CLUP-STAFF:777").map(totem.kiosk.read).last
        XCTAssertEqual(outcome?.sentence, "the PIN pad is open for staff number 777")
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .pinPad(PinEntry(staffNumber: "777", typingPin: true)))
        try type("2580", on: totem)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .pinPad(PinEntry(staffNumber: "777", typingPin: true, refused: true)),
                       "a staff number nobody has is refused as a wrong PIN is")
        XCTAssertEqual(try trail(totem), ["777 pin-refused: wrong staff number or PIN"])
    }

    func test_anIdleSessionEndsAfterThirtySecondsEvenWithTheCustomerThere() throws {
        let totem = try KioskHarness()
        try employ("104", pin: "2580", at: totem)
        totem.approach()
        try hold(3000, on: totem)
        try type("104", on: totem)
        try type("2580", on: totem)
        totem.pass(9)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .priorityReason)
        totem.pass(1.5)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .stillThere(.priorityReason), "warned 20 s ahead")
        XCTAssertEqual(totem.voice.lastUtterance, "Are you still there? Touch the screen for more time.")
        // A touch anywhere gives the employee 30 s more; nothing under it is pressed.
        try totem.press(.moreTime)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .priorityReason)
        totem.pass(29)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .stillThere(.priorityReason))
        totem.pass(1.5)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        XCTAssertEqual(try trail(totem), ["104 login: ok", "104 logout: idle"])
    }

    func test_aFullStoreShowsTheStoreFullScreenAndAClosedOneItsHours() throws {
        let totem = try KioskHarness {
            $0.queue.capacity = 1
            $0.store.opensMinute = 8 * 60
            $0.store.closesMinute = 11 * 60 + 45
        }
        totem.approach()
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        let number = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        _ = totem.scan(number)
        _ = totem.kiosk.passed(.entry)
        totem.pass(totem.kiosk.config.screen.resultSeconds)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .storeFull, "one inside of one")
        XCTAssertEqual(try totem.takeTicketOnScreen()?.lane, .regular, "a ticket still joins the queue")
        totem.pass(totem.kiosk.config.screen.resultSeconds)
        totem.pass(15 * 60)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .storeClosed(hours: "08:00–11:45"))
        XCTAssertEqual(totem.voice.lastUtterance, "The store is closed. Opening hours: 08:00–11:45.")
    }
}

/// The voice's speed and loudness, set by the customer, and the timeout warning.
final class KioskVoiceSettingsTests: XCTestCase {

    func test_theCustomerSlowsTheVoiceAndMakesItLouderUntilTheyLeave() throws {
        let totem = try KioskHarness()
        totem.approach()
        try totem.press(.voice)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .speechSettings(speed: 2, loudness: 2))
        XCTAssertEqual(totem.voice.lastUtterance, "Voice settings: slower, faster, quieter or louder. Speed: 3 of 5. Volume: 3 of 4.")
        try totem.press(.slower)
        try totem.press(.slower)
        try totem.press(.slower)
        try totem.press(.louder)
        try totem.press(.louder)
        XCTAssertEqual(totem.voice.lastUtterance, "Speed: 1 of 5. Volume: 4 of 4.", "each change is said in the new voice; the ends hold")
        XCTAssertEqual(totem.voice.styles.last, SpeechStyle(rate: 0.7, gainDecibels: 6))
        try totem.press(.back)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        try totem.press(.repeatSpeech)
        XCTAssertEqual(totem.voice.styles.last, SpeechStyle(rate: 0.7, gainDecibels: 6), "what follows is said so too")
        try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        let ready = try XCTUnwrap(totem.voice.said.lastIndex { $0.hasPrefix("Your number is") })
        XCTAssertEqual(totem.voice.styles[ready], SpeechStyle(rate: 0.7, gainDecibels: 6))
        // The call is for whoever waits, not for this customer: said the usual way.
        let call = try XCTUnwrap(totem.voice.said.lastIndex(of: "Number A 1, please go to the door."))
        XCTAssertEqual(totem.voice.styles[call], .standard)
        totem.leave()
        totem.pass(totem.kiosk.config.screen.idleTimeoutSeconds + totem.kiosk.config.screen.timeoutWarningSeconds + 1)
        XCTAssertEqual(totem.kiosk.screens.flow.screen.name, "asleep")
        XCTAssertEqual(totem.kiosk.screens.flow.speechStyle, .standard, "back to the usual for the next customer")
    }

    func test_aHeadsetTakesSpeechOffTheSpeakerAndExploreByTouchLeadsToATicket() throws {
        let jack = SimulatedHeadsetJack()
        let totem = try KioskHarness(headset: jack)
        XCTAssertTrue(jack.set(plugged: true))
        _ = totem.kiosk.headsetChanged(true)
        XCTAssertTrue(totem.voice.toHeadset)
        XCTAssertEqual(totem.kiosk.screens.flow.screen, .welcome)
        XCTAssertEqual(totem.voice.lastUtterance, "Headphones connected. Touch the screen to hear what is under your finger, "
            + "and touch again to choose. Welcome. Touch the button on the screen to take a ticket.")
        try totem.press(.getTicket)
        XCTAssertEqual(totem.voice.lastUtterance, "Get a ticket. Touch again to choose.")
        XCTAssertTrue(totem.kiosk.desk.day.tickets.isEmpty, "nothing pressed yet")
        try totem.press(.getTicket)
        XCTAssertEqual(totem.kiosk.desk.day.tickets.count, 1)
        XCTAssertTrue(totem.kiosk.deviceHealth.contains { $0.role == "headset" && $0.detail == "headset in" })
        XCTAssertTrue(jack.set(plugged: false))
        _ = totem.kiosk.headsetChanged(false)
        XCTAssertFalse(totem.voice.toHeadset, "back on the speaker")
    }
}

/// The second screen above the door, and a display that changes size.
final class KioskDisplayTests: XCTestCase {
    func test_theCallingBoardShowsTheNumbersCalledAndGoesDarkWhenNoneIs() throws {
        let board = MemoryDisplay(width: 1280, height: 720)
        let totem = try KioskHarness(callingBoard: board)
        totem.approach()
        let number = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        XCTAssertEqual(totem.state(number), .called)
        XCTAssertTrue(board.isAwake)
        let texts = try XCTUnwrap(board.last).drawnTexts.map(\.text)
        XCTAssertEqual(texts, ["Now calling", "A-001", "Please go to the door"])
        XCTAssertTrue(totem.kiosk.deviceHealth.contains { $0.role == "door-screen" })
        _ = totem.scan(number)
        XCTAssertFalse(board.isAwake, "admitted: nobody is called, the board is dark")
    }

    /// A person who left the line from their phone scans its code anyway: the board above the
    /// door says they left, in the language they joined in, not "voided by staff" (issue 40);
    /// a ticket staff voided says so; after a while the board is what it was.
    func test_theDoorTellsAPersonWhoLeftFromThePhoneSoInTheirLanguage() throws {
        let hubKey = Curve25519.Signing.PrivateKey()
        let board = MemoryDisplay(width: 1280, height: 720)
        let totem = try KioskHarness(callingBoard: board) { $0.keys[TicketPayload.hubLetter] = hubKey.publicKey.rawRepresentation }
        let place = TicketNumber(totem: "A", lane: .remote, sequence: 1)
        let joined = totem.clock.now().addingTimeInterval(-60)
        let code = TicketCode.make(TicketPayload(store: UInt32(totem.kiosk.config.store.id), remote: place, joinedAt: joined, validMinutes: 600),
                                   signedWith: hubKey)
        let join = RemoteJoin(number: place, joinedAt: joined.timeIntervalSince1970, code: code, language: "fr")
        try totem.kiosk.desk.perform { day, now in day.takeRemote([join], left: [], totem: "A", validity: 36_000, at: now) }
        XCTAssertEqual(totem.ticket(place)?.language, "fr")
        try totem.kiosk.desk.perform { day, now in day.takeRemote([join], left: [place], totem: "A", validity: 36_000, at: now) }
        let refused = totem.scan(place)
        XCTAssertEqual(refused.refusal?.code, ErrorCode.leftTheLine.rawValue, refused.sentence)
        totem.settle()
        let french = TextCatalog.of("fr")
        XCTAssertTrue(board.isAwake)
        XCTAssertEqual(try XCTUnwrap(board.last).drawnTexts.map(\.text).joined(separator: " "),
                       french(.doorLeftTitle) + " " + french(.doorLeftHint))
        totem.pass(Caller.doorWordsSeconds + 1)
        XCTAssertFalse(board.isAwake, "nobody is called: the board is dark again")

        // A printed ticket that staff voided: said so, in its customer's language.
        totem.approach()
        let number = try totem.takeTicket()
        totem.printerFinishesTheLastJob()
        try totem.kiosk.desk.perform { day, now in try day.void(number: number, by: "tess", reason: "printed twice", at: now) }
        XCTAssertEqual(totem.scan(number).refusal?.code, ErrorCode.voidedTicket.rawValue)
        totem.settle()
        let texts = TextCatalog.of(totem.kiosk.caller.language(of: try XCTUnwrap(totem.ticket(number))))
        XCTAssertEqual(try XCTUnwrap(board.last).drawnTexts.map(\.text).joined(separator: " "), texts(.doorVoidedTitle) + " " + texts(.doorVoidedHint))
    }

    func test_aDisplayThatChangesSizeIsLaidOutAgainInItsOwnMillimetres() throws {
        let totem = try KioskHarness()
        totem.approach()
        let before = try XCTUnwrap(totem.kiosk.screens.geometry.buttons(on: .welcome).first { $0.action == .getTicket })
        totem.display.newMode = (width: 1080, height: 1920, millimetres: (width: 136, height: 242))
        // No driver tells of a new mode: the kiosk looks at its display now and then.
        totem.pass(Kiosk.deviceLookSeconds)
        XCTAssertEqual(totem.kiosk.screens.geometry.width, 1080)
        XCTAssertEqual(totem.kiosk.screens.geometry.widthMM, 136, "the panel's own size, as the driver tells it")
        let after = try XCTUnwrap(totem.kiosk.screens.geometry.buttons(on: .welcome).first { $0.action == .getTicket })
        XCTAssertEqual(after.width, before.width * 1.5, accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(totem.display.last).width, 1080, "drawn again at the new size")
        // A tap in the middle of the new button takes a ticket.
        XCTAssertNotNil(totem.kiosk.touched(try SimulatedTouchscreen(width: 1080, height: 1920)
            .tap(x: Int(after.x + after.width / 2), y: Int(after.y + after.height / 2))).ticket)
    }
}

extension KioskHarness {
    /// A tap on "Get a ticket" wherever the screen shown has it.
    func takeTicketOnScreen() throws -> TicketNumber? {
        let button = try XCTUnwrap(kiosk.screens.geometry.buttons(on: kiosk.screens.flow.screen).first { $0.action == .getTicket })
        let outcome = kiosk.touched(try touchscreen.tap(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2)))
        settle()
        return outcome.ticket
    }
}
