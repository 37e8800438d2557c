import CLupConfig
import CLupCore
import Foundation

/// Everything `clup-hub` is told by `/etc/clup/clup-hub.toml`. Every key has a default;
/// an unknown key is an error, as for clupd.
public struct HubConfiguration: Sendable, Equatable {
    public var hub = HubSettings()
    public var database = DatabaseSettings()
    public var notices = NoticeSettings()

    public init() {}

    public static let defaultPath = "/etc/clup/clup-hub.toml"
    public static let maximumFileBytes = 1 << 20

    public static func load(path: String) throws(ConfigurationError) -> HubConfiguration {
        var reader = try ConfigReader.load(path: path, maximumBytes: maximumFileBytes)
        var config = HubConfiguration()
        try reader.read(&config.hub)
        try reader.read(&config.database)
        try reader.read(&config.notices)
        try reader.refuseUnknownKeys()
        if case let .failure(refused) = TrustedProxies.parse(config.hub.trustedProxies) {
            throw ConfigurationError(file: path, line: nil, key: "hub.trusted_proxies",
                                     problem: "\"\(refused.entry.prefix(64))\" is not an address or a network (10.0.0.5, 10.1.0.0/16, fd00::/8)")
        }
        for origin in config.hub.origins where WebOrigin(origin) == nil {
            throw ConfigurationError(file: path, line: nil, key: "hub.origins",
                                     problem: "\"\(origin.prefix(64))\" is not an origin (https://panel.example.com or https://name:port)")
        }
        return config
    }

    /// The configuration as TOML, each key with what it is for when `comments`.
    public func toml(comments: Bool = false) -> String {
        [ConfigReader.section(hub, comments: comments), ConfigReader.section(database, comments: comments),
         ConfigReader.section(notices, comments: comments)]
            .joined(separator: "\n\n") + "\n"
    }
}

/// `[hub]`: where the hub listens and keeps its keys.
public struct HubSettings: ConfigTable {
    public static let table = "hub"
    public static let doc = "Where the hub listens (HTTPS only) and keeps its CA, certificate and keys."
    public var host = "127.0.0.1"
    public var port = 8443
    public var stateDirectory: String? = nil
    /// The names and addresses totems reach the hub by: the certificate is made for them.
    public var names = ["localhost", "127.0.0.1"]
    /// How long an enrolment code lasts.
    public var enrolmentCodeLifetime: Double = 24 * 3600
    /// The bearer token Prometheus presents for `/metrics`; none: no metrics are served.
    public var metricsToken: String? = nil
    /// The bearer token the chain's phone app presents to the bookings API; none: no bookings.
    public var appToken: String? = nil
    /// The chain's reverse proxies in front of the hub, whose `X-Forwarded-For` names the client.
    public var trustedProxies: [String] = []
    /// The origins browsers reach the panel and the website by, when a reverse proxy in front
    /// changes the Host header (a state-changing request must come from one of them).
    public var origins: [String] = []

    public init() {}

    /// The state directory in force.
    public var stateDirectoryPath: String { stateDirectory ?? "/var/lib/clup-hub" }

    public static let keys: [ConfigKey<HubSettings>] = [
        .string("host", \.host, nonEmpty: true, doc: "The address to listen on."),
        .integer("port", \.port, in: 1...65535, doc: "The HTTPS port."),
        .path("state_directory", \.stateDirectory,
              doc: "The CA, the server certificate and its key (written by `clup-hub init`); empty: /var/lib/clup-hub."),
        .strings("names", \.names, doc: "The DNS names and IP addresses totems use to reach the hub; the certificate names them."),
        .number("enrolment_code_hours", \.enrolmentCodeLifetime, scale: 3600, what: "a number of hours",
                accepts: { $0 > 0 && $0 <= 720 }, refusal: { "\($0) is out of range (0, 720]" }, doc: "How long an enrolment code may be used, in hours."),
        .text("metrics_token", \.metricsToken,
              doc: "The bearer token Prometheus sends to GET /metrics (16 characters or more); empty: no metrics."),
        .text("app_token", \.appToken,
              doc: "The bearer token the chain's phone app sends to the bookings API (32 characters or more); empty: no bookings."),
        .strings("trusted_proxies", \.trustedProxies,
                 doc: "The chain's reverse proxies (addresses or networks, 10.0.0.5, 10.1.0.0/16): only theirs X-Forwarded-For names the client of a request, for the website's limits per client."),
        .strings("origins", \.origins,
                 doc: "The origins (https://name[:port]) browsers reach the panel and the website by, if a reverse proxy changes the Host header; empty: the request's own Host."),
    ]
}

/// `[database]`: the PostgreSQL the hub keeps everything in.
public struct DatabaseSettings: ConfigTable {
    public static let table = "database"
    public static let doc = "The PostgreSQL database."
    /// A Unix socket folder (as `psql -h` takes it); when empty, `host` and `port` are used.
    public var socketDirectory: String? = "/run/postgresql"
    public var host = "127.0.0.1"
    public var port = 5432
    public var user = "clup"
    public var name = "clup"
    /// A file holding the password (first line), for TCP connections that need one.
    public var passwordFile: String? = nil
    public var connections = 20
    /// The servers of a replicated cluster (Patroni's), as `host:port`: the hub serves from
    /// whichever is the primary. When set, `socket_directory`, `host` and `port` are not used.
    public var members: [String] = []

    public init() {}

    public static let keys: [ConfigKey<DatabaseSettings>] = [
        .path("socket_directory", \.socketDirectory, doc: "The folder of PostgreSQL's Unix socket; empty to connect by host and port."),
        .string("host", \.host, nonEmpty: true, doc: "PostgreSQL's host, when no socket folder is set."),
        .integer("port", \.port, in: 1...65535, doc: "PostgreSQL's port (also names the socket file)."),
        .string("user", \.user, nonEmpty: true, doc: "The database role."),
        .string("name", \.name, nonEmpty: true, doc: "The database."),
        .path("password_file", \.passwordFile, doc: "A file whose first line is the role's password; empty for none."),
        .integer("connections", \.connections, in: 1...500, doc: "At most this many connections from this hub process."),
        .strings("members", \.members, doc: "A replicated cluster's servers (host:port), of which the hub uses the primary; when set, socket_directory, host and port are not used."),
    ]
}

/// `[notices]`: where the notices the hub queues for customers go (`NoticeDelivery`): the
/// chain's notification gateway for the app's customers, Web Push for the website's visitors
/// who asked for it.
public struct NoticeSettings: ConfigTable {
    public static let table = "notices"
    public static let doc = "Where customer notices go: the chain's notification gateway (signed POSTs), and Web Push for the website's visitors."
    /// Where the notices are POSTed; none: they stay queued.
    public var webhookURL: String? = nil
    /// A file whose first line is the key the notices are signed with.
    public var webhookSecretFile: String? = nil
    /// The chain's contact the push services may reach (VAPID's `sub`); none: no Web Push.
    public var pushSubject: String? = nil
    /// The push services the hub sends to (a host, or `*.` and a domain): a subscription
    /// naming another host is refused, so the hub never posts where a visitor points it.
    public var pushServices = ["fcm.googleapis.com", "updates.push.services.mozilla.com", "*.push.apple.com", "*.notify.windows.com"]

    public init() {}

    public static let keys: [ConfigKey<NoticeSettings>] = [
        .text("webhook_url", \.webhookURL,
              doc: "The gateway's URL the notices are POSTed to: https, or http on loopback only; empty: notices stay queued."),
        .path("webhook_secret_file", \.webhookSecretFile,
              doc: "A file whose first line is the key the notices are signed with (32 characters or more)."),
        .text("push_subject", \.pushSubject,
              doc: "The chain's contact for the push services, mailto: or https: (RFC 8292); empty: the website offers no Web Push. The key is push-key.pem in the state directory (clup-hub init)."),
        .strings("push_services", \.pushServices,
                 doc: "The hosts of the push services the hub sends to (a name, or *. and a domain); a browser's subscription elsewhere is refused."),
    ]
}
