import CLupCore
@testable import CLupPrinting
import Crypto
import Foundation
import XCTest

/// A ticket in each of the kiosk's languages, on each ESC/POS profile, read back as the
/// printer would print it (the bytes decoded by glibc's iconv, not by our tables).
final class EscPosLanguagesTests: XCTestCase {
    static let languages = ["it", "de", "fr", "es", "en"]
    /// The profiles' page names as iconv calls them.
    static let iconvNames = ["pc437": "CP437", "pc850": "CP850", "pc858": "CP858", "wpc1252": "CP1252",
                             "pc852": "CP852", "pc866": "CP866"]

    static let code: String = {
        let payload = TicketPayload(store: 7, number: TicketNumber(totem: "A", lane: .regular, sequence: 17),
                                    issuedAt: Date(timeIntervalSince1970: 1_795_000_000), validMinutes: 240)
        return TicketCode.make(payload, signedWith: Curve25519.Signing.PrivateKey())
    }()

    /// The kiosk's texts in `language`, from its catalog.
    static func catalog(_ language: String) throws -> [String: String] {
        struct Catalog: Decodable { let texts: [String: String] }
        let url = PrivateCUPS.repositoryRoot.appendingPathComponent("Sources/CLupKiosk/Texts/\(language).json")
        return try JSONDecoder().decode(Catalog.self, from: Data(contentsOf: url)).texts
    }

    /// The ticket a customer who chose `language` gets, with the catalogs' own sentences.
    static func ticket(in language: String, store: String = "Groß-Markt Café €") throws -> TicketContent {
        let first = try Self.catalog(language)
        let others = try Self.languages.filter { $0 != language }.map(Self.catalog)
        return TicketContent(storeName: store, number: "A-017", laneLabel: try XCTUnwrap(first["ticket.lane.priority"]),
                             issuedAt: "2026-11-24 10:02",
                             estimatedWait: try XCTUnwrap(first["ticket.wait"]).replacingOccurrences(of: "{wait}", with: "7–15 min"),
                             code: Self.code, instructions: try ([first] + others).map { try XCTUnwrap($0["ticket.scan"]) })
    }

    static func escPosProfiles() throws -> [(String, PrinterProfile)] {
        let folder = EscPosTicketTests.profiles
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("escpos") }.sorted().map {
            ($0, try PrinterProfile.load(path: folder.appendingPathComponent($0).path))
        }
    }

    static func read(_ bytes: [UInt8], _ profile: PrinterProfile) throws -> EscPosReader {
        try EscPosReader(bytes, codePages: Dictionary(uniqueKeysWithValues: profile.codePages.map {
            ($0.select, iconvNames[$0.name] ?? "?")
        }))
    }

    func test_everyLanguageKeepsItsAccentsAndBreaksOnlyBetweenWordsOnEveryProfile() throws {
        let profiles = try Self.escPosProfiles()
        XCTAssertEqual(profiles.count, 3)
        for (file, profile) in profiles {
            for language in Self.languages {
                let content = try Self.ticket(in: language)
                let printed = try Self.read(EscPosTicket(profile: profile).encode(content), profile)
                let label = "\(file), \(language)"
                XCTAssertTrue(printed.rasters.count <= 1, "\(label): only the QR is a picture")
                for line in printed.lines {
                    let fits = profile.dotsPerLine / (EscPosTicket.characterDots * line.scale)
                    XCTAssertLessThanOrEqual(line.text.count, fits, "\(label): \"\(line.text)\" is wider than the paper")
                    XCTAssertFalse(line.text.contains("?"), "\(label): \"\(line.text)\" lost a character")
                }
                // Joined again with spaces, the lines are the ticket's texts: every letter
                // kept, and every break between two words. (A page without – prints -.)
                let expected = ([content.storeName, content.number, content.laneLabel, content.estimatedWait, content.issuedAt]
                    + content.instructions).joined(separator: " ")
                let read = printed.lines.map(\.text).joined(separator: " ")
                XCTAssertEqual(read.replacingOccurrences(of: "–", with: "-"), expected.replacingOccurrences(of: "–", with: "-"),
                               label)
            }
        }
    }

    func test_theGermanTicketSaysGeschätzteAndTheEuroInAPageThatHasThem() throws {
        let profile = try PrinterProfile.load(path: EscPosTicketTests.profiles.appendingPathComponent("escpos-80mm-native-qr.json").path)
        let printed = try Self.read(EscPosTicket(profile: profile).encode(Self.ticket(in: "de")), profile)
        let store = try XCTUnwrap(printed.lines.first)
        XCTAssertEqual(store.text, "Groß-Markt Café €")
        XCTAssertEqual(store.codePage, 19, "PC858 on this model: the first of its pages with €")
        XCTAssertTrue(printed.lines.contains { $0.text.hasPrefix("Geschätzte Wartezeit: 7") })
    }

    func test_aStoreNameNoPageHoldsIsPrintedAsAPictureNeverAsQuestionMarks() throws {
        let profile = try PrinterProfile.load(path: EscPosTicketTests.profiles.appendingPathComponent("escpos-80mm-raster.json").path)
        let content = try Self.ticket(in: "it", store: "Αθήνα Αγορά")
        let printed = try Self.read(EscPosTicket(profile: profile).encode(content), profile)
        XCTAssertFalse(printed.lines.contains { $0.text.contains("?") })
        XCTAssertFalse(printed.lines.contains { $0.text.contains("Αθήνα") }, "no page of this profile holds it")
        XCTAssertEqual(printed.rasters.count, 2, "the store's name and the QR")
        let name = try XCTUnwrap(printed.rasters.first)
        XCTAssertLessThanOrEqual(name.bytesPerRow * 8, profile.dotsPerLine)
        let black = name.bits.reduce(0) { $0 + $1.nonzeroBitCount }
        XCTAssertGreaterThan(black, 200, "the name is drawn")
        XCTAssertLessThan(black, name.bits.count * 8 / 2, "and is not a black bar")
    }

    func test_aWordLongerThanALineIsSplitWithAHyphen() {
        XCTAssertEqual(EscPosLines.wrap("Donaudampfschifffahrtsgesellschaft ok", width: 12),
                       ["Donaudampfs-", "chifffahrts-", "gesellschaft", "ok"])
        XCTAssertEqual(EscPosLines.wrap("  ", width: 12), [""])
        XCTAssertEqual(EscPosLines.normalized("Cafe\u{301}\u{A0}\u{A0}al\ncorner"), "Café al corner")
    }

    func test_eachPageAgreesWithIconvOnEveryByte() throws {
        for page in CodePage.known {
            let name = try XCTUnwrap(Self.iconvNames[page.name], page.name)
            for byte in UInt8(0x20)...UInt8(0xFF) where byte != 0x7F {
                let ours = page.character(for: byte).map(String.init)
                let glibc = try? EscPosReader.decode([byte], from: name)
                XCTAssertEqual(ours, glibc, "\(page.name) byte \(String(byte, radix: 16))")
            }
        }
    }
}
