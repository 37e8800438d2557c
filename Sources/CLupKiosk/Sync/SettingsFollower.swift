import CLupCore
import CLupProtocol
import Crypto
import Foundation
import Logging
import Synchronization

/// Follows the store's settings at the hub with a long poll in a task of its own, and
/// hands each newer version to the kiosk's loop, which applies it as an event.
///
/// A change made at the hub reaches a connected totem within a quarter second of the
/// hub's next look (it looks every 250 ms while holding the request). Offline, the last
/// version applied stays in force (it is in the event log); nothing here is stored.
final class SettingsFollower: Sendable {
    private let client: HubClient
    private let deviceID: String
    private let deviceKey: Data
    private let deliver: EventLoop.Mailbox<StoreSettingsDocument>
    private let logger: Logger
    private let state = Mutex<(known: Int64, stopping: Bool, failures: Int)>((0, false, 0))
    /// Ends the pause after a failure early: stop, or `sync now`.
    private let wakeUp: WakeUp
    /// Offset of the totem's clock to the hub's, from the sync (0 until it knows).
    private let clockOffset: @Sendable () -> Double

    init(client: HubClient, deviceID: String, deviceKey: Data, knownVersion: Int64, clockOffset: @escaping @Sendable () -> Double,
         deliver: EventLoop.Mailbox<StoreSettingsDocument>, logger: Logger) {
        self.client = client
        self.deviceID = deviceID
        self.deviceKey = deviceKey
        self.deliver = deliver
        self.clockOffset = clockOffset
        self.logger = logger
        wakeUp = client.wakeUp()
        state.withLock { $0.known = knownVersion }
    }

    func start() {
        Task.detached { [self] in await run() }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        wakeUp.signal()
    }

    /// Ends the pause after a failure now (`sync now`): a link that came back is used at once.
    func retryNow() {
        guard state.withLock({ $0.failures > 0 }) else { return }
        wakeUp.signal()
    }

    private func run() async {
        while !state.withLock({ $0.stopping }) {
            let known = state.withLock { $0.known }
            do {
                let key = try Curve25519.Signing.PrivateKey(rawRepresentation: deviceKey)
                let signer = HubClient.Signer(deviceID: deviceID, key: key, clockOffset: clockOffset())
                let settings = try await client.settings(after: known, signer: signer)
                state.withLock { $0.failures = 0 }
                if settings.version > known {
                    state.withLock { $0.known = settings.version }
                    deliver.send(settings)
                }
            } catch {
                let failures = state.withLock { state -> Int in
                    state.failures += 1
                    return state.failures
                }
                if failures == 1 { logger.warning("cannot follow the store's settings at the hub; retrying", metadata: ["error": "\(error)"]) }
                await wakeUp.wait(upTo: SyncClient.backoff(afterFailures: failures))
            }
        }
    }
}
