import CLupCore
import CLupHardware
import CLupPrinting
import CLupProtocol
import Foundation
import Logging

/// The technician's self-tests (`clupctl selftest`). Each step lends the device to the test
/// (`MaintenanceHold`), so that nothing the test does reaches the queue or the ledger, and
/// answers once the device has done its part or the time is up.
struct SelfTests {
    unowned let kiosk: Kiosk
    let printerWatch: PrinterWatch
    /// Where the test ticket is laid out.
    let spoolPath: String
    let runtime: KioskRuntime
    private var loop: EventLoop { runtime.loop }
    private var clock: any Clock { runtime.clock }
    private var logger: Logger { runtime.logger }
    private var printer: any TicketPrinter { printerWatch.printer }

    static let selfTestSentence = "This is the CLup totem's voice test. One, two, three."

    func run(_ step: SelfTestStep, timeoutSeconds: Int, force: Bool, by who: String) throws -> PendingReply<SelfTestResult> {
        guard (1...300).contains(timeoutSeconds) else {
            throw CodedError(.requestNotUnderstood, "a self-test waits 1 to 300 s, not \(timeoutSeconds)")
        }
        let wait = Double(timeoutSeconds)
        let pending = PendingReply<SelfTestResult>("the self-test of the \(step.rawValue)", seconds: wait + 30)
        func finish(_ device: String, _ passed: Bool, _ reason: String, check: String? = nil) {
            pending.finish(.success(SelfTestResult(step: step, device: device, passed: passed, reason: reason,
                                                   check: passed ? nil : check)))
        }
        func health(_ role: String) -> DeviceHealth? { kiosk.deviceHealth.first { $0.role == role } }
        func name(_ health: DeviceHealth?) -> String { health.map { "\($0.role) (\($0.backend))" } ?? step.rawValue }
        switch step {
        case .printer:
            testPrint(timeout: wait, by: who) { passed, reason, check in finish("printer (\(self.printer.queue))", passed, reason, check: check) }
        case .screen:
            let hold = MaintenanceHold("the self-test of the screen", display: true)
            try kiosk.take(hold, force: force, leaseSeconds: wait + 10)
            do {
                try kiosk.showMaintenance(try kiosk.testPattern())
            } catch {
                kiosk.give(back: hold)
                finish(name(health("display")), false, "the test pattern could not be shown: \(error)",
                       check: "the display's cable and hardware.display (the framebuffer node, and the video group)")
                return pending
            }
            let seconds = min(wait, 5)
            let size = "\(Int(kiosk.screens.geometry.width))×\(Int(kiosk.screens.geometry.height))"
            loop.schedule(after: seconds) {
                kiosk.give(back: hold)
                finish(name(health("display")), true, "test pattern (bars, grid, corner marks, \(size)) shown for \(Int(seconds)) s")
            }
            pending.onCancel = { kiosk.give(back: hold) }
        case .voice:
            guard let voice = kiosk.devices.voice else {
                finish("voice", false, "the voice is off", check: "voice.enabled in clupd.toml")
                return pending
            }
            voice.say(Self.selfTestSentence, language: "en")
            // Synthesis and playing run on the voice's own thread: look once it had time to start.
            loop.schedule(after: 1.5) {
                let state = voice.health
                if state.state == .ok, voice.lastUtterance == Self.selfTestSentence {
                    finish("voice (\(state.backend))", true, "said \"\(Self.selfTestSentence)\"")
                } else {
                    finish("voice (\(state.backend))", false, "\(state.state.rawValue): \(state.detail)",
                           check: "the speaker's cable, hardware.speaker (the ALSA device) and espeak-ng's voices")
                }
            }
        case .presence:
            let hold = MaintenanceHold("the self-test of the presence sensor")
            try lend(hold, for: wait, force: force, pending: pending, passed: { finish($0, true, $1) },
                      missed: { finish(name(health("presence")), false, "nobody seen arrive or leave within \(timeoutSeconds) s",
                                       check: "stand in front of the totem during the test; the sensor's cable and "
                                           + "hardware.presence or hardware.proximity") },
                      arm: { seen in hold.onPresence = { seen(name(health("presence")), $0 ? "saw someone arrive" : "saw someone leave") } })
        case .turnstile:
            let hold = MaintenanceHold("the self-test of the turnstile")
            try lend(hold, for: wait, force: force, pending: pending, passed: { finish($0, true, $1) },
                      missed: { finish(name(health("turnstile")), false, "no pulse within \(timeoutSeconds) s",
                                       check: "push the turnstile's arm through during the test; its pulse lines "
                                           + "(hardware.gpio_chip, entry_line, exit_line)") },
                      arm: { seen in hold.onPassage = { seen(name(health("turnstile")), "pulse \($0.rawValue) (not counted in the ledger)") } })
        case .release:
            let device = name(health("turnstile"))
            do {
                try kiosk.devices.turnstile.release()
                logger.notice("turnstile released by a self-test", metadata: ["by": "\(who)"])
                loop.schedule(after: 0) { finish(device, true, "release line pulsed: the turnstile lets one person through") }
            } catch {
                loop.schedule(after: 0) {
                    finish(device, false, "the release line failed: \(error)",
                           check: "the release line's wiring and hardware.release_line (and the gpio group)")
                }
            }
        case .reader:
            let hold = MaintenanceHold("the self-test of the door reader")
            try lend(hold, for: wait, force: force, pending: pending, passed: { finish($0, true, $1) },
                      missed: { finish(name(health("door-reader")), false, "no code read within \(timeoutSeconds) s",
                                       check: "show a ticket's QR code to the reader during the test; its cable and hardware.reader") },
                      arm: { seen in hold.onRead = { seen(name(health("door-reader")), self.describe($0)) } })
        }
        return pending
    }

    /// Lends a device to a step that waits up to `seconds` for it to report: `arm` sets the
    /// hold's callback, which hands `seen` the device's name and what it saw (a pass); nothing
    /// within the time is `missed`. The device goes back to the kiosk in every case, and when
    /// the client goes away.
    private func lend(_ hold: MaintenanceHold, for seconds: Double, force: Bool, pending: PendingReply<SelfTestResult>,
                      passed: @escaping (String, String) -> Void, missed: @escaping () -> Void,
                      arm: (_ seen: @escaping (String, String) -> Void) -> Void) throws {
        try kiosk.take(hold, force: force, leaseSeconds: seconds + 10)
        let timer = loop.schedule(after: seconds) {
            kiosk.give(back: hold)
            missed()
        }
        arm { device, reason in
            loop.cancel(timer)
            kiosk.give(back: hold)
            passed(device, reason)
        }
        pending.onCancel = {
            loop.cancel(timer)
            kiosk.give(back: hold)
        }
    }

    /// What a code read in a self-test is: checked as the door would, admitting nobody.
    private func describe(_ output: WedgeDecoder.Output) -> String {
        switch output {
        case let .refused(reason):
            return "the reader works but this scan was unreadable (\(reason)); scan again"
        case let .code(code) where code.hasPrefix(Kiosk.staffBadgePrefix):
            return "read a staff badge (\(code.dropFirst(Kiosk.staffBadgePrefix.count).prefix(8)))"
        case let .code(code):
            do {
                let payload = try kiosk.authority.keyring.verify(code, at: clock.now())
                let state = kiosk.desk.day.tickets[payload.number]?.state.rawValue ?? "not in today's queue"
                return "read \(payload.number): genuine, \(state); not admitted (self-test)"
            } catch {
                return "read \(code.count) characters: \(CodedError(describing: error).message)"
            }
        }
    }

    /// Prints a test ticket (it takes no number) and follows its job to the end.
    private func testPrint(timeout: Double, by who: String, done: @escaping (Bool, String, String?) -> Void) {
        let stamp = Int(clock.now().timeIntervalSince1970)
        let content = TicketContent(storeName: kiosk.config.store.name, number: "TEST", laneLabel: "self-test",
                                    issuedAt: kiosk.clockTime(clock.now()), estimatedWait: "-", code: "CLUP-SELFTEST-\(stamp)",
                                    instructions: ["Printer self-test by \(who). Not a ticket."])
        let (model, spool, printer) = (kiosk.config.printer.model, spoolPath, self.printer)
        let deadline = clock.monotonic() + timeout
        loop.background({ () -> Result<Int, PrintError> in
            TicketDocument.layOut(content, title: "SELFTEST-\(stamp)", model: model, spool: spool).flatMap { $0.send(to: printer) }
        }) { sent in
            switch sent {
            case let .failure(error):
                done(false, "the job was not accepted: \(error.description)", check(for: error))
            case let .success(job):
                follow(job: job, until: deadline, done: done)
            }
        }
    }

    private func follow(job: Int, until deadline: Double, done: @escaping (Bool, String, String?) -> Void) {
        let printer = self.printer
        loop.background({ () -> Result<QueuedJob, PrintError> in Result { () throws(PrintError) in try printer.job(job) } }) {
            looked in
            let reasons: String
            switch looked {
            case let .success(queued):
                reasons = queued.reasons.filter { $0 != "none" && $0 != "job-printing" }.joined(separator: ", ")
                switch queued.state {
                case .completed:
                    kiosk.paper?.printed(.test)
                    return done(true, "job \(job) completed", nil)
                case .aborted, .canceled, .stopped:
                    // Why, in the printer's words: asked now (the state polled every 5 s may be older).
                    let ended = "job \(job) \(queued.state == .canceled ? "cancelled" : "\(queued.state)")"
                    return loop.background({ () -> [String] in ((try? printer.status())?.reasons ?? []) }) { now in
                        let all = (reasons.isEmpty ? [] : [reasons]) + (now + printerWatch.report().reasons).filter { $0 != "none" }
                        let unique = all.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: ", ")
                        done(false, ended + (unique.isEmpty ? "" : ": \(unique)"), check(reasons: unique))
                    }
                case .pending, .held, .processing:
                    break
                }
            case let .failure(error):
                reasons = error.description
            }
            guard clock.monotonic() < deadline else {
                printer.cancel(job: job)
                return done(false, "job \(job) not finished in time" + (reasons.isEmpty ? "" : " (\(reasons))"),
                            "the printer's power, cable and paper; `clupctl printer`")
            }
            loop.schedule(after: 0.3) { follow(job: job, until: deadline, done: done) }
        }
    }

    private func check(for error: PrintError) -> String {
        "\(error.coded.code): \(error.coded.action)"
    }

    private func check(reasons: String) -> String {
        if reasons.contains("media-empty") || reasons.contains("media-needed") { return "paper: \(ErrorCode.outOfPaper.entry.action)" }
        if reasons.contains("cover-open") || reasons.contains("door-open") { return "close the printer's cover" }
        if reasons.contains("offline") || reasons.contains("connecting") { return "the printer's cable and power" }
        return "the printer's state in `clupctl printer` and the CUPS error log"
    }
}
