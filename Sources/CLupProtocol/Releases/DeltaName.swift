/// A delta between two clup-totem releases (Debian's `debdelta` format): the hub makes one
/// to each release it publishes from the few before (`ReleaseRepository.makeDeltas`) and
/// serves it below its repository; a totem's update helper running one of those fetches it
/// rather than the whole package (`TotemUpdater.fetchTarget`). The name says both versions,
/// as `ReleaseManifest.isVersion` allows them (no epoch, nothing a path would misread).
public enum DeltaName {
    /// The folder below the repository (`/repo/deltas/`).
    public static let folder = "deltas"

    /// "clup-totem_0.12.0_0.12.1_amd64.debdelta"
    public static func file(from: String, to: String, architecture: String) -> String {
        "clup-totem_\(from)_\(to)_\(architecture).debdelta"
    }

    /// The file's path below the repository's address.
    public static func urlPath(_ file: String) -> String { folder + "/" + file }
}
