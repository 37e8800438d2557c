import CLupCore
import QueueSimulation
import Crypto
import Foundation
import XCTest

final class TicketPayloadTests: XCTestCase {
    let issued = Date(timeIntervalSince1970: 1_795_000_000)

    func test_roundTripsThroughBytes() throws {
        let payload = TicketPayload(store: 70_001, number: TicketNumber(totem: "Q", lane: .priority, sequence: 513),
                                    issuedAt: issued, validMinutes: 240)
        let bytes = payload.encoded()
        XCTAssertEqual(bytes.count, TicketPayload.encodedCount)
        XCTAssertEqual(try TicketPayload(decoding: bytes), payload)
    }

    func test_refusesWrongLengthVersionLetterAndLane() {
        let good = TicketPayload(store: 1, number: TicketNumber(totem: "A", lane: .regular, sequence: 1),
                                 issuedAt: issued, validMinutes: 1).encoded()
        func refusal(_ bytes: [UInt8]) -> TicketPayload.DecodingError? {
            do { _ = try TicketPayload(decoding: bytes); return nil } catch { return error }
        }
        XCTAssertEqual(refusal(Array(good.dropLast())), .wrongLength(14))
        var wrong = good; wrong[0] = 9
        XCTAssertEqual(refusal(wrong), .unknownVersion(9))
        wrong = good; wrong[5] = UInt8(ascii: "a")
        XCTAssertEqual(refusal(wrong), .badTotemLetter(UInt8(ascii: "a")))
        wrong = good; wrong[6] = 7
        XCTAssertEqual(refusal(wrong), .unknownLane(7))
        wrong = good; wrong[7] = 0; wrong[8] = 0
        XCTAssertEqual(refusal(wrong), .zeroSequence)
    }

    func test_arbitraryBytesNeverCrashTheDecoder() {
        var generator = SeededGenerator(seed: 15)
        var accepted = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if (try? TicketPayload(decoding: bytes)) != nil { accepted += 1 }
            _ = try? TicketPayload(decoding: Base45.decode(String(decoding: bytes, as: UTF8.self)))
        }
        // Random 15-byte strings almost never carry version 1 and a capital letter.
        XCTAssertLessThan(accepted, 5)
    }

    func test_issuerNumbersAsToldAndEncodesThePayload() throws {
        let issuer = TicketIssuer(store: 7, totem: "A", validMinutes: 120, key: Curve25519.Signing.PrivateKey())
        let day = BusinessDay("2026-11-21")
        let (ticket, event) = issuer.issue(.regular, sequence: 17, businessDay: day,
                                           at: Moment(wall: issued.addingTimeInterval(0.75)))
        XCTAssertEqual(ticket.number.description, "A-017")
        XCTAssertEqual(ticket.state, .printing)
        XCTAssertEqual(ticket.issuedAt, issued, "issue time is kept in whole seconds, as the code carries it")
        XCTAssertEqual(event, .ticketIssued(ticket))
        let payload = try TicketPayload(decoding: Array(Base45.decode(ticket.code).prefix(TicketPayload.encodedCount)))
        XCTAssertEqual(payload, TicketPayload(store: 7, number: ticket.number, issuedAt: issued, validMinutes: 120))
    }

    func test_aHubBookingCarriesItsSlotAndOnlyTheHubsLetter() throws {
        let slot = Date(timeIntervalSince1970: 1_795_000_000)
        let booking = TicketPayload(store: 7, hubBooking: 12, slotStart: slot, slotMinutes: 30)
        XCTAssertEqual(booking.number.description, "ZB-012")
        let bytes = booking.encoded()
        XCTAssertEqual(bytes[0], TicketPayload.hubBookingVersion)
        let decoded = try TicketPayload(decoding: bytes)
        XCTAssertEqual(decoded, booking)
        XCTAssertEqual(decoded.slotStart, slot)
        func refusal(_ bytes: [UInt8]) -> TicketPayload.DecodingError? {
            do { _ = try TicketPayload(decoding: bytes); return nil } catch { return error }
        }
        var wrong = bytes; wrong[5] = UInt8(ascii: "A")
        XCTAssertEqual(refusal(wrong), .letterOfTheOtherIssuer, "a hub booking under a totem's letter")
        wrong = bytes; wrong[6] = Lane.regular.wireCode
        XCTAssertEqual(refusal(wrong), .letterOfTheOtherIssuer, "a hub booking in another lane")
        wrong = bytes; wrong[0] = TicketPayload.currentVersion
        XCTAssertEqual(refusal(wrong), .letterOfTheOtherIssuer, "a totem's ticket under the hub's letter")
    }
}
