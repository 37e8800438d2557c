import CLupCore
import Foundation
import GRDB

/// A consistent copy of the totem's database, taken with SQLite's online backup API while
/// clupd may be writing to it (WAL: the copy is the database as of one committed
/// transaction, never half of one). The package takes one before an upgrade, before the
/// new clupd migrates the database, so that the previous version can be put back with
/// the data it understands (`clupd backup`).
///
/// The source is opened read-only and never migrated; the copy is written under a
/// temporary name, checked (`PRAGMA integrity_check`), synced to disk and only then given
/// its name, so a file called `clupd-*.sqlite` is always a whole, sound copy.
public enum TotemBackup {
    /// What was copied.
    public struct Copy: Equatable, Sendable {
        public let path: String
        public let bytes: Int
        public let tickets: Int
        public let events: Int
        /// The last migration the copy's schema has ("v7: …").
        public let schema: String?
    }

    /// Why no copy was made.
    public enum Failure: Error, CodedErrorConvertible {
        case source(TotemDatabase.OpenError)
        case copy(path: String, detail: String)
        case unsound(path: String, findings: [String])

        public var coded: CodedError {
            switch self {
            case let .source(error): error.coded
            case let .copy(path, detail):
                CodedError(.databaseUnopenable, "could not write the copy \(path): \(detail); nothing was kept")
            case let .unsound(path, findings):
                CodedError(.damagedDatabase, "the copy \(path) did not pass integrity_check (\(findings.prefix(3).joined(separator: "; "))); "
                    + "it was deleted")
            }
        }
    }

    /// The prefix and suffix of the copies' names, `clupd-20261124T151500.042Z-v7.sqlite`.
    static let prefix = "clupd-"
    static let suffix = ".sqlite"

    /// Copies the database at `database` into `destination` (a file path, replaced if it
    /// exists). Throws `Failure`; leaves no file behind when it does.
    public static func copy(database: String, to destination: String) throws -> Copy {
        do {
            try TotemDatabase.check(path: database)
        } catch let error as TotemDatabase.OpenError {
            throw Failure.source(error)
        }
        let folder = (destination as NSString).deletingLastPathComponent
        let temporary = folder + "/.\((destination as NSString).lastPathComponent).\(getpid()).tmp"
        defer { removeDatabaseFiles(temporary) }
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            let source = try DatabaseQueue(path: database, configuration: readOnly)
            defer { try? source.close() }
            let copy = try DatabaseQueue(path: temporary)
            try source.backup(to: copy)
            // One self-contained file: the copy leaves WAL mode (the source's mode came
            // with its first page), so no -wal file belongs to it.
            try copy.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
            let findings = try copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(5)") }
            guard findings == ["ok"] else { throw Failure.unsound(path: destination, findings: findings) }
            let (tickets, events, schema) = try copy.read { db in
                (try Int.fetchOne(db, sql: "SELECT count(*) FROM ticket") ?? 0,
                 try Int.fetchOne(db, sql: "SELECT count(*) FROM event") ?? 0,
                 try String.fetchOne(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid DESC LIMIT 1"))
            }
            try copy.close()
            try syncAndName(temporary, as: destination)
            let bytes = (try FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
            return Copy(path: destination, bytes: bytes, tickets: tickets, events: events, schema: schema)
        } catch let error as Failure {
            throw error
        } catch let error as DatabaseError {
            throw Failure.copy(path: destination, detail: error.message ?? "\(error.resultCode)")
        } catch {
            throw Failure.copy(path: destination, detail: "\(error)")
        }
    }

    /// The name of a copy taken at `date` of a schema whose last migration is `schema`.
    public static func fileName(at date: Date, schema: String?) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        let version = schema.flatMap { $0.split(separator: ":").first.map(String.init) }.map { "-\($0)" } ?? ""
        return prefix + formatter.string(from: date) + version + suffix
    }

    /// The last migration of the database at `path`, read without writing to it.
    public static func schema(of path: String) -> String? {
        var readOnly = Configuration()
        readOnly.readonly = true
        guard let queue = try? DatabaseQueue(path: path, configuration: readOnly) else { return nil }
        defer { try? queue.close() }
        return try? queue.read { db in
            try String.fetchOne(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid DESC LIMIT 1")
        }
    }

    /// Deletes the copies in `folder` but the newest `keep` (by the time in their names);
    /// nothing else there. Returns the paths deleted.
    @discardableResult
    public static func prune(folder: String, keep: Int) throws -> [String] {
        let copies = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) }
            .sorted()
        let old = copies.dropLast(max(keep, 0)).map { folder + "/" + $0 }
        for path in old { try FileManager.default.removeItem(atPath: path) }
        return old
    }

    /// fsync the file, give it its name and mode 0600, then fsync the folder, so the name
    /// survives a power cut only with the whole copy behind it.
    private static func syncAndName(_ temporary: String, as destination: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: temporary))
        try handle.synchronize()
        try handle.close()
        guard chmod(temporary, 0o600) == 0, rename(temporary, destination) == 0 else {
            throw Failure.copy(path: destination, detail: String(cString: strerror(errno)))
        }
        let folder = open((destination as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
