import CLupProtocol
import CLupCore
import CLupHardware
import CLupPrinting
import Foundation

extension Daemon {
    /// Answers one control request from `peer`; the result is encoded as JSON.
    func handle(_ request: ControlRequest, from peer: ControlServer.Peer) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        switch request {
        case .status:
            return try encoder.encode(statusReport())
        case .tickets:
            let lines = controller.day.tickets.values.sorted(by: issueOrder).map { ticket in
                TicketLine(number: ticket.number.description, lane: ticket.lane.rawValue,
                           state: ticket.state.rawValue, issuedAt: ticket.issuedAt, code: ticket.code)
            }
            return try encoder.encode(TicketsReport(businessDay: controller.day.businessDay.date, tickets: lines))
        case .screenshot:
            guard let frame = controller.currentFrame else {
                throw CodedError(.nothingDrawnYet, "nothing has been drawn yet")
            }
            return try encoder.encode(ScreenshotReply(png: Data(try frame.pngData())))
        case .queue:
            return try encoder.encode(queueReport())
        case .callNext:
            let events = try controller.perform { day, now in try day.callNext(at: now, policy: config.policy) }
            guard case let .ticketCalled(number, _, _, reason, _)? = events.first else {
                throw CodedError(.nobodyCalled, "no ticket was called")
            }
            logger.info("ticket called by hand", metadata: ["number": "\(number)", "by": "\(peer.userName)"])
            return try encoder.encode(CallReply(number: number.description, reason: reason))
        case .ledger:
            return try encoder.encode(ledgerReport())
        case let .correctLedger(delta, reason):
            try controller.perform { day, now in
                try day.correct(door: config.doorName, delta: delta, by: peer.userName, reason: reason, at: now)
            }
            logger.notice("occupancy corrected", metadata: ["delta": "\(delta)", "by": "\(peer.userName)", "reason": "\(reason)"])
            return try encoder.encode(ledgerReport())
        case let .setOccupancy(count, reason):
            try controller.perform { day, now in
                try day.correct(door: config.doorName, toCount: count, by: peer.userName, reason: reason, at: now)
            }
            logger.notice("occupancy set", metadata: ["count": "\(count)", "by": "\(peer.userName)", "reason": "\(reason)"])
            return try encoder.encode(ledgerReport())
        case .configuration:
            return try encoder.encode(ConfigurationReport(source: configSource, toml: config.toml))
        case .devices:
            return try encoder.encode(devicesReport())
        case let .issuePriority(reason):
            let number = try controller.issueTicket(.priority(reason))
            logger.notice("priority ticket issued", metadata: ["number": "\(number)", "reason": "\(reason.rawValue)",
                                                                "by": "\(peer.userName)"])
        case .printer:
            let failures = controller.day.tickets.values.filter { $0.state == .printFailed }.sorted(by: issueOrder).map {
                PrintFailure(number: $0.number.description, issuedAt: $0.issuedAt, reason: $0.failureReason ?? "")
            }
            let profile = config.printerProfile ?? .pdf(config.paper)
            return try encoder.encode(PrinterDetails(printer: printerReport(), profile: profile.name, failures: failures))
        case let .reprint(text):
            guard let number = TicketNumber(text) else {
                throw CodedError(.notATicketNumber, "\(text) is not a ticket number (like A-017)")
            }
            try controller.reprint(number, by: peer.userName)
            logger.notice("ticket reprinted", metadata: ["number": "\(number)", "by": "\(peer.userName)"])
        case .simApproach, .simLeave:
            guard let presence = devices.simulatedPresence else { throw realDevice("presence sensor") }
            controller.beginDeviceEvent()
            presence.simulate(present: request == .simApproach)
        case let .simTap(x, y):
            guard let touchscreen = devices.simulatedTouchscreen else { throw realDevice("touchscreen") }
            controller.beginDeviceEvent()
            try touchscreen.simulateTap(x: x, y: y)
        case let .simPass(direction):
            guard let turnstile = devices.simulatedTurnstile else { throw realDevice("turnstile") }
            controller.beginDeviceEvent()
            turnstile.simulatePassage(direction)
        case let .simScan(code):
            guard let reader = devices.simulatedReader else { throw realDevice("door reader") }
            controller.beginDeviceEvent()
            reader.simulateScan(code)
        }
        if let failure = controller.lastFailure { throw failure }
        return try encoder.encode(SimulationReply(outcome: controller.lastOutcome, screen: controller.screen.name,
                                                  ticket: controller.lastIssued?.description))
    }

    private func realDevice(_ role: String) -> CodedError {
        CodedError(.realDevice, "the \(role) is a real one (see [hardware]); sim needs the simulated one")
    }

    private func issueOrder(_ a: Ticket, _ b: Ticket) -> Bool {
        (a.issuedAt, a.lane.rawValue, a.number.sequence) < (b.issuedAt, b.lane.rawValue, b.number.sequence)
    }

    func statusReport() throws -> StatusReport {
        let day = controller.day
        let devices = (controller.deviceHealth + [usb.health]).map(DeviceStatus.init)
        let ledger = day.ledger(door: config.doorName)
        return StatusReport(
            store: config.storeName, deviceID: config.deviceID,
            ticketKey: controller.issuer.key.publicKey.rawRepresentation.base64EncodedString(),
            businessDay: day.businessDay.date,
            screen: controller.screen.name, devices: devices, printer: printerReport(),
            waiting: day.queueLength, promised: day.promised,
            occupancy: OccupancyReport(inside: day.inside, capacity: config.policy.capacity,
                                       entries: ledger.entries, exits: ledger.exits),
            configuration: "\(configSource), read \(configLoadedAt.formatted(.iso8601))",
            problems: controller.dataProblems + (configProblem.map { [$0.description] } ?? []))
    }

    func queueReport() -> QueueReport {
        let day = controller.day
        let now = clock.moment()
        let policy = config.policy
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
                           called: called, nextCall: next, estimatedWait: controller.estimatedWait(for: .regular).description)
    }

    func ledgerReport() throws -> LedgerReport {
        let day = controller.day
        // The ledgers depend on what the day carried over, passages and corrections alone. An
        // event that cannot be read is left out (and named in `status`, from `openDay`).
        let events = try store.events(ofTypes: ["day.opened", "occupancy.passage", "occupancy.corrected"])
            .compactMap { try? $0.decoded() }
        let corrections = events.compactMap { event -> CorrectionLine? in
            guard case let .occupancyCorrected(door, eventDay, delta, by, reason, at) = event,
                  eventDay == day.businessDay else { return nil }
            return CorrectionLine(at: at, door: door, delta: delta, by: by, reason: reason)
        }
        let replayed = DayState.replaying(events, businessDay: day.businessDay)
        let doors = day.ledgers.values.sorted { $0.door < $1.door }.map {
            DoorLedger(door: $0.door, carried: $0.carried, entries: $0.entries, exits: $0.exits, corrections: $0.corrections,
                       inside: $0.inside)
        }
        return LedgerReport(businessDay: day.businessDay.date, inside: day.inside, doors: doors,
                            corrections: corrections, matchesEventLog: replayed.ledgers == day.ledgers)
    }

    private func printerReport() -> PrinterReport {
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
        let profilesNote = config.usbProfilesPath.map { "\(usbProfiles?.profiles.count ?? 0) known devices from \($0)" }
            ?? "no USB profiles configured (hardware.usb_profiles)"
        let devices = controller.deviceHealth.map(DeviceStatus.init)
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
