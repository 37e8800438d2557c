import Foundation

/// One of a thermal printer's built-in character tables: ASCII below 0x80, and above it the
/// 128 characters of this page. A printer switches pages with `ESC t n`, where `n` is the
/// model's own number for the page; printer profiles name the pages a model has and their
/// numbers (`PrinterProfile.codePages`).
public struct CodePage: Sendable, Equatable {
    /// The name profiles use: "pc858", "wpc1252" (lower case, as Epson's manuals name them).
    public let name: String
    /// Bytes 0x80...0xFF, in order; U+FFFD where the page has no character.
    private let upperHalf: [Unicode.Scalar]
    private let byteOf: [Unicode.Scalar: UInt8]

    init(name: String, upperHalf rows: [String]) {
        self.name = name
        upperHalf = rows.flatMap(\.unicodeScalars)
        precondition(upperHalf.count == 128, "code page \(name) has \(upperHalf.count) characters above 0x7F, not 128")
        var byteOf: [Unicode.Scalar: UInt8] = [:]
        for (offset, scalar) in upperHalf.enumerated() where scalar != "\u{FFFD}" && byteOf[scalar] == nil {
            byteOf[scalar] = UInt8(0x80 + offset)
        }
        self.byteOf = byteOf
    }

    /// The byte for `scalar` on this page, or nil: printable ASCII is itself; a control
    /// character never reaches the printer.
    public func byte(for scalar: Unicode.Scalar) -> UInt8? {
        if (0x20..<0x7F).contains(scalar.value) { return UInt8(scalar.value) }
        return byteOf[scalar]
    }

    /// `text` in this page, or nil when the page lacks one of its characters.
    public func encode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            guard let byte = byte(for: scalar) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// What byte `byte` prints on this page.
    public func character(for byte: UInt8) -> Unicode.Scalar? {
        if byte >= 0x80 {
            let scalar = upperHalf[Int(byte) - 0x80]
            return scalar == "\u{FFFD}" ? nil : scalar
        }
        return (0x20..<0x7F).contains(byte) ? Unicode.Scalar(byte) : nil
    }

    /// The pages this project knows, by name.
    public static func named(_ name: String) -> CodePage? {
        known.first { $0.name == name }
    }

    /// Every page a profile may name. The tables are the code pages as published (and as
    /// glibc's iconv has them, which the tests check byte by byte).
    public static let known: [CodePage] = [
        /// PC437 (USA, standard Europe): accents of French, German, Spanish and Italian lower case, no €.
        CodePage(name: "pc437", upperHalf: [
            "ÇüéâäàåçêëèïîìÄÅ",
            "ÉæÆôöòûùÿÖÜ¢£¥₧ƒ",
            "áíóúñÑªº¿⌐¬½¼¡«»",
            "░▒▓│┤╡╢╖╕╣║╗╝╜╛┐",
            "└┴┬├─┼╞╟╚╔╩╦╠═╬╧",
            "╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀",
            "αßΓπΣσµτΦΘΩδ∞φε∩",
            "≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u{A0}",
        ]),
        /// PC850 (Multilingual Latin 1): every Western European letter, no €.
        CodePage(name: "pc850", upperHalf: [
            "ÇüéâäàåçêëèïîìÄÅ",
            "ÉæÆôöòûùÿÖÜø£Ø×ƒ",
            "áíóúñÑªº¿®¬½¼¡«»",
            "░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐",
            "└┴┬├─┼ãÃ╚╔╩╦╠═╬¤",
            "ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀",
            "ÓßÔÒõÕµþÞÚÛÙýÝ¯´",
            "\u{AD}±‗¾¶§÷¸°¨·¹³²■\u{A0}",
        ]),
        /// PC858 (Multilingual Latin 1 with €): PC850 with € in place of the dotless ı.
        CodePage(name: "pc858", upperHalf: [
            "ÇüéâäàåçêëèïîìÄÅ",
            "ÉæÆôöòûùÿÖÜø£Ø×ƒ",
            "áíóúñÑªº¿®¬½¼¡«»",
            "░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐",
            "└┴┬├─┼ãÃ╚╔╩╦╠═╬¤",
            "ðÐÊËÈ€ÍÎÏ┘┌█▄¦Ì▀",
            "ÓßÔÒõÕµþÞÚÛÙýÝ¯´",
            "\u{AD}±‗¾¶§÷¸°¨·¹³²■\u{A0}",
        ]),
        /// Windows-1252 (Latin 1 with €, typographic quotes and dashes).
        CodePage(name: "wpc1252", upperHalf: [
            "€\u{FFFD}‚ƒ„…†‡ˆ‰Š‹Œ\u{FFFD}Ž\u{FFFD}",
            "\u{FFFD}‘’“”•–—˜™š›œ\u{FFFD}žŸ",
            "\u{A0}¡¢£¤¥¦§¨©ª«¬\u{AD}®¯",
            "°±²³´µ¶·¸¹º»¼½¾¿",
            "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏ",
            "ÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞß",
            "àáâãäåæçèéêëìíîï",
            "ðñòóôõö÷øùúûüýþÿ",
        ]),
        /// PC852 (Latin 2: Polish, Czech, Slovak, Hungarian, Croatian, Romanian).
        CodePage(name: "pc852", upperHalf: [
            "ÇüéâäůćçłëŐőîŹÄĆ",
            "ÉĹĺôöĽľŚśÖÜŤťŁ×č",
            "áíóúĄąŽžĘę¬źČş«»",
            "░▒▓│┤ÁÂĚŞ╣║╗╝Żż┐",
            "└┴┬├─┼Ăă╚╔╩╦╠═╬¤",
            "đĐĎËďŇÍÎě┘┌█▄ŢŮ▀",
            "ÓßÔŃńňŠšŔÚŕŰýÝţ´",
            "\u{AD}˝˛ˇ˘§÷¸°¨˙űŘř■\u{A0}",
        ]),
        /// PC866 (Cyrillic).
        CodePage(name: "pc866", upperHalf: [
            "АБВГДЕЖЗИЙКЛМНОП",
            "РСТУФХЦЧШЩЪЫЬЭЮЯ",
            "абвгдежзийклмноп",
            "░▒▓│┤╡╢╖╕╣║╗╝╜╛┐",
            "└┴┬├─┼╞╟╚╔╩╦╠═╬╧",
            "╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀",
            "рстуфхцчшщъыьэюя",
            "ЁёЄєЇїЎў°∙·√№¤■\u{A0}",
        ]),
    ]
}
