/// An error as a person sees it: a stable code, what happened, and what to do, as fields.
///
/// Every error clupd, clup-hub or clupctl shows is one (or says how to make one,
/// `CodedErrorConvertible`); the wire carries the fields, so nothing ever parses a code out
/// of a sentence.
public struct CodedError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The code as sent (`E-PRN-003`). A newer peer may send one this build does not list.
    public let code: String
    /// What happened, with its particulars: "printer out of paper", "no room: 3 of 3 places taken".
    public let message: String
    /// What the person should do.
    public let action: String

    /// An error of `code` with its particulars; what to do is the registry's unless given.
    public init(_ code: ErrorCode, _ message: String, action: String? = nil) {
        self.code = code.rawValue
        self.message = message
        self.action = action ?? code.action
    }

    /// The registered code, if this build knows it.
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }

    /// "E-PRN-003 printer out of paper": the code and the message, for logs and one-line output.
    public var description: String { "\(code) \(message)" }
}

/// An error that can say what it is to a person.
public protocol CodedErrorConvertible: Error, CustomStringConvertible {
    var coded: CodedError { get }
}

extension CodedErrorConvertible {
    public var description: String { coded.description }
}

extension CodedError: CodedErrorConvertible {
    public var coded: CodedError { self }
}

extension CodedError {
    /// `error` as a person sees it: its own code if it has one, else an internal error
    /// that names it (a bug to report).
    public init(describing error: any Error) {
        if let coded = error as? any CodedErrorConvertible {
            self = coded.coded
        } else {
            self.init(.internalError, String(describing: error))
        }
    }
}
