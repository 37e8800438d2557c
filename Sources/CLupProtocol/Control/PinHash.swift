import _CryptoExtras
import CLupCore
import Crypto
import Foundation

/// An employee's PIN as it is kept: scrypt of the PIN with a random salt, slow on purpose
/// (32 MiB and about a tenth of a second a try) so that a copy of the database does not
/// give the PINs away cheaply; the pad's lock limits guesses at the totem itself.
///
/// `clupctl` makes it from the PIN typed, so the PIN itself never crosses the control
/// socket; clupd checks what it receives (`problem`) and compares PINs typed on the pad.
public struct PinHash: Codable, Sendable, Equatable {
    /// "scrypt:LOG2N:R:P".
    public let kdf: String
    public let salt: Data
    public let hash: Data

    public static let defaultKDF = "scrypt:15:8:1"
    public static let saltBytes = 16
    public static let hashBytes = 32
    /// What the PIN pad takes.
    public static let minimumPin = 4
    public static let maximumPin = 12
    public static let maximumStaffNumber = 8

    public init(kdf: String, salt: Data, hash: Data) {
        self.kdf = kdf
        self.salt = salt
        self.hash = hash
    }

    /// The hash of `pin` with a new random salt (slow).
    public static func make(pin: String) throws -> PinHash {
        var generator = SystemRandomNumberGenerator()
        let salt = Data((0..<saltBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return PinHash(kdf: defaultKDF, salt: salt, hash: try derive(pin, salt: salt, kdf: defaultKDF))
    }

    /// Whether `pin` is the PIN hashed (slow; constant time in what it compares).
    public func matches(_ pin: String) -> Bool {
        guard let computed = try? Self.derive(pin, salt: salt, kdf: kdf), computed.count == hash.count else { return false }
        return zip(computed, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The same work as `matches`, for a staff number that does not exist: it takes as long.
    public static func decoy(_ pin: String) {
        _ = try? derive(pin, salt: Data(count: saltBytes), kdf: defaultKDF)
    }

    /// What is wrong with a hash received from outside, if anything.
    public var problem: String? {
        guard Self.parameters(kdf) != nil else { return "unknown PIN hash \"\(kdf.prefix(40))\" (this clupd makes \(Self.defaultKDF))" }
        guard salt.count == Self.saltBytes, hash.count == Self.hashBytes else {
            return "a PIN hash has a \(Self.saltBytes)-byte salt and a \(Self.hashBytes)-byte hash"
        }
        return nil
    }

    /// Why a PIN is refused, if it is.
    public static func problem(pin: String) -> String? {
        guard (minimumPin...maximumPin).contains(pin.count), pin.allSatisfy(\.isPadDigit) else {
            return "a PIN is \(minimumPin) to \(maximumPin) digits"
        }
        let digits = pin.compactMap(\.wholeNumberValue)
        if Set(digits).count == 1 { return "a PIN of one digit repeated is too easy to guess" }
        let steps = Set(zip(digits, digits.dropFirst()).map { ($1 - $0 + 10) % 10 })
        if steps == [1] || steps == [9] { return "a PIN of consecutive digits is too easy to guess" }
        return nil
    }

    /// Why a staff number is refused, if it is.
    public static func problem(staffNumber: String) -> String? {
        guard (1...maximumStaffNumber).contains(staffNumber.count), staffNumber.allSatisfy(\.isPadDigit) else {
            return "a staff number is 1 to \(maximumStaffNumber) digits (it is typed on the totem's pad)"
        }
        return nil
    }

    /// The PIN, typed twice without echo at a terminal, else one line of stdin.
    public static func readPin() throws -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            guard let line = readLine(strippingNewline: true) else { throw CodedError(.badEmployee, "no PIN on stdin") }
            return String(line.prefix(64))
        }
        let first = try Terminal.readHidden("PIN: ", failure: .badEmployee)
        let second = try Terminal.readHidden("PIN again: ", failure: .badEmployee)
        guard first == second else { throw CodedError(.badEmployee, "the two PINs differ") }
        return first
    }

    private static func parameters(_ kdf: String) -> (log: Int, r: Int, p: Int)? {
        let parts = kdf.split(separator: ":")
        guard parts.count == 4, parts[0] == "scrypt", let log = Int(parts[1]), (10...20).contains(log),
              let r = Int(parts[2]), (1...16).contains(r), let p = Int(parts[3]), (1...4).contains(p) else { return nil }
        return (log, r, p)
    }

    private static func derive(_ pin: String, salt: Data, kdf: String) throws -> Data {
        guard let (log, r, p) = parameters(kdf) else { throw CodedError(.internalError, "unknown PIN hash \(kdf.prefix(40))") }
        let key = try KDF.Scrypt.deriveKey(from: Data(pin.utf8), salt: salt, outputByteCount: hashBytes, rounds: 1 << log,
                                           blockSize: r, parallelism: p)
        return key.withUnsafeBytes { Data($0) }
    }
}

private extension Character {
    /// 0 to 9, as the pad types them (not other scripts' digits).
    var isPadDigit: Bool { ("0"..."9").contains(self) }
}
