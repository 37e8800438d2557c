import Logging
import CLupCore
import CLupProtocol
import CLupStore
import Foundation

/// The staff's commands on the control socket: the technicians' sessions (`TechnicianDesk`)
/// and the technicians kept, the employees of the PIN pad, and the audit trail. Each change
/// is audited in the transaction that makes it.
struct StaffController {
    let kiosk: Kiosk
    let technicians: TechnicianDesk

    private var desk: QueueDesk { kiosk.desk }
    private var store: TotemStore { kiosk.desk.store }
    private var clock: any Clock { kiosk.clock }
    private var logger: Logger { kiosk.logger }

    func addRoutes(to router: ControlRouter) {
        router.later(Control.Login.self) { command, context in
            .later(try technicians.login(name: command.name, secret: command.secret, peer: context.peer))
        }
        router.on(Control.Logout.self) { _, context in
            let name = technicians.logout(context.header, peer: context.peer)
            return MessageReply(name.map { "\($0) logged out" } ?? "no session to end")
        }
        router.on(Control.Technicians.self) { _, _ in try techniciansReport() }
        router.on(Control.PutTechnician.self) { command, context in
            try putTechnician(command.name, secret: command.secret, replacing: command.replacing, by: context.who,
                              uid: context.peer.uid, from: context.peer.origin)
        }
        router.on(Control.RemoveTechnician.self) { command, context in
            try removeTechnician(command.name, by: context.who, uid: context.peer.uid, from: context.peer.origin)
        }
        router.on(Control.Employees.self) { _, _ in try employeesReport() }
        router.on(Control.PutEmployee.self) { command, context in
            try putEmployee(command, by: context.who, uid: context.peer.uid, from: context.peer.origin)
        }
        router.on(Control.RemoveEmployee.self) { command, context in
            let staffNumber = command.staffNumber
            guard PinHash.problem(staffNumber: staffNumber) == nil, let existing = try store.employee(staffNumber) else {
                throw CodedError(.unknownEmployee, "no employee has staff number \(TypedText.inMessage(staffNumber))")
            }
            if existing.source == .hub { throw Self.managedAtTheHub(staffNumber) }
            try desk.audit([AuditEntry(role: .technician, who: context.who, action: .employeeRemoved,
                                             result: "staff number \(staffNumber)", uid: context.peer.uid, from: context.peer.origin)],
                                 changing: .remove(staffNumber: staffNumber))
            logger.notice("employee removed", metadata: ["staff": "\(staffNumber)", "by": "\(context.who)"])
            return try employeesReport()
        }
        router.on(Control.Audit.self) { command, _ in
            // The newest entries, a bounded number, oldest first.
            let trail = try Kiosk.auditTrail(in: store, last: AuditReport.limit + 1)
            let entries = trail.filter { item in command.since.map { item.at >= $0 } ?? true }.map {
                AuditReport.Entry(at: $0.at, role: $0.entry.role.rawValue, who: $0.entry.who, action: $0.entry.action.rawValue,
                                  result: $0.entry.result, uid: $0.entry.uid, what: $0.entry.what, from: $0.entry.from)
            }
            return AuditReport(entries: Array(entries.suffix(AuditReport.limit)), truncated: trail.count > AuditReport.limit)
        }
    }

    /// Adds an employee, or gives one a new PIN; the hub's employees are changed there.
    private func putEmployee(_ command: Control.PutEmployee, by who: String, uid: UInt32, from origin: String) throws -> EmployeesReport {
        let (staffNumber, pin, replacing) = (command.staffNumber, command.pin, command.replacing)
        if let problem = PinHash.problem(staffNumber: staffNumber) ?? pin.problem {
            throw CodedError(.badEmployee, problem)
        }
        let existing = try store.employee(staffNumber)
        let exists = existing != nil
        if existing?.source == .hub { throw Self.managedAtTheHub(staffNumber) }
        if replacing, !exists { throw CodedError(.unknownEmployee, "no employee has staff number \(staffNumber)") }
        if !replacing, exists { throw CodedError(.employeeExists, "staff number \(staffNumber) is already an employee here") }
        let record = EmployeeRecord(staffNumber: staffNumber, kdf: pin.kdf, salt: pin.salt, pinHash: pin.hash, changedAt: clock.now())
        try desk.audit([AuditEntry(role: .technician, who: who, action: replacing ? .pinChanged : .employeeAdded,
                                         result: "staff number \(staffNumber)", uid: uid, from: origin)], changing: .put(record))
        logger.notice(replacing ? "employee PIN changed" : "employee added", metadata: ["staff": "\(staffNumber)", "by": "\(who)"])
        return try employeesReport()
    }

    func techniciansReport() throws -> TechniciansReport {
        TechniciansReport(technicians: try store.technicians().map {
            .init(name: $0.name, changedAt: $0.changedAt, lockedUntil: technicians.lockedUntil($0.name),
                  loggedIn: technicians.isLoggedIn($0.name))
        })
    }

    func putTechnician(_ name: String, secret: PinHash, replacing: Bool, by who: String, uid: UInt32, from origin: String) throws -> TechniciansReport {
        if let problem = TechnicianSecret.problem(name: name) ?? secret.problem { throw CodedError(.badTechnician, problem) }
        let exists = try store.technician(name) != nil
        if replacing, !exists { throw CodedError(.unknownTechnician, "no technician is named \(name)") }
        if !replacing, exists { throw CodedError(.technicianExists, "\(name) is already a technician here") }
        let record = TechnicianRecord(name: name, kdf: secret.kdf, salt: secret.salt, secretHash: secret.hash, changedAt: clock.now())
        try desk.audit([AuditEntry(role: .technician, who: who, action: replacing ? .secretChanged : .technicianAdded,
                                         result: "technician \(name)", uid: uid, from: origin)], changing: .putTechnician(record))
        if replacing { technicians.endSessions(of: name, why: "a new secret was set") }
        logger.notice(replacing ? "technician secret changed" : "technician added", metadata: ["name": "\(name)", "by": "\(who)"])
        return try techniciansReport()
    }

    func removeTechnician(_ name: String, by who: String, uid: UInt32, from origin: String) throws -> TechniciansReport {
        guard TechnicianSecret.problem(name: name) == nil, try store.technician(name) != nil else {
            throw CodedError(.unknownTechnician, "no technician is named \(TypedText.inMessage(name))")
        }
        try desk.audit([AuditEntry(role: .technician, who: who, action: .technicianRemoved, result: "technician \(name)", uid: uid,
                                   from: origin)],
                             changing: .removeTechnician(name: name))
        technicians.endSessions(of: name, why: "removed")
        logger.notice("technician removed", metadata: ["name": "\(name)", "by": "\(who)"])
        return try techniciansReport()
    }

    static func managedAtTheHub(_ staffNumber: String) -> CodedError {
        CodedError(.employeeExists, "staff number \(staffNumber) is one of the store's employees managed at the hub: "
            + "change them there (clup-hub employee)")
    }

    func employeesReport() throws -> EmployeesReport {
        let now = clock.now()
        return EmployeesReport(employees: try store.employees().map {
                                   .init(staffNumber: $0.staffNumber, changedAt: $0.changedAt, managedBy: $0.source == .hub ? "hub" : "totem")
                               },
                               padLockedUntil: kiosk.padLock.isLocked(at: now) ? kiosk.padLock.lockedUntil : nil,
                               failures: kiosk.padLock.failures)
    }
}
