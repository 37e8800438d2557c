import CLupCore
import Foundation
import XCTest

/// The registry of error codes (`ErrorCode`): each code once, each with its meaning and
/// what to do, every code the sources use listed there, and `docs/errors.md` in step.
final class ErrorRegistryTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func test_eachCodeIsListedOnceWithItsMeaningAndWhatToDo() {
        let codes = ErrorCode.allCases.map(\.rawValue)
        let repeated = Dictionary(grouping: codes, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        XCTAssertEqual(repeated, [], "codes listed twice")
        for code in ErrorCode.allCases {
            XCTAssertNotNil(code.rawValue.range(of: "^E-[A-Z]+-[0-9]{3}$", options: .regularExpression), code.rawValue)
            XCTAssertFalse(code.meaning.isEmpty, code.rawValue)
            XCTAssertFalse(code.action.isEmpty, code.rawValue)
        }
    }

    /// A code written out anywhere but the registry would be one nobody can look up (or a
    /// second meaning for one that is there): code goes through `ErrorCode`.
    func test_noSourceWritesACodeOutsideTheRegistry() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && $0 != "CLupCore/Errors/ErrorCode.swift" }
        XCTAssertGreaterThan(files.count, 100, "the sources were not found")
        var written: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                guard !code.hasPrefix("//"), code.range(of: "E-[A-Z]+-[0-9]{3}", options: .regularExpression) != nil else { continue }
                written.append("\(file):\(index + 1): \(code)")
            }
        }
        XCTAssertEqual(written, [], "use ErrorCode instead")
    }

    func test_docsErrorsIsTheRegistry() throws {
        let committed = try String(contentsOf: Self.root.appendingPathComponent("docs/errors.md"), encoding: .utf8)
        XCTAssertEqual(committed, ErrorCode.markdownCatalog,
                       "docs/errors.md is out of date: write it again with `clupctl errors --markdown > docs/errors.md`")
    }

    func test_aCodedErrorReadsAsCodeAndMessage() {
        let error = CodedError(.outOfPaper, "printer out of paper")
        XCTAssertEqual(error.description, "E-PRN-003 printer out of paper")
        XCTAssertEqual(error.action, ErrorCode.outOfPaper.action)
        XCTAssertEqual(CodedError(describing: Refusal.nobodyWaiting).errorCode, .nobodyWaiting)
        XCTAssertEqual(CodedError(describing: CocoaError(.fileNoSuchFile)).errorCode, .internalError)
    }
}
