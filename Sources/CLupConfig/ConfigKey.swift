import Foundation

/// One key of a configuration table, declared once: its name, what it is for (the comment
/// in `hardware/clupd.example.toml` and in `clupctl config show`), how it is read from TOML
/// and how the value in force is written back.
public struct ConfigKey<Table>: Sendable {
    public let name: String
    public let doc: String
    /// Reads the key's value into the table; throws what is wrong with it, in words.
    public let read: @Sendable (inout Table, TOMLValue, ConfigKeyContext) throws(ConfigKeyProblem) -> Void
    /// The value in force, as TOML.
    public let write: @Sendable (Table) -> TOMLValue

    public init(name: String, doc: String,
                read: @escaping @Sendable (inout Table, TOMLValue, ConfigKeyContext) throws(ConfigKeyProblem) -> Void,
                write: @escaping @Sendable (Table) -> TOMLValue) {
        self.name = name
        self.doc = doc
        self.read = read
        self.write = write
    }
}

/// Where a configuration is read from, for the keys whose value is a path relative to it.
public struct ConfigKeyContext: Sendable {
    /// The configuration file's folder.
    public let folder: String

    public init(folder: String) {
        self.folder = folder
    }

    /// `path` as given if absolute, else relative to the configuration file's folder.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : (folder as NSString).appendingPathComponent(path)
    }
}

/// What is wrong with a key's value, in words (the reader adds the file, line and key).
public struct ConfigKeyProblem: Error {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }
}

extension ConfigKey {
    /// A key whose value is a string made into `T` by `parse`: `expected` says what it must be.
    public static func parsed<T>(_ name: String, _ path: WritableKeyPath<Table, T> & Sendable, doc: String, expected: String,
                          parse: @escaping @Sendable (String) -> T?, format: @escaping @Sendable (T) -> String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            let text = try value.stringValue()
            guard let parsed = parse(text) else { throw ConfigKeyProblem("expected \(expected), got \"\(text)\"") }
            table[keyPath: path] = parsed
        }, write: { .string(format($0[keyPath: path])) })
    }

    /// A key that may be left empty (`""`, not set), else parsed into `T`.
    public static func optional<T>(_ name: String, _ path: WritableKeyPath<Table, T?> & Sendable, doc: String, expected: String,
                            parse: @escaping @Sendable (String) -> T?, format: @escaping @Sendable (T) -> String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            let text = try value.stringValue()
            guard !text.isEmpty else { return table[keyPath: path] = nil }
            guard let parsed = parse(text) else { throw ConfigKeyProblem("expected \(expected), got \"\(text)\"") }
            table[keyPath: path] = parsed
        }, write: { .string($0[keyPath: path].map(format) ?? "") })
    }

    public static func string(_ name: String, _ path: WritableKeyPath<Table, String> & Sendable, nonEmpty: Bool = false, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            let text = try value.stringValue()
            if nonEmpty && text.trimmingCharacters(in: .whitespaces).isEmpty { throw ConfigKeyProblem("must not be empty") }
            table[keyPath: path] = text
        }, write: { .string($0[keyPath: path]) })
    }

    /// Text that may be left empty (not set): a device node, an ALSA device, a group.
    public static func text(_ name: String, _ path: WritableKeyPath<Table, String?> & Sendable, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            let text = try value.stringValue()
            table[keyPath: path] = text.isEmpty ? nil : text
        }, write: { .string($0[keyPath: path] ?? "") })
    }

    /// A path that may be left empty; relative paths are read from the configuration's folder.
    public static func path(_ name: String, _ path: WritableKeyPath<Table, String?> & Sendable, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, context throws(ConfigKeyProblem) in
            let text = try value.stringValue()
            table[keyPath: path] = text.isEmpty ? nil : context.resolve(text)
        }, write: { .string($0[keyPath: path] ?? "") })
    }

    public static func integer(_ name: String, _ path: WritableKeyPath<Table, Int> & Sendable, in range: ClosedRange<Int>, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            guard case let .integer(number) = value else { throw ConfigKeyProblem("expected an integer, got \(value.typeName)") }
            guard range.contains(number) else {
                throw ConfigKeyProblem("\(number) is out of range \(range.lowerBound)...\(range.upperBound)")
            }
            table[keyPath: path] = number
        }, write: { .integer($0[keyPath: path]) })
    }

    /// A number `accepts` takes, kept multiplied by `scale` (minutes kept as seconds);
    /// `refusal` says why one is out of range.
    public static func number(_ name: String, _ path: WritableKeyPath<Table, Double> & Sendable, scale: Double = 1, what: String,
                       accepts: @escaping @Sendable (Double) -> Bool, refusal: @escaping @Sendable (String) -> String, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            guard let number = value.number else { throw ConfigKeyProblem("expected \(what), got \(value.typeName)") }
            guard accepts(number) else { throw ConfigKeyProblem(refusal(TOMLValue.float(number).text)) }
            table[keyPath: path] = number * scale
        }, write: { .float($0[keyPath: path] / scale) })
    }

    /// Seconds, more than 0 and at most a day.
    public static func seconds(_ name: String, _ path: WritableKeyPath<Table, Double> & Sendable, doc: String) -> ConfigKey {
        number(name, path, what: "a number of seconds", accepts: { $0 > 0 && $0 <= 86_400 },
               refusal: { "\($0) is out of range (0, 86400]" }, doc: doc)
    }

    /// Minutes (fractions allowed, for tests and demos) up to a week, kept as seconds.
    public static func minutes(_ name: String, _ path: WritableKeyPath<Table, Double> & Sendable, doc: String) -> ConfigKey {
        number(name, path, scale: 60, what: "a number of minutes", accepts: { (0...10_080).contains($0) },
               refusal: { "\($0) is out of range 0...10080" }, doc: doc)
    }

    /// A share in 0...1.
    public static func fraction(_ name: String, _ path: WritableKeyPath<Table, Double> & Sendable, doc: String) -> ConfigKey {
        number(name, path, what: "a share between 0 and 1", accepts: { (0...1).contains($0) },
               refusal: { "\($0) is not between 0 and 1" }, doc: doc)
    }

    public static func flag(_ name: String, _ path: WritableKeyPath<Table, Bool> & Sendable, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            guard case let .boolean(flag) = value else { throw ConfigKeyProblem("expected true or false, got \(value.typeName)") }
            table[keyPath: path] = flag
        }, write: { .boolean($0[keyPath: path]) })
    }

    public static func strings(_ name: String, _ path: WritableKeyPath<Table, [String]> & Sendable, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            guard case let .array(items) = value else { throw ConfigKeyProblem("expected an array of strings, got \(value.typeName)") }
            table[keyPath: path] = try items.map { item throws(ConfigKeyProblem) in
                guard case let .string(text) = item else { throw ConfigKeyProblem("expected strings, got \(item.typeName)") }
                return text
            }
        }, write: { .array($0[keyPath: path].map(TOMLValue.string)) })
    }

    public static func numbers(_ name: String, _ path: WritableKeyPath<Table, [Double]> & Sendable, count: Int, what: String, doc: String) -> ConfigKey {
        ConfigKey(name: name, doc: doc, read: { table, value, _ throws(ConfigKeyProblem) in
            guard case let .array(items) = value else { throw ConfigKeyProblem("expected an array of numbers, got \(value.typeName)") }
            let numbers = try items.map { item throws(ConfigKeyProblem) in
                guard let number = item.number else { throw ConfigKeyProblem("expected numbers, got \(item.typeName)") }
                return number
            }
            guard numbers.count == count else { throw ConfigKeyProblem("expected \(count) numbers (\(what)), got \(numbers.count)") }
            table[keyPath: path] = numbers
        }, write: { .array($0[keyPath: path].map(TOMLValue.float)) })
    }
}

extension TOMLValue {
    public func stringValue() throws(ConfigKeyProblem) -> String {
        guard case let .string(text) = self else { throw ConfigKeyProblem("expected a string, got \(typeName)") }
        return text
    }

    /// The value as TOML writes it: strings quoted and escaped, whole numbers without a
    /// fraction, arrays on one line.
    public var text: String {
        switch self {
        case let .string(value):
            "\"" + value.unicodeScalars.map { scalar -> String in
                switch scalar {
                case "\"": "\\\""
                case "\\": "\\\\"
                case "\n": "\\n"
                case "\t": "\\t"
                case "\r": "\\r"
                default: scalar.value < 0x20 ? String(format: "\\u%04X", scalar.value) : String(scalar)
                }
            }.joined() + "\""
        case let .integer(value): String(value)
        case let .float(value): value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case let .boolean(value): String(value)
        case let .array(items): "[" + items.map(\.text).joined(separator: ", ") + "]"
        }
    }
}
