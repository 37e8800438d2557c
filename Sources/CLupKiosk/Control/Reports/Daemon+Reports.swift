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
        QueueController(kiosk: kiosk).addRoutes(to: router)
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
                                 what: summary, from: peer.origin)])
    }

    /// A caller refused for want of permission: kept in the trail, once a minute per user at most.
    /// The trail keeps `refusals`' callers; `refusals` says whether this one is due.
    func auditRefused(_ peer: ControlServer.Peer?, _ refusals: RefusedCallers) {
        guard refusals.due(peer?.uid ?? UInt32.max, now: clock.monotonic()) else { return }
        kiosk.record([AuditEntry(role: .technician, who: "-", action: .command,
                                 result: "\(ErrorCode.permissionDenied.rawValue) not root, clupd's user or the control group",
                                 uid: peer?.uid, what: "(any command)", from: peer?.origin ?? "an unknown caller")])
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
            problems: [kiosk.desk.storageProblem, paperReport().problem].compactMap { $0 }
                + (hub.sync?.report().silentHolders ?? []).map { $0.problem(thisDevice: deviceID, now: clock.now().timeIntervalSince1970) }
                + kiosk.desk.dataProblems
                + (configuration.problem.map { [$0.description] } ?? [])
                + [kiosk.desk.auditTrailFill.warning, integrityWarning].compactMap { $0 },
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

    /// The paper on the roll: the count since the last new roll, the printer's sensor.
    func paperReport() -> PaperReport {
        guard let paper = kiosk.paper else {
            return PaperReport(rollChangedAt: nil, changedBy: nil, ticketsPrinted: 0, testsPrinted: 0, ticketsLeft: nil, low: false,
                               source: "unknown", detail: "not counted")
        }
        return paper.report(roll: config.printer.model.roll, printer: printerWatch.report())
    }

    /// The devices and the printer in the hub's words, for its fleet view.
    var healthForTheHub: TotemHealth {
        let printer = printerWatch.report()
        let reasons = printer.reasons.filter { $0 != "none" }
        return TotemHealth(devices: kiosk.deviceHealth.map { .init(role: $0.role, state: $0.state.rawValue, detail: $0.detail) },
                           printer: (printer.ready ? "ready" : "NOT READY") + ": \(printer.state)"
                               + (reasons.isEmpty ? "" : " (\(reasons.joined(separator: ", ")))"),
                           softwareVersion: PackageVersion.current, update: lastUpdateReport,
                           auditTrail: kiosk.desk.auditTrailFill, integrity: readIntegrityReport(),
                           printerReady: printer.ready, printerReasons: reasons, disk: DiskFill.of(state.path),
                           notRecording: kiosk.desk.storageProblem, paper: PaperStatus(paperReport()),
                           counting: counting.report(today: kiosk.desk.day.businessDay.date))
    }

    func devicesReport() -> DevicesReport {
        let profilesNote = config.hardware.usbProfiles.map { "\(usb.profiles?.profiles.count ?? 0) known devices from \($0)" }
            ?? "no USB profiles configured (hardware.usb_profiles)"
        let (lines, problem) = usb.lines()
        return DevicesReport(usb: lines, usbProblem: problem, profiles: profilesNote, devices: kiosk.deviceHealth)
    }
}
