import CLupCore
import Foundation

/// The hub's secrets sealed to its machine: systemd credentials (`SystemdCredentials`) in
/// systemd's own folder for them, `/etc/credstore.encrypted/`, which the hub's unit loads by
/// name (`LoadCredentialEncrypted=clup-hub.server-key`, …; one not there is skipped).
/// `clup-hub seal`, as root, seals each plain file it finds and erases it. The hub reads the
/// credential systemd opened for it and, where there is none, the plain file as before (a
/// hub not sealed yet, the tests). An administrator's command run by hand gets no
/// credential: a sealed database password is then out of its reach (README).
public enum HubSecret: String, CaseIterable, Sendable {
    /// The hub's TLS key (`server.key`).
    case serverKey = "clup-hub.server-key"
    /// The key of the CA totems trust (`ca.key`): read by no command after `clup-hub init`,
    /// kept sealed all the same.
    case caKey = "clup-hub.ca-key"
    /// The Web Push (VAPID) key (`push-key.pem`).
    case pushKey = "clup-hub.push-key"
    /// The database role's password (`[database] password_file`).
    case databasePassword = "clup-hub.db-password"
    /// The key notices to the chain's gateway are signed with (`[notices] webhook_secret_file`).
    case webhookSecret = "clup-hub.webhook-secret"

    /// systemd's folder of encrypted credentials, searched for a name given without a path.
    public static let store = "/etc/credstore.encrypted"

    /// The file to read the secret from: the credential systemd opened for the hub's unit,
    /// else `file`.
    public func path(else file: String?) -> String? { SystemdCredentials.opened(rawValue) ?? file }

    /// Where the secret is a plain file under `config`, if it is configured.
    public func plainFile(_ config: HubConfiguration) -> String? {
        let state = config.hub.stateDirectoryPath
        switch self {
        case .serverKey: return state + "/server.key"
        case .caKey: return state + "/ca.key"
        case .pushKey: return state + "/push-key.pem"
        case .databasePassword: return config.database.passwordFile
        case .webhookSecret: return config.notices.webhookSecretFile
        }
    }

    /// Whether the secret is sealed in `store`; true too when it cannot be told (the store is
    /// root's and the hub's user asks), so that nothing makes a plain secret beside a sealed one.
    public func isSealed(in store: String = HubSecret.store) -> Bool {
        var info = stat()
        if stat(store + "/" + rawValue, &info) == 0 { return true }
        return errno == EACCES
    }

    /// Seals every secret of `config` that is a plain file into `store` and erases the file;
    /// one sealed already is opened to check it (and a plain copy beside it erased when it is
    /// the same). Root only. A line per secret.
    public static func sealAll(_ config: HubConfiguration, store: String = HubSecret.store) throws(HubError) -> [String] {
        guard getuid() == 0 else { throw HubError(.forbidden, .hubKeysUnusable, "only root can seal the hub's secrets") }
        if !FileManager.default.fileExists(atPath: store), mkdir(store, 0o700) != 0 {
            throw HubError(.internalServerError, .hubKeysUnusable, "cannot create \(store): \(String(cString: strerror(errno)))")
        }
        var said: [String] = []
        for secret in allCases {
            let sealed = store + "/" + secret.rawValue
            guard let plain = secret.plainFile(config), FileManager.default.fileExists(atPath: plain) else {
                if secret.isSealed(in: store) {
                    _ = try secret.open(sealed)
                    said.append("\(secret.rawValue): sealed in \(sealed), opens on this machine")
                } else {
                    said.append("\(secret.rawValue): none")
                }
                continue
            }
            do {
                // Read as root reads in the hub's user's folder: never through a link.
                let data = try SystemdCredentials.readPlain(plain)
                if secret.isSealed(in: store) {
                    guard try secret.open(sealed) == data else {
                        throw HubError(.conflict, .hubKeysUnusable, "\(plain) and \(sealed) differ: keep the one in use, move the other away, and seal again")
                    }
                } else {
                    let folder = Glibc.open(store, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                    guard folder >= 0 else { throw HubError(.internalServerError, .hubKeysUnusable, "cannot open \(store)") }
                    defer { close(folder) }
                    try SystemdCredentials.seal(data, as: secret.rawValue, into: folder, file: secret.rawValue)
                }
                try SystemdCredentials.erase(plain)
            } catch let error as SystemdCredentials.Failure {
                throw HubError(.internalServerError, .hubKeysUnusable, error.message)
            } catch let error as HubError {
                throw error
            } catch {
                throw HubError(.internalServerError, .hubKeysUnusable, "\(error)")
            }
            said.append("\(secret.rawValue): sealed in \(sealed), the file \(plain) overwritten and removed")
        }
        return said
    }

    private func open(_ file: String) throws(HubError) -> Data {
        do {
            return try SystemdCredentials.open(rawValue, from: file)
        } catch {
            throw HubError(.internalServerError, .hubKeysUnusable,
                           "the sealed secret \(rawValue) (\(file)) cannot be opened on this machine: \(error.message)")
        }
    }
}
