import CLupCore
@testable import CLupStore
import Foundation
import GRDB
import XCTest

/// `clupd backup`: a copy that is whole while clupd writes, of the schema it was taken
/// from, with nothing left behind when it cannot be made.
final class TotemBackupTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("clup-backup-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The files in the test's folder but the database's own.
    func leftovers() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("clup.sqlite") && $0 != "copy.sqlite" }
    }

    /// Ten events per transaction, as clupd commits a ticket with its events.
    static func appendTransaction(_ queue: DatabaseQueue, first seq: Int) throws {
        try queue.write { db in
            for n in seq..<(seq + 10) {
                try db.execute(sql: "INSERT INTO event (device_id, seq, wall_time, type, payload) VALUES ('t', ?, 0, 'x', '{}')",
                               arguments: [n])
            }
        }
    }

    /// How many transactions the writer has committed; when to stop.
    final class Writer: @unchecked Sendable {
        private let lock = NSLock()
        private var committed = 0
        private var stopped = false
        var transactions: Int { lock.withLock { committed } }
        var isStopped: Bool { lock.withLock { stopped } }
        func commit() { lock.withLock { committed += 1 } }
        func stop() { lock.withLock { stopped = true } }
    }

    func test_aCopyTakenWhileClupdWritesHoldsWholeTransactionsAndEveryOneCommittedBefore() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        // Some megabytes, so that copying them takes a while.
        try database.write { db in
            for n in 0..<4_000 {
                try db.execute(sql: "INSERT INTO event (device_id, seq, wall_time, type, payload) VALUES ('old', ?, 0, 'x', ?)",
                               arguments: [n, String(repeating: "p", count: 1_000)])
            }
        }
        let writer = Writer()
        let done = DispatchSemaphore(value: 0)
        Thread {
            var n = 0
            while !writer.isStopped {
                do { try Self.appendTransaction(database, first: n * 10) } catch { break }
                writer.commit()
                n += 1
            }
            done.signal()
        }.start()
        while writer.transactions < 50 { usleep(1_000) }

        let before = writer.transactions
        let copy = try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"))
        let after = writer.transactions
        writer.stop()
        done.wait()

        XCTAssertGreaterThan(after, before, "clupd wrote nothing while the copy was taken: the test proves nothing")
        let copied = copy.events - 4_000
        XCTAssertEqual(copied % 10, 0, "a transaction cut in half: \(copied) events")
        XCTAssertGreaterThanOrEqual(copied, before * 10, "a transaction committed before the copy began is missing")
        XCTAssertLessThanOrEqual(copied, after * 10)
        var readOnly = Configuration()
        readOnly.readonly = true
        let reader = try DatabaseQueue(path: path("copy.sqlite"), configuration: readOnly)
        try reader.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT max(seq) + 1 FROM event WHERE device_id = 't'"), copied, "a gap in the copied log")
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "delete")
        }
        XCTAssertEqual(copy.schema, TotemDatabase.migrator.migrations.last)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.sqlite-wal")))
        let mode = try FileManager.default.attributesOfItem(atPath: path("copy.sqlite"))[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        XCTAssertEqual(try leftovers(), [], "temporary files left behind")
    }

    /// clupd stopped cleanly leaves no -wal nor -shm; SQLite must make the -shm to read a
    /// WAL database, even read-only. The postinst runs as root: what it makes must stay
    /// clupd's user's, or clupd could not open its own database afterwards.
    func test_aStoppedClupdsDatabaseIsReadWithoutChangingAByteAndItsSharedMemoryStaysItsOwners() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        try Self.appendTransaction(database, first: 0)
        try database.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("clup.sqlite-shm")), "precondition: a clean stop")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("clup.sqlite-wal")), "precondition: a clean stop")
        // As root, the database is another user's, as clupd's is in /var/lib/clup.
        let owner: uid_t = getuid() == 0 ? 65_534 : getuid()
        XCTAssertEqual(chown(path("clup.sqlite"), owner, gid_t(owner == 65_534 ? 65_534 : getgid())), 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path("clup.sqlite")))

        let copy = try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"))
        XCTAssertEqual(copy.events, 10)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("clup.sqlite"))), bytes, "the source changed")
        for suffix in ["-shm", "-wal"] {
            var info = stat()
            guard lstat(path("clup.sqlite" + suffix), &info) == 0 else { continue }
            XCTAssertEqual(info.st_uid, owner, "clup.sqlite\(suffix) was left to another user")
        }
        let reopened = try TotemDatabase.open(path: path("clup.sqlite"))
        XCTAssertEqual(try reopened.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") }, 10)
    }

    /// The copy is taken before the new clupd migrates: it is of the old schema, and
    /// taking it migrates nothing.
    func test_theBackupOfAnOlderSchemaNeitherMigratesTheSourceNorTheCopy() throws {
        let migrations = TotemDatabase.migrator.migrations
        let older = migrations[migrations.count - 2]
        try olderDatabase(at: older)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path("clup.sqlite")))

        let copy = try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"))
        XCTAssertEqual(copy.schema, older)
        XCTAssertEqual(copy.events, 10)
        XCTAssertEqual(TotemBackup.schema(of: path("clup.sqlite")), older, "the source was migrated")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("clup.sqlite"))), bytes, "the source changed")
        XCTAssertEqual(TotemBackup.fileName(at: Date(timeIntervalSince1970: 1_795_000_000), schema: older),
                       "clupd-20261118T110640.000Z-\(older.split(separator: ":")[0]).sqlite")
    }

    /// A database at `schema` (with one transaction of events), as an older clupd left it.
    func olderDatabase(at schema: String) throws {
        let queue = try DatabaseQueue(path: path("clup.sqlite"))
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA application_id = \(TotemDatabase.applicationID)")
            _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
        }
        try TotemDatabase.migrator.migrate(queue, upTo: schema)
        try Self.appendTransaction(queue, first: 0)
        try queue.close()
    }

    /// Issue 45: a power cut while the package unpacked skips its postinst (and its backup);
    /// the new clupd, started by systemd at the next boot, copies the database itself before
    /// migrating it, so the previous version can still be put back with its data.
    func test_whicheverWayClupdIsStartedADatabaseIsCopiedBeforeItIsMigrated() throws {
        let migrations = TotemDatabase.migrator.migrations
        let older = migrations[migrations.count - 2]
        try olderDatabase(at: older)
        let store = try TotemStore(path: path("clup.sqlite"), deviceID: "t")
        guard case let .copied(copy, removed, pruneFailure) = store.copiedBeforeMigrating else {
            return XCTFail("no copy taken before migrating")
        }
        XCTAssertEqual(removed, [])
        XCTAssertNil(pruneFailure)
        XCTAssertEqual(copy.schema, older)
        XCTAssertEqual(copy.events, 10)
        XCTAssertEqual((copy.path as NSString).deletingLastPathComponent, path("backups"))
        XCTAssertEqual(TotemBackup.schema(of: copy.path), older, "the copy is of the schema before")
        XCTAssertEqual(TotemBackup.schema(of: path("clup.sqlite")), migrations.last, "the database itself is migrated")
        XCTAssertEqual(try store.lastSeq(), 9, "the events went through the migration")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("backups")), [(copy.path as NSString).lastPathComponent])
    }

    /// A clupd that cannot finish its migrations takes a copy at each start (of the half-
    /// migrated file): however many, the last copy of the schema before the upgrade stays.
    func test_copiesOfAHalfMigratedFileNeverPushOutTheLastCopyFromBefore() throws {
        let folder = path("backups")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["clupd-20261101T000000.000Z-v8.sqlite", "clupd-20261102T000000.000Z-v9.sqlite"] {
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data("x".utf8))
        }
        for day in 3...8 {
            let name = "clupd-202611\(String(format: "%02d", day))T000000.000Z-v10.sqlite"
            FileManager.default.createFile(atPath: folder + "/" + name, contents: Data("x".utf8))
            try TotemBackup.prune(folder: folder, keep: 3, sparing: folder + "/" + name)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(),
                       ["clupd-20261101T000000.000Z-v8.sqlite", "clupd-20261102T000000.000Z-v9.sqlite",
                        "clupd-20261106T000000.000Z-v10.sqlite", "clupd-20261107T000000.000Z-v10.sqlite",
                        "clupd-20261108T000000.000Z-v10.sqlite"])
    }

    /// A new file and one already at this version's schema have nothing to go back to.
    func test_aNewDatabaseAndAnUpToDateOneAreNotCopied() throws {
        for _ in 0..<2 {
            let store = try TotemStore(path: path("clup.sqlite"), deviceID: "t")
            XCTAssertNil(store.copiedBeforeMigrating)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("backups")), "a backups folder was made")
    }

    /// No copy, no migration: the file stays as the previous version wrote it, and the error says why.
    func test_aDatabaseThatCannotBeCopiedIsNotMigrated() throws {
        let migrations = TotemDatabase.migrator.migrations
        let older = migrations[migrations.count - 2]
        try olderDatabase(at: older)
        // A file where the backups folder would be (as root, a folder's permissions would not stop the copy).
        FileManager.default.createFile(atPath: path("backups"), contents: Data("in the way".utf8))
        XCTAssertThrowsError(try TotemStore(path: path("clup.sqlite"), deviceID: "t")) { error in
            let coded = (error as? TotemDatabase.OpenError)?.coded
            XCTAssertEqual(coded?.code, ErrorCode.noCopyBeforeMigrating.rawValue, "\(error)")
            XCTAssertTrue(coded?.message.hasPrefix("\(self.path("clup.sqlite")) was not migrated to this version's schema, "
                + "because no copy of it could be taken first (cannot make the backups folder \(self.path("backups")): ") == true,
                          coded?.message ?? "\(error)")
        }
        XCTAssertEqual(TotemBackup.schema(of: path("clup.sqlite")), older, "the database was migrated without a copy")
    }

    func test_aDamagedSourceGivesAnErrorAndLeavesNoFile() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        for n in 0..<300 { try Self.appendTransaction(database, first: n * 10) }
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try database.close()
        // Garbage over pages 2 to 5, the tables' b-trees.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path("clup.sqlite")))
        try handle.seek(toOffset: 4096)
        handle.write(Data(repeating: 0xA5, count: 4 * 4096))
        try handle.close()

        XCTAssertThrowsError(try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"))) { error in
            let coded = (error as? TotemBackup.Failure)?.coded
            XCTAssertEqual(coded?.code, ErrorCode.damagedDatabase.rawValue, "\(error)")
        }
        XCTAssertEqual(try leftovers(), [], "files left behind")
    }

    func test_pruningKeepsTheNewestCopiesAndTouchesNothingElse() throws {
        let names = ["clupd-20261101T000000Z-v7.sqlite", "clupd-20261102T000000Z-v7.sqlite",
                     "clupd-20261103T000000Z-v8.sqlite", "clupd-20261104T000000Z-v8.sqlite",
                     "notes.txt", "clupd.sqlite", "other-20261101.sqlite"]
        for name in names { FileManager.default.createFile(atPath: path(name), contents: Data("x".utf8)) }
        let removed = try TotemBackup.prune(folder: directory.path, keep: 2)
        // The newest two, and the newest v7 (the last copy of the schema before v8).
        XCTAssertEqual(removed.map { ($0 as NSString).lastPathComponent }, ["clupd-20261101T000000Z-v7.sqlite"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
                       ["clupd-20261102T000000Z-v7.sqlite", "clupd-20261103T000000Z-v8.sqlite", "clupd-20261104T000000Z-v8.sqlite",
                        "clupd.sqlite", "notes.txt", "other-20261101.sqlite"])
    }

    /// Without --to, into the backups folder; the copy just taken is kept whatever else is there.
    func test_theCopiesGoToTheBackupsFolderWhereTheNewestAreKept() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        try Self.appendTransaction(database, first: 0)
        var taken: [String] = []
        for second in 0..<4 {
            let now = Date(timeIntervalSince1970: 1_795_000_000 + Double(second))
            guard case let .copied(copy, removed, failure) = try TotemBackup.run(stateDirectory: directory.path, to: nil, keep: 3, now: now)
            else { return XCTFail("no copy") }
            XCTAssertNil(failure)
            XCTAssertEqual(copy.path, path("backups") + "/" + TotemBackup.fileName(at: now, schema: TotemDatabase.migrator.migrations.last))
            XCTAssertEqual(copy.events, 10)
            XCTAssertEqual(removed, second == 3 ? [taken[0]] : [])
            taken.append(copy.path)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("backups")).sorted(),
                       taken.dropFirst().map { ($0 as NSString).lastPathComponent })
        // A copy named by hand sorts after every dated one; the one just taken stays all the
        // same, and the newest copy of a schema is kept (a name by hand is a schema of its own).
        FileManager.default.createFile(atPath: path("backups/clupd-before-the-upgrade.sqlite"), contents: Data("x".utf8))
        guard case let .copied(copy, removed, _) = try TotemBackup.run(stateDirectory: directory.path, to: nil, keep: 1) else {
            return XCTFail("no copy")
        }
        XCTAssertEqual(removed.sorted(), taken.dropFirst().sorted())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("backups")).sorted(),
                       ["clupd-before-the-upgrade.sqlite", (copy.path as NSString).lastPathComponent].sorted())
    }

    func test_aFirstInstallHasNothingToBackUp() throws {
        XCTAssertEqual(try TotemBackup.run(stateDirectory: directory.path, to: nil, keep: 3), .noDatabase)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "a backups folder for nothing")
    }

    /// `--to copy.sqlite`: beside the working folder, the temporary file too (not in /).
    func test_aBareFileNameIsACopyInTheWorkingFolder() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        try Self.appendTransaction(database, first: 0)
        let working = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory.path))
        defer { FileManager.default.changeCurrentDirectoryPath(working) }
        XCTAssertEqual(TotemBackup.folder(of: "copy.sqlite"), ".")
        let copy = try TotemBackup.copy(database: path("clup.sqlite"), to: "copy.sqlite")
        XCTAssertEqual(copy.events, 10)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("copy.sqlite")))
    }

    func test_theDatabaseIsNeverCopiedOverItself() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        try Self.appendTransaction(database, first: 0)
        XCTAssertThrowsError(try TotemBackup.copy(database: path("clup.sqlite"), to: directory.path + "/./clup.sqlite")) { error in
            XCTAssertEqual(error as? TotemBackup.Failure, .sameFile(path: self.directory.path + "/./clup.sqlite"))
        }
        XCTAssertEqual(try database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM event") }, 10)
    }

    /// SQLite's "database or disk is full" while copying (a page limit stands for the disk).
    func test_aFullDiskGivesAnErrorAndLeavesNoFile() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        for n in 0..<300 { try Self.appendTransaction(database, first: n * 10) }
        XCTAssertThrowsError(try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"), pageLimit: 4)) { error in
            let coded = (error as? TotemBackup.Failure)?.coded
            XCTAssertEqual(coded?.code, ErrorCode.diskFull.rawValue, "\(error)")
            XCTAssertEqual(coded?.message, "the disk holding \(self.directory.path) is full (SQLite: 13 (database or disk is full)); no copy was kept")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.sqlite")))
        XCTAssertEqual(try leftovers(), [], "files left behind")
    }

    func test_pruningLeavesFoldersAndLinksAlone() throws {
        try FileManager.default.createDirectory(atPath: path("clupd-20261101T000000Z-v7.sqlite"), withIntermediateDirectories: false)
        FileManager.default.createFile(atPath: path("clupd-20261102T000000Z-v7.sqlite"), contents: Data("x".utf8))
        FileManager.default.createFile(atPath: path("target"), contents: Data("x".utf8))
        try FileManager.default.createSymbolicLink(atPath: path("clupd-20261103T000000Z-v7.sqlite"), withDestinationPath: path("target"))
        FileManager.default.createFile(atPath: path("clupd-20261104T000000Z-v8.sqlite"), contents: Data("x".utf8))
        FileManager.default.createFile(atPath: path("clupd-20261105T000000Z-v8.sqlite"), contents: Data("x".utf8))
        XCTAssertEqual(try TotemBackup.prune(folder: directory.path, keep: 1), [path("clupd-20261104T000000Z-v8.sqlite")])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
                       ["clupd-20261101T000000Z-v7.sqlite", "clupd-20261102T000000Z-v7.sqlite", "clupd-20261103T000000Z-v7.sqlite",
                        "clupd-20261105T000000Z-v8.sqlite", "target"])
    }
}
