import CLupCore
import Foundation
import GRDB

/// Opens the totem's SQLite file: WAL, `synchronous=FULL`, migrated. A file that is not
/// ours, not a database or damaged is refused before anything writes to it, with an error
/// naming the file.
///
/// One connection (a `DatabaseQueue`), used from the daemon's event loop. Not a
/// `DatabasePool`: a pool opened on a database without a WAL file (every start after a
/// clean stop) creates and drops a table to make one (GRDB issue 102), which bumps
/// `schema_version` twice and leaves a free page behind on every start. Readers in other
/// processes (`sqlite3`, diagnostics) still never block the writer, as the file is in WAL mode.
public enum TotemDatabase {
    /// `PRAGMA application_id` of a CLup totem database ("CLUP").
    static let applicationID: Int32 = 0x434C_5550
    /// At most this many lines of `quick_check`'s findings go into an error.
    static let reportedProblems = 5

    /// Why the database could not be opened.
    public enum OpenError: Error, CodedErrorConvertible, Equatable {
        case notADatabase(path: String, detail: String)
        case foreignDatabase(path: String, applicationID: Int32)
        case cannotOpen(path: String, detail: String)
        case damaged(path: String, problems: [String])
        /// Migrations are due, and the copy of the database to take first could not be taken.
        case noCopyBeforeMigrating(path: String, detail: String)

        public var coded: CodedError {
            switch self {
            case let .notADatabase(path, detail):
                CodedError(.notADatabase, "\(path) is not a readable SQLite database (\(detail)); move it aside to start fresh")
            case let .foreignDatabase(path, id):
                CodedError(.foreignDatabase, "\(path) is a SQLite database of another program (application_id \(id)); refusing to use it")
            case let .cannotOpen(path, detail):
                CodedError(.databaseUnopenable, "cannot open \(path): \(detail)")
            case let .damaged(path, problems):
                CodedError(.damagedDatabase, "\(path) is damaged (PRAGMA quick_check: \(problems.joined(separator: "; "))); "
                    + "it was left as it is: keep it for the support desk, and move it aside to start fresh")
            case let .noCopyBeforeMigrating(path, detail):
                CodedError(.noCopyBeforeMigrating, "\(path) was not migrated to this version's schema, because no copy of it "
                    + "could be taken first (\(detail)); it was left as the previous version wrote it")
            }
        }
    }

    /// Opens the database at `path`, migrated. A database with migrations due is copied into
    /// the backups folder beside it first (`copyBeforeMigrating`); what that did is given to `copied`.
    public static func open(path: String, copied: ((TotemBackup.Outcome) -> Void)? = nil) throws -> DatabaseQueue {
        try check(path: path)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            guard try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") == "wal" else {
                throw DatabaseError(message: "could not switch to WAL mode")
            }
            // A ticket in a customer's hand or a passage through the turnstile must survive
            // a power cut once committed: sync the WAL at every commit.
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { db in
                if try Int32.fetchOne(db, sql: "PRAGMA application_id") == 0 {
                    try db.execute(sql: "PRAGMA application_id = \(applicationID)")
                }
            }
            if let copy = try copyBeforeMigrating(queue, path: path) { copied?(copy) }
            try migrator.migrate(queue)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB
            || error.resultCode == .SQLITE_CORRUPT {
            throw OpenError.notADatabase(path: path, detail: error.message ?? "\(error.resultCode)")
        } catch let error as OpenError {
            throw error
        } catch {
            throw OpenError.cannotOpen(path: path, detail: "\(error)")
        }
        return queue
    }

    /// How many copies the backups folder keeps, a copy taken before a migration among them
    /// (as `clupd backup` keeps by default).
    static let copiesKept = 3

    /// A database some of whose migrations are due (a new file, with none applied, aside) is
    /// copied into the backups folder beside it before anything migrates it: the way back to
    /// the version that wrote it, whoever started this clupd. (The package's postinst takes a
    /// copy too, but a power cut while the package unpacked skips the postinst, and systemd
    /// then starts the new clupd at the next boot.) No copy, no migration: the previous
    /// version still reads the file as it is. Returns the copy taken (and the older copies
    /// pruned), if one was.
    static func copyBeforeMigrating(_ queue: DatabaseQueue, path: String) throws -> TotemBackup.Outcome? {
        let (applied, complete) = try queue.read { db in
            (try migrator.appliedIdentifiers(db), try migrator.hasCompletedMigrations(db))
        }
        guard !applied.isEmpty, !complete else { return nil }
        do {
            return try TotemBackup.intoBackupsFolder(database: path, keep: copiesKept, now: Date())
        } catch {
            throw OpenError.noCopyBeforeMigrating(path: path, detail: CodedError(describing: error).message)
        }
    }

    /// Refuses an existing file that is not a CLup database or is damaged, reading it without
    /// changing a byte (a writer would switch it to WAL, migrate it, or write over a
    /// damaged page).
    static func check(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        var configuration = Configuration()
        configuration.readonly = true
        // `clupd backup` checks the database while clupd writes it: wait out a WAL recovery.
        configuration.busyMode = .timeout(10)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            let (id, hasTables, findings) = try queue.read { db in
                (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
                 try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table')") ?? false,
                 try String.fetchAll(db, sql: "PRAGMA quick_check(\(reportedProblems))"))
            }
            if id != applicationID && (id != 0 || hasTables) {
                throw OpenError.foreignDatabase(path: path, applicationID: id)
            }
            if findings != ["ok"] {
                // One finding per line, without SQLite's "*** in database main ***" heading.
                let problems = findings.flatMap { $0.split(separator: "\n").map(String.init) }.filter { !$0.hasPrefix("***") }
                throw OpenError.damaged(path: path, problems: Array(problems.prefix(reportedProblems)))
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw OpenError.notADatabase(path: path, detail: error.message ?? "\(error.resultCode)")
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            throw OpenError.damaged(path: path, problems: [error.message ?? "\(error.resultCode)"])
        } catch let error as DatabaseError {
            throw OpenError.cannotOpen(path: path, detail: error.message ?? "\(error.resultCode)")
        }
    }

    /// Append-only, named migrations.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: tickets, occupancy, event log") { db in
            try db.execute(sql: """
                CREATE TABLE ticket (
                    business_day TEXT NOT NULL,
                    number TEXT NOT NULL,
                    lane TEXT NOT NULL,
                    sequence INTEGER NOT NULL,
                    issued_at REAL NOT NULL,
                    state TEXT NOT NULL,
                    code TEXT NOT NULL UNIQUE,
                    print_job INTEGER,
                    failure_reason TEXT,
                    PRIMARY KEY (business_day, number)
                );
                CREATE TABLE occupancy (
                    business_day TEXT NOT NULL PRIMARY KEY,
                    entries INTEGER NOT NULL,
                    exits INTEGER NOT NULL
                );
                CREATE TABLE event (
                    device_id TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    wall_time REAL NOT NULL,
                    type TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    PRIMARY KEY (device_id, seq)
                );
                """)
        }
        migrator.registerMigration("v2: call, admission and booking times; ledgers per door; exit history") { db in
            try db.execute(sql: """
                ALTER TABLE ticket ADD COLUMN slot_start REAL;
                ALTER TABLE ticket ADD COLUMN called_at REAL;
                ALTER TABLE ticket ADD COLUMN call_reason TEXT;
                ALTER TABLE ticket ADD COLUMN admitted_at REAL;
                ALTER TABLE ticket ADD COLUMN entered_at REAL;
                CREATE TABLE ledger (
                    business_day TEXT NOT NULL,
                    door TEXT NOT NULL,
                    entries INTEGER NOT NULL,
                    exits INTEGER NOT NULL,
                    corrections INTEGER NOT NULL,
                    PRIMARY KEY (business_day, door)
                );
                INSERT INTO ledger (business_day, door, entries, exits, corrections)
                    SELECT business_day, 'main', entries, exits, 0 FROM occupancy;
                DROP TABLE occupancy;
                CREATE TABLE exit_history (
                    business_day TEXT NOT NULL PRIMARY KEY,
                    mean_exit_interval REAL,
                    last_exit REAL
                );
                """)
        }
        migrator.registerMigration("v3: the reason of a priority ticket") { db in
            try db.execute(sql: "ALTER TABLE ticket ADD COLUMN priority_reason TEXT")
        }
        migrator.registerMigration("v4: days opened with what carried over; monotonic times of windows") { db in
            try db.execute(sql: """
                CREATE TABLE business_day (
                    business_day TEXT NOT NULL PRIMARY KEY,
                    opened_at REAL NOT NULL,
                    after TEXT
                );
                ALTER TABLE ticket ADD COLUMN carried_into TEXT;
                CREATE INDEX ticket_carried_into ON ticket (carried_into);
                ALTER TABLE ticket ADD COLUMN issued_steady TEXT;
                ALTER TABLE ticket ADD COLUMN called_steady TEXT;
                ALTER TABLE ticket ADD COLUMN admitted_steady TEXT;
                ALTER TABLE ledger ADD COLUMN carried INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE exit_history ADD COLUMN last_exit_steady TEXT;
                """)
        }
        migrator.registerMigration("v5: when a ticket was scanned on the way out") { db in
            try db.execute(sql: "ALTER TABLE ticket ADD COLUMN left_at REAL")
        }
        migrator.registerMigration("v6: the employees who may log in at the PIN pad") { db in
            // Only a staff number and a slow salted hash of the PIN: nothing personal.
            try db.execute(sql: """
                CREATE TABLE employee (
                    staff_number TEXT NOT NULL PRIMARY KEY,
                    kdf TEXT NOT NULL,
                    salt BLOB NOT NULL,
                    pin_hash BLOB NOT NULL,
                    changed_at REAL NOT NULL
                )
                """)
        }
        migrator.registerMigration("v7: employees from the hub beside the totem's own") { db in
            try db.execute(sql: "ALTER TABLE employee ADD COLUMN source TEXT NOT NULL DEFAULT 'local'")
        }
        migrator.registerMigration("v8: the technicians who may log in on the control socket") { db in
            try db.execute(sql: """
                CREATE TABLE technician (
                    name TEXT NOT NULL PRIMARY KEY,
                    kdf TEXT NOT NULL,
                    salt BLOB NOT NULL,
                    secret_hash BLOB NOT NULL,
                    changed_at REAL NOT NULL
                )
                """)
        }
        migrator.registerMigration("v9: a place's instant in the line, its customer's language, who voided it") { db in
            // The line's order (`LineOrder`), the language a call and the door speak to its
            // customer, and whether its holder left the line from their phone.
            try db.execute(sql: "ALTER TABLE ticket ADD COLUMN taken_at REAL")
            try db.execute(sql: "ALTER TABLE ticket ADD COLUMN language TEXT")
            try db.execute(sql: "ALTER TABLE ticket ADD COLUMN voided_by TEXT")
        }
        migrator.registerMigration("v10: the event log by type") { db in
            // The reports and the settings last applied read a few types of a long log: found
            // by the index, not by reading the whole log.
            try db.execute(sql: "CREATE INDEX event_type ON event (device_id, type, seq)")
        }
        return migrator
    }
}
