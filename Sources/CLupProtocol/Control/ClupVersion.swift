/// The release of clupd and clupctl, built together: sent to the hub at enrolment, shown by
/// the shell and in diagnostics.
public enum ClupVersion {
    public static let current = "0.12.0"
}
