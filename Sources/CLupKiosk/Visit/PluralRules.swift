import CPlurals

/// CLDR's plural rules, from the ICU Foundation links in: which form of a counted text a number takes
/// in a language ("one", "many", "other"…). French counts 0 as "one"; Italian, French and
/// Spanish say "many" for a round million ("1000000 de personnes").
enum PluralRules {
    /// The category of `count` in `language`; "other" where ICU cannot tell.
    static func category(of count: Int, in language: String) -> String {
        var buffer = [CChar](repeating: 0, count: 16)
        let length = buffer.withUnsafeMutableBufferPointer { clup_plural_category(language, Double(count), $0.baseAddress, 16) }
        guard length > 0 else { return "other" }
        return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The categories `language` uses (its catalog has a form for each).
    static func categories(of language: String) -> Set<String> {
        var buffer = [CChar](repeating: 0, count: 64)
        let length = buffer.withUnsafeMutableBufferPointer { clup_plural_categories(language, $0.baseAddress, 64) }
        guard length > 0 else { return ["other"] }
        let text = String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Set(text.split(separator: " ").map(String.init))
    }
}
