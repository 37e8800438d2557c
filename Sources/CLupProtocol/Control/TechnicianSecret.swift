import CLupCore
import Foundation

/// A technician's name and secret: what is accepted. The secret is kept as a salted scrypt
/// hash (`PinHash`), like an employee's PIN, and the name is locked after wrong secrets.
public enum TechnicianSecret {
    public static let minimumSecret = 10
    public static let maximumSecret = 128
    public static let maximumName = 32

    /// Why a technician name is refused, if it is.
    public static func problem(name: String) -> String? {
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || "._-".contains($0)) }
        guard (2...maximumName).contains(name.count), allowed, name.first?.isLetter == true else {
            return "a technician name is 2 to \(maximumName) lower-case letters, digits, dot, dash or underscore, starting with a letter"
        }
        return nil
    }

    /// Why a secret is refused for `name`, if it is.
    public static func problem(secret: String, name: String) -> String? {
        guard (minimumSecret...maximumSecret).contains(secret.count) else {
            return "a secret is \(minimumSecret) to \(maximumSecret) characters"
        }
        if secret.lowercased().contains(name.lowercased()) { return "a secret may not contain the technician's name" }
        if Set(secret).count < 4 { return "a secret needs at least 4 different characters" }
        return nil
    }

    /// The secret, typed twice without echo at a terminal, else one line of stdin.
    public static func readNew() throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else { throw CodedError(.badTechnician, "no secret on stdin") }
            return String(line.prefix(maximumSecret + 1))
        }
        let first = try Terminal.readHidden("new secret: ", failure: .badTechnician)
        let second = try Terminal.readHidden("the same again: ", failure: .badTechnician)
        guard first == second else { throw CodedError(.badTechnician, "the two secrets differ") }
        return first
    }
}

/// The terminal clupctl runs in.
public enum Terminal {
    /// One line read from the terminal with echo off (or from stdin when it is not one).
    public static func readHidden(_ prompt: String, failure: ErrorCode) throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else { throw CodedError(failure, "nothing on stdin") }
            return String(line.prefix(256))
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var saved = termios()
        tcgetattr(STDIN_FILENO, &saved)
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer {
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true) else { throw CodedError(failure, "nothing typed") }
        return String(line.prefix(256))
    }

    /// A line read with echo on (a name, a y/n answer); nil at the end of input.
    public static func readVisible(_ prompt: String) -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        return readLine(strippingNewline: true).map { String($0.prefix(256)) }
    }
}
