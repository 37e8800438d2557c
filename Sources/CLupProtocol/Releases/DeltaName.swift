/// A delta between two clup-totem releases (Debian's `debdelta` format): the release manager
/// makes it (`clup-release sign --delta-from`) and lists it in the release's signed
/// manifest, the hub serves it below its repository (`ReleaseRepository.publishDeltas`), and
/// a totem's update helper running the earlier release fetches it rather than the whole
/// package (`TotemUpdater.fetchTarget`). The name says both versions, as
/// `ReleaseManifest.isVersion` allows them (no epoch, nothing a path would misread).
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
