import CLupCore
import CLupHardware
import CLupPrinting
import CLupProtocol
import CLupStore
import Foundation

/// The technician's self-tests and the touch panel's calibration. Each step lends the device
/// to the test (`MaintenanceHold`), so that nothing the test does reaches the queue or the
/// ledger, and answers once the device has done its part or the time is up.
extension Daemon {
    static let selfTestSentence = "This is the CLup totem's voice test. One, two, three."

    func selfTest(_ step: SelfTestStep, timeoutSeconds: Int, force: Bool, by who: String) throws -> PendingReply<SelfTestResult> {
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
            let size = "\(Int(kiosk.geometry.width))×\(Int(kiosk.geometry.height))"
            loop.schedule(after: seconds) { [unowned self] in
                kiosk.give(back: hold)
                finish(name(health("display")), true, "test pattern (bars, grid, corner marks, \(size)) shown for \(Int(seconds)) s")
            }
            pending.onCancel = { [unowned self] in kiosk.give(back: hold) }
        case .voice:
            guard let voice = devices.devices.voice else {
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
                try devices.devices.turnstile.release()
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
                      arm: { [unowned self] seen in hold.onRead = { seen(name(health("door-reader")), self.describe($0)) } })
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
        let timer = loop.schedule(after: seconds) { [unowned self] in
            kiosk.give(back: hold)
            missed()
        }
        arm { [unowned self] device, reason in
            loop.cancel(timer)
            kiosk.give(back: hold)
            passed(device, reason)
        }
        pending.onCancel = { [unowned self] in
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
                let payload = try kiosk.keyring.verify(code, at: clock.now())
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
        let content = TicketContent(storeName: config.store.name, number: "TEST", laneLabel: "self-test",
                                    issuedAt: kiosk.clockTime(clock.now()), estimatedWait: "-", code: "CLUP-SELFTEST-\(stamp)",
                                    instructions: ["Printer self-test by \(who). Not a ticket."])
        let (model, spool, printer) = (config.printer.model, state.spoolPath, self.printer)
        let deadline = clock.monotonic() + timeout
        loop.background({ () -> Result<Int, PrintError> in
            TicketDocument.layOut(content, title: "SELFTEST-\(stamp)", model: model, spool: spool).flatMap { $0.send(to: printer) }
        }) { [unowned self] sent in
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
            [unowned self] looked in
            let reasons: String
            switch looked {
            case let .success(queued):
                reasons = queued.reasons.filter { $0 != "none" && $0 != "job-printing" }.joined(separator: ", ")
                switch queued.state {
                case .completed:
                    return done(true, "job \(job) completed", nil)
                case .aborted, .canceled, .stopped:
                    // Why, in the printer's words: asked now (the state polled every 5 s may be older).
                    let ended = "job \(job) \(queued.state == .canceled ? "cancelled" : "\(queued.state)")"
                    return loop.background({ () -> [String] in ((try? printer.status())?.reasons ?? []) }) { [unowned self] now in
                        let all = (reasons.isEmpty ? [] : [reasons]) + (now + printerReport().reasons).filter { $0 != "none" }
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
            loop.schedule(after: 0.3) { [unowned self] in follow(job: job, until: deadline, done: done) }
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

    // MARK: Calibration

    /// Shows target `index` and answers with the first touch on it, read uncalibrated. The
    /// first target takes the touch panel and the screen until `calibrationEnd` (or 120 s).
    func calibrationTarget(_ index: Int, timeoutSeconds: Int, force: Bool) throws -> PendingReply<RawTouch> {
        let targets = CalibrationSolver.targets
        guard targets.indices.contains(index), (1...300).contains(timeoutSeconds) else {
            throw CodedError(.requestNotUnderstood, "a calibration target is 0 to \(targets.count - 1), waited for 1 to 300 s")
        }
        let hold: MaintenanceHold
        if index == 0 {
            if let calibrating = calibration { endCalibration(calibrating, keep: nil) }
            hold = MaintenanceHold("the calibration of the touch panel", display: true)
            // Four touches and the answer, with time to spare; past it the calibration there was is put back.
            try kiosk.take(hold, force: force, leaseSeconds: Double(timeoutSeconds * targets.count) + 60)
            let previous = devices.devices.touchscreen.calibration
            calibration = CalibrationInProgress(hold: hold, previous: previous)
            hold.onLeaseEnd = { [unowned self, unowned hold] in
                guard calibration?.hold === hold else { return }
                devices.devices.touchscreen.calibration = previous
                calibration = nil
            }
            devices.devices.touchscreen.calibration = .identity
        } else {
            guard let calibrating = calibration, kiosk.maintenance === calibrating.hold else {
                throw CodedError(.calibrationNotStarted, "no calibration in progress: start again from the first target")
            }
            hold = calibrating.hold
        }
        let target = targets[index]
        try kiosk.showMaintenance(try kiosk.calibrationFrame(target: index, of: targets.count, at: target))
        let pending = PendingReply<RawTouch>("calibration target \(index + 1)", seconds: Double(timeoutSeconds) + 5)
        let size = screenMM()
        let maxError = config.hardware.calibrationMaxErrorMM
        let timer = loop.schedule(after: Double(timeoutSeconds)) { [unowned self] in
            hold.onTouch = nil
            if let calibrating = calibration { endCalibration(calibrating, keep: nil) }
            pending.finish(.failure(CodedError(.selfTestTimedOut, "no touch on target \(index + 1) within \(timeoutSeconds) s")))
        }
        hold.onTouch = { [unowned self] gesture in
            guard gesture.kind == .tap || gesture.kind == .longPress else { return }
            hold.onTouch = nil
            loop.cancel(timer)
            pending.finish(.success(RawTouch(index: index, targetX: target.x, targetY: target.y, rawX: gesture.x1, rawY: gesture.y1,
                                             widthMM: size.width, heightMM: size.height, maxErrorMM: maxError)))
        }
        pending.onCancel = { [unowned self] in
            loop.cancel(timer)
            if let calibrating = calibration { endCalibration(calibrating, keep: nil) }
        }
        return pending
    }

    /// Ends the calibration: `matrix` is checked, saved in the state directory and put in
    /// force; nil puts back the calibration there was.
    func calibrationEnd(_ matrix: [Double]?, by who: String) throws -> CalibrationReply {
        let calibrating = calibration
        guard let matrix else {
            if let calibrating { endCalibration(calibrating, keep: nil) }
            return CalibrationReply(matrix: devices.devices.touchscreen.calibration.values, source: calibrationSource + " (kept)")
        }
        guard let calibrating, kiosk.maintenance === calibrating.hold else {
            throw CodedError(.calibrationNotStarted, "no calibration in progress (it ended, or its lease ran out): run clupctl calibrate again")
        }
        guard matrix.count == 6, matrix.allSatisfy(\.isFinite), matrix.allSatisfy({ abs($0) <= 10 }) else {
            throw CodedError(.calibrationTooFarOff, "a calibration is 6 finite numbers of at most 10")
        }
        let determinant = matrix[0] * matrix[4] - matrix[1] * matrix[3]
        guard (0.25...4).contains(abs(determinant)) else {
            throw CodedError(.calibrationTooFarOff, "the matrix would scale the panel's area by \(determinant): not a plausible panel")
        }
        let saved = SavedCalibration(matrix: matrix, at: clock.now(), by: who)
        try saved.write(to: state.calibrationPath)
        endCalibration(calibrating, keep: CalibrationMatrix(matrix))
        kiosk.record([AuditEntry(role: .technician, who: who, action: .calibrated,
                                 result: matrix.map { String(format: "%.4f", $0) }.joined(separator: " "))])
        logger.notice("touch panel calibrated", metadata: ["matrix": "\(matrix)", "by": "\(who)"])
        return CalibrationReply(matrix: matrix, source: calibrationSource)
    }

    private func endCalibration(_ calibrating: CalibrationInProgress, keep matrix: CalibrationMatrix?) {
        devices.devices.touchscreen.calibration = matrix ?? calibrating.previous
        if matrix != nil { calibrationSource = "\(state.calibrationPath) (clupctl calibrate)" }
        calibration = nil
        kiosk.give(back: calibrating.hold)
    }

    /// The screen's size in millimetres: from the display, else the configuration.
    func screenMM() -> (width: Double, height: Double) {
        devices.devices.display.physicalSizeMM ?? (config.screen.widthMM, config.screen.heightMM)
    }

    // MARK: Diagnostics

    /// What support asks for: versions, the configuration without secrets, the database's
    /// integrity, the devices, the printer, the sync, the last 100 events and the audit trail.
    /// The database is checked on a worker, on a connection of its own.
    func diagnostics() -> PendingReply<DiagnosticsReport> {
        let pending = PendingReply<DiagnosticsReport>("the diagnostics", seconds: 120)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        func json<T: Encodable>(_ value: T) -> String { (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}" }
        var parts: [DiagnosticsReport.Part] = []
        parts.append(.init(name: "versions.txt", text: Self.versions()))
        parts.append(.init(name: "clupd.toml", text: Self.redacted(config.toml(comments: false))))
        parts.append(.init(name: "status.json", text: (try? statusReport()).map(json) ?? "{}"))
        parts.append(.init(name: "devices.json", text: json(devicesReport())))
        parts.append(.init(name: "printer.json", text: json(printerReport())))
        parts.append(.init(name: "sync.json", text: json(syncReport())))
        parts.append(.init(name: "queue.json", text: json(queueReport())))
        let last = Int((try? kiosk.desk.store.lastSeq()) ?? 0)
        let events = (try? kiosk.desk.store.events(after: max(0, last - 100))) ?? []
        parts.append(.init(name: "events.jsonl", text: events.map {
            "{\"seq\":\($0.seq),\"at\":\"\($0.wallTime.formatted(.iso8601))\",\"type\":\"\($0.type)\",\"payload\":\($0.payload)}"
        }.joined(separator: "\n") + "\n"))
        let trail = (try? Kiosk.auditTrail(in: kiosk.desk.store, last: 500)) ?? []
        parts.append(.init(name: "audit.txt", text: trail.map {
            "\($0.at.formatted(.iso8601))  \($0.entry.role.rawValue) \($0.entry.who) \($0.entry.action.rawValue) \($0.entry.result)"
                + ($0.entry.what.map { "  [\($0)]" } ?? "") + ($0.entry.uid.map { " uid \($0)" } ?? "")
        }.joined(separator: "\n") + "\n"))
        let path = state.databasePath
        loop.background({ () -> String in TotemStore.integrityCheck(path: path) }) { result in
            parts.append(.init(name: "integrity.txt", text: result))
            pending.finish(.success(DiagnosticsReport(parts: parts)))
        }
        return pending
    }

    /// Replaces the values of keys that name a secret, token, password or key.
    static func redacted(_ toml: String) -> String {
        toml.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let text = String(line)
            guard let equals = text.firstIndex(of: "="), !text.trimmingCharacters(in: .whitespaces).hasPrefix("#") else { return text }
            let key = text[..<equals].lowercased()
            guard ["secret", "token", "password", "key"].contains(where: key.contains) else { return text }
            return text[..<equals] + "= \"<removed>\""
        }.joined(separator: "\n")
    }

    static func versions() -> String {
        var lines = ["clupd \(ClupVersion.current)"]
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &names.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        lines.append("kernel \(release) \(machine)")
        if let debian = try? String(contentsOfFile: "/etc/debian_version", encoding: .utf8) {
            lines.append("debian \(debian.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        lines.append("sqlite \(TotemStore.sqliteVersion)")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A calibration under way: the hold on the panel and the screen, and the calibration to put
/// back if it is not saved.
struct CalibrationInProgress {
    let hold: MaintenanceHold
    let previous: CalibrationMatrix
}

/// The calibration `clupctl calibrate` saved, in `STATE/calibration.json`; it replaces
/// `hardware.calibration` at start.
struct SavedCalibration: Codable, Equatable {
    let matrix: [Double]
    let at: Date
    let by: String

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let temporary = path + ".tmp"
        try encoder.encode(self).write(to: URL(fileURLWithPath: temporary))
        let fd = open(temporary, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
        guard rename(temporary, path) == 0 else {
            throw CodedError(.stateDirectoryUncreatable, "cannot save \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// The saved calibration, if there is a sound one (a damaged file is ignored: the
    /// configuration's calibration holds, and the log says why).
    static func read(from path: String) -> Result<SavedCalibration, CodedError>? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard data.count < 4096, let saved = try? decoder.decode(SavedCalibration.self, from: data), saved.matrix.count == 6,
              saved.matrix.allSatisfy({ $0.isFinite && abs($0) <= 10 }) else {
            return .failure(CodedError(.badConfiguration, "\(path) is not a calibration clupctl saved; using hardware.calibration"))
        }
        return .success(saved)
    }
}
