import CLupCore
import CLupProtocol
import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The update helper's machine: Debian's apt and dpkg, systemd's clupd unit, and clupd's
/// control socket.
public struct DebianUpdateSystem: TotemUpdater.System {
    public let socketPath: String
    /// apt's configuration directory, where `AptSource` put the chain's source.
    public let aptDirectory: String
    /// Where the helper keeps a sources folder with the chain's source alone, so that
    /// fetching a release refreshes that source only (the others may be out of reach).
    public let workDirectory: String

    /// The system's root ("/"; a folder in tests): where the package installed clupd's own
    /// files, and dpkg's list of their MD5 sums.
    let root: String

    public init(socketPath: String, aptDirectory: String, workDirectory: String, root: String = "/") {
        self.socketPath = socketPath
        self.aptDirectory = aptDirectory
        self.workDirectory = workDirectory
        self.root = root.hasSuffix("/") ? root : root + "/"
    }

    /// clupd's own files, as the package names them: its executable (clupctl is a link to
    /// it) and what it reads at start from /usr/share/clup (its version, the printers' and
    /// USB devices' descriptions). Together they are the version that runs.
    static let executable = "usr/bin/clupd"
    static let dataFolder = "usr/share/clup"

    static let environment = ["DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C.UTF-8"]

    /// dpkg's and dpkg-query's option for a system installed under `root` ("/": none).
    static func rooted(_ root: String) -> [String] { root == "/" ? [] : ["--root=\(root)"] }

    public func installedVersion() throws -> String? { try Self.installedVersion(root: "/") }

    /// The clup-totem version dpkg installed under `root` (its database there); nil if none.
    static func installedVersion(root: String) throws -> String? {
        let (status, output) = try Command.run("dpkg-query", rooted(root) + ["--show", "--showformat=${db:Status-Status} ${Version}",
                                                                            TotemUpdater.package])
        let fields = output.split(separator: " ")
        guard status == 0, fields.count == 2, fields[0] == "installed" else { return nil }
        return String(fields[1])
    }

    /// dpkg's state of clup-totem under `root` when neither installed nor absent (`unpacked`,
    /// `half-configured`, `half-installed`, `triggers-pending`…), whether or not a dpkg is at
    /// work on it now (`dpkgRunning`); nil when installed, not installed, or unknown.
    static func unfinishedState(root: String) -> String? {
        guard let (status, output) = try? Command.run("dpkg-query", rooted(root) + ["--show", "--showformat=${db:Status-Status}",
                                                                                   TotemUpdater.package], environment: environment),
              status == 0 else { return nil }
        let state = output.trimmingCharacters(in: .whitespacesAndNewlines)
        return ["", "installed", "not-installed", "config-files"].contains(state) ? nil : TypedText.escaped(String(state.prefix(40)))
    }

    /// Whether a dpkg holds its lock under `root` (dpkg takes `var/lib/dpkg/lock` with a
    /// POSIX record lock for as long as it runs). Asked with an open-file-description lock,
    /// which sees this process's own locks too.
    static func dpkgRunning(root: String) -> Bool {
        let path = (root.hasSuffix("/") ? root : root + "/") + "var/lib/dpkg/lock"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        lock.l_pid = 0
        // F_OFD_GETLK (36): the open-file-description form of F_GETLK.
        guard fcntl(descriptor, 36, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    public func window() throws -> UpdateWindowReport {
        try ControlClient(socketPath: socketPath, timeoutSeconds: 10).send(Control.UpdateWindow())
    }

    public func fetch(_ version: String, into cache: String) throws -> String {
        let path = TotemUpdater.cachedPackage(version, in: cache)
        if FileManager.default.fileExists(atPath: path) { return path }
        // The chain's source alone, refreshed: apt checks its index against the release key.
        let sources = workDirectory + "/sources.d"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        let source = AptSource.sourcePath(in: aptDirectory)
        try? FileManager.default.removeItem(atPath: sources + "/clup.sources")
        try FileManager.default.createSymbolicLink(atPath: sources + "/clup.sources", withDestinationPath: source)
        // The helper's own, empty, preferences: the pin that keeps apt from installing anything
        // from the hub by itself does not stop this one download.
        let preferences = workDirectory + "/preferences.d"
        try FileManager.default.createDirectory(atPath: preferences, withIntermediateDirectories: true)
        let options = ["-o", "Dir::Etc::SourceList=/dev/null", "-o", "Dir::Etc::SourceParts=\(sources)",
                       "-o", "Dir::Etc::Preferences=/dev/null", "-o", "Dir::Etc::PreferencesParts=\(preferences)"]
        try Command.check("apt-get", ["-q", "update", "-o", "APT::Get::List-Cleanup=0"] + options, environment: Self.environment)
        // The package alone (no dependency: those come from Debian's own sources at the
        // install), checked by apt against the signed index, into a folder of its own.
        let download = workDirectory + "/download"
        try? FileManager.default.removeItem(atPath: download)
        try FileManager.default.createDirectory(atPath: download, withIntermediateDirectories: true)
        try Command.check("apt-get", ["-q", "download", "\(TotemUpdater.package)=\(version)"] + options,
                          environment: Self.environment, directory: download)
        guard let name = try FileManager.default.contentsOfDirectory(atPath: download)
            .first(where: { $0.hasPrefix("\(TotemUpdater.package)_") && $0.hasSuffix(".deb") })
        else { throw CodedError(.updateStepFailed, "apt fetched no \(TotemUpdater.package) \(version) into \(download)") }
        guard rename(download + "/" + name, path) == 0 else { throw CodedError(.updateStepFailed, "cannot keep \(path)") }
        return path
    }

    public func architecture() throws -> String {
        let (status, printed) = try Command.run("dpkg", ["--print-architecture"])
        let architecture = printed.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, !architecture.isEmpty else { throw CodedError(.updateStepFailed, "dpkg --print-architecture said nothing") }
        return architecture
    }

    /// Over apt's own https (`apt-helper download-file`: the hub's CA as the chain's apt
    /// source names it), from the repository the source names, at most `limit` bytes.
    public func fetchDelta(_ name: String, atMost limit: Int64, into directory: String) throws -> String? {
        for tool in ["/usr/bin/debpatch", "/usr/bin/bspatch"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw CodedError(.updateStepFailed, "\(tool) is not installed (clup-totem recommends debdelta and bsdiff)")
        }
        guard let text = try? String(contentsOfFile: AptSource.sourcePath(in: aptDirectory), encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("URIs: ") })
        else { throw CodedError(.updateStepFailed, "no repository in \(AptSource.sourcePath(in: aptDirectory))") }
        let base = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let path = directory + "/" + name
        // The file size limit stops apt's https method itself (a hostile hub's endless file
        // fills nothing); timeout, a hub that sends nothing.
        let (status, said) = try Command.run("timeout", ["600", "prlimit", "--fsize=\(limit)", "--",
                                                         "/usr/lib/apt/apt-helper", "-q", "download-file",
                                                         base + "/" + DeltaName.urlPath(name), path],
                                             environment: Self.environment)
        guard status == 0, FileManager.default.fileExists(atPath: path) else {
            try? FileManager.default.removeItem(atPath: path)
            // None served (apt-helper says 404): nothing wrong, the package comes whole.
            if said.contains(" 404 ") || said.contains("404  Not Found") { return nil }
            let last = said.split(separator: "\n").suffix(2).joined(separator: " | ")
            throw CodedError(.updateStepFailed, "the delta \(name) did not come (status \(status)): \(last.prefix(300))")
        }
        return path
    }

    /// debpatch runs the script a delta carries. The delta was checked against the signed
    /// manifest first; still, it runs as nobody, with no new privileges, in a folder of its
    /// own (under /var/tmp, private to the helper's unit), for 15 minutes at most; what it
    /// leaves is read through a descriptor that follows no link and is nothing but a file,
    /// copied by root into the cache (written aside, synced, renamed), and nobody's folder is
    /// removed by nobody.
    public func applyDelta(_ delta: String, making path: String) throws {
        var template = Array("/var/tmp/clup-delta-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw CodedError(.updateStepFailed, "cannot make a folder in /var/tmp") }
        let folder = String(cString: made), work = folder + "/work"
        let nobody: uid_t = 65_534
        let asNobody = ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "--no-new-privs", "--"]
        // Root never walks nobody's folder: nobody empties it, root removes only what it put
        // there and the empty folders (anything left goes with the unit's private /var/tmp).
        defer {
            _ = try? Command.run("setpriv", asNobody + ["rm", "-rf", "--", work])
            unlink(folder + "/delta.debdelta")
            rmdir(work)
            rmdir(folder)
        }
        let input = folder + "/delta.debdelta"
        try FileManager.default.copyItem(atPath: delta, toPath: input)
        guard chmod(folder, 0o755) == 0, chmod(input, 0o444) == 0, mkdir(work, 0o700) == 0, chown(work, nobody, nobody) == 0 else {
            throw CodedError(.updateStepFailed, "cannot make a folder for nobody in \(folder)")
        }
        try Command.check("setpriv", asNobody + ["env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "TMPDIR=\(work)", "HOME=\(work)",
                                                 "LC_ALL=C.UTF-8", "timeout", "900", "debpatch", "-A", input, "/", work + "/package.deb"])
        let descriptor = open(work + "/package.deb", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw CodedError(.updateStepFailed, "debpatch left no package") }
        let source = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size <= 1 << 32 else {
            throw CodedError(.updateStepFailed, "what debpatch left is not a package file")
        }
        let part = path + ".part"
        try? FileManager.default.removeItem(atPath: part)
        guard FileManager.default.createFile(atPath: part, contents: nil, attributes: [.posixPermissions: 0o644]),
              let target = FileHandle(forWritingAtPath: part)
        else { throw CodedError(.updateStepFailed, "cannot write \(part)") }
        do {
            // The size seen, no more: nothing left running as nobody makes it grow.
            var left = Int(info.st_size)
            while left > 0, let chunk = try source.read(upToCount: min(left, 1 << 20)), !chunk.isEmpty {
                try target.write(contentsOf: chunk)
                left -= chunk.count
            }
            try target.synchronize()
            try target.close()
        } catch {
            try? FileManager.default.removeItem(atPath: part)
            throw CodedError(.updateStepFailed, "cannot copy the rebuilt package into \(part): \(error)")
        }
        guard rename(part, path) == 0 else {
            try? FileManager.default.removeItem(atPath: part)
            throw CodedError(.updateStepFailed, "cannot keep \(path)")
        }
    }

    /// Kept only when each file is the installed package's (its MD5 the one dpkg lists): the
    /// way back must put back the version before, not whatever the files are now. Hard links
    /// cost nothing (an upgrade's dpkg renames new files over the old); on another file
    /// system, copies.
    public func keepClupd(at kept: String) throws {
        try? FileManager.default.removeItem(atPath: kept)
        let listed = Dictionary(((try? String(contentsOfFile: root + "var/lib/dpkg/info/clup-totem.md5sums", encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { line -> (String, String)? in
                let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                return fields.count == 2 ? (fields[1].trimmingCharacters(in: .whitespaces), String(fields[0])) : nil
            }, uniquingKeysWith: { first, _ in first })
        // The files dpkg lists, not whatever the folder holds now.
        let data = listed.keys.filter { $0.hasPrefix(Self.dataFolder + "/") }.sorted()
        do {
            for file in [Self.executable] + data {
                guard let sum = listed[file] else { throw CodedError(.updateStepFailed, "dpkg lists no MD5 sum of /\(file)") }
                let copy = kept + "/" + file
                try FileManager.default.createDirectory(atPath: (copy as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                if link(root + file, copy) != 0 { try FileManager.default.copyItem(atPath: root + file, toPath: copy) }
                guard Self.md5(copy) == sum else {
                    throw CodedError(.updateStepFailed, "/\(file) is not the installed package's (its MD5 differs from dpkg's)")
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: kept)
            throw error
        }
    }

    /// A regular file (a link not followed).
    static func isRegular(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func md5(_ path: String) -> String? {
        guard let file = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? file.close() }
        var hash = Insecure.MD5()
        while let chunk = try? file.read(upToCount: 1 << 20), !chunk.isEmpty { hash.update(data: chunk) }
        return hash.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Each kept file back over the installed one: beside it first (a link, else a copy),
    /// then renamed over it, so no file is ever missing or half-written; one dpkg never
    /// replaced (the same file still) is left as it is. The executable goes last.
    public func putClupdBack(from kept: String) throws {
        let files = (FileManager.default.enumerator(atPath: kept)?.allObjects as? [String] ?? [])
            .filter { Self.isRegular(kept + "/" + $0) }
        for file in files.filter({ $0 != Self.executable }) + files.filter({ $0 == Self.executable }) {
            let from = kept + "/" + file, target = root + file
            var old = stat(), now = stat()
            if stat(from, &old) == 0, stat(target, &now) == 0, old.st_dev == now.st_dev, old.st_ino == now.st_ino { continue }
            let beside = target + ".clup-way-back"
            try? FileManager.default.removeItem(atPath: beside)
            defer { try? FileManager.default.removeItem(atPath: beside) }
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if link(from, beside) != 0 { try FileManager.default.copyItem(atPath: from, toPath: beside) }
            guard rename(beside, target) == 0 else {
                throw CodedError(.updateStepFailed, "cannot put the kept /\(file) back: \(String(cString: strerror(errno)))")
            }
        }
    }

    public func install(_ path: String) throws {
        // A dpkg cut short (its journal in /var/lib/dpkg/updates) makes apt refuse everything
        // ("dpkg was interrupted"): its journal is replayed first, as apt asks.
        if let journal = try? FileManager.default.contentsOfDirectory(atPath: "/var/lib/dpkg/updates"), !journal.isEmpty {
            _ = try? Command.run("dpkg", ["--force-confold", "--configure", "-a"], environment: Self.environment)
        }
        try Command.check("apt-get", ["-q", "-y", "--allow-downgrades", "-o", "Dpkg::Options::=--force-confold", "install", path],
                          environment: Self.environment)
    }

    public func reinstall(_ path: String) throws {
        try Command.check("dpkg", ["--force-confold", "-i", path], environment: Self.environment)
    }

    public func clupdActive() -> Bool { (try? Command.run("systemctl", ["is-active", "--quiet", "clupd"]).status) == 0 }
    public func clupdUnit() -> TotemUpdater.UnitState {
        let properties = (try? Command.run("systemctl", ["show", "clupd", "clup-keys",
                                                         "--property=Id,ActiveState,NRestarts,ExecMainCode,ExecMainStatus"]))
            .map { $0.status == 0 ? $0.output : "" } ?? ""
        return Self.unitState(properties)
    }

    /// `systemctl show`'s KEY=VALUE lines read, a block per unit (clupd's, or one without an
    /// `Id`; then the units clupd needs, clup-keys: one of those failed stops clupd's start
    /// with no restart to count). An unknown or missing value reads as nothing failed: the
    /// deadline still holds.
    static func unitState(_ text: String) -> TotemUpdater.UnitState {
        var state = TotemUpdater.UnitState(state: "unknown", restarts: 0, lastExit: nil)
        for block in text.components(separatedBy: "\n\n") {
            var values: [Substring: Substring] = [:]
            for line in block.split(separator: "\n") {
                guard let equals = line.firstIndex(of: "=") else { continue }
                values[line[..<equals]] = line[line.index(after: equals)...]
            }
            guard !values.isEmpty else { continue }
            let status = values["ExecMainStatus"].flatMap { Int32($0) }
            // ExecMainCode is the waitid() si_code: 1 exited, 2 killed, 3 dumped core; 0 while none has ended.
            let lastExit: String? = switch (values["ExecMainCode"].flatMap { Int($0) }, status) {
            case (1, let status?): "exit status \(status)"
            case (2, let signal?), (3, let signal?): "signal \(signal)" + (Self.signalName(signal).map { " SIG\($0)" } ?? "")
            default: nil
            }
            let id = values["Id"].map(String.init) ?? "clupd.service"
            if id == "clupd.service" {
                state.state = values["ActiveState"].map(String.init) ?? "unknown"
                state.restarts = values["NRestarts"].flatMap { Int($0) } ?? 0
                state.lastExit = lastExit
            } else if values["ActiveState"] == "failed", state.neededFailed == nil {
                state.neededFailed = id + (lastExit.map { " (last \($0))" } ?? "")
            }
        }
        return state
    }

    static func signalName(_ signal: Int32) -> String? {
        switch signal {
        case SIGSEGV: "SEGV"
        case SIGABRT: "ABRT"
        case SIGKILL: "KILL"
        case SIGTERM: "TERM"
        case SIGILL: "ILL"
        case SIGBUS: "BUS"
        case SIGTRAP: "TRAP"
        default: nil
        }
    }
    public func stopClupd() throws { try Command.check("systemctl", ["stop", "clupd"]) }
    /// Starts clupd, even after a crash loop made systemd give up on it (its start limit).
    public func startClupd() throws {
        _ = try? Command.run("systemctl", ["reset-failed", "clupd"])
        try Command.check("systemctl", ["start", "clupd"])
    }
    public func sleep(seconds: Double) { Thread.sleep(forTimeInterval: seconds) }
    public func now() -> Date { Date() }
}

/// A program run to its end: its exit status and what it printed (both streams, the last
/// 64 KiB).
enum Command {
    static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                    directory: String? = nil) throws -> (status: Int32, output: String) {
        let directories = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        guard let executable = directories.map({ "\($0)/\(tool)" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CodedError(.updateStepFailed, "\(tool) is not installed")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output.suffix(64 * 1024), as: UTF8.self))
    }

    /// Runs `tool`; a non-zero exit is an error with the last of what it said.
    static func check(_ tool: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws {
        let (status, output) = try run(tool, arguments, environment: environment, directory: directory)
        guard status == 0 else {
            let said = output.split(separator: "\n").suffix(3).joined(separator: " | ")
            throw CodedError(.updateStepFailed, "\(tool) \(arguments.first { !$0.hasPrefix("-") } ?? "") exited \(status): \(said.prefix(400))")
        }
    }
}
