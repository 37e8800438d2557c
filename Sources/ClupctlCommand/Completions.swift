import CLupCore
import CLupProtocol
import Foundation

/// What Tab offers for an argument, asked of clupd (quietly: completion is not audited,
/// and it gives up after a second). The shell and the bash and zsh scripts use the same.
enum Completions {
    private static var client: ControlClient {
        ControlClient(socketPath: ProcessInfo.processInfo.environment["CLUP_SOCKET"] ?? ControlClient.defaultSocketPath,
                      session: SessionFile.token(), timeoutSeconds: 1)
    }

    /// Today's ticket numbers in one of `states`.
    static func tickets(_ states: Set<String>) -> [String] {
        let report = try? client.send(Control.Tickets(), quiet: true)
        return (report?.tickets ?? []).filter { states.contains($0.state) }.map(\.number)
    }

    static func technicians() -> [String] {
        ((try? client.send(Control.Technicians(), quiet: true))?.technicians ?? []).map(\.name)
    }

    static func employees() -> [String] {
        ((try? client.send(Control.Employees(), quiet: true))?.employees ?? []).map(\.staffNumber)
    }

    /// The buttons of the screen shown, for `sim press`.
    static func buttons() -> [String] {
        ((try? client.send(Control.Screen(), quiet: true))?.buttons ?? []).map(\.name)
    }

    static func selfTestSteps() -> [String] { SelfTestStep.allCases.map(\.rawValue) }

    static func errorCodes() -> [String] { ErrorCode.allCases.map(\.rawValue) }
}
