import CLupProtocol
import CLupCore
import CLupHardware
import CLupPrinting
import CLupStore
import Foundation

extension Daemon {
    /// Answers one control message from `peer`: checks that a technician is logged in for what
    /// changes the totem, answers (now, or later for slow work), and keeps the command, its
    /// caller and its result in the audit trail unless it is a routine read.
    func answer(_ message: ControlMessage, from peer: ControlServer.Peer) throws -> ControlAnswer {
        let request = message.request
        let technician = technicians.technician(for: message, peer: peer)
        switch request {
        case let .login(name, secret):
            return .later(try technicians.login(name: name, secret: secret, peer: peer))
        case .logout:
            let name = technicians.logout(message, peer: peer)
            return .now(try JSONEncoder().encode(MessageReply(name.map { "\($0) logged out" } ?? "no session to end")))
        case .hello:
            return .now(try JSONEncoder().encode(hello(technician: technician)))
        default:
            break
        }
        // Routine reads, and the shell's own prompt and completion, leave no trace.
        let quiet = message.quiet == true && !request.needsTechnician
        let audited = !quiet && !request.isRoutineRead
        let answer: ControlAnswer
        do {
            if request.needsTechnician, technician == nil, !Self.bootstrap(request, peer: peer) {
                throw technicians.missingTechnician(for: message)
            }
            answer = try dispatch(request, by: technician ?? peer.userName, peer: peer)
        } catch {
            if audited { audit(request, technician: technician, peer: peer, result: .failure(error)) }
            throw error
        }
        if audited {
            switch answer {
            case let .now(data): audit(request, technician: technician, peer: peer, result: .success(data))
            case let .later(pending):
                pending.observe { [unowned self] in audit(request, technician: technician, peer: peer, result: $0) }
            }
        }
        return answer
    }

    /// Root adds technicians before there is anyone to log in.
    private static func bootstrap(_ request: ControlRequest, peer: ControlServer.Peer) -> Bool {
        if case .putTechnician = request { return peer.uid == 0 }
        return false
    }

    private func audit(_ request: ControlRequest, technician: String?, peer: ControlServer.Peer, result: Result<Data, Error>) {
        let outcome: String
        switch result {
        case let .success(data):
            // A self-test answers even when the device fails it: the trail keeps the verdict.
            if case .selfTest = request, let verdict = try? JSONDecoder().decode(SelfTestResult.self, from: data) {
                outcome = "\(verdict.passed ? "PASS" : "FAIL") \(verdict.reason)"
            } else {
                outcome = "ok"
            }
        case let .failure(error):
            let coded = CodedError(describing: error)
            outcome = coded.description
        }
        kiosk.record([AuditEntry(role: .technician, who: technician ?? "-", action: .command, result: outcome, uid: peer.uid,
                                 what: request.summary)])
    }

    /// A caller refused for want of permission: kept in the trail, once a minute per user at most.
    func auditRefused(_ peer: ControlServer.Peer?) {
        let uid = peer?.uid ?? UInt32.max
        let now = clock.monotonic()
        if let last = refusedAudited[uid], now - last < 60 { return }
        if refusedAudited.count > 100 { refusedAudited.removeAll() }
        refusedAudited[uid] = now
        kiosk.record([AuditEntry(role: .technician, who: "-", action: .command,
                                 result: "\(ErrorCode.permissionDenied.rawValue) not root, clupd's user or the control group",
                                 uid: peer?.uid, what: "(any command)")])
    }

    /// The request answered now or, for what waits on a device or a worker, later.
    private func dispatch(_ request: ControlRequest, by who: String, peer: ControlServer.Peer) throws -> ControlAnswer {
        switch request {
        case let .selfTest(step, timeout, force):
            return .later(try selfTest(step, timeoutSeconds: timeout, force: force, by: who))
        case let .calibrationTarget(index, timeout, force):
            return .later(try calibrationTarget(index, timeoutSeconds: timeout, force: force))
        case let .calibrationEnd(matrix):
            return .now(try calibrationEnd(matrix, by: who))
        case .diagnostics:
            return .later(diagnostics())
        default:
            return .now(try handle(request, by: who, peer: peer))
        }
    }

    /// The prompt's facts: the totem, its worst problem, and who is logged in.
    func hello(technician: String?) -> HelloReply {
        let health = kiosk.deviceHealth + [usb.health]
        let printer = printerReport()
        let state: String
        if let broken = health.first(where: { $0.state != .ok && $0.role != "usb" }) {
            state = "\(broken.role.replacingOccurrences(of: "-", with: " ").uppercased()) \(broken.state.rawValue.uppercased())"
        } else if !printer.ready {
            state = "PRINTER FAULT"
        } else {
            state = "ok"
        }
        return HelloReply(storeID: UInt32(config.store.id), letter: String(config.totem.letter), state: state, technician: technician,
                          clupdVersion: ClupVersion.current)
    }

    /// Answers a request that needs no waiting, for `who` (the technician, else the Unix user).
    func handle(_ request: ControlRequest, by who: String, peer: ControlServer.Peer) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let day = kiosk.desk.day
        switch request {
        case .status:
            return try encoder.encode(statusReport())
        case .sync:
            return try encoder.encode(syncReport())
        case .metrics:
            return try encoder.encode(metricsText())
        case .syncNow:
            guard let sync else { throw CodedError(.notEnrolled, "this totem is not enrolled at a hub, so it has nothing to sync") }
            sync.syncNow()
            logger.info("sync asked for", metadata: ["by": "\(who)"])
            return try encoder.encode(syncReport())
        case .tickets:
            let lines = day.tickets.values.sorted(by: issueOrder).map { ticket in
                TicketLine(number: ticket.number.description, lane: ticket.lane.rawValue,
                           state: ticket.state.rawValue, issuedAt: ticket.issuedAt, code: ticket.code)
            }
            return try encoder.encode(TicketsReport(businessDay: day.businessDay.date, tickets: lines))
        case .screenshot:
            return try encoder.encode(ScreenshotReply(png: Data(try kiosk.screenshot())))
        case .queue:
            return try encoder.encode(queueReport())
        case .callNext:
            let events = try kiosk.desk.perform { day, now in try day.callNext(at: now, policy: config.queue) }
            guard case let .ticketCalled(number, _, _, reason, _)? = events.first else {
                throw CodedError(.nobodyCalled, "no ticket was called")
            }
            logger.info("ticket called by hand", metadata: ["number": "\(number)", "by": "\(who)"])
            return try encoder.encode(CallReply(number: number.description, reason: reason))
        case .ledger:
            return try encoder.encode(ledgerReport())
        case let .correctLedger(delta, reason):
            try kiosk.desk.perform { day, now in
                try day.correct(door: config.totem.door, delta: delta, by: who, reason: reason, at: now)
            }
            logger.notice("occupancy corrected", metadata: ["delta": "\(delta)", "by": "\(who)", "reason": "\(reason)"])
            return try encoder.encode(ledgerReport())
        case let .setOccupancy(count, reason):
            try kiosk.desk.perform { day, now in
                try day.correct(door: config.totem.door, toCount: count, by: who, reason: reason, at: now)
            }
            logger.notice("occupancy set", metadata: ["count": "\(count)", "by": "\(who)", "reason": "\(reason)"])
            return try encoder.encode(ledgerReport())
        case .configuration:
            return try encoder.encode(ConfigurationReport(source: configSource, toml: config.toml(comments: true)))
        case .devices:
            return try encoder.encode(devicesReport())
        case let .issuePriority(reason):
            let outcome = kiosk.issueTicket(.priority(reason))
            if let number = outcome.ticket {
                logger.notice("priority ticket issued", metadata: ["number": "\(number)", "reason": "\(reason.rawValue)",
                                                                    "by": "\(who)"])
            }
            return try reply(outcome, encoder)
        case .printer:
            let failures = day.tickets.values.filter { $0.state == .printFailed }.sorted(by: issueOrder).map {
                PrintFailure(number: $0.number.description, issuedAt: $0.issuedAt, reason: $0.failureReason ?? "")
            }
            return try encoder.encode(PrinterDetails(printer: printerReport(), profile: config.printer.model.name, failures: failures))
        case let .reprint(text):
            let number = try ticketNumber(text)
            let outcome = try kiosk.reprint(number, by: who)
            logger.notice("ticket reprinted", metadata: ["number": "\(number)", "by": "\(who)"])
            return try reply(outcome, encoder)
        case .simApproach, .simLeave:
            guard let presence = devices.simulatedPresence else { throw realDevice("presence sensor") }
            let present = request == .simApproach
            guard presence.set(present: present) else {
                return try reply(KioskOutcome("nothing changed: \(present ? "someone is" : "nobody is") there already"), encoder)
            }
            return try reply(kiosk.presenceChanged(present), encoder)
        case let .simTap(x, y):
            guard let touchscreen = devices.simulatedTouchscreen else { throw realDevice("touchscreen") }
            return try reply(kiosk.touched(try touchscreen.tap(x: x, y: y)), encoder)
        case let .simPress(name):
            return try simTouch(name, milliseconds: 80, encoder)
        case let .simHold(name, milliseconds):
            guard (0...60_000).contains(milliseconds) else {
                throw CodedError(.requestNotUnderstood, "a touch is held 0 to 60000 ms, not \(milliseconds)")
            }
            return try simTouch(name, milliseconds: milliseconds, encoder)
        case let .simHeadset(plugged):
            guard let jack = devices.simulatedHeadset else { throw realDevice("headphone jack") }
            guard jack.set(plugged: plugged) else {
                return try reply(KioskOutcome("nothing changed: \(plugged ? "a headset is" : "no headset is") in the jack already"), encoder)
            }
            return try reply(kiosk.headsetChanged(plugged), encoder)
        case .employees:
            return try encoder.encode(employeesReport())
        case let .audit(since):
            // The newest entries, a bounded number, oldest first.
            let trail = try Kiosk.auditTrail(in: kiosk.desk.store, last: AuditReport.limit + 1)
            let entries = trail.filter { item in since.map { item.at >= $0 } ?? true }.map {
                AuditReport.Entry(at: $0.at, role: $0.entry.role.rawValue, who: $0.entry.who, action: $0.entry.action.rawValue,
                                  result: $0.entry.result, uid: $0.entry.uid, what: $0.entry.what)
            }
            return try encoder.encode(AuditReport(entries: Array(entries.suffix(AuditReport.limit)),
                                                  truncated: trail.count > AuditReport.limit))
        case let .putEmployee(staffNumber, pin, replacing):
            if let problem = PinHash.problem(staffNumber: staffNumber) ?? pin.problem {
                throw CodedError(.badEmployee, problem)
            }
            let existing = try kiosk.desk.store.employee(staffNumber)
            let exists = existing != nil
            if existing?.source == .hub { throw Self.managedAtTheHub(staffNumber) }
            if replacing, !exists { throw CodedError(.unknownEmployee, "no employee has staff number \(staffNumber)") }
            if !replacing, exists { throw CodedError(.employeeExists, "staff number \(staffNumber) is already an employee here") }
            let record = EmployeeRecord(staffNumber: staffNumber, kdf: pin.kdf, salt: pin.salt, pinHash: pin.hash, changedAt: clock.now())
            try kiosk.desk.audit([AuditEntry(role: .technician, who: who, action: replacing ? .pinChanged : .employeeAdded,
                                             result: "staff number \(staffNumber)", uid: peer.uid)], changing: .put(record))
            logger.notice(replacing ? "employee PIN changed" : "employee added", metadata: ["staff": "\(staffNumber)", "by": "\(who)"])
            return try encoder.encode(employeesReport())
        case let .removeEmployee(staffNumber):
            guard PinHash.problem(staffNumber: staffNumber) == nil, let existing = try kiosk.desk.store.employee(staffNumber) else {
                throw CodedError(.unknownEmployee, "no employee has staff number \(TypedText.inMessage(staffNumber))")
            }
            if existing.source == .hub { throw Self.managedAtTheHub(staffNumber) }
            try kiosk.desk.audit([AuditEntry(role: .technician, who: who, action: .employeeRemoved,
                                             result: "staff number \(staffNumber)", uid: peer.uid)], changing: .remove(staffNumber: staffNumber))
            logger.notice("employee removed", metadata: ["staff": "\(staffNumber)", "by": "\(who)"])
            return try encoder.encode(employeesReport())
        case .screen:
            return try encoder.encode(kiosk.screenReport)
        case let .simPass(direction):
            guard devices.simulatedTurnstile != nil else { throw realDevice("turnstile") }
            return try reply(kiosk.passed(direction), encoder)
        case let .simScan(code):
            guard let reader = devices.simulatedReader else { throw realDevice("door reader") }
            let outcomes = reader.scan(code).map(kiosk.read)
            return try reply(outcomes.last ?? KioskOutcome("the reader read nothing"), encoder)
        case .technicians:
            return try encoder.encode(techniciansReport())
        case let .putTechnician(name, secret, replacing):
            return try encoder.encode(try putTechnician(name, secret: secret, replacing: replacing, by: who, uid: peer.uid))
        case let .removeTechnician(name):
            return try encoder.encode(try removeTechnician(name, by: who, uid: peer.uid))
        case let .skip(text):
            return try encoder.encode(try skip(text, by: who))
        case let .void(text, reason):
            return try encoder.encode(try void(text, reason: reason, by: who))
        case .logSource:
            return try encoder.encode(logSource())
        case let .logRead(offset, maxBytes):
            return try encoder.encode(try logRead(offset: offset, maxBytes: maxBytes))
        case .hello, .login, .logout, .selfTest, .calibrationTarget, .calibrationEnd, .diagnostics:
            throw CodedError(.internalError, "\(request.summary) is answered elsewhere")
        }
    }

    /// A simulated device's event or a staff request: what it did, or why it was refused.
    private func reply(_ outcome: KioskOutcome, _ encoder: JSONEncoder) throws -> Data {
        if let refusal = outcome.refusal { throw refusal }
        return try encoder.encode(SimulationReply(outcome: outcome.sentence, screen: kiosk.flow.screen.name,
                                                  ticket: outcome.ticket?.description))
    }

    /// A simulated touch held `milliseconds` in the middle of the button (or staff corner) named `name`.
    private func simTouch(_ name: String, milliseconds: Int, _ encoder: JSONEncoder) throws -> Data {
        guard let touchscreen = devices.simulatedTouchscreen else { throw realDevice("touchscreen") }
        let screen = kiosk.flow.screen
        let buttons = kiosk.geometry.buttons(on: screen, language: kiosk.flow.language, largeText: kiosk.flow.largeText)
            + (kiosk.geometry.staffCorner(on: screen).map { [$0] } ?? [])
        guard let button = buttons.first(where: { $0.action.name == name }) else {
            throw CodedError(.noSuchButton, "the \(screen.name) screen has no button \"\(TypedText.inMessage(name))\" "
                + "(it has: \(buttons.map(\.action.name).joined(separator: ", ")))")
        }
        let gesture = try touchscreen.touch(x: Int(button.x + button.width / 2), y: Int(button.y + button.height / 2),
                                            milliseconds: milliseconds)
        return try reply(kiosk.touched(gesture), encoder)
    }

    static func managedAtTheHub(_ staffNumber: String) -> CodedError {
        CodedError(.employeeExists, "staff number \(staffNumber) is one of the store's employees managed at the hub: "
            + "change them there (clup-hub employee)")
    }

    func employeesReport() throws -> EmployeesReport {
        let now = clock.now()
        return EmployeesReport(employees: try kiosk.desk.store.employees().map {
                                   .init(staffNumber: $0.staffNumber, changedAt: $0.changedAt, managedBy: $0.source == .hub ? "hub" : "totem")
                               },
                               padLockedUntil: kiosk.padLock.isLocked(at: now) ? kiosk.padLock.lockedUntil : nil,
                               failures: kiosk.padLock.failures)
    }

    private func realDevice(_ role: String) -> CodedError {
        CodedError(.realDevice, "the \(role) is a real one (see [hardware]); sim needs the simulated one")
    }

    private func issueOrder(_ a: Ticket, _ b: Ticket) -> Bool {
        (a.issuedAt, a.lane.rawValue, a.number.sequence) < (b.issuedAt, b.lane.rawValue, b.number.sequence)
    }

    func syncReport() -> SyncReport {
        sync?.report() ?? SyncReport(state: .off, hub: nil, deviceID: deviceID, lastSeq: 0, acknowledgedSeq: nil, outboxDepth: nil,
                                     lastSuccess: nil, lastAttempt: nil, lastError: nil, clockSkew: nil, deadLettered: 0,
                                     consecutiveFailures: 0, nextAttemptIn: nil)
    }

    func statusReport() throws -> StatusReport {
        let day = kiosk.desk.day
        let devices = (kiosk.deviceHealth + [usb.health]).map(DeviceStatus.init)
        let ledger = day.ledger(door: config.totem.door)
        return StatusReport(
            store: config.store.name, deviceID: deviceID,
            ticketKey: kiosk.issuer.key.publicKey.rawRepresentation.base64EncodedString(),
            businessDay: day.businessDay.date,
            screen: kiosk.flow.screen.name, devices: devices, printer: printerReport(),
            waiting: day.queueLength, promised: day.promised,
            occupancy: OccupancyReport(inside: day.inside, capacity: config.queue.capacity,
                                       entries: ledger.entries, exits: ledger.exits),
            configuration: "\(configSource), read \(configLoadedAt.formatted(.iso8601))",
            problems: kiosk.desk.dataProblems + (configProblem.map { [$0.description] } ?? []),
            settings: hubSettings.map { "hub version \($0.version): capacity \($0.capacity), priority share \($0.priorityShare), "
                + "booking share \($0.bookingShare)"
                + ($0.doorLimit.map { ", this door's places \($0) (holding \(day.heldHere))" } ?? "")
                + ($0.totemKeys.map { ", keys of totems \($0.keys.sorted().joined())" } ?? "")
                + ($0.hours.map { ", open \($0.description)" } ?? "")
                + ($0.totemBookingPlaces.map { ", \($0) own bookings per slot" } ?? "") }
                ?? (enrolment == nil ? "clupd.toml" : "none from the hub yet: nobody is called until they arrive"),
            sync: sync.map { sync in
                let report = sync.report()
                return "\(report.state.rawValue), \(report.outboxDepth.map { "\($0) events waiting" } ?? "outbox not known yet")"
                    + (report.lastError.map { ", last error \($0.code)" } ?? "")
            })
    }

    func queueReport() -> QueueReport {
        let day = kiosk.desk.day
        let now = clock.moment()
        let policy = config.queue
        func line(_ ticket: Ticket) -> QueueLine {
            // The window runs on the monotonic clock; the deadline is shown on the wall clock.
            let left = ticket.state == .called ? ticket.secondsSinceCall(at: now).map { policy.presentationWindow - $0 } : nil
            return QueueLine(number: ticket.number.description, lane: ticket.lane.rawValue, state: ticket.state.rawValue,
                             issuedAt: ticket.issuedAt, calledAt: ticket.calledAt,
                             deadline: left.map { now.wall.addingTimeInterval($0) }, reason: ticket.callReason)
        }
        let waiting = (day.waiting(in: .priority) + day.waiting(in: .regular) + day.waiting(in: .booking)).map(line)
        let called = day.tickets.values.filter(\.state.holdsAPlace)
            .sorted { ($0.calledAt ?? $0.issuedAt) < ($1.calledAt ?? $1.issuedAt) }.map(line)
        let next = day.nextCall(at: now, policy: policy).map { "\($0.ticket.number): \($0.reason)" }
        return QueueReport(businessDay: day.businessDay.date, capacity: policy.capacity, inside: day.inside,
                           promised: day.promised, priorityReserve: day.priorityReserve(policy), waiting: waiting,
                           called: called, nextCall: next,
                           estimatedWait: kiosk.desk.estimatedWait(for: .regular, defaultMinutes: config.tickets.defaultWaitMinutes).description)
    }

    func ledgerReport() throws -> LedgerReport {
        let day = kiosk.desk.day
        // The ledgers depend on what the day carried over, passages and corrections alone. An
        // event that cannot be read is left out (and named in `status`, from `openDay`).
        let events = try kiosk.desk.store.events(ofTypes: ["day.opened", "occupancy.passage", "occupancy.corrected"])
            .compactMap { try? $0.decoded() }
        let corrections = events.compactMap { event -> CorrectionLine? in
            guard case let .occupancyCorrected(door, eventDay, delta, by, reason, at) = event,
                  eventDay == day.businessDay else { return nil }
            // Bounded as a correction is now: one stored by an older clupd may be long.
            return CorrectionLine(at: at, door: door, delta: delta, by: String(by.prefix(DayState.maximumStaffName)),
                                  reason: String(reason.prefix(DayState.maximumReason)))
        }
        let replayed = DayState.replaying(events, businessDay: day.businessDay)
        let doors = day.ledgers.values.sorted { $0.door < $1.door }.map {
            DoorLedger(door: $0.door, carried: $0.carried, entries: $0.entries, exits: $0.exits, corrections: $0.corrections,
                       inside: $0.inside)
        }
        return LedgerReport(businessDay: day.businessDay.date, inside: day.inside, doors: doors,
                            corrections: corrections, matchesEventLog: replayed.ledgers == day.ledgers)
    }

    /// The devices and the printer in the hub's words, for its fleet view.
    var healthForTheHub: TotemHealth {
        let printer = printerReport()
        let reasons = printer.reasons.filter { $0 != "none" }
        return TotemHealth(devices: kiosk.deviceHealth.map { .init(role: $0.role, state: $0.state.rawValue, detail: $0.detail) },
                           printer: (printer.ready ? "ready" : "NOT READY") + ": \(printer.state)"
                               + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))"))
    }

    func printerReport() -> PrinterReport {
        let age = printerStatus.flatMap { $0.at >= 0 ? clock.monotonic() - $0.at : nil }
        if let error = printerStatus?.error {
            return PrinterReport(queue: printer.queue, ready: false, state: "unreachable", reasons: [],
                                 message: error.description, checkedSecondsAgo: age)
        }
        guard let status = printerStatus?.status else {
            return PrinterReport(queue: printer.queue, ready: false, state: "unknown", reasons: [],
                                 message: "not checked yet", checkedSecondsAgo: nil)
        }
        return PrinterReport(queue: status.queue, ready: status.isReady, state: status.state, reasons: status.reasons,
                             message: status.message, checkedSecondsAgo: age)
    }

    func devicesReport() -> DevicesReport {
        let profilesNote = config.hardware.usbProfiles.map { "\(usbProfiles?.profiles.count ?? 0) known devices from \($0)" }
            ?? "no USB profiles configured (hardware.usb_profiles)"
        let devices = kiosk.deviceHealth.map(DeviceStatus.init)
        func line(_ device: USBDeviceInfo) -> USBLine {
            let profile = usbProfiles?.match(device.id)
            return USBLine(bus: device.bus, address: device.address, id: device.id, role: profile?.role, name: profile?.name)
        }
        // What hotplug has seen, or a fresh enumeration where hotplug is off.
        if usb.problem == nil {
            let seen = usb.present.values.sorted { ($0.bus, $0.address) < ($1.bus, $1.address) }
            return DevicesReport(usb: seen.map(line), usbProblem: nil, profiles: profilesNote, devices: devices)
        }
        do {
            return DevicesReport(usb: try USBBus.devices().map(line), usbProblem: nil, profiles: profilesNote, devices: devices)
        } catch {
            return DevicesReport(usb: [], usbProblem: error.description, profiles: profilesNote, devices: devices)
        }
    }
}

extension DeviceStatus {
    /// A device's health as the control socket reports it.
    init(_ health: DeviceHealth) {
        self.init(role: health.role, backend: health.backend, state: State(rawValue: health.state.rawValue) ?? .fault,
                  detail: health.detail)
    }
}
