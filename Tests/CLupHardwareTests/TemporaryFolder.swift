import Foundation
import XCTest

extension XCTestCase {
    /// A fresh folder under the system's temporary folder, its name starting with `prefix`,
    /// removed with everything in it when the test ends.
    func temporaryFolder(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
    }
}
