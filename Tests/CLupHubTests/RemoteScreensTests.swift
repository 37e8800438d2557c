@testable import CLupHub
import CLupCore
import CLupProtocol
import Foundation
import XCTest

/// A totem's screen from the panel: asked by whom may, on the totem's line, answered once
/// by that totem only, shown to whom may, forgotten after 10 minutes; each ask audited.
final class RemoteScreensTests: XCTestCase {
    let ada = PanelAccounts.Manager(name: "ada", role: .storeManager, store: "7")
    let bob = PanelAccounts.Manager(name: "bob", role: .storeManager, store: "8")
    let root = PanelAccounts.Manager(name: "root", role: .chainAdmin, store: nil)
    /// A PNG's signature and header: 720 × 1280.
    func png(width: UInt32 = 720, height: UInt32 = 1280) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
            + withUnsafeBytes(of: width.bigEndian) { Data($0) } + withUnsafeBytes(of: height.bigEndian) { Data($0) } + Data([8, 6, 0, 0, 0])
    }

    func test_aLookIsAskedOnTheTotemsLineAnsweredOnceByItAndForgottenAfterTenMinutes() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let b = try await hub.enrol("B", door: "south")
            let screens = RemoteScreens(database: hub.database)
            let asked = Date()
            let id = try await screens.ask(a.device.deviceID, for: ada, by: .panel("ada", from: "127.0.0.1"), now: asked)
            let taken = asked.timeIntervalSince1970 + 1
            let line = try await hub.database.transaction { connection in
                try await RemoteLine.line(store: "7", device: a.device.deviceID, connection, hub.database.logger)
            }
            XCTAssertEqual(line.screenWanted, ScreenWanted(id: id, by: "ada"))
            XCTAssertNil(line.problem)
            let other = try await hub.database.transaction { connection in
                try await RemoteLine.line(store: "7", device: b.device.deviceID, connection, hub.database.logger)
            }
            XCTAssertNil(other.screenWanted, "another totem's line does not carry it")
            XCTAssertEqual(try hub.sql("SELECT who || ' ' || action || ' ' || after FROM audit WHERE action = 'totem screen asked'"),
                           "ada totem screen asked \(a.device.deviceID)")
            // Waiting: no frame yet.
            var look = try await screens.look(id, for: ada, now: asked.addingTimeInterval(1))
            XCTAssertNil(look?.frame)
            // Another totem cannot answer it; a frame that is no PNG, a picture no screen is, a
            // time an hour off: refused.
            for (frame, device) in [(ScreenFrame(request: id, png: png(), takenAt: taken), b.device.deviceID),
                                    (ScreenFrame(request: id, png: Data("<svg/>".utf8), takenAt: taken), a.device.deviceID),
                                    (ScreenFrame(request: id, png: png(width: 100_000, height: 1), takenAt: taken), a.device.deviceID),
                                    (ScreenFrame(request: id, png: png(), takenAt: taken + 3600), a.device.deviceID)] {
                do {
                    try await screens.take(frame, from: device, now: asked.addingTimeInterval(2))
                    XCTFail("a frame was taken from \(device)")
                } catch is HubError {}
            }
            try await screens.take(ScreenFrame(request: id, png: png(), takenAt: taken), from: a.device.deviceID, now: asked.addingTimeInterval(2))
            do {
                try await screens.take(ScreenFrame(request: id, png: png(), takenAt: taken + 1), from: a.device.deviceID, now: asked.addingTimeInterval(3))
                XCTFail("a request was answered twice")
            } catch is HubError {}
            look = try await screens.look(id, for: root, now: asked.addingTimeInterval(4))
            XCTAssertEqual(look?.frame, png())
            XCTAssertEqual(look?.takenAt?.timeIntervalSince1970 ?? 0, taken, accuracy: 0.001)
            // Answered: off the line.
            let after = try await hub.database.transaction { connection in
                try await RemoteLine.line(store: "7", device: a.device.deviceID, connection, hub.database.logger)
            }
            XCTAssertNil(after.screenWanted)
            // Ten minutes on, gone: the frame is not kept.
            let gone = try await screens.look(id, for: ada, now: asked.addingTimeInterval(RemoteScreens.kept + 1))
            XCTAssertNil(gone)
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM screen_request"), "0")
        }
    }

    func test_twoAsksAtOnceAreAnsweredByOneFrame() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let screens = RemoteScreens(database: hub.database)
            let first = try await screens.ask(a.device.deviceID, for: ada, by: .panel("ada", from: "127.0.0.1"))
            let second = try await screens.ask(a.device.deviceID, for: root, by: .panel("root", from: "127.0.0.1"))
            let line = try await hub.database.transaction { connection in
                try await RemoteLine.line(store: "7", device: a.device.deviceID, connection, hub.database.logger)
            }
            XCTAssertEqual(line.screenWanted, ScreenWanted(id: second, by: "ada, root"))
            try await screens.take(ScreenFrame(request: second, png: png(), takenAt: Date().timeIntervalSince1970), from: a.device.deviceID)
            for id in [first, second] {
                let look = try await screens.look(id, for: root)
                XCTAssertEqual(look?.frame, png(), id)
            }
        }
    }

    func test_aManagerOfAnotherStoreCannotAskNorLookAndTheRefusalIsAudited() async throws {
        try await withHub { hub in
            let a = try await hub.enrol("A", door: "north")
            let screens = RemoteScreens(database: hub.database)
            do {
                _ = try await screens.ask(a.device.deviceID, for: bob, by: .panel("bob", from: "127.0.0.1"))
                XCTFail("bob asked for store 7's totem")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.errorCode, .panelForbidden)
            }
            XCTAssertEqual(try hub.sql("SELECT who || ' ' || store_id || ' ' || after || ' ' || result FROM audit WHERE action = 'totem screen asked'"),
                           "bob 7 \(a.device.deviceID) refused: E-HUB-022 bob manages store 8 only")
            XCTAssertEqual(try hub.sql("SELECT count(*) FROM screen_request"), "0")
            let id = try await screens.ask(a.device.deviceID, for: ada, by: .panel("ada", from: "127.0.0.1"))
            do {
                _ = try await screens.look(id, for: bob)
                XCTFail("bob looked at store 7's totem")
            } catch let error as HubError {
                XCTAssertEqual(error.coded.errorCode, .panelForbidden)
            }
        }
    }
}
