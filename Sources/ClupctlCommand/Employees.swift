import ArgumentParser
import CLupCore
import CLupProtocol
import Foundation

/// `clupctl employee …`: who may log in at the totem's PIN pad to issue priority tickets.
/// The PIN is hashed here (scrypt, salted) and only the hash is sent to clupd.
struct EmployeeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "employee",
        abstract: "The employees who may log in at the totem's PIN pad.",
        subcommands: [List.self, Add.self, Pin.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Staff numbers, and whether the PIN pad is locked.")
        @OptionGroup var connection: Connection
        @Flag(help: "As JSON.") var json = false
        func run() throws {
            let report = try connection.client.send(Control.Employees())
            if json { return try printJSON(report) }
            show(report)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an employee; their PIN is asked twice (or read from one line of stdin when it is not a terminal).")
        @OptionGroup var connection: Connection
        @Argument(help: "The staff number, 1 to 8 digits: typed on the pad, or on the employee's badge.") var staffNumber: String
        func run() throws { try put(staffNumber, replacing: false, connection) }
    }

    struct Pin: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an employee a new PIN.")
        @OptionGroup var connection: Connection
        @Argument(help: "The staff number.", completion: .custom { _, _, _ in Completions.employees() }) var staffNumber: String
        func run() throws { try put(staffNumber, replacing: true, connection) }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an employee: their PIN no longer opens a session.")
        @OptionGroup var connection: Connection
        @Argument(help: "The staff number.", completion: .custom { _, _, _ in Completions.employees() }) var staffNumber: String
        func run() throws {
            show(try connection.client.send(Control.RemoveEmployee(staffNumber: staffNumber)))
        }
    }
}

private func put(_ staffNumber: String, replacing: Bool, _ connection: Connection) throws {
    if let problem = PinHash.problem(staffNumber: staffNumber) { throw CodedError(.badEmployee, problem) }
    let pin = try PinHash.readPin()
    if let problem = PinHash.problem(pin: pin) { throw CodedError(.badEmployee, problem) }
    let hash = try PinHash.make(pin: pin)
    show(try connection.client.send(Control.PutEmployee(staffNumber: staffNumber, pin: hash, replacing: replacing)))
}

private func show(_ report: EmployeesReport) {
    if report.employees.isEmpty {
        print("no employees: add one with `clupctl employee add STAFF-NUMBER`")
    }
    for employee in report.employees {
        print("\(column(shown(employee.staffNumber), 10)) PIN set \(employee.changedAt.formatted(.iso8601))"
            + (employee.managedBy == "hub" ? "  (the store's, managed at the hub)" : ""))
    }
    if let until = report.padLockedUntil {
        print("the PIN pad is LOCKED until \(clockTime(until)) after \(5) wrong PINs")
    } else if report.failures > 0 {
        print("\(report.failures) wrong PIN\(report.failures == 1 ? "" : "s") since the last right one")
    }
}
