import CLupCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a caller of the control socket, or an administrator's command at the hub, says of
/// itself: its program, its terminal, the user who logged in to the machine (the kernel's
/// login uid, which `su`, `sudo` and `runuser` keep) and who ran it through sudo.
///
/// The audit needs "from where", and the kernel vouches for little of it: clupd sees its
/// peer's pid and uid (SO_PEERCRED), but its unit hides other users' /proc entries
/// (`ProtectProc=invisible`) and maps every uid but root's and its own to nobody
/// (`PrivateUsers=yes`). So clupctl sends this with each request and clupd keeps it as the
/// caller's own say, after what the kernel vouches for. A caller can lie here; it cannot lie
/// about its pid and uid.
public struct CallerClaim: Codable, Sendable, Equatable, CustomStringConvertible {
    public var program: String?
    /// "pts/1", "tty2"; nil without a terminal (a timer, a script under systemd).
    public var terminal: String?
    public var loginUID: UInt32?
    public var loginName: String?
    /// `SUDO_USER`: who ran it through sudo.
    public var sudoUser: String?

    /// The longest text kept of each field.
    public static let maximumField = 32

    public init(program: String? = nil, terminal: String? = nil, loginUID: UInt32? = nil, loginName: String? = nil, sudoUser: String? = nil) {
        self.program = program
        self.terminal = terminal
        self.loginUID = loginUID
        self.loginName = loginName
        self.sudoUser = sudoUser
    }

    /// This process's own: its program's name, the terminal of its standard input (or
    /// output, or error), its login uid and that user's name, and `SUDO_USER`.
    public static let current: CallerClaim = {
        let terminal = [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO].lazy.compactMap { ttyname($0) }.first
            .map { String(cString: $0) }.map { $0.hasPrefix("/dev/") ? String($0.dropFirst(5)) : $0 }
        // 4294967295: no login (a service started at boot).
        let loginUID = (try? String(contentsOfFile: "/proc/self/loginuid", encoding: .utf8))
            .flatMap { UInt32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.flatMap { $0 == UInt32.max ? nil : $0 }
        let loginName = loginUID.flatMap { getpwuid($0) }.flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
        return CallerClaim(program: programName(CommandLine.arguments.first) ?? ProcessInfo.processInfo.processName,
                           terminal: terminal, loginUID: loginUID,
                           loginName: loginName, sudoUser: ProcessInfo.processInfo.environment["SUDO_USER"]).bounded()
    }()

    /// The name a program was started as (`argv[0]`'s last component, a login shell's `-`
    /// dropped): clupctl is a link to clupd, and the executable's own name would say clupd.
    public static func programName(_ argument0: String?) -> String? {
        guard let last = argument0?.split(separator: "/").last else { return nil }
        let name = last.hasPrefix("-") ? last.dropFirst() : last
        return name.isEmpty ? nil : String(name)
    }

    /// Every field bounded ("…" after a cut): what came over the socket is hostile. Not
    /// escaped here: it is escaped once, where it is kept (`AuditEntry`, `AuditActor`).
    public func bounded() -> CallerClaim {
        let keep = { (text: String?) in
            text.map { $0.unicodeScalars.count > Self.maximumField ? TypedText.prefix($0, Self.maximumField) + "…" : $0 }
        }
        return CallerClaim(program: keep(program), terminal: keep(terminal), loginUID: loginUID, loginName: keep(loginName),
                           sudoUser: keep(sudoUser))
    }

    /// "clupctl on pts/1, login tess (uid 1000), through sudo by tess"; empty when it says nothing.
    public var description: String {
        var parts: [String] = []
        if let program { parts.append(program + (terminal.map { " on \($0)" } ?? "")) } else if let terminal { parts.append("on \(terminal)") }
        if let loginUID { parts.append("login \(loginName ?? "?") (uid \(loginUID))") }
        if let sudoUser { parts.append("through sudo by \(sudoUser)") }
        return parts.joined(separator: ", ")
    }
}
