import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// systemd's encrypted credentials, as `systemd-creds` makes and opens them: a secret sealed
/// to this machine's TPM2 and host key (`--with-key=auto`; the host key alone where there is
/// no TPM), opened by systemd for a unit (`LoadCredentialEncrypted=`) into
/// `$CREDENTIALS_DIRECTORY`, memory that is never written to disk. The totem's keys
/// (`SealedKey`) and the hub's secrets (`HubSecret`) are kept so. Sealing and opening are
/// root's: systemd-creds needs the host key and the TPM.
public enum SystemdCredentials {
    /// Why a credential could not be sealed, opened or a plain secret erased.
    public struct Failure: Error, Sendable {
        public let message: String
    }

    /// The file of credential `name` that systemd opened for the running unit, if it did and
    /// it is not empty (an empty one is a unit's stand-in for a credential not made yet).
    public static func opened(_ name: String) -> String? {
        guard let folder = ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"], folder.hasPrefix("/") else { return nil }
        let path = folder + "/" + name
        var info = stat()
        guard stat(path, &info) == 0, info.st_size > 0 else { return nil }
        return path
    }

    /// Whether the process runs under a unit that was given credentials.
    public static var underUnit: Bool { ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"]?.hasPrefix("/") == true }

    /// Seals `secret` as credential `name` into file `file` of the folder open as `folder`:
    /// systemd-creds writes the credential to a pipe, it is opened again and compared, then
    /// written beside (created, never through a link), synced and renamed into place (mode
    /// 0600), and the folder synced. The secret reaches systemd-creds through a pipe, never a
    /// file. To the TPM2 and the host key where the kernel shows a TPM2 (`/dev/tpmrm0`), else
    /// to the host key: systemd 252's `--with-key=auto` takes the TPM only when the firmware
    /// is EFI and says it has one, which leaves out a TPM on a BIOS machine (and qemu's
    /// without OVMF). Bound to PCR 7 as well (the Secure Boot state, systemd's default): 252
    /// seals to an empty PCR set but cannot open it again ("TPM2 PCR bank invalid", seen in
    /// the VM), so a change of the Secure Boot keys locks the key out, as another TPM does.
    public static func seal(_ secret: Data, as name: String, into folder: Int32, file: String) throws(Failure) {
        let (status, sealed, said) = try systemdCreds(["encrypt", "--with-key=" + sealingKey, "--name=" + name, "-", "-"], input: secret)
        guard status == 0, !sealed.isEmpty else { throw Failure(message: "systemd-creds cannot seal \(name): \(said)") }
        let reopened: Data
        do {
            reopened = try open(name, sealed: sealed)
        } catch {
            throw Failure(message: "the credential made for \(name) does not open: \(error.message)")
        }
        guard reopened == secret else { throw Failure(message: "the credential made for \(name) does not open to it") }
        let temporary = file + ".new"
        unlinkat(folder, temporary, 0)
        let fd = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(message: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(sealed)
        let written = write(fd, bytes, bytes.count), synced = fsync(fd)
        close(fd)
        guard written == bytes.count, synced == 0, renameat(folder, temporary, folder, file) == 0 else {
            let reason = String(cString: strerror(errno))
            unlinkat(folder, temporary, 0)
            throw Failure(message: "cannot write \(file): \(reason)")
        }
        // The caller erases the plain secret next: the credential's name must be on disk first.
        guard fsync(folder) == 0 else { throw Failure(message: "cannot sync the folder of \(file): \(String(cString: strerror(errno)))") }
    }

    /// What a secret is sealed to on this machine: `host+tpm2` where the kernel has a TPM2
    /// resource manager, `host` otherwise.
    public static var sealingKey: String { FileManager.default.fileExists(atPath: "/dev/tpmrm0") ? "host+tpm2" : "host" }

    /// Opens credential `name` kept in file `file` of the folder open as `folder` (read
    /// without following a link): the secret, or why this machine cannot open it.
    public static func open(_ name: String, in folder: Int32, file: String) throws(Failure) -> Data {
        try open(name, sealed: try readPlain(file, in: folder))
    }

    /// Opens credential `name` from `file` (a path root controls: systemd's folder).
    public static func open(_ name: String, from file: String) throws(Failure) -> Data {
        let folder = Glibc.open((file as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Failure(message: "cannot open the folder of \(file): \(String(cString: strerror(errno)))") }
        defer { close(folder) }
        return try open(name, in: folder, file: (file as NSString).lastPathComponent)
    }

    /// Opens the credential `sealed` holds, named `name`.
    static func open(_ name: String, sealed: Data) throws(Failure) -> Data {
        let (status, output, said) = try systemdCreds(["decrypt", "--name=" + name, "-", "-"], input: sealed)
        guard status == 0 else { throw Failure(message: said) }
        return output
    }

    /// The content of `file` in the folder open as `folder`, read as root reads in a folder
    /// another user owns: never through a link, nor from a FIFO or a device, at most 64 KiB.
    public static func readPlain(_ file: String, in folder: Int32) throws(Failure) -> Data {
        let fd = openat(folder, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(message: "cannot open \(file): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 64 * 1024 else {
            throw Failure(message: "\(file) is not a regular file of at most 64 KiB")
        }
        var data = Data(count: Int(info.st_size))
        let count = data.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count == Int(info.st_size) else { throw Failure(message: "cannot read \(file)") }
        return data
    }

    /// `readPlain` of a path.
    public static func readPlain(_ path: String) throws(Failure) -> Data {
        let folder = Glibc.open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw Failure(message: "cannot open the folder of \(path): \(String(cString: strerror(errno)))") }
        defer { close(folder) }
        return try readPlain((path as NSString).lastPathComponent, in: folder)
    }

    /// Removes a plain secret's file, then overwrites its blocks with zeros through the
    /// descriptor still open and syncs, so that they are not left readable on the disk's free
    /// space (on a file system that writes in place). Removed first, so that no zeroed file
    /// is ever left to pass for the secret. Never through a link, nor a file with other names.
    public static func erase(_ path: String) throws(Failure) {
        let fd = Glibc.open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { throw Failure(message: "cannot open \(path) to erase it: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG, opened.st_nlink == 1 else {
            throw Failure(message: "\(path) is not a regular file with one name")
        }
        guard unlink(path) == 0 else { throw Failure(message: "cannot remove \(path): \(String(cString: strerror(errno)))") }
        syncFolder(of: path)
        let zeros = [UInt8](repeating: 0, count: Int(min(opened.st_size, 1 << 20)))
        let written = zeros.isEmpty ? 0 : write(fd, zeros, zeros.count)
        guard written == zeros.count, fsync(fd) == 0 else {
            throw Failure(message: "\(path) is removed but its blocks were not overwritten: \(String(cString: strerror(errno)))")
        }
    }

    private static func syncFolder(of path: String) {
        let folder = Glibc.open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Runs systemd-creds with `input` on its standard input: its status, what it wrote (at
    /// most 64 KiB) and the last line it said on standard error, escaped.
    private static func systemdCreds(_ arguments: [String], input: Data?) throws(Failure) -> (Int32, Data, String) {
        let tool = ["/usr/bin/systemd-creds", "/bin/systemd-creds"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let tool else { throw Failure(message: "systemd-creds is not installed (it comes with systemd 250 or later)") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw Failure(message: "cannot run \(tool): \(error)")
        }
        if let input {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        // Both are small (a secret, a few lines): the pipes' buffers hold either until read.
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let said = String(decoding: errors.suffix(4096), as: UTF8.self)
            .split(separator: "\n").last.map { TypedText.escaped(String($0.prefix(300))) } ?? "exit \(process.terminationStatus)"
        return (process.terminationStatus, output.count <= 64 * 1024 ? output : Data(), said)
    }
}
