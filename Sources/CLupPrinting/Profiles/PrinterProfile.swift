import CLupCore
import Foundation

/// What the kiosk needs to know about a ticket printer model: a data file under
/// `hardware/printers/`, not a branch in the code.
public struct PrinterProfile: Codable, Sendable, Equatable {
    /// How tickets are sent to the printer.
    public enum Language: String, Codable, Sendable {
        /// ESC/POS bytes through a raw CUPS queue (thermal receipt printers).
        case escpos
        /// A PDF page through a driver-based CUPS queue.
        case pdf
    }

    /// How the QR code reaches an ESC/POS printer.
    public enum QRMode: String, Codable, Sendable {
        /// Drawn by us as a bitmap (`GS v 0`): works on every ESC/POS printer.
        case raster
        /// The printer's own QR command (`GS ( k`): sharper, not every model has it.
        case native
    }

    public let name: String
    public let language: Language
    public let paper: PaperWidth
    /// Printable dots per line (576 on 80 mm and 384 on 58 mm at 203 dpi).
    public let dotsPerLine: Int
    public let dpi: Int
    public let qr: QRMode
    public let cutter: Bool
    /// The code pages an ESC/POS printer has, in the order they are preferred, each with the
    /// number `ESC t` selects it by on this model. Absent from a profile: PC437 as page 0,
    /// which every ESC/POS printer has.
    public let codePages: [CodePageNumber]

    /// A code page and the number this model gives it.
    public struct CodePageNumber: Codable, Sendable, Equatable {
        /// A name from `CodePage.known` ("pc858").
        public let name: String
        /// `n` of `ESC t n`.
        public let select: Int

        public init(name: String, select: Int) {
            self.name = name
            self.select = select
        }
    }

    /// The paper roll the model takes, for the count of tickets left (`clupctl paper`):
    /// absent, the totem cannot say when the paper runs low but by the printer's own word.
    public let roll: Roll?

    /// A roll's length and what each print takes of it.
    public struct Roll: Codable, Sendable, Equatable {
        /// The roll's length, in millimetres (80 m: 80000).
        public let lengthMillimetres: Int
        /// What a customer's ticket takes, cut included, in millimetres.
        public let ticketMillimetres: Int
        /// What the technician's test print (`clupctl selftest printer`) takes.
        public let testMillimetres: Int
        /// Whether the printer has a near-end sensor whose state reaches CUPS (the IPP
        /// `media-low` reason): its word wins over the count.
        public let nearEndSensor: Bool
        /// From this many tickets left, "paper low".
        public let lowTickets: Int

        public init(lengthMillimetres: Int, ticketMillimetres: Int, testMillimetres: Int, nearEndSensor: Bool, lowTickets: Int) {
            self.lengthMillimetres = lengthMillimetres
            self.ticketMillimetres = ticketMillimetres
            self.testMillimetres = testMillimetres
            self.nearEndSensor = nearEndSensor
            self.lowTickets = lowTickets
        }

        /// Why the roll's figures cannot be used, if they cannot.
        var problem: String? {
            guard (1_000...1_000_000).contains(lengthMillimetres) else { return "roll.lengthMillimetres must be 1000...1000000" }
            guard (10...2_000).contains(ticketMillimetres), (10...2_000).contains(testMillimetres) else {
                return "roll.ticketMillimetres and roll.testMillimetres must be 10...2000"
            }
            guard (0...100_000).contains(lowTickets) else { return "roll.lowTickets must be 0...100000" }
            return nil
        }
    }

    /// The page every ESC/POS printer has at 0.
    public static let standardCodePages = [CodePageNumber(name: "pc437", select: 0)]

    public init(name: String, language: Language, paper: PaperWidth, dotsPerLine: Int, dpi: Int, qr: QRMode, cutter: Bool,
                codePages: [CodePageNumber] = PrinterProfile.standardCodePages, roll: Roll? = nil) {
        self.name = name
        self.language = language
        self.paper = paper
        self.dotsPerLine = dotsPerLine
        self.dpi = dpi
        self.qr = qr
        self.cutter = cutter
        self.codePages = codePages
        self.roll = roll
    }

    private enum CodingKeys: String, CodingKey {
        case name, language, paper, dotsPerLine, dpi, qr, cutter, codePages, roll
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(name: try container.decode(String.self, forKey: .name),
                  language: try container.decode(Language.self, forKey: .language),
                  paper: try container.decode(PaperWidth.self, forKey: .paper),
                  dotsPerLine: try container.decode(Int.self, forKey: .dotsPerLine),
                  dpi: try container.decode(Int.self, forKey: .dpi),
                  qr: try container.decode(QRMode.self, forKey: .qr),
                  cutter: try container.decode(Bool.self, forKey: .cutter),
                  codePages: try container.decodeIfPresent([CodePageNumber].self, forKey: .codePages) ?? Self.standardCodePages,
                  roll: try container.decodeIfPresent(Roll.self, forKey: .roll))
    }

    /// The profile's code pages with their tables, in order of preference (the profile was
    /// checked on loading: every name is known).
    public var pages: [(page: CodePage, select: UInt8)] {
        codePages.compactMap { number in CodePage.named(number.name).map { ($0, UInt8(clamping: number.select)) } }
    }

    /// A PDF printer with `paper`, used when no profile is configured.
    public static func pdf(_ paper: PaperWidth) -> PrinterProfile {
        PrinterProfile(name: "PDF \(paper.rawValue)", language: .pdf, paper: paper,
                       dotsPerLine: paper == .mm80 ? 576 : 384, dpi: 203, qr: .raster, cutter: true)
    }

    /// Why a profile file cannot be used.
    public struct LoadError: Error, CodedErrorConvertible, Equatable {
        public let path: String
        public let problem: String
        public var coded: CodedError { CodedError(.badPrinterProfile, "printer profile \(path): \(problem)") }
    }

    /// Reads and checks the JSON profile at `path`.
    public static func load(path: String) throws(LoadError) -> PrinterProfile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw LoadError(path: path, problem: "cannot read the file")
        }
        let profile: PrinterProfile
        do {
            profile = try JSONDecoder().decode(PrinterProfile.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw LoadError(path: path, problem: "missing \"\(key.stringValue)\"")
        } catch let DecodingError.dataCorrupted(context) {
            throw LoadError(path: path, problem: context.codingPath.last.map { "bad value for \"\($0.stringValue)\"" }
                ?? "not valid JSON")
        } catch let DecodingError.typeMismatch(_, context) {
            throw LoadError(path: path, problem: "wrong type for \"\(context.codingPath.last?.stringValue ?? "?")\"")
        } catch {
            throw LoadError(path: path, problem: "not a printer profile (\(error))")
        }
        guard (200...1200).contains(profile.dotsPerLine), profile.dotsPerLine % 8 == 0 else {
            throw LoadError(path: path, problem: "dotsPerLine must be a multiple of 8 between 200 and 1200")
        }
        guard (150...600).contains(profile.dpi) else { throw LoadError(path: path, problem: "dpi must be 150...600") }
        guard (1...16).contains(profile.codePages.count) else {
            throw LoadError(path: path, problem: "codePages must name 1 to 16 pages")
        }
        for number in profile.codePages {
            guard CodePage.named(number.name) != nil else {
                throw LoadError(path: path, problem: "codePages: no code page \"\(TypedText.inMessage(number.name))\" "
                    + "(known: \(CodePage.known.map(\.name).joined(separator: ", ")))")
            }
            guard (0...255).contains(number.select) else {
                throw LoadError(path: path, problem: "codePages: \(number.name) must be selected by a number 0...255")
            }
        }
        if let problem = profile.roll?.problem { throw LoadError(path: path, problem: problem) }
        return profile
    }
}
