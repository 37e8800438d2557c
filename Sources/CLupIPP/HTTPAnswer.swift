/// An HTTP/1.x answer as cupsd sends one: a status, its header fields and a body framed by
/// `Content-Length`, by chunks or by the end of the connection. Parsed from the bytes read so
/// far, which may be only part of it; every size is bounded.
public struct HTTPAnswer: Sendable, Equatable {
    public let status: Int
    /// Header fields, names in lower case, in the order sent.
    public let fields: [(name: String, value: String)]
    public let body: [UInt8]

    /// The first field named `name` (lower case).
    public func field(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    public static func == (lhs: HTTPAnswer, rhs: HTTPAnswer) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.fields.elementsEqual(rhs.fields) { $0 == $1 }
    }

    /// The longest header clupd reads (cupsd's are a few hundred bytes).
    public static let headerLimit = 16 * 1024
    /// The most interim answers (`100 Continue`) before the answer (cupsd sends one at most).
    public static let interimLimit = 4

    /// The answer in `bytes`, the first ones read from the connection; nil while more must be
    /// read. `atEnd`: the server has closed its side, so nothing more will come. Interim
    /// answers (`100 Continue`) are skipped.
    public static func parse(_ bytes: [UInt8], atEnd: Bool, bodyLimit: Int) throws(HTTPAnswerError) -> HTTPAnswer? {
        var start = 0
        var interim = 0
        while true {
            guard let headerEnd = find(crlfcrlf, in: bytes, from: start, within: headerLimit) else {
                if bytes.count - start > headerLimit { throw HTTPAnswerError("a header longer than \(headerLimit) bytes") }
                if atEnd { throw HTTPAnswerError(bytes.count == start ? "the connection closed with no answer" : "the connection closed inside the header") }
                return nil
            }
            let (status, fields) = try header(bytes[start..<headerEnd])
            let bodyStart = headerEnd + crlfcrlf.count
            if (100..<200).contains(status) {
                interim += 1
                guard interim <= interimLimit else { throw HTTPAnswerError("more than \(interimLimit) interim answers") }
                start = bodyStart
                continue
            }
            guard let body = try body(bytes, from: bodyStart, fields: fields, atEnd: atEnd, limit: bodyLimit) else { return nil }
            return HTTPAnswer(status: status, fields: fields, body: body)
        }
    }

    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private static func header(_ bytes: ArraySlice<UInt8>) throws(HTTPAnswerError) -> (Int, [(name: String, value: String)]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        // "HTTP/1.1 200 OK": the version, three digits, a reason.
        let statusLine = lines.first.map(String.init) ?? ""
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0", parts[1].count == 3,
              parts[1].allSatisfy(\.isASCIIDigit), let status = Int(parts[1]) else {
            throw HTTPAnswerError("not an HTTP/1.x status line: \(statusLine.prefix(40).debugDescription)")
        }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw HTTPAnswerError("a header line without a colon") }
            fields.append((line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingSpaces()))
        }
        return (status, fields)
    }

    private static func body(_ bytes: [UInt8], from start: Int, fields: [(name: String, value: String)], atEnd: Bool,
                             limit: Int) throws(HTTPAnswerError) -> [UInt8]? {
        let available = bytes.count - start
        if let encoding = fields.first(where: { $0.name == "transfer-encoding" })?.value {
            guard encoding.lowercased() == "chunked" else { throw HTTPAnswerError("transfer encoding \(encoding.prefix(40).debugDescription)") }
            return try chunked(bytes, from: start, atEnd: atEnd, limit: limit)
        }
        if let length = fields.first(where: { $0.name == "content-length" })?.value {
            guard !length.isEmpty, length.count <= 18, length.allSatisfy(\.isASCIIDigit), let count = Int(length) else {
                throw HTTPAnswerError("a Content-Length of \(length.prefix(40).debugDescription)")
            }
            guard count <= limit else { throw HTTPAnswerError("a body of \(count) bytes, more than \(limit)") }
            if available >= count { return Array(bytes[start..<start + count]) }
            if atEnd { throw HTTPAnswerError("the connection closed after \(available) of \(count) bytes") }
            return nil
        }
        // Neither: the body runs to the end of the connection.
        guard available <= limit else { throw HTTPAnswerError("a body of more than \(limit) bytes") }
        return atEnd ? Array(bytes[start...]) : nil
    }

    private static func chunked(_ bytes: [UInt8], from start: Int, atEnd: Bool, limit: Int) throws(HTTPAnswerError) -> [UInt8]? {
        var body: [UInt8] = []
        var offset = start
        func incomplete() throws(HTTPAnswerError) -> [UInt8]? {
            if atEnd { throw HTTPAnswerError("the connection closed inside a chunked body") }
            return nil
        }
        while true {
            // A chunk: its size in hexadecimal (extensions after ";" ignored), CRLF, the bytes, CRLF.
            guard let lineEnd = find([13, 10], in: bytes, from: offset, within: 1024) else {
                if bytes.count - offset > 1024 { throw HTTPAnswerError("a chunk size line longer than 1024 bytes") }
                return try incomplete()
            }
            let sizeText = String(decoding: bytes[offset..<lineEnd], as: UTF8.self).prefix { $0 != ";" }.trimmingSpaces()
            guard !sizeText.isEmpty, sizeText.count <= 8, sizeText.allSatisfy(\.isHexDigit), let size = Int(sizeText, radix: 16) else {
                throw HTTPAnswerError("a chunk size of \(sizeText.prefix(40).debugDescription)")
            }
            offset = lineEnd + 2
            if size == 0 {
                // Trailer fields, if any, up to an empty line.
                while true {
                    guard let end = find([13, 10], in: bytes, from: offset, within: headerLimit) else {
                        if bytes.count - offset > headerLimit { throw HTTPAnswerError("trailer fields longer than \(headerLimit) bytes") }
                        return try incomplete()
                    }
                    if end == offset { return body }
                    offset = end + 2
                }
            }
            guard size <= limit - body.count else { throw HTTPAnswerError("a chunked body of more than \(limit) bytes") }
            guard bytes.count - offset >= size + 2 else { return try incomplete() }
            guard bytes[offset + size] == 13, bytes[offset + size + 1] == 10 else { throw HTTPAnswerError("a chunk not followed by CRLF") }
            body.append(contentsOf: bytes[offset..<offset + size])
            offset += size + 2
        }
    }

    /// Where `pattern` starts in `bytes` at or after `from`, looking no further than `within`
    /// bytes past it.
    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from: Int, within: Int) -> Int? {
        let last = min(bytes.count - pattern.count, from + within)
        guard from <= last else { return nil }
        for index in from...last where bytes[index] == pattern[0] {
            if bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
        }
        return nil
    }
}

/// An answer that is not HTTP/1.x as cupsd speaks it.
public struct HTTPAnswerError: Error, Equatable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
