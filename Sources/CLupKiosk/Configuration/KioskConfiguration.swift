import CLupConfig
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

extension KioskConfiguration {
    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(ConfigurationError) -> KioskConfiguration {
        var reader = try ConfigReader.load(path: path, maximumBytes: maximumFileBytes)
        return try read(&reader)
    }

    /// Checks TOML `text`; `file` names it in errors, and relative paths in it are read
    /// from its folder.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> KioskConfiguration {
        var reader = try ConfigReader(parsing: text, file: file)
        return try read(&reader)
    }

    private static func read(_ reader: inout ConfigReader) throws(ConfigurationError) -> KioskConfiguration {
        var config = KioskConfiguration()
        try reader.read(&config.store)
        guard config.store.opensMinute < config.store.closesMinute else {
            throw reader.error("store.closes", "the store closes before it opens (store.opens)")
        }
        try reader.read(&config.totem)
        try reader.read(&config.printer)
        try reader.read(&config.screen)
        try reader.read(&config.tickets)
        try reader.read(&config.queue)
        try reader.read(&config.hardware)
        try reader.read(&config.voice)
        try reader.read(&config.control)
        config.keys = try reader.readKeys()
        try reader.refuseUnknownKeys()
        return config
    }

    /// The configuration as TOML that `parse` reads back to the same value; with `comments`,
    /// each table and key says what it is for.
    public func toml(comments: Bool = false) -> String {
        func section<T: ConfigTable>(_ table: T) -> String { ConfigReader.section(table, comments: comments) }
        let tables = [section(store), section(totem), section(printer), section(screen), section(tickets), section(queue),
                      section(hardware), section(voice), section(control)]
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
    static func reason(_ error: any Error) -> String { fileErrorReason(error) }
}

extension ConfigReader {
    /// `[keys]`: one base64 Ed25519 public key per totem letter.
    mutating func readKeys() throws(ConfigurationError) -> [Character: Data] {
        var keys: [Character: Data] = [:]
        for name in document.values.keys.filter({ $0.hasPrefix("keys.") }).sorted() {
            markRead(name)
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
