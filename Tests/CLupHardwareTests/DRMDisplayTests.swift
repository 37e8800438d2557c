import CLupCore
import CLupDrawing
import CLupHardware
import Foundation
import XCTest

/// The DRM display where there is no card to drive (this machine has none; the VM's tests,
/// Tests/integration/drm.test.sh, drive real ones): what a technician is told.
final class DRMDisplayTests: XCTestCase {
    func test_aPathThatIsNoCardIsMissingWithTheReasonAndFramesAreRefused() throws {
        let display = DRMDisplay(card: DRMCard(path: "/dev/null", loop: nil), connector: nil, rotation: .none,
                                 fallbackWidth: 720, fallbackHeight: 1280)
        XCTAssertEqual([display.width, display.height], [720, 1280], "the configured size while there is no card")
        XCTAssertEqual(display.health.state, .missing)
        XCTAssertEqual(display.health.backend, "drm")
        XCTAssertTrue(display.health.detail.contains("/dev/null: not a DRM card"), display.health.detail)
        XCTAssertThrowsError(try display.show(try Canvas(width: 720, height: 1280))) { error in
            XCTAssertTrue("\(error)".contains("not a DRM card"), "\(error)")
        }
        XCTAssertThrowsError(try display.sleep())
    }

    func test_aCardThatIsNotThereIsMissingAndTheScreensKeepTheConfiguredSize() {
        let display = DRMDisplay(card: DRMCard(path: "/dev/dri/card-absent", loop: nil), connector: "HDMI-A-2", rotation: .quarter,
                                 fallbackWidth: 1280, fallbackHeight: 720)
        XCTAssertEqual(display.health.state, .missing)
        XCTAssertTrue(display.health.detail.contains("/dev/dri/card-absent HDMI-A-2: No such file or directory"),
                      display.health.detail)
        XCTAssertFalse(display.noticeSizeChange())
        XCTAssertEqual([display.width, display.height], [1280, 720])
    }

    func test_noCardWithAConnectorMeansTheFramebuffer() {
        // Without /dev/dri (this machine; a VM's has one: drm.test.sh) `mode = "linux"` falls
        // back to /dev/fb0; with it, the card found is one of its nodes.
        let first = DRMCard.firstWithConnectors()
        if FileManager.default.fileExists(atPath: "/dev/dri") {
            XCTAssertTrue(first.map { $0.hasPrefix("/dev/dri/card") } ?? true, "\(first ?? "")")
        } else {
            XCTAssertNil(first)
        }
    }
}
