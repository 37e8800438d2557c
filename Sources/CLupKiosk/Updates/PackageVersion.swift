import CLupProtocol
import Foundation

/// The clup-totem version this clupd runs as: the package's own (`package-version`, written
/// from debian/changelog when the package is built), which is what the hub's rollouts name;
/// in a checkout, where there is no package, the source's (`ClupVersion.current`). The two
/// differ for a package rebuilt without a change of source (0.12.0-2).
public enum PackageVersion {
    public static let path = "/usr/share/clup/package-version"

    public static let current: String = read(path) ?? ClupVersion.current

    static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 80 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.range(of: "^[0-9][A-Za-z0-9.+~:-]*\\z", options: .regularExpression) != nil else { return nil }
        return text
    }
}
