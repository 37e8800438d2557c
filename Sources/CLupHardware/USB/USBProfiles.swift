import CLupCore
import Foundation

/// Which known device a USB vendor:product is: data in `hardware/usb-devices.json`.
public struct USBProfiles: Sendable {
    /// One known device model.
    public struct Profile: Codable, Sendable, Equatable {
        /// `vvvv:pppp`, lower-case hex.
        public let id: String
        /// What the totem uses it for: printer, reader, touchscreen, turnstile, presence.
        public let role: String
        public let name: String
    }

    public let profiles: [Profile]

    public init(profiles: [Profile]) {
        self.profiles = profiles
    }

    /// Why the profiles file cannot be used.
    public struct LoadError: Error, CodedErrorConvertible {
        public let path: String
        public let problem: String
        public var coded: CodedError { CodedError(.badUSBProfiles, "USB profiles \(path): \(problem)") }
    }

    public static func load(path: String) throws(LoadError) -> USBProfiles {
        guard let data = FileManager.default.contents(atPath: path) else { throw LoadError(path: path, problem: "cannot read the file") }
        let profiles: [Profile]
        do {
            profiles = try JSONDecoder().decode([Profile].self, from: data)
        } catch {
            throw LoadError(path: path, problem: "not a list of {id, role, name} (\(error))")
        }
        if let bad = profiles.first(where: { !Self.isDeviceID($0.id) }) {
            throw LoadError(path: path, problem: "\"\(bad.id)\" is not a vendor:product id like 04b8:0e28")
        }
        return USBProfiles(profiles: profiles)
    }

    /// The profile of the device `id` (`vvvv:pppp`), if it is a known one.
    public func match(_ id: String) -> Profile? {
        profiles.first { $0.id == id.lowercased() }
    }

    static func isDeviceID(_ id: String) -> Bool {
        let parts = id.split(separator: ":")
        return parts.count == 2 && parts.allSatisfy { $0.count == 4 && $0.allSatisfy(\.isHexDigit) && $0 == $0.lowercased() }
    }
}
