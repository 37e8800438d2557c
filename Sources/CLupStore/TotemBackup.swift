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
        /// The last migration the copy's schema has ("v7: …"); nil for a database never migrated.
        public let schema: String?
    }

    /// What `clupd backup` did.
    public enum Outcome: Equatable, Sendable {
        /// The state folder has no database yet (a first install): nothing to copy.
        case noDatabase
        /// The copy; the older copies removed from the backups folder, and why one could
        /// not be (the copy stands all the same).
        case copied(Copy, removed: [String], pruneFailure: String?)
    }

    /// Why no copy was made.
    public enum Failure: Error, CodedErrorConvertible, Equatable {
        case source(TotemDatabase.OpenError)
        case unreadableFolder(path: String, detail: String)
        /// A database in WAL mode is read through its `-shm` file, which this user cannot create.
        case sharedMemory(path: String)
        case folder(path: String, detail: String)
        case sameFile(path: String)
        case full(folder: String, detail: String)
        case copy(path: String, detail: String)
        case unsound(path: String, findings: [String])
        case oldCopy(path: String, detail: String)

        public var coded: CodedError {
            switch self {
            case let .source(error):
                CodedError(error.coded.errorCode ?? .databaseUnopenable, "no copy made: \(error.coded.message)", action: error.coded.action)
            case let .unreadableFolder(path, detail):
                CodedError(.databaseUnopenable, "cannot look for the database in \(path): \(detail)",
                           action: "Run clupd backup as root or as clupd's user.")
            case let .sharedMemory(path):
                CodedError(.databaseUnopenable, "cannot read \(path): it is in WAL mode, and SQLite reads such a database "
                    + "through \(path)-shm, which this user may not create in its folder",
                           action: "Run clupd backup as root or as clupd's user.")
            case let .folder(path, detail):
                CodedError(.databaseUnopenable, "cannot make the backups folder \(path): \(detail)")
            case let .sameFile(path):
                CodedError(.databaseUnopenable, "\(path) is the database itself; refusing to copy it over itself",
                           action: "Give --to another file.")
            case let .full(folder, detail):
                CodedError(.diskFull, "the disk holding \(folder) is full (\(detail)); no copy was kept",
                           action: "Free space there, or give --to a file on another disk.")
            case let .copy(path, detail):
                CodedError(.databaseUnopenable, "could not write the copy \(path): \(detail); nothing was kept",
                           action: "Check that the copy's folder exists and that this user may write there.")
            case let .unsound(path, findings):
                CodedError(.damagedDatabase, "the copy \(path) did not pass integrity_check (\(findings.prefix(3).joined(separator: "; "))); "
                    + "it was deleted")
            case let .oldCopy(path, detail):
                CodedError(.databaseUnopenable, "could not delete the older copy \(path): \(detail)")
            }
        }
    }

    /// The database's name in the state folder, and the folder of the copies there.
    public static let databaseName = "clup.sqlite"
    public static let folderName = "backups"
    /// The prefix and suffix of the copies' names, `clupd-20261124T151500.042Z-v7.sqlite`.
    static let prefix = "clupd-"
    static let suffix = ".sqlite"

    /// `clupd backup`: copies the database of `stateDirectory` to `destination`, or without
    /// one into its backups folder, where only the newest `keep` copies then stay.
    public static func run(stateDirectory: String, to destination: String?, keep: Int, now: Date = Date()) throws -> Outcome {
        let database = stateDirectory + "/" + databaseName
        var info = stat()
        if stat(database, &info) != 0 {
            // Only a database that is not there is "nothing to back up"; one this user
            // cannot see may be there.
            guard errno == ENOENT else { throw Failure.unreadableFolder(path: stateDirectory, detail: String(cString: strerror(errno))) }
            return .noDatabase
        }
        if let destination {
            return .copied(try copy(database: database, to: destination), removed: [], pruneFailure: nil)
        }
        return try intoBackupsFolder(database: database, keep: keep, now: now)
    }

    /// Copies `database` into the backups folder beside it (made if missing), where only the
    /// newest `keep` copies then stay.
    static func intoBackupsFolder(database: String, keep: Int, now: Date) throws -> Outcome {
        let backups = folder(of: database) + "/" + folderName
        do {
            try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure.folder(path: backups, detail: (error as NSError).localizedDescription)
        }
        let copy = try copy(database: database, to: backups + "/" + fileName(at: now, schema: schema(of: database)))
        do {
            return .copied(copy, removed: try prune(folder: backups, keep: keep, sparing: copy.path), pruneFailure: nil)
        } catch {
            return .copied(copy, removed: [], pruneFailure: CodedError(describing: error).message)
        }
    }

    /// Copies the database at `database` into `destination` (a file path, replaced if it
    /// exists). Throws `Failure`; leaves no file behind when it does.
    public static func copy(database: String, to destination: String) throws -> Copy {
        try copy(database: database, to: destination, pageLimit: nil)
    }

    /// `pageLimit` caps the copy's size in pages (SQLite's `max_page_count`): a disk that
    /// fills up, for the tests.
    static func copy(database: String, to destination: String, pageLimit: Int?) throws -> Copy {
        do {
            try TotemDatabase.check(path: database)
        } catch let error as TotemDatabase.OpenError {
            if case .cannotOpen = error, access(database + "-shm", F_OK) != 0, access(folder(of: database), W_OK) != 0 {
                throw Failure.sharedMemory(path: database)
            }
            throw Failure.source(error)
        }
        let folder = folder(of: destination)
        var source = stat(), target = stat()
        if stat(database, &source) == 0, stat(destination, &target) == 0, source.st_dev == target.st_dev, source.st_ino == target.st_ino {
            throw Failure.sameFile(path: destination)
        }
        let temporary = folder + "/.\((destination as NSString).lastPathComponent).\(getpid()).tmp"
        defer { removeDatabaseFiles(temporary) }
        do {
            // Made here, empty and 0600, before SQLite writes a page into it: SQLite would
            // make it 0644, and a copy of the tickets is no one else's to read.
            removeDatabaseFiles(temporary)
            let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard file >= 0 else { throw Failure.copy(path: destination, detail: "\(temporary): \(String(cString: strerror(errno)))") }
            fchmod(file, 0o600)
            close(file)
            var readOnly = Configuration()
            readOnly.readonly = true
            // A reader of a WAL database may have to wait while clupd's connection recovers the WAL.
            readOnly.busyMode = .timeout(10)
            let source = try DatabaseQueue(path: database, configuration: readOnly)
            defer { try? source.close() }
            let copy = try DatabaseQueue(path: temporary)
            if let pageLimit { try copy.writeWithoutTransaction { db in _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pageLimit)") } }
            try source.backup(to: copy)
            // One self-contained file: the copy leaves WAL mode (the source's mode came
            // with its first page), so no -wal file belongs to it.
            try copy.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE") }
            let findings = try copy.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(5)") }
            guard findings == ["ok"] else { throw Failure.unsound(path: destination, findings: findings) }
            let (tickets, events, schema) = try copy.read { db in
                (try count("ticket", in: db), try count("event", in: db), try lastMigration(in: db))
            }
            try copy.close()
            try syncAndName(temporary, as: destination)
            let bytes = (try FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
            return Copy(path: destination, bytes: bytes, tickets: tickets, events: events, schema: schema)
        } catch let error as Failure {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            throw Failure.full(folder: folder, detail: "SQLite: \(detail(of: error))")
        } catch let error as DatabaseError {
            throw Failure.copy(path: destination, detail: "SQLite: \(detail(of: error))")
        } catch {
            throw Failure.copy(path: destination, detail: "\(error)")
        }
    }

    /// The name of a copy taken at `date` of a schema whose last migration is `schema`:
    /// the time first, so that the names sort as the copies were taken.
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
        readOnly.busyMode = .timeout(10)
        guard let queue = try? DatabaseQueue(path: path, configuration: readOnly) else { return nil }
        defer { try? queue.close() }
        return try? queue.read(lastMigration)
    }

    /// Deletes the copies in `folder` but the newest `keep` (by the time in their names) and
    /// the newest of each schema (the `-v9` of their names): a clupd that cannot finish a
    /// migration takes a copy at each start, and those must not push out the last copy of
    /// the schema before the upgrade. Never `sparing` (the copy just taken, whatever its
    /// name), which counts as one of the newest; nothing but regular files named
    /// `clupd-*.sqlite`. Returns the paths deleted.
    @discardableResult
    public static func prune(folder: String, keep: Int, sparing: String? = nil) throws -> [String] {
        let spared = sparing.map { ($0 as NSString).lastPathComponent }
        let copies = try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(suffix) && $0 != spared }
            .filter { name in
                var info = stat()
                return lstat(folder + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
            }
            .sorted()
        let newestOfEachSchema = Set(Dictionary(grouping: copies + (spared.map { [$0] } ?? []), by: schemaPart).values.compactMap { $0.max() })
        let old = copies.dropLast(max(keep - (spared == nil ? 0 : 1), 0)).filter { !newestOfEachSchema.contains($0) }
            .map { folder + "/" + $0 }
        for path in old where unlink(path) != 0 {
            throw Failure.oldCopy(path: path, detail: String(cString: strerror(errno)))
        }
        return old
    }

    /// The schema a copy's name gives (`v9` of `clupd-20261124T151500.042Z-v9.sqlite`), or
    /// what follows the time in a name made by hand; "" for none.
    static func schemaPart(of name: String) -> Substring {
        let middle = name.dropFirst(prefix.count).dropLast(suffix.count)
        return middle.firstIndex(of: "-").map { middle[middle.index(after: $0)...] } ?? ""
    }

    static func count(_ table: String, in db: Database) throws -> Int {
        try db.tableExists(table) ? try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0 : 0
    }

    static func lastMigration(in db: Database) throws -> String? {
        guard try db.tableExists("grdb_migrations") else { return nil }
        return try String.fetchOne(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid DESC LIMIT 1")
    }

    /// What SQLite said; a failed backup step leaves the destination connection's message
    /// at "not an error", and then the code says it ("13 (database or disk is full)").
    static func detail(of error: DatabaseError) -> String {
        guard let message = error.message, message != "not an error" else { return "\(error.resultCode)" }
        return message
    }

    /// The folder of `path`, `.` for a bare file name.
    static func folder(of path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    /// fsync the file, give it its name, then fsync the folder, so the name survives a
    /// power cut only with the whole copy behind it.
    private static func syncAndName(_ temporary: String, as destination: String) throws {
        func failure(_ what: String) -> Failure {
            let code = errno
            let detail = "\(what): \(String(cString: strerror(code)))"
            return code == ENOSPC || code == EDQUOT ? .full(folder: folder(of: destination), detail: detail)
                : .copy(path: destination, detail: detail)
        }
        let file = open(temporary, O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { throw failure("open \(temporary)") }
        defer { close(file) }
        guard fsync(file) == 0 else { throw failure("fsync") }
        guard rename(temporary, destination) == 0 else { throw failure("rename") }
        let directory = open(folder(of: destination), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    private static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}
