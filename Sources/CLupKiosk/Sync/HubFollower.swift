import CLupCore
import CLupProtocol
import Crypto
import Foundation
import Logging
import Synchronization

/// Follows one document at the hub with a long poll, in a task of its own, and hands each
/// newer version to the kiosk's loop, which applies it: the store's settings
/// (`StoreSettingsDocument`, applied as an event) and the door's line (`DoorLine`, whose
/// new places are lined up as tickets).
///
/// A change made at the hub reaches a connected totem as soon as the hub's long poll is
/// woken (or within a second of its next look). Offline, what was applied stays in force
/// (it is in the event log); nothing here is stored.
final class HubFollower<Document: Sendable>: Sendable {
    /// Asks the hub for the document once newer than a version (a long poll).
    typealias Fetch = @Sendable (_ after: Int64, _ signer: HubClient.Signer) async throws -> Document

    /// What it follows, for the log ("the store's settings").
    private let name: String
    private let fetch: Fetch
    private let version: @Sendable (Document) -> Int64
    private let deviceID: String
    private let deviceKey: Data
    private let deliver: EventLoop.Mailbox<Document>
    private let logger: Logger
    private let state = Mutex<(known: Int64, stopping: Bool, failures: Int)>((0, false, 0))
    /// Ends the pause after a failure early: stop, or `sync now`.
    private let wakeUp: WakeUp
    /// Offset of the totem's clock to the hub's, from the sync (0 until it knows).
    private let clockOffset: @Sendable () -> Double

    init(_ name: String, client: HubClient, fetch: @escaping Fetch, version: @escaping @Sendable (Document) -> Int64,
         deviceID: String, deviceKey: Data, knownVersion: Int64, clockOffset: @escaping @Sendable () -> Double,
         deliver: EventLoop.Mailbox<Document>, logger: Logger) {
        self.name = name
        self.fetch = fetch
        self.version = version
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

    /// Forgets the version delivered last, so that the next answer is delivered again
    /// whatever its version (what was delivered could not be recorded). The long poll under
    /// way still waits for a change, at most its `HubWire.settingsWait`.
    func askAgain() {
        state.withLock { $0.known = -1 }
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
                let document = try await fetch(known, HubClient.Signer(deviceID: deviceID, key: key, clockOffset: clockOffset()))
                state.withLock { $0.failures = 0 }
                let newer = version(document)
                if newer > known {
                    state.withLock { $0.known = newer }
                    deliver.send(document)
                }
            } catch {
                let failures = state.withLock { state -> Int in
                    state.failures += 1
                    return state.failures
                }
                if failures == 1 { logger.warning("cannot follow \(name) at the hub; retrying", metadata: ["error": "\(error)"]) }
                await wakeUp.wait(upTo: SyncClient.backoff(afterFailures: failures))
            }
        }
    }
}
