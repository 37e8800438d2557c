import CLupCore
import CLupProtocol
import CLupStore
import Foundation

/// The technicians, the queue care they do (skip, void), and where clupd's log is.
extension Daemon {
    func techniciansReport() throws -> TechniciansReport {
        TechniciansReport(technicians: try kiosk.desk.store.technicians().map {
            .init(name: $0.name, changedAt: $0.changedAt, lockedUntil: technicians.lockedUntil($0.name),
                  loggedIn: technicians.isLoggedIn($0.name))
        })
    }

    func putTechnician(_ name: String, secret: PinHash, replacing: Bool, by who: String, uid: UInt32) throws -> TechniciansReport {
        if let problem = TechnicianSecret.problem(name: name) ?? secret.problem { throw CodedError(.badTechnician, problem) }
        let exists = try kiosk.desk.store.technician(name) != nil
        if replacing, !exists { throw CodedError(.unknownTechnician, "no technician is named \(name)") }
        if !replacing, exists { throw CodedError(.technicianExists, "\(name) is already a technician here") }
        let record = TechnicianRecord(name: name, kdf: secret.kdf, salt: secret.salt, secretHash: secret.hash, changedAt: clock.now())
        try kiosk.desk.audit([AuditEntry(role: .technician, who: who, action: replacing ? .secretChanged : .technicianAdded,
                                         result: "technician \(name)", uid: uid)], changing: .putTechnician(record))
        if replacing { technicians.endSessions(of: name, why: "a new secret was set") }
        logger.notice(replacing ? "technician secret changed" : "technician added", metadata: ["name": "\(name)", "by": "\(who)"])
        return try techniciansReport()
    }

    func removeTechnician(_ name: String, by who: String, uid: UInt32) throws -> TechniciansReport {
        guard TechnicianSecret.problem(name: name) == nil, try kiosk.desk.store.technician(name) != nil else {
            throw CodedError(.unknownTechnician, "no technician is named \(TypedText.inMessage(name))")
        }
        try kiosk.desk.audit([AuditEntry(role: .technician, who: who, action: .technicianRemoved, result: "technician \(name)", uid: uid)],
                             changing: .removeTechnician(name: name))
        technicians.endSessions(of: name, why: "removed")
        logger.notice("technician removed", metadata: ["name": "\(name)", "by": "\(who)"])
        return try techniciansReport()
    }

    /// A called ticket whose customer did not come: its place goes to the next one now.
    func skip(_ text: String, by who: String) throws -> TicketCareReply {
        let number = try ticketNumber(text)
        try kiosk.desk.perform { day, now in try day.skip(number: number, by: who, at: now) }
        logger.notice("ticket skipped", metadata: ["number": "\(number)", "by": "\(who)"])
        let next = kiosk.desk.day.tickets.values.filter { $0.state == .called }.map(\.number.description).sorted()
        return TicketCareReply(number: number.description, state: kiosk.desk.day.tickets[number]?.state.rawValue ?? "no-show",
                               outcome: "\(number) skipped; its place is free"
                                   + (next.isEmpty ? "" : " (called now: \(next.joined(separator: ", ")))"))
    }

    /// A ticket made invalid: out of the queue, its code refused at the door.
    func void(_ text: String, reason: String, by who: String) throws -> TicketCareReply {
        let number = try ticketNumber(text)
        try kiosk.desk.perform { day, now in try day.void(number: number, by: who, reason: reason, at: now) }
        logger.notice("ticket voided", metadata: ["number": "\(number)", "by": "\(who)", "reason": "\(reason.prefix(80))"])
        return TicketCareReply(number: number.description, state: kiosk.desk.day.tickets[number]?.state.rawValue ?? "voided",
                               outcome: "\(number) voided: its code no longer opens the door")
    }

    /// The ticket number typed, or why it is not one (quoting it escaped: the message goes to
    /// the audit trail and the log).
    func ticketNumber(_ text: String) throws -> TicketNumber {
        guard let number = TicketNumber(text) else {
            throw CodedError(.notATicketNumber, "\(TypedText.inMessage(text)) is not a ticket number (like A-017)")
        }
        return number
    }

    /// Where clupd's log goes: the journal when systemd connected standard error to it
    /// (`JOURNAL_STREAM` names the very stream, see systemd.exec), else the file it is.
    func logSource() -> LogSourceReply {
        if Journal.isStandardError() { return LogSourceReply(journalUnit: "clupd.service", file: nil, size: nil) }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return LogSourceReply(journalUnit: nil, file: nil, size: nil) }
        guard info.st_mode & S_IFMT == S_IFREG,
              let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/2"), path.hasPrefix("/")
        else {
            return LogSourceReply(journalUnit: nil, file: nil, size: nil)
        }
        return LogSourceReply(journalUnit: nil, file: path, size: Int(info.st_size))
    }

    /// Up to `maxBytes` of clupd's log file from `offset` (for a clupctl that cannot read it).
    func logRead(offset: Int, maxBytes: Int) throws -> LogChunk {
        guard offset >= 0, (1...LogChunk.maximumBytes).contains(maxBytes) else {
            throw CodedError(.requestNotUnderstood, "a log read starts at 0 or after and takes 1 to \(LogChunk.maximumBytes) bytes")
        }
        guard let path = logSource().file, let file = FileHandle(forReadingAtPath: path) else {
            throw CodedError(.requestNotUnderstood, "clupd's log is not a file (see `clupctl logs`, which reads the journal)")
        }
        defer { try? file.close() }
        let size = Int((try? file.seekToEnd()) ?? 0)
        let start = offset > size ? 0 : offset
        try file.seek(toOffset: UInt64(start))
        let data = try file.read(upToCount: maxBytes) ?? Data()
        return LogChunk(offset: start, text: String(decoding: data, as: UTF8.self), size: size)
    }
}
