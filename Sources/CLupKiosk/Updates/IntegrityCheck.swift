import CLupCore
import CLupProtocol
import Foundation

/// The daily check of the installed package's files (IEC 62443-4-2 SI 1.1): `dpkg --verify
/// clup-totem` compares every file the package installed with the MD5 sum dpkg kept when it
/// installed it. The update helper (root, every minute) runs it once a day, when no update
/// is under way, and leaves its report in clupd's state folder; clupd warns (log, status,
/// metric) and sends it to the hub with its next upload, where a file changed outside an
/// update raises an alert.
///
/// What it cannot see: someone who is root on the totem can change dpkg's sums too, or this
/// check. It catches a binary replaced or damaged by hand, a disk that corrupts, a package
/// half-installed; and the hub sees a totem whose check stopped coming.
public struct IntegrityCheck {
    /// Runs `dpkg --verify` (as `DebianUpdateSystem` does), so the check is tested without a
    /// package installed in the system.
    public typealias Verify = () throws -> (status: Int32, output: String)

    public let stateDirectory: String
    /// The helper's own folder, where the time of the last check is kept.
    public let workDirectory: String
    public let verify: Verify
    /// The installed version (dpkg-query), nil when the package is not installed.
    public let installedVersion: () throws -> String?
    /// How many files the package installed (dpkg -L), for the report.
    public let fileCount: () -> Int
    /// The package's links changed or missing (`changedLinks`): dpkg keeps no sum for a link,
    /// and `dpkg --verify` passes over them.
    public let links: () -> [String]
    /// dpkg's state of the package when it is neither installed nor absent ("unpacked",
    /// "half-configured", "half-installed"…); nil otherwise.
    public let unfinished: () -> String?
    /// Whether a dpkg runs now (its lock held): the package's own configure starts the
    /// helper's timer, and files dpkg is putting in place are not a finding.
    public let dpkgRunning: () -> Bool

    public init(stateDirectory: String, workDirectory: String, verify: @escaping Verify,
                installedVersion: @escaping () throws -> String?, fileCount: @escaping () -> Int,
                links: @escaping () -> [String] = { [] }, unfinished: @escaping () -> String? = { nil },
                dpkgRunning: @escaping () -> Bool = { false }) {
        self.stateDirectory = stateDirectory
        self.workDirectory = workDirectory
        self.verify = verify
        self.installedVersion = installedVersion
        self.fileCount = fileCount
        self.links = links
        self.unfinished = unfinished
        self.dpkgRunning = dpkgRunning
    }

    /// The links the package installs and what each points to (debian/clup-totem.links).
    public static let packagedLinks = ["/usr/bin/clupctl": "clupd"]

    /// Each of `packagedLinks` under `root` that is missing, or is not that link ("changed":
    /// another link, or a file put in its place).
    public static func changedLinks(under root: String) -> [String] {
        packagedLinks.keys.sorted().compactMap { path in
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: root + path) {
                return target == packagedLinks[path] ? nil : "\(path) changed"
            }
            return FileManager.default.fileExists(atPath: root + path) ? "\(path) changed" : "\(path) missing"
        }
    }

    /// Once a day.
    public static let interval: Double = 86_400

    public static func reportPath(in stateDirectory: String) -> String { stateDirectory + "/integrity-report.json" }
    var lastRunPath: String { workDirectory + "/integrity-checked" }

    /// Runs the check if the last one is a day old (or there was none); the report, or nil
    /// when it was not due.
    public func runIfDue(now: Date) -> IntegrityReport? {
        if let data = FileManager.default.contents(atPath: lastRunPath), data.count < 64,
           let last = Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
           // A clock set back does not stop the checks: a "last" in the future is due too.
           now.timeIntervalSince1970 - last < Self.interval, last <= now.timeIntervalSince1970 {
            return nil
        }
        return run(now: now)
    }

    /// Runs the check now and leaves its report (readable by clupd's user), except while dpkg
    /// is at work on the package: then the report says so, nothing is left for clupd (nor the
    /// hub) and the check stays due. A package dpkg left unfinished (a power cut, a failed
    /// configure) with no dpkg running is a finding, reported.
    @discardableResult
    public func run(now: Date) -> IntegrityReport {
        if let state = unfinished(), dpkgRunning() {
            return IntegrityReport(at: now.timeIntervalSince1970, version: "", files: 0, changed: [],
                                   problem: "dpkg is still at work on clup-totem (\(state)): checked once it is done")
        }
        let report = check(now: now)
        if let data = try? JSONEncoder().encode(report) {
            try? DurableFile.write(data, to: Self.reportPath(in: stateDirectory), mode: 0o644)
        }
        try? DurableFile.write(Data(String(now.timeIntervalSince1970).utf8), to: lastRunPath, mode: 0o600)
        return report
    }

    func check(now: Date) -> IntegrityReport {
        let at = now.timeIntervalSince1970
        let version: String
        do {
            guard let installed = try installedVersion() else {
                let problem = unfinished().map { "dpkg left clup-totem \($0), not configured (dpkg -i of its package mends it)" }
                return IntegrityReport(at: at, version: "", files: 0, changed: [],
                                       problem: problem ?? "clup-totem is not installed from a package")
            }
            version = installed
        } catch {
            return IntegrityReport(at: at, version: "", files: 0, changed: [], problem: CodedError(describing: error).message)
        }
        do {
            let (status, output) = try verify()
            var changed = Self.changedFiles(in: output)
            // A link dpkg also says is missing is named once.
            changed += links().filter { !changed.contains($0) }
            // dpkg says 0 whether files differ or not; anything else is a check that did not run.
            guard status == 0 else {
                let said = output.split(separator: "\n").suffix(2).joined(separator: " | ")
                return IntegrityReport(at: at, version: version, files: 0, changed: [],
                                       problem: "dpkg --verify exited with \(status): \(TypedText.escaped(String(said.prefix(200))))")
            }
            return IntegrityReport(at: at, version: version, files: fileCount(), changed: changed)
        } catch {
            return IntegrityReport(at: at, version: version, files: 0, changed: [], problem: CodedError(describing: error).message)
        }
    }

    /// The files `dpkg --verify` reports changed or missing, configuration files left out:
    /// its lines are nine check characters (the third, `5`, a changed digest) or `missing`,
    /// then `c` for a configuration file, then the path ("??5??????   /usr/bin/clupd").
    /// Anything else it prints (a warning) is not a file.
    public static func changedFiles(in output: String) -> [String] {
        output.split(separator: "\n").compactMap { line -> String? in
            let line = Substring(line)
            guard line.count > 12 else { return nil }
            let flags = line.prefix(9), attribute = line.dropFirst(10).prefix(1), path = line.dropFirst(12)
            guard line.dropFirst(9).first == " ", line.dropFirst(11).first == " ", path.hasPrefix("/") else { return nil }
            guard attribute != "c" else { return nil }
            let shown = TypedText.escaped(String(path.prefix(200)))
            if flags == "missing  " { return "\(shown) missing" }
            guard flags.count == 9, flags.allSatisfy({ "?.SM5DLUGT".contains($0) }) else { return nil }
            return flags.dropFirst(2).first == "5" ? "\(shown) changed" : nil
        }
    }

    /// The last report, as clupd reads it; nil when there is none or it cannot be read.
    public static func lastReport(in stateDirectory: String) -> IntegrityReport? {
        guard let data = FileManager.default.contents(atPath: reportPath(in: stateDirectory)), data.count <= 16 * 1024 else { return nil }
        return try? JSONDecoder().decode(IntegrityReport.self, from: data)
    }
}

extension IntegrityCheck {
    /// The check of the package dpkg installed under `root` ("/" on a totem; another folder
    /// holds a dpkg database of its own, as the tests make one). dpkg's database is read
    /// through dpkg and dpkg-query only, never as files.
    public static func dpkg(root: String = "/", stateDirectory: String, workDirectory: String) -> IntegrityCheck {
        let rooted = DebianUpdateSystem.rooted(root)
        let under = root == "/" ? "" : root
        return IntegrityCheck(
            stateDirectory: stateDirectory, workDirectory: workDirectory,
            verify: { try Command.run("dpkg", rooted + ["--verify", TotemUpdater.package], environment: DebianUpdateSystem.environment) },
            installedVersion: { try DebianUpdateSystem.installedVersion(root: root) },
            fileCount: {
                // The files (not the folders) the package lists.
                guard let (status, list) = try? Command.run("dpkg-query", rooted + ["--listfiles", TotemUpdater.package],
                                                            environment: DebianUpdateSystem.environment), status == 0
                else { return 0 }
                return list.split(separator: "\n").filter { path in
                    var isFolder: ObjCBool = false
                    return path.hasPrefix("/")
                        && (!FileManager.default.fileExists(atPath: under + path, isDirectory: &isFolder) || !isFolder.boolValue)
                }.count
            },
            links: { changedLinks(under: under) },
            unfinished: { DebianUpdateSystem.unfinishedState(root: root) },
            dpkgRunning: { DebianUpdateSystem.dpkgRunning(root: root) })
    }
}
