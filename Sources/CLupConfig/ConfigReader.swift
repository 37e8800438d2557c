import CLupCore
import Foundation

/// A configuration file that cannot be used: which file, which key, what is wrong.
public struct ConfigurationError: Error, CodedErrorConvertible, Equatable {
    public let file: String
    public let line: Int?
    public let key: String?
    public let problem: String

    public init(file: String, line: Int?, key: String?, problem: String) {
        self.file = file
        self.line = line
        self.key = key
        self.problem = problem
    }

    public var coded: CodedError {
        let place = [file + (line.map { ":\($0)" } ?? ""), key].compactMap { $0 }.joined(separator: ": ")
        return CodedError(.badConfiguration, "\(place): \(problem)")
    }
}

/// Reads the tables of a document and remembers which keys were read, to find unknown ones.
public struct ConfigReader {
    public let document: TOMLDocument
    public let file: String
    public let context: ConfigKeyContext
    private var read: Set<String> = []

    /// Parses `text` (from `file`, which names it in errors; relative paths in it are read
    /// from its folder).
    public init(parsing text: String, file: String) throws(ConfigurationError) {
        do {
            document = try TOMLDocument(parsing: text)
        } catch {
            throw ConfigurationError(file: file, line: error.line, key: nil, problem: error.message)
        }
        self.file = file
        context = ConfigKeyContext(folder: (file as NSString).deletingLastPathComponent)
    }

    /// Reads the file at `path`, refusing one larger than `maximumBytes` or not UTF-8.
    public static func load(path: String, maximumBytes: Int) throws(ConfigurationError) -> ConfigReader {
        let data: Data
        do {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            guard size <= maximumBytes else {
                throw ConfigurationError(file: path, line: nil, key: nil,
                                         problem: "the file has \(size) bytes; a configuration has at most \(maximumBytes)")
            }
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as ConfigurationError {
            throw error
        } catch {
            throw ConfigurationError(file: path, line: nil, key: nil, problem: "cannot read the file (\(fileErrorReason(error)))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(file: path, line: nil, key: nil, problem: "the file is not UTF-8 text")
        }
        return try ConfigReader(parsing: text, file: path)
    }

    /// The keys the document sets that nobody read, sorted.
    public var unreadKeys: [String] { document.values.keys.filter { !read.contains($0) }.sorted() }

    /// Fails on the first key nobody read: most likely a typo of a real one.
    public func refuseUnknownKeys() throws(ConfigurationError) {
        if let unknown = unreadKeys.first { throw error(unknown, "unknown key") }
    }

    public func error(_ key: String, _ problem: String) -> ConfigurationError {
        ConfigurationError(file: file, line: document.values[key]?.line, key: key, problem: problem)
    }

    /// Marks `key` as read (for tables read by hand).
    public mutating func markRead(_ key: String) {
        read.insert(key)
    }

    /// Reads `table`'s keys that the document sets, then checks the keys that must agree.
    public mutating func read<T: ConfigTable>(_ table: inout T) throws(ConfigurationError) {
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

    /// `table` as TOML: its header and keys, each with what it is for when `comments`.
    public static func section<T: ConfigTable>(_ table: T, comments: Bool) -> String {
        var lines = comments ? T.doc.split(separator: "\n").map { "# \($0)" } : []
        lines.append("[\(T.table)]")
        for key in T.keys {
            if comments { lines.append("# \(key.doc)") }
            lines.append("\(key.name) = \(key.write(table).text)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Why a file operation failed, in words.
public func fileErrorReason(_ error: any Error) -> String {
    let nsError = error as NSError
    if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
        return String(cString: strerror(Int32(underlying.code)))
    }
    return nsError.localizedDescription
}
