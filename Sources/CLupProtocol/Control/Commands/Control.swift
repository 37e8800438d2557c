/// The commands of the control socket, one type each, grouped in files by what they are
/// about: the totem's state (`StateCommands`), the queue and the door (`QueueCommands`),
/// staff and technicians (`StaffCommands`), maintenance (`MaintenanceCommands`) and the
/// simulated devices (`SimulationCommands`). `clupctl` sends them, clupd's `ControlRouter`
/// answers them.
public enum Control {}

extension Control {
    /// Every command, for the tests that check each is routed and decided.
    public static let all: [any ControlCommand.Type] = [
        Status.self, Configuration.self, Metrics.self, Sync.self, SyncNow.self, UpdateWindow.self,
        Tickets.self, Queue.self, CallNext.self, Skip.self, VoidTicket.self, IssuePriority.self, Reprint.self,
        Ledger.self, CorrectLedger.self, SetOccupancy.self,
        Hello.self, Login.self, Logout.self, Technicians.self, PutTechnician.self, RemoveTechnician.self,
        Employees.self, PutEmployee.self, RemoveEmployee.self, Audit.self,
        Printer.self, Paper.self, PaperNewRoll.self, Devices.self, Screenshot.self, Screen.self, SelfTest.self, CalibrationTarget.self, CalibrationEnd.self,
        LogSource.self, LogRead.self, Diagnostics.self,
        SimApproach.self, SimLeave.self, SimTap.self, SimPress.self, SimHold.self, SimPass.self, SimScan.self, SimHeadset.self,
    ]
}
