import CLupConfig
import CLupPrinting

/// `[printer]`: the ticket printer.
public struct PrinterSettings: ConfigTable {
    public static let table = "printer"
    public static let doc = "The ticket printer."

    public var queue = "clup-ticket"
    public var paper = PaperWidth.mm80
    /// The printer model's profile (`hardware/printers/*.json`) and where it was read from;
    /// nil prints PDF on `paper`.
    public var profile: (path: String, profile: PrinterProfile)?
    public var timeoutSeconds = 20.0

    public init() {}

    /// What the printer is given: its profile, or PDF on the configured paper.
    public var model: PrinterProfile { profile?.profile ?? .pdf(paper) }

    public static func == (lhs: PrinterSettings, rhs: PrinterSettings) -> Bool {
        (lhs.queue, lhs.paper, lhs.profile?.path, lhs.profile?.profile, lhs.timeoutSeconds)
            == (rhs.queue, rhs.paper, rhs.profile?.path, rhs.profile?.profile, rhs.timeoutSeconds)
    }

    public static let keys: [ConfigKey<PrinterSettings>] = [
        .string("queue", \.queue, nonEmpty: true, doc: "CUPS queue of the ticket printer"),
        .parsed("paper", \.paper, doc: "\"80mm\" or \"58mm\" roll (a profile's paper wins)", expected: "\"80mm\" or \"58mm\"",
                parse: PaperWidth.init(rawValue:), format: \.rawValue),
        ConfigKey(name: "profile", doc: "the printer model's profile (hardware/printers/*.json); empty prints PDF through the queue's driver",
                  read: { settings, value, context throws(ConfigKeyProblem) in
                      let path = try value.stringValue()
                      guard !path.isEmpty else { return settings.profile = nil }
                      do {
                          settings.profile = (path, try PrinterProfile.load(path: context.resolve(path)))
                      } catch {
                          throw ConfigKeyProblem("\(error)")
                      }
                  }, write: { .string($0.profile?.path ?? "") }),
        .seconds("timeout_seconds", \.timeoutSeconds, doc: "a job not finished by then is cancelled and the customer told"),
    ]
}
