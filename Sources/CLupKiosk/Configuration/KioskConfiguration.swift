import CLupCore
import Crypto
import Foundation

/// Everything `clupd` is told by `/etc/clup/clupd.toml`, one value per TOML table. Every key
/// has a default, so an empty file is a working simulated totem; an unknown key is an error,
/// as it is most likely a typo of a real one. Each key is declared once, in its table's
/// `keys`, for reading, for `clupctl config show` and for `hardware/clupd.example.toml`.
public struct KioskConfiguration: Sendable, Equatable {
    public var store = StoreSettings()
    public var totem = TotemSettings()
    public var printer = PrinterSettings()
    public var screen = ScreenSettings()
    public var tickets = TicketSettings()
    /// `[queue]`: capacity, shares and windows.
    public var queue = QueuePolicy()
    public var hardware = HardwareSettings()
    public var voice = VoiceSettings()
    public var control = ControlSettings()
    /// `[keys]`: the public ticket keys (raw 32 bytes) of the store's other totems, by letter.
    public var keys: [Character: Data] = [:]

    public init() {}

    /// The device id under which this totem's events are numbered.
    public var deviceID: String { "store-\(store.id)-totem-\(totem.letter)" }

    /// The default configuration file.
    public static let defaultPath = "/etc/clup/clupd.toml"
    /// A configuration file larger than this is refused unread.
    public static let maximumFileBytes = 1 << 20
}

/// A configuration file that cannot be used: which file, which key, what is wrong.
public struct ConfigurationError: Error, CodedErrorConvertible, Equatable {
    public let file: String
    public let line: Int?
    public let key: String?
    public let problem: String

    public var coded: CodedError {
        let place = [file + (line.map { ":\($0)" } ?? ""), key].compactMap { $0 }.joined(separator: ": ")
        return CodedError(.badConfiguration, "\(place): \(problem)")
    }
}

extension KioskConfiguration {
    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(ConfigurationError) -> KioskConfiguration {
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            guard size <= maximumFileBytes else {
                throw ConfigurationError(file: path, line: nil, key: nil,
                                         problem: "the file has \(size) bytes; a configuration has at most \(maximumFileBytes)")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: path, line: nil, key: nil, problem: "cannot read the file (\(reason(error)))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(file: path, line: nil, key: nil, problem: "the file is not UTF-8 text")
        }
        return try parse(text, file: path)
    }

    /// Checks TOML `text`; `file` names it in errors, and relative paths in it are read
    /// from its folder.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> KioskConfiguration {
        let document: TOMLDocument
        do {
            document = try TOMLDocument(parsing: text)
        } catch {
            throw ConfigurationError(file: file, line: error.line, key: nil, problem: error.message)
        }
        var reader = ConfigReader(document: document, file: file,
                                  context: ConfigKeyContext(folder: (file as NSString).deletingLastPathComponent))
        var config = KioskConfiguration()
        try reader.read(&config.store)
        try reader.read(&config.totem)
        try reader.read(&config.printer)
        try reader.read(&config.screen)
        try reader.read(&config.tickets)
        try reader.read(&config.queue)
        try reader.read(&config.hardware)
        try reader.read(&config.voice)
        try reader.read(&config.control)
        config.keys = try reader.readKeys()
        if let unknown = reader.unreadKeys.first {
            throw reader.error(unknown, "unknown key")
        }
        return config
    }

    /// The configuration as TOML that `parse` reads back to the same value; with `comments`,
    /// each table and key says what it is for.
    public func toml(comments: Bool = false) -> String {
        let tables = [Self.section(store, comments), Self.section(totem, comments), Self.section(printer, comments),
                      Self.section(screen, comments), Self.section(tickets, comments), Self.section(queue, comments),
                      Self.section(hardware, comments), Self.section(voice, comments), Self.section(control, comments)]
        let keyLines = keys.sorted { $0.key < $1.key }.map { "\($0.key) = \(TOMLValue.string($0.value.base64EncodedString()).text)" }
        let keysDoc = comments ? ["# The public ticket keys of the store's other totems, by letter (as `clupctl status` shows them):",
                                  "# their doors recognise this totem's tickets as genuine, and this door theirs. Example:",
                                  "# B = \"8Jb3…=\""] : []
        return (tables + [(keysDoc + ["[keys]"] + keyLines).joined(separator: "\n")]).joined(separator: "\n\n") + "\n"
    }

    /// `hardware/clupd.example.toml`: every key with its default and what it is for.
    public static var exampleFile: String {
        """
        # /etc/clup/clupd.toml: the configuration of one CLup totem.
        # Every key is optional; the values below are the defaults (written by `clupd example-config`).
        # A wrong key or value stops clupd with one line naming the file, line, key and problem
        # (exit status 78), so a typo never runs a half-configured kiosk.


        """ + KioskConfiguration().toml(comments: true)
    }

    private static func section<T: ConfigTable>(_ table: T, _ comments: Bool) -> String {
        var lines = comments ? T.doc.split(separator: "\n").map { "# \($0)" } : []
        lines.append("[\(T.table)]")
        for key in T.keys {
            if comments { lines.append("# \(key.doc)") }
            lines.append("\(key.name) = \(key.write(table).text)")
        }
        return lines.joined(separator: "\n")
    }

    /// The keys of `other` that differ from this configuration and that a running clupd
    /// cannot take: who the totem is (store id, `[totem]`), its screen size, `[hardware]`,
    /// `[voice]` and `[control]`. They need a restart.
    public func restartOnlyDifferences(to other: KioskConfiguration) -> [String] {
        var keys = Self.differingKeys(totem, other.totem) + Self.differingKeys(hardware, other.hardware)
            + Self.differingKeys(voice, other.voice) + Self.differingKeys(control, other.control)
        if store.id != other.store.id { keys.insert("store.id", at: 0) }
        if screen.width != other.screen.width { keys.append("screen.width") }
        if screen.height != other.screen.height { keys.append("screen.height") }
        return keys
    }

    /// This configuration with the keys a running clupd cannot take set as in `running`.
    public func keepingRestartOnlyKeys(of running: KioskConfiguration) -> KioskConfiguration {
        var merged = self
        merged.store.id = running.store.id
        merged.totem = running.totem
        merged.screen.width = running.screen.width
        merged.screen.height = running.screen.height
        merged.hardware = running.hardware
        merged.voice = running.voice
        merged.control = running.control
        return merged
    }

    private static func differingKeys<T: ConfigTable>(_ a: T, _ b: T) -> [String] {
        T.keys.filter { $0.write(a) != $0.write(b) }.map { "\(T.table).\($0.name)" }
    }

    /// Why a file operation failed, in words.
    static func reason(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return nsError.localizedDescription
    }
}

/// Reads the tables of a document and remembers which keys were read, to find unknown ones.
private struct ConfigReader {
    let document: TOMLDocument
    let file: String
    let context: ConfigKeyContext
    var read: Set<String> = []

    var unreadKeys: [String] { document.values.keys.filter { !read.contains($0) }.sorted() }

    func error(_ key: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(file: file, line: document.values[key]?.line, key: key, problem: problem)
    }

    /// Reads `table`'s keys that the document sets, then checks the keys that must agree.
    mutating func read<T: ConfigTable>(_ table: inout T) throws(ConfigurationError) {
        for key in T.keys {
            let name = "\(T.table).\(key.name)"
            read.insert(name)
            guard let (value, _) = document.values[name] else { continue }
            do {
                try key.read(&table, value, context)
            } catch {
                throw self.error(name, error.message)
            }
        }
        try table.validate { key, problem in error("\(T.table).\(key)", problem) }
    }

    /// `[keys]`: one base64 Ed25519 public key per totem letter.
    mutating func readKeys() throws(ConfigurationError) -> [Character: Data] {
        var keys: [Character: Data] = [:]
        for name in document.values.keys.filter({ $0.hasPrefix("keys.") }).sorted() {
            read.insert(name)
            let letter = String(name.dropFirst("keys.".count))
            guard letter.count == 1, let first = letter.first, first.isASCII, first.isUppercase else {
                throw error(name, "a totem is named by one capital letter A-Z")
            }
            guard case let .string(encoded)? = document.values[name]?.value, let raw = Data(base64Encoded: encoded), raw.count == 32,
                  (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil
            else { throw error(name, "expected a base64 Ed25519 public key (as `clupctl status` shows it)") }
            keys[first] = raw
        }
        return keys
    }
}
