import CLupCore
import QueueSimulation
import Crypto
import Foundation
import XCTest

/// The signed ticket code as the door checks it, offline.
final class TicketCodeTests: XCTestCase {
    let key = Curve25519.Signing.PrivateKey()
    let issued = Date(timeIntervalSince1970: 1_795_000_000)
    var keyring: TicketKeyring { TicketKeyring(store: 7, keys: ["A": key.publicKey]) }

    var payload: TicketPayload {
        TicketPayload(store: 7, number: TicketNumber(totem: "A", lane: .regular, sequence: 17),
                      issuedAt: issued, validMinutes: 240)
    }

    func test_aGenuineCodeVerifiesToItsPayload() throws {
        let code = TicketCode.make(payload, signedWith: key)
        XCTAssertEqual(code.count, 119)
        XCTAssertEqual(try keyring.verify(code, at: issued.addingTimeInterval(60)), payload)
    }

    func test_flippingAnySingleBitIsRejected() throws {
        let code = TicketCode.make(payload, signedWith: key)
        let bytes = try Base45.decode(code)
        for index in bytes.indices {
            for bit in 0..<8 {
                var forged = bytes
                forged[index] ^= 1 << bit
                XCTAssertThrowsError(try keyring.verify(Base45.encode(forged), at: issued), "byte \(index) bit \(bit)")
            }
        }
    }

    func test_changingAnySingleCharacterIsRejected() {
        let code = Array(TicketCode.make(payload, signedWith: key))
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:a\u{0}")
        for index in code.indices {
            for replacement in alphabet where replacement != code[index] {
                var forged = code
                forged[index] = replacement
                XCTAssertThrowsError(try keyring.verify(String(forged), at: issued), "position \(index) as \(replacement)")
            }
        }
    }

    func test_aCodeSignedByAnUnknownKeyIsForged() {
        let code = TicketCode.make(payload, signedWith: Curve25519.Signing.PrivateKey())
        XCTAssertThrowsError(try keyring.verify(code, at: issued)) { error in
            XCTAssertEqual(error as? Refusal, .forged)
        }
    }

    func test_aCodeOfAnotherTotemIsCheckedWithThatTotemsKey() throws {
        let other = Curve25519.Signing.PrivateKey()
        let fromB = TicketPayload(store: 7, number: TicketNumber(totem: "B", lane: .priority, sequence: 3),
                                  issuedAt: issued, validMinutes: 240)
        let code = TicketCode.make(fromB, signedWith: other)
        XCTAssertThrowsError(try keyring.verify(code, at: issued)) { error in
            XCTAssertEqual(error as? Refusal, .unknownTotem("B"))
        }
        let both = TicketKeyring(store: 7, keys: ["A": key.publicKey, "B": other.publicKey])
        XCTAssertEqual(try both.verify(code, at: issued), fromB)
    }

    func test_aTicketOfAnotherStoreIsRefused() {
        let elsewhere = TicketPayload(store: 8, number: payload.number, issuedAt: issued, validMinutes: 240)
        XCTAssertThrowsError(try keyring.verify(TicketCode.make(elsewhere, signedWith: key), at: issued)) { error in
            XCTAssertEqual(error as? Refusal, .otherStore(8))
        }
    }

    func test_anExpiredTicketIsRefused() {
        let code = TicketCode.make(payload, signedWith: key)
        XCTAssertNoThrow(try keyring.verify(code, at: issued.addingTimeInterval(240 * 60)))
        XCTAssertThrowsError(try keyring.verify(code, at: issued.addingTimeInterval(240 * 60 + 1))) { error in
            XCTAssertEqual(error as? Refusal, .expired("A-017"))
        }
    }

    func test_anyTextFromTheReaderIsRefusedWithAReasonNeverACrash() {
        let samples = ["", " ", String(repeating: "A", count: 100_000), "\u{0}\u{1}\u{FF}", "A-017",
                       String(TicketCode.make(payload, signedWith: key).dropLast(1)),
                       String(TicketCode.make(payload, signedWith: key).dropLast(3)),
                       TicketCode.make(payload, signedWith: key) + "00"]
        for sample in samples {
            XCTAssertThrowsError(try keyring.verify(sample, at: issued)) { error in
                XCTAssertFalse(String(describing: error).isEmpty)
            }
        }
        var random = SeededGenerator(seed: 4)
        let genuine = Array(TicketCode.make(payload, signedWith: key).utf8)
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int.random(in: 0...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            } else {
                bytes = genuine
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                if bytes == genuine { continue }
            }
            XCTAssertThrowsError(try keyring.verify(String(decoding: bytes, as: UTF8.self), at: issued))
        }
    }
}
