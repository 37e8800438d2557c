import CLupCore
import QueueSimulation
import XCTest

final class Base45Tests: XCTestCase {
    /// The examples of RFC 9285, section 4.
    func test_encodesTheRFCExamples() {
        XCTAssertEqual(Base45.encode(Array("AB".utf8)), "BB8")
        XCTAssertEqual(Base45.encode(Array("Hello!!".utf8)), "%69 VD92EX0")
        XCTAssertEqual(Base45.encode(Array("base-45".utf8)), "UJCLQE7W581")
    }

    func test_decodesTheRFCExamples() throws {
        XCTAssertEqual(try Base45.decode("QED8WEX0"), Array("ietf!".utf8))
        XCTAssertEqual(try Base45.decode("%69 VD92EX0"), Array("Hello!!".utf8))
    }

    func test_roundTripsEveryLengthUpTo100() throws {
        var generator = SeededGenerator(seed: 45)
        for length in 0...100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            XCTAssertEqual(try Base45.decode(Base45.encode(bytes)), bytes, "length \(length)")
        }
    }

    func test_refusesCharactersOutsideTheAlphabet() {
        XCTAssertThrowsError(try Base45.decode("ab8")) { error in
            XCTAssertEqual(error as? Base45.DecodingError, .invalidCharacter(position: 0))
        }
    }

    func test_refusesALengthThatLeavesOneCharacter() {
        XCTAssertThrowsError(try Base45.decode("BB8B")) { error in
            XCTAssertEqual(error as? Base45.DecodingError, .invalidLength)
        }
    }

    func test_refusesTriplesAbove65535() {
        // "GGW" = 16 + 16·45 + 32·2025 = 65536.
        XCTAssertThrowsError(try Base45.decode("GGW")) { error in
            XCTAssertEqual(error as? Base45.DecodingError, .valueOutOfRange(position: 0))
        }
    }
}
