import ArgumentParser
import CLupConfig
import CLupCore
import CLupHub
import CLupProtocol
import Foundation
import Logging

/// `clup-hub`: the chain's central server, and its administrator's commands.
@main
struct ClupHub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clup-hub",
        abstract: "The CLup chain's hub: totems enrol and sync with it; PostgreSQL behind it.",
        subcommands: [Init.self, Migrate.self, Serve.self, StoreCommand.self, EmployeeCommand.self, ManagerCommand.self, EnrolmentCode.self, Totems.self, Revoke.self,
                      ReleaseCommand.self, RolloutCommand.self, TotemCommand.self, CountingCommand.self, RetentionCommand.self, Notices.self, AuditCommand.self, Seal.self, ExampleConfig.self])
}

struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "The configuration file.")
    var config = HubConfiguration.defaultPath

    func load() throws -> HubConfiguration {
        do {
            return FileManager.default.fileExists(atPath: config) || config != HubConfiguration.defaultPath
                ? try HubConfiguration.load(path: config) : HubConfiguration()
        } catch {
            throw CommandFailure(error.coded, exitCode: 78)
        }
    }
}

/// `withDatabase` for a change the administrator asks for: a refusal of the hub's (a
/// `HubError`: a rollout of a version nobody vouched for, a setting out of range) is audited
/// as the shell's before it is reported.
func changing<T: Sendable>(_ config: HubConfiguration, _ action: String, store: StoreID? = nil,
                           _ body: @Sendable (HubDatabase) async throws -> T) async throws -> T {
    try await withDatabase(config) { database in
        do {
            return try await body(database)
        } catch let refusal as HubError {
            await Audit.refused(by: .shell, store: store, action: action, error: refusal, database: database)
            throw refusal
        }
    }
}

/// An error printed as one line with its code and what to do, and the exit status.
struct CommandFailure: Error, CustomStringConvertible {
    let coded: CodedError
    let exitCode: Int32
    /// What the database said, for the administrator at the hub's own shell (never for a client).
    let detail: String?

    init(_ coded: CodedError, exitCode: Int32 = 1, detail: String? = nil) {
        self.coded = coded
        self.exitCode = exitCode
        self.detail = detail
    }

    init(_ error: HubError) { self.init(error.coded, detail: error.detail) }

    var description: String {
        "\(coded.code) \(coded.message)\(detail.map { " [\(TypedText.escaped($0))]" } ?? "") (\(coded.action))"
    }
}

/// Runs `body` with the database's pool running beside it; errors become one line. With
/// `reachableFirst` (an administrator's command), a database that is not there is said in
/// seconds (`HubDatabase.checkReachable`); `serve` waits on its pool as before.
func withDatabase<T: Sendable>(_ config: HubConfiguration, reachableFirst: Bool = true,
                               _ body: @Sendable (HubDatabase) async throws -> T) async throws -> T {
    // PostgresNIO's warnings, in every command: escaped, and with their priority under the journal.
    LineSafeLogHandler.bootstrap()
    var logger = Logger(label: "clup-hub")
    logger.logLevel = .warning
    let database = try HubDatabase(settings: config.database, logger: logger)
    do {
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await database.run()
                return nil
            }
            defer { group.cancelAll() }
            await database.findPrimary()
            await database.running()
            if reachableFirst { try await database.checkReachable() }
            return try await body(database)
        }
    } catch let error as HubError {
        throw CommandFailure(error)
    } catch {
        throw CommandFailure(HubDatabase.hubError(error))
    }
}

func fail(_ refusal: CommandFailure) -> ExitCode {
    FileHandle.standardError.write(Data("clup-hub: \(refusal)\n".utf8))
    return ExitCode(refusal.exitCode)
}

/// Runs `body`, printing a refusal as one line on standard error with its exit status.
func refusing(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let refusal as CommandFailure {
        throw fail(refusal)
    } catch let error as HubError {
        throw fail(CommandFailure(error))
    } catch let error as CodedError {
        throw fail(CommandFailure(error))
    }
}

struct Init: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Make the hub's CA and certificate, and migrate the database.")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        try await refusing {
            let config = try options.load()
            let certificates = HubCertificates(directory: config.hub.stateDirectoryPath)
            if certificates.exist {
                print("init: certificates in \(config.hub.stateDirectoryPath) kept")
            } else {
                try certificates.create(names: config.hub.names)
                print("init: CA \(certificates.caPath) (give it to totems with their enrolment codes)")
                print("init: certificate \(certificates.certificatePath) for \(config.hub.names.joined(separator: ", "))")
            }
            let releases = ReleaseRepository(stateDirectory: config.hub.stateDirectoryPath)
            if try releases.makeKeyIfNeeded(chain: config.hub.names.first ?? "hub") {
                print("init: the chain's release key, which signs its apt repository: \(releases.publicKeyPath) (totems learn it at enrolment)")
            } else {
                print("init: release key in \(releases.directory) kept")
            }
            if try PushService.makeKeyIfNeeded(stateDirectory: config.hub.stateDirectoryPath) {
                print("init: the hub's Web Push key: \(PushService.keyPath(stateDirectory: config.hub.stateDirectoryPath)) (set [notices] push_subject to use it)")
            }
            let applied = try await withDatabase(config) { try await $0.migrate() }
            print(applied.isEmpty ? "init: database schema up to date" : applied.map { "init: migrated \($0)" }.joined(separator: "\n"))
        }
    }
}

/// `clup-hub seal`: the hub's secrets sealed to its machine (as root).
struct Seal: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Seal the hub's secrets to this machine (systemd credentials in /etc/credstore.encrypted, as root); each plain file is erased.",
        discussion: "The TLS key, the CA's key, the Web Push key, the database password file and the webhook secret file. "
            + "Restart the hub after: its unit loads them. Commands run by hand cannot read a sealed database password: "
            + "they use PostgreSQL's peer authentication on its socket, as clup-hub's user.")
    @OptionGroup var options: ConfigOption
    @Option(help: "The folder of encrypted credentials the hub's unit loads from.") var credentialStore = HubSecret.store

    func run() async throws {
        try await refusing {
            for line in try HubSecret.sealAll(try options.load(), store: credentialStore) { print("seal: " + line) }
        }
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply the database migrations this hub has and the database lacks.")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        try await refusing {
            let applied = try await withDatabase(try options.load()) { try await $0.migrate() }
            print(applied.isEmpty ? "migrate: up to date" : applied.map { "migrate: \($0)" }.joined(separator: "\n"))
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve totems over HTTPS until SIGTERM.")
    @OptionGroup var options: ConfigOption

    func run() async throws {
        try await refusing {
            let config = try options.load()
            let gateway: NoticeGateway?, push: PushService?
            do throws(ConfigurationError) {
                gateway = try NoticeGateway(config.notices, file: options.config)
                push = try PushService(config.notices, stateDirectory: config.hub.stateDirectoryPath, file: options.config)
            } catch {
                throw error.coded
            }
            LineSafeLogHandler.bootstrap()
            var logger = Logger(label: "clup-hub")
            logger.logLevel = .info
            let tls = try HubCertificates(directory: config.hub.stateDirectoryPath).serverTLS()
            let database = try HubDatabase(settings: config.database, logger: logger)
            // The schema is checked once with a pool of its own, before serving; ingest's
            // window is the chain's retention from the first batch.
            database.keptEventDays = try await withDatabase(config, reachableFirst: false) {
                try await $0.checkSchema()
                return try await Retention(database: $0).refresh()
            }
            await database.findPrimary()
            logger.info("clup-hub serving", metadata: ["address": "\(config.hub.host):\(config.hub.port)"])
            try await HubServer(database: database, settings: config.hub, metrics: HubMetrics(), gateway: gateway, push: push, logger: logger)
                .run(tls: tls)
        }
    }
}

struct StoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "store", abstract: "Stores of the chain.",
                                                    subcommands: [Create.self, Set.self, Hours.self, Locate.self, Notices.self, Alerts.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a store.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number (as in clupd.toml's store.id).") var id: StoreID
        @Option(help: "The store's name.") var name: String
        @Option(help: "How many people may be inside at once.") var capacity: Int

        func run() async throws {
            try await refusing {
                try await withDatabase(try options.load()) { try await HubAdmin(database: $0).createStore(id: id, name: name, capacity: capacity) }
                print("store \(id) created")
            }
        }
    }
}

extension StoreCommand {
    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a store's capacity or shares: a new version, applied by its totems within seconds.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var id: StoreID
        @Option(help: "How many people may be inside at once.") var capacity: Int?
        @Option(help: "The share of capacity kept for priority tickets (0 to 1).") var priorityShare: Double?
        @Option(help: "The share of capacity one slot's bookings may take (0 to 1).") var bookingShare: Double?
        @Option(help: "Minutes a called ticket has to reach the door.") var presentationMinutes: Double?
        @Option(help: "Minutes before its slot a booking is admitted.") var bookingEarlyMinutes: Double?
        @Option(help: "Minutes after its slot starts a booking is still admitted.") var bookingLateMinutes: Double?
        @Option(help: "The length of a booking slot, in minutes.") var slotMinutes: Double?
        @Option(help: "Of each slot's booking places, how many each totem may book itself (offline too); the hub books the rest.")
        var totemBookingPlaces: Int?

        func run() async throws {
            try await refusing {
                let change = StoreSettingsChange(capacity: capacity, priorityShare: priorityShare, bookingShare: bookingShare,
                                                 presentationMinutes: presentationMinutes, bookingEarlyMinutes: bookingEarlyMinutes,
                                                 bookingLateMinutes: bookingLateMinutes, slotMinutes: slotMinutes,
                                                 totemBookingPlaces: totemBookingPlaces)
                let settings = try await changing(try options.load(), "store settings changed", store: id) {
                    try await HubAdmin(database: $0).setStore(id: id, change, by: .shell)
                }
                let windows = settings.windows.map {
                    ", presentation window \($0.presentationMinutes) min, bookings \($0.bookingEarlyMinutes) min early to "
                        + "\($0.bookingLateMinutes) min late, slots of \($0.slotMinutes) min"
                } ?? ""
                print("store \(id) settings version \(settings.version): capacity \(settings.capacity), "
                    + "priority share \(settings.priorityShare), booking share \(settings.bookingShare)\(windows)"
                    + ", \(settings.totemBookingPlaces ?? 0) places per slot for each totem's own bookings")
            }
        }
    }
}

extension StoreCommand {
    struct Hours: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set when a store opens and closes: the hours its booking slots are offered in.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var id: StoreID
        @Option(help: "Opening time, HH:MM.") var opens: String
        @Option(help: "Closing time, HH:MM (24:00 for midnight).") var closes: String
        @Option(help: "The store's time zone (e.g. Europe/Rome).") var timeZone = "UTC"

        func run() async throws {
            try await refusing {
                try await changing(try options.load(), "opening hours changed", store: id) {
                    try await HubAdmin(database: $0).setHours(id: id, opens: opens, closes: closes, timeZone: timeZone, by: .shell)
                }
                print("store \(id) opens \(opens) to \(closes) (\(timeZone))")
            }
        }
    }
}

extension StoreCommand {
    struct Locate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Put a store on the map, for the app's stores nearby.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var id: StoreID
        @Option(help: "Latitude, WGS 84 degrees (-90 to 90; south as --latitude=-33.86).") var latitude: Double
        @Option(help: "Longitude, WGS 84 degrees (-180 to 180; west as --longitude=-0.12).") var longitude: Double

        func run() async throws {
            try await refusing {
                try await changing(try options.load(), "location changed", store: id) {
                    try await HubAdmin(database: $0).setLocation(id: id, latitude: latitude, longitude: longitude, by: .shell)
                }
                print("store \(id) is at \(latitude), \(longitude)")
            }
        }
    }

    struct Notices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set what a store tells its customers: delays (R10), bookings cancelled by a major delay (R11), reminders.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var id: StoreID
        @Option(help: "While the store is full, bookings whose slot starts within this many minutes hear they may wait (0 to 240).")
        var delayNoticeMinutes: Int?
        @Option(help: "Once the store has been full this many minutes, those bookings are cancelled and told so (1 to 600; 0: never).")
        var majorDelayMinutes: Int?
        @Option(help: "Bookings made in the app hear a reminder this many minutes before their slot (0: none).")
        var reminderMinutes: Int?

        func run() async throws {
            try await refusing {
                let rules = try await changing(try options.load(), "notice rules changed", store: id) {
                    try await HubAdmin(database: $0).setNoticeRules(id: id, delayNoticeMinutes: delayNoticeMinutes,
                                                                    majorDelayMinutes: majorDelayMinutes, reminderMinutes: reminderMinutes,
                                                                    by: .shell)
                }
                print("store \(id): \(rules.description)")
            }
        }
    }

    struct Alerts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set when a store's staff are alerted: the estimated wait and the line's length past which they hear of it.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var id: StoreID
        @Option(help: "Alert the store's staff when the estimated wait passes this many minutes (1 to 600; 0: never).")
        var waitMinutes: Int?
        @Option(help: "Alert the store's staff when more than this many are waiting (1 to 100000; 0: never).")
        var waiting: Int?

        func run() async throws {
            try await refusing {
                let alerts = try await changing(try options.load(), "staff alerts changed", store: id) {
                    try await HubAdmin(database: $0).setStaffAlerts(id: id, waitMinutes: waitMinutes, waiting: waiting, by: .shell)
                }
                print("store \(id): \(alerts.description)")
            }
        }
    }
}

/// `clup-hub employee …`: a store's employees, who may log in at every one of its totems'
/// PIN pads. The PIN is hashed here; the totems get the hash with the next settings version.
struct EmployeeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "employee", abstract: "A store's employees, for its totems' PIN pads (staff numbers and PIN hashes only).",
        subcommands: [List.self, Add.self, Pin.self, Remove.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A store's employees.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var store: StoreID
        func run() async throws {
            try await refusing {
                let rows = try await withDatabase(try options.load()) { try await HubAdmin(database: $0).employees(store: store) }
                if rows.isEmpty { print("store \(store) has no employees at the hub") }
                for row in rows { print("\(row.staffNumber)  PIN set \(row.changedAt.formatted(.iso8601))") }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an employee; the PIN is asked twice (or read from one line of stdin when it is not a terminal).")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var store: StoreID
        @Argument(help: "The staff number, 1 to 8 digits.") var staffNumber: String
        func run() async throws { try await EmployeeCommand.put(store, staffNumber, options, replacing: false) }
    }

    struct Pin: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give an employee a new PIN.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var store: StoreID
        @Argument(help: "The staff number.") var staffNumber: String
        func run() async throws { try await EmployeeCommand.put(store, staffNumber, options, replacing: true) }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an employee: their PIN opens no session at the store's totems.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The store's number.") var store: StoreID
        @Argument(help: "The staff number.") var staffNumber: String
        func run() async throws {
            try await refusing {
                try await changing(try options.load(), "employee removed", store: store) {
                    try await HubAdmin(database: $0).removeEmployee(store: store, staffNumber: staffNumber, by: .shell)
                }
                print("store \(store): employee \(staffNumber) removed")
            }
        }
    }

    /// Reads the PIN, checks it and hashes it (scrypt, salted), then stores it at the hub.
    static func put(_ store: StoreID, _ staffNumber: String, _ options: ConfigOption, replacing: Bool) async throws {
        try await refusing {
            if let problem = PinHash.problem(staffNumber: staffNumber) { throw CodedError(.badEmployee, problem) }
            let pin = try PinHash.readPin()
            if let problem = PinHash.problem(pin: pin) { throw CodedError(.badEmployee, problem) }
            let hash = try PinHash.make(pin: pin)
            try await changing(try options.load(), replacing ? "employee PIN changed" : "employee added", store: store) {
                try await HubAdmin(database: $0).putEmployee(store: store, staffNumber: staffNumber, pin: hash, replacing: replacing, by: .shell)
            }
            print("store \(store): employee \(staffNumber) \(replacing ? "has a new PIN" : "added"); "
                + "the totems hear it with the next settings version")
        }
    }
}

struct ManagerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "manager", abstract: "The managers of the web panel.",
                                                    subcommands: [Add.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a manager (or set a new password): the password is read from standard input, first line.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The manager's name (small letters, digits, . _ -).") var name: String
        @Option(help: "chain-admin (every store) or store-manager (one store).") var role: String
        @Option(help: "A store manager's store.") var store: StoreID?

        func run() async throws {
            try await refusing {
                guard let role = PanelAccounts.Role(rawValue: role) else {
                    throw CommandFailure(CodedError(.badHubRequest, "--role is chain-admin or store-manager, not \"\(role)\""))
                }
                guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                    throw CommandFailure(CodedError(.badHubRequest, "no password on standard input"))
                }
                try await withDatabase(try options.load()) {
                    try await PanelAccounts(database: $0).add(name: name, password: password, role: role, store: store)
                }
                print("manager \(name): \(role.rawValue)\(store.map { " of store \($0)" } ?? "")")
            }
        }
    }
}

struct EnrolmentCode: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enrolment-code",
                                                    abstract: "Make a one-time code that enrols one totem at a store's door.")
    @OptionGroup var options: ConfigOption
    @Option(help: "The store.") var store: StoreID
    @Option(help: "The totem's letter in the store (A-Z).") var letter: String
    @Option(help: "The door it stands at.") var door = DoorName("main")

    func run() async throws {
        try await refusing {
            let config = try options.load()
            let code = try await withDatabase(config) {
                try await Enrolment(database: $0).makeCode(store: store, letter: letter, door: door,
                                                           lifetime: config.hub.enrolmentCodeLifetime)
            }
            print(code)
        }
    }
}

struct Totems: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the enrolled totems.")
    @OptionGroup var options: ConfigOption
    @Option(help: "Only this store's.") var store: StoreID?
    @Flag(help: "As JSON.") var json = false

    func run() async throws {
        try await refusing {
            let rows = try await withDatabase(try options.load()) { try await HubAdmin(database: $0).totems(store: store) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(rows), as: UTF8.self))
                return
            }
            let now = Date()
            for row in rows {
                let state = row.revokedAt == nil ? "enrolled" : "revoked"
                let support = row.outOfSupport(at: now) ? " OUT OF SUPPORT since \(row.supportEnds?.formatted(.iso8601.year().month().day()) ?? "")" : ""
                print("\(row.deviceID)  store \(row.store) totem \(row.letter) door \(row.door)  \(state)  acknowledged \(row.acknowledged)"
                    + (row.lastContact.map { "  last contact \($0)" } ?? "  never synced") + "  version \(row.softwareVersion)\(support)"
                    + (row.lastUpdate.map { "  last update \($0)" } ?? "")
                    + (row.integrity.flatMap { $0.isClean ? nil : "  ALERT integrity check \(TypedText.shown($0.summary))" } ?? "")
                    + (row.auditTrail.flatMap { $0.isNearlyFull ? "  audit trail \(Int(($0.share * 100).rounded(.down))) % full" : nil } ?? "")
                    + (row.notRecording.map { "  ALERT \(TypedText.shown($0))" } ?? "")
                    + (row.paper.flatMap { $0.low ? "  paper low" + ($0.ticketsLeft.map { ": about \($0) tickets left" } ?? "") : nil } ?? ""))
            }
        }
    }
}

struct Notices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the notices to customers the hub gave up sending to the gateway ([notices] webhook_url), with why.")
    @OptionGroup var options: ConfigOption
    @Option(help: "Only this store's.") var store: StoreID?

    func run() async throws {
        try await refusing {
            let dead = try await withDatabase(try options.load()) { try await NoticeDelivery.deadLetters(store: store, $0) }
            if dead.isEmpty { print("no notice was given up on") }
            for letter in dead {
                print("notice \(letter.id)  store \(letter.store)  \(letter.kind)  \(letter.kind == "called" ? "place" : "booking") \(letter.bookingNumber)"
                    + "  \(letter.attempts) attempt(s)  given up \(letter.deadAt.formatted(.iso8601))  \(letter.reason)")
            }
        }
    }
}

/// `clup-hub audit`: the chain's audit trail, newest last.
struct AuditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Print the audit trail: when, who and from where, which store, what, and how it ended.")
    @OptionGroup var options: ConfigOption
    @Option(help: "Only this store's.") var store: StoreID?
    @Option(help: "Only records since this day (YYYY-MM-DD, UTC).") var since: String?
    @Option(help: "At most this many, the newest (1 to 100000).") var limit = 200
    @Flag(help: "As JSON.") var json = false

    func run() async throws {
        try await refusing {
            guard (1...100_000).contains(limit) else { throw CommandFailure(CodedError(.badHubRequest, "--limit is 1 to 100000, not \(limit)")) }
            let day = try since.map { text in
                guard let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) else {
                    throw CommandFailure(CodedError(.badHubRequest, "--since is a day, YYYY-MM-DD, not \"\(TypedText.escaped(String(text.prefix(20))))\""))
                }
                return day
            }
            let entries = try await withDatabase(try options.load()) { try await Audit.entries(store: store, since: day, limit: limit, database: $0) }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                encoder.dateEncodingStrategy = .iso8601
                print(String(decoding: try encoder.encode(entries), as: UTF8.self))
                return
            }
            if entries.isEmpty { print("no audit record") }
            for entry in entries { print(entry.line) }
        }
    }
}

struct Revoke: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Revoke a totem: the hub refuses it from now on.")
    @OptionGroup var options: ConfigOption
    @Argument(help: "The totem's device id (as `clup-hub totems` lists it).") var device: DeviceID

    func run() async throws {
        try await refusing {
            try await withDatabase(try options.load()) { try await Enrolment(database: $0).revoke(deviceID: device) }
            print("\(device) revoked")
        }
    }
}

/// `clup-hub counting tolerance [N]`: how far off a store-day's count may be before the
/// panel flags it.
struct CountingCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "counting", abstract: "How the chain judges its doors' counting.",
                                                    subcommands: [Tolerance.self])

    struct Tolerance: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show or set the people left inside at closing as counted (either way) past which a store-day is flagged.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "People, 0 to 1000; shown when left out.") var people: Int?

        func run() async throws {
            try await refusing {
                guard let people else {
                    let tolerance = try await withDatabase(try options.load()) { try await HubAdmin(database: $0).countingTolerance() }
                    return print("counting tolerance: \(tolerance) people")
                }
                let before = try await changing(try options.load(), "counting tolerance") {
                    try await HubAdmin(database: $0).setCountingTolerance(people, by: .shell)
                }
                print("counting tolerance: \(people) people (was \(before))")
            }
        }
    }
}

/// `clup-hub totem replace OLD NEW`: a totem swapped for another at its door.
struct TotemCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "totem", abstract: "One totem of the fleet.",
                                                    subcommands: [Replace.self])

    struct Replace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Hand a door over from a totem taken away (switched off) to the one enrolled in its place: the old one is revoked, "
                + "its places go to the door again, audited.")
        @OptionGroup var options: ConfigOption
        @Argument(help: "The totem taken away (as `clup-hub totems` lists it).") var old: DeviceID
        @Argument(help: "The totem enrolled in its place, at the same door.") var new: DeviceID
        @Flag(help: "Even if the old totem was heard within the last 5 minutes (it is switched off, its last batch just came).")
        var force = false

        func run() async throws {
            try await refusing {
                // Audited where it is decided, refusals too, under the store.
                try await withDatabase(try options.load()) {
                    try await Enrolment(database: $0).replace(old, with: new, force: force, by: .shell)
                }
                print("\(new) serves the door of \(old), which is revoked")
            }
        }
    }
}

struct ExampleConfig: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "example-config", abstract: "Print a configuration with every key and its default.")

    func run() {
        print("# /etc/clup/clup-hub.toml: the configuration of a CLup hub. Every key is optional.\n")
        print(HubConfiguration().toml(comments: true), terminator: "")
    }
}

/// A store's number on the command line, as the hub's code takes it (`StoreID`).
extension StoreID: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
}

/// A totem's device id on the command line (`DeviceID`).
extension DeviceID: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
}

/// A door's name on the command line (`DoorName`).
extension DoorName: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument) }
}
