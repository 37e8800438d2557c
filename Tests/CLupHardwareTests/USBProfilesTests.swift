import CLupCore
import CLupHardware
import Foundation
import XCTest

final class USBProfilesTests: XCTestCase {
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("hardware/usb-devices.json")

    func test_theShippedProfilesLoadAndMatchByVendorAndProduct() throws {
        let profiles = try USBProfiles.load(path: Self.shipped.path)
        XCTAssertEqual(profiles.match("04B8:0E28")?.role, "printer")
        XCTAssertEqual(profiles.match("0c2e:0b61")?.role, "reader")
        XCTAssertNil(profiles.match("1d6b:0002"), "a root hub is nothing of ours")
        XCTAssertEqual(Set(profiles.profiles.map(\.role)), ["printer", "reader", "touchscreen", "turnstile"])
    }

    func test_aBadIdIsNamed() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("usb-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: path) }
        try Data(#"[{"id": "4b8:e28", "role": "printer", "name": "x"}]"#.utf8).write(to: path)
        XCTAssertThrowsError(try USBProfiles.load(path: path.path)) { error in
            XCTAssertTrue("\(error)".contains("\"4b8:e28\" is not a vendor:product id"), "\(error)")
        }
    }

    func test_enumeratingTheBusGivesDevicesOrSaysWhyNot() {
        // Whatever this machine has: a list (maybe empty in a container) or a reason.
        do {
            let devices = try USBBus.devices()
            XCTAssertTrue(devices.allSatisfy { $0.id.count == 9 })
        } catch {
            XCTAssertTrue(error.description.hasPrefix("E-USB-001"), error.description)
        }
    }
}
