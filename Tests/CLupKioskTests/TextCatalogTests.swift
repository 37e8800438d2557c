import CLupCore
import CLupDrawing
@testable import CLupKiosk
import XCTest

/// The texts as data: every language has every text, with the same placeholders.
final class TextCatalogTests: XCTestCase {
    func test_everyLanguageHasACatalogThatLoads() {
        XCTAssertEqual(Set(TextCatalog.all.keys), Set(TextCatalog.languages))
        XCTAssertEqual(CustomerTexts.supported, ["it", "en", "fr", "de", "es"])
        XCTAssertEqual(TextCatalog.languages.map { TextCatalog.of($0).name }, ["Italiano", "English", "Français", "Deutsch", "Español"])
    }

    func test_everyKeyIsInEveryLanguageWithTheSamePlaceholders() {
        let english = TextCatalog.of("en")
        for language in TextCatalog.languages {
            let catalog = TextCatalog.of(language)
            XCTAssertEqual(Set(catalog.texts.keys), Set(TextKey.allCases.map(\.rawValue)), "\(language): texts")
            XCTAssertEqual(Set(catalog.plurals.keys), Set(PluralKey.allCases.map(\.rawValue)), "\(language): plurals")
            for key in TextKey.allCases {
                XCTAssertEqual(TextCatalog.placeholders(of: catalog.texts[key.rawValue] ?? ""),
                               TextCatalog.placeholders(of: english.texts[key.rawValue] ?? ""), "\(language): \(key.rawValue)")
                XCTAssertFalse((catalog.texts[key.rawValue] ?? "").isEmpty, "\(language): \(key.rawValue)")
            }
            for key in PluralKey.allCases {
                let forms = catalog.plurals[key.rawValue] ?? [:]
                // A form for each of CLDR's categories the language uses, as ICU has them.
                XCTAssertEqual(Set(forms.keys), PluralRules.categories(of: language), "\(language): \(key.rawValue)")
                for form in forms.values {
                    XCTAssertEqual(TextCatalog.placeholders(of: form), ["count"], "\(language): \(key.rawValue)")
                }
            }
        }
    }

    func test_textsAreFilledAndCountedByEachLanguagesRule() {
        let italian = TextCatalog.of("it"), french = TextCatalog.of("fr"), english = TextCatalog.of("en")
        XCTAssertEqual(italian(.welcomeInside, ["inside": "3", "capacity": "30"]), "Dentro ora: 3 su 30")
        XCTAssertEqual(english.plural(.welcomeWaiting, count: 1), "1 person waiting")
        XCTAssertEqual(english.plural(.welcomeWaiting, count: 0), "0 people waiting")
        XCTAssertEqual(french.plural(.welcomeWaiting, count: 0), "0 personne en attente", "French counts 0 as one")
        XCTAssertEqual(french.plural(.welcomeWaiting, count: 2), "2 personnes en attente")
        // CLDR's third form: a round million takes "de" / "di" (CLDR 42, ICU 72).
        XCTAssertEqual(french.plural(.welcomeWaiting, count: 1_000_000), "1000000 de personnes en attente")
        XCTAssertEqual(italian.plural(.welcomeWaiting, count: 1_000_000), "1000000 di persone in attesa")
        XCTAssertEqual(italian.plural(.welcomeWaiting, count: 0), "0 persone in attesa", "Italian counts 0 as other")
        XCTAssertEqual(TextCatalog.of("es").plural(.welcomeWaiting, count: 2_000_000), "2000000 de personas esperando")
        XCTAssertEqual(TextCatalog.of("de").plural(.welcomeWaiting, count: 1_000_000), "1000000 Personen warten")
        XCTAssertEqual(PluralRules.categories(of: "en"), ["one", "other"])
        XCTAssertEqual(italian.wait(WaitEstimate(low: 0, high: 0)), "nessuna attesa")
        XCTAssertEqual(italian.wait(WaitEstimate(low: 12, high: 12)), "circa 12 min")
        XCTAssertEqual(TextCatalog.of("de").wait(WaitEstimate(low: 10, high: 18)), "10–18 Min.")
        XCTAssertEqual(TextCatalog.of("xx").language, "en", "a language without a catalog speaks English")
    }

    func test_aTicketOnScreenAndAloudIsInTheCustomersLanguage() {
        let italian = CustomerTexts(language: "it")
        XCTAssertEqual(italian.spoken(.ticketReady(number: "A-017", wait: ""), after: .printing(number: "A-017")),
                       "Il vostro numero è A 17. Prendete il biglietto e scansionatelo all'ingresso quando viene chiamato.")
        XCTAssertEqual(italian.laneLabel(.priority), "Biglietto prioritario")
        XCTAssertEqual(italian.bookedTime("14:30", from: "14:20", to: "14:45"), "Il vostro orario: 14:30 (dalle 14:20 alle 14:45)")
    }

    /// Every text of every catalog, as the screens draw it (Pango, DejaVu Sans and what
    /// fontconfig finds beside it), in normal and bold: no character comes out as a box.
    func test_everyTextOfEveryLanguageHasAGlyphForEachCharacter() throws {
        let canvas = try Canvas(width: 16, height: 16)
        for language in TextCatalog.languages {
            let catalog = TextCatalog.of(language)
            let strings = [catalog.name] + Array(catalog.texts.values) + catalog.plurals.values.flatMap(\.values)
            XCTAssertGreaterThan(strings.count, 50, language)
            for string in strings {
                for bold in [false, true] {
                    XCTAssertEqual(canvas.unknownGlyphs(in: string, bold: bold), 0, "\(language): \"\(string)\" has a character no font has")
                }
            }
        }
        // The check itself: a character of a private use area has no glyph anywhere.
        XCTAssertEqual(canvas.unknownGlyphs(in: "A\u{F0000}B"), 1)
    }
}
