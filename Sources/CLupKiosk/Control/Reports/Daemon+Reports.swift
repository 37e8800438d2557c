import Crypto
import CLupCore
import CLupHardware
import CLupPrinting
import CLupProtocol
import CLupStore
import Foundation

extension Daemon {
    /// The router of the control socket: the rules every command shares, from the technician
    /// desk and the audit trail, and each feature's commands.
    func controlRouter() -> ControlRouter {
        let router = ControlRouter(policy: ControlRouter.Policy(
            technician: { [unowned self] request, peer in technicians.technician(for: request, peer: peer) },
            missingTechnician: { [unowned self] request, summary in technicians.missingTechnician(for: request, summary: summary) },
            // Root adds the first technician, before there is anyone to log in.
            bootstrap: { name, peer in name == Control.PutTechnician.wireName && peer.uid == 0 },
            audit: { [unowned self] summary, technician, peer, outcome in
                audit(summary, technician: technician, peer: peer, outcome: outcome)
            }), logger: logger)
        routeState(router)
        routeQueue(router)
        StaffController(kiosk: kiosk, technicians: technicians).addRoutes(to: router)
        routeMaintenance(router)
        routeSimulation(router)
        return router
    }

    /// Keeps a command in the trail: what was typed, by whom, and how it ended.
    func audit(_ summary: String, technician: String?, peer: ControlServer.Peer, outcome: Result<String, Error>) {
        let result: String
        switch outcome {
        case let .success(verdict): result = verdict
        case let .failure(error): result = CodedError(describing: error).description
        }
        kiosk.record([AuditEntry(role: .technician, who: technician ?? "-", action: .command, result: result, uid: peer.uid,
                                 what: summary)])
    }

    /// A caller refused for want of permission: kept in the trail, once a minute per user at most.
    /// The trail keeps `refusals`' callers; `refusals` says whether this one is due.
    func auditRefused(_ peer: ControlServer.Peer?, _ refusals: RefusedCallers) {
        guard refusals.due(peer?.uid ?? UInt32.max, now: clock.monotonic()) else { return }
        kiosk.record([AuditEntry(role: .technician, who: "-", action: .command,
                                 result: "\(ErrorCode.permissionDenied.rawValue) not root, clupd's user or the control group",
                                 uid: peer?.uid, what: "(any command)")])
    }

    /// The prompt's facts: the totem, its worst problem, and who is logged in.
    func hello(technician: String?) -> HelloReply {
        let health = kiosk.deviceHealth + [usb.health]
        let printer = printerWatch.report()
        let state: String
        if let broken = health.first(where: { $0.state != .ok && $0.role != "usb" }) {
            state = "\(broken.role.replacingOccurrences(of: "-", with: " ").uppercased()) \(broken.state.rawValue.uppercased())"
        } else if !printer.ready {
            state = "PRINTER FAULT"
        } else {
            state = "ok"
        }
        return HelloReply(storeID: UInt32(config.store.id), letter: String(config.totem.letter), state: state, technician: technician,
                          clupdVersion: PackageVersion.current)
    }

    func realDevice(_ role: String) -> CodedError {
        CodedError(.realDevice, "the \(role) is a real one (see [hardware]); sim needs the simulated one")
    }

    func issueOrder(_ a: Ticket, _ b: Ticket) -> Bool {
        (a.issuedAt, a.lane.rawValue, a.number.sequence) < (b.issuedAt, b.lane.rawValue, b.number.sequence)
    }

    func syncReport() -> SyncReport { hub.report(deviceID: deviceID) }

    func statusReport() throws -> StatusReport {
        let day = kiosk.desk.day
        let devices = (kiosk.deviceHealth + [usb.health])
        let ledger = day.ledger(door: config.totem.door)
        return StatusReport(
            store: config.store.name, deviceID: deviceID,
            ticketKey: kiosk.authority.issuer.key.publicKey.rawRepresentation.base64EncodedString(),
            businessDay: day.businessDay.date,
            screen: kiosk.screens.flow.screen.name, devices: devices, printer: printerWatch.report(),
            waiting: day.queueLength, promised: day.promised,
            occupancy: OccupancyReport(inside: day.inside, capacity: config.queue.capacity,
                                       entries: ledger.entries, exits: ledger.exits),
            configuration: "\(configuration.source), read \(configuration.loadedAt.formatted(.iso8601))",
            problems: kiosk.desk.dataProblems + (configuration.problem.map { [$0.description] } ?? []),
            settings: hub.settings.map { "hub version \($0.version): capacity \($0.capacity), priority share \($0.priorityShare), "
                + "booking share \($0.bookingShare)"
                + (config.queue.doorLimit.map { ", this door's places \($0) (holding \(day.heldHere))" } ?? "")
                + ($0.totemKeys.map { ", keys of totems \($0.keys.sorted().joined())" } ?? "")
                + ($0.hours.map { ", open \($0.description)" } ?? "")
                + ($0.totemBookingPlaces.map { ", \($0) own bookings per slot" } ?? "")
                + (hub.lineVersion.map { ", door's line version \($0)" } ?? "")
                + ($0.targetVersion.map { target in
                    let window = updateWindow()
                    return ", clup-totem \(target) to install (running \(PackageVersion.current); \(window.idle ? "idle" : "not now"): \(window.why))"
                } ?? "") }
                ?? (hub.enrolment == nil ? "clupd.toml" : "none from the hub yet: nobody is called until they arrive"),
            sync: hub.sync.map { sync in
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
        let waiting = (day.waiting(in: .priority) + day.line + day.waiting(in: .booking)).map(line)
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
        // The ledgers depend on what the day carried over, passages and corrections alone: the
        // day's, read by the log's index. An event that cannot be read is left out (and named
        // in `status`, from `openDay`).
        let events = try kiosk.desk.store.events(ofTypes: ["day.opened", "occupancy.passage", "occupancy.corrected"],
                                                 openedOn: day.businessDay)
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
        let printer = printerWatch.report()
        let reasons = printer.reasons.filter { $0 != "none" }
        return TotemHealth(devices: kiosk.deviceHealth.map { .init(role: $0.role, state: $0.state.rawValue, detail: $0.detail) },
                           printer: (printer.ready ? "ready" : "NOT READY") + ": \(printer.state)"
                               + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))"),
                           softwareVersion: PackageVersion.current, update: lastUpdateReport)
    }

    func devicesReport() -> DevicesReport {
        let profilesNote = config.hardware.usbProfiles.map { "\(usb.profiles?.profiles.count ?? 0) known devices from \($0)" }
            ?? "no USB profiles configured (hardware.usb_profiles)"
        let (lines, problem) = usb.lines()
        return DevicesReport(usb: lines, usbProblem: problem, profiles: profilesNote, devices: kiosk.deviceHealth)
    }
}
