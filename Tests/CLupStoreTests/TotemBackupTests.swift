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

    /// Ten events per transaction, as clupd commits a ticket with its events.
    static func appendTransaction(_ queue: DatabaseQueue, first seq: Int) throws {
        try queue.write { db in
            for n in seq..<(seq + 10) {
                try db.execute(sql: "INSERT INTO event (device_id, seq, wall_time, type, payload) VALUES ('t', ?, 0, 'x', '{}')",
                               arguments: [n])
            }
        }
    }

    func test_aCopyTakenWhileClupdWritesHoldsWholeTransactionsAndEveryOneCommittedBefore() throws {
        let database = try TotemDatabase.open(path: path("clup.sqlite"))
        for n in 0..<200 { try Self.appendTransaction(database, first: n * 10) }
        let writer = Thread {
            for n in 200..<2_000 { try? Self.appendTransaction(database, first: n * 10) }
        }
        writer.start()
        let copy = try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"))
        XCTAssertGreaterThanOrEqual(copy.events, 2_000)
        XCTAssertEqual(copy.events % 10, 0, "a transaction cut in half: \(copy.events) events")
        var readOnly = Configuration()
        readOnly.readonly = true
        let copied = try DatabaseQueue(path: path("copy.sqlite"), configuration: readOnly)
        try copied.read { db in
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT max(seq) + 1 FROM event"), copy.events, "a gap in the copied log")
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA journal_mode"), "delete")
        }
        XCTAssertEqual(copy.schema, TotemDatabase.migrator.migrations.last)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("copy.sqlite-wal")))
        let mode = try FileManager.default.attributesOfItem(atPath: path("copy.sqlite"))[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600)
        while writer.isExecuting { usleep(1_000) }
    }

    /// The copy is taken before the new clupd migrates: it is of the old schema, and
    /// taking it migrates nothing.
    func test_theBackupOfAnOlderSchemaNeitherMigratesTheSourceNorTheCopy() throws {
        let migrations = TotemDatabase.migrator.migrations
        let older = migrations[migrations.count - 2]
        let queue = try DatabaseQueue(path: path("clup.sqlite"))
        try queue.write { db in try db.execute(sql: "PRAGMA application_id = \(TotemDatabase.applicationID)") }
        try TotemDatabase.migrator.migrate(queue, upTo: older)
        try Self.appendTransaction(queue, first: 0)
        try queue.close()

        let copy = try TotemBackup.copy(database: path("clup.sqlite"), to: path("copy.sqlite"))
        XCTAssertEqual(copy.schema, older)
        XCTAssertEqual(copy.events, 10)
        XCTAssertEqual(TotemBackup.schema(of: path("clup.sqlite")), older, "the source was migrated")
        XCTAssertEqual(TotemBackup.fileName(at: Date(timeIntervalSince1970: 1_795_000_000), schema: older),
                       "clupd-20261118T110640.000Z-\(older.split(separator: ":")[0]).sqlite")
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
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix("clup.sqlite") }
        XCTAssertEqual(left, [], "files left behind")
    }

    func test_pruningKeepsTheNewestCopiesAndTouchesNothingElse() throws {
        let names = ["clupd-20261101T000000Z-v7.sqlite", "clupd-20261102T000000Z-v7.sqlite",
                     "clupd-20261103T000000Z-v8.sqlite", "clupd-20261104T000000Z-v8.sqlite",
                     "notes.txt", "clupd.sqlite", "other-20261101.sqlite"]
        for name in names { FileManager.default.createFile(atPath: path(name), contents: Data("x".utf8)) }
        let removed = try TotemBackup.prune(folder: directory.path, keep: 2)
        XCTAssertEqual(removed.map { ($0 as NSString).lastPathComponent },
                       ["clupd-20261101T000000Z-v7.sqlite", "clupd-20261102T000000Z-v7.sqlite"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(),
                       ["clupd-20261103T000000Z-v8.sqlite", "clupd-20261104T000000Z-v8.sqlite", "clupd.sqlite", "notes.txt",
                        "other-20261101.sqlite"])
    }
}
